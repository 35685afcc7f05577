/*
 * Creation cases as a table, for the bad-input suite's programs that check
 * dmls_device_create_operator (test_bad_input_create.c, test_bad_input_rules.c): each row edits
 * fresh standard descs (bad_input.h) and says what creation must return. A failing row is
 * reported with its file and line.
 */
#ifndef DMLS_BAD_INPUT_CREATE_H
#define DMLS_BAD_INPUT_CREATE_H

#include "bad_input.h"

/* ------------------------------------------------------------------------------------------ */
/* The table's types and row makers                                                           */

/* The descs every creation case starts from, made afresh for each, and the heap arrays its
   edits allocated. */
typedef struct {
    dmls_test_nonzero nz;
    dm1_desc d1;
    dm0_desc d0;
    UINT *heap[2];
    int heap_count;
} descs;

/* What an edit changes: an operator's desc, or one of its tensors. */
typedef enum { NZ, NZ_IN, NZ_COUNT, NZ_COORDS, D1, D1_IN, D1_OUT, D0, D0_OUT } part;

typedef enum {
    EDIT_END = 0,      /* no more edits */
    EDIT_AS_IS,        /* nothing: the part's operator is created as it is */
    EDIT_NULL_DESC,    /* dmls_device_create_operator gets desc NULL */
    EDIT_OP_TYPE,      /* DML_OPERATOR_DESC.Type = value */
    EDIT_OP_DESC_NULL, /* DML_OPERATOR_DESC.Desc = NULL */
    EDIT_TENSOR_NULL,  /* the operator desc's pointer to the tensor = NULL */
    EDIT_DESC_NULL,    /* DML_TENSOR_DESC.Desc = NULL */
    EDIT_TENSOR_TYPE,  /* DML_TENSOR_DESC.Type = value */
    EDIT_SIZES_NULL,   /* Sizes = NULL */
    EDIT_SIZE_ZERO,    /* Sizes[value] = 0 (TotalTensorSizeInBytes stays the old one) */
    EDIT_DATA_TYPE,    /* DataType = value; on D1: the input's, the output's and ValueDataType */
    EDIT_VALUE_TYPE,   /* DIAGONAL_MATRIX1's ValueDataType = value */
    EDIT_DIMS,         /* DimensionCount = value */
    EDIT_HEAP_SIZES,   /* Sizes = a heap array of `value` ones: nothing past it may be read */
    EDIT_HEAP_STRIDES, /* Strides = a heap array of `value` ones */
    EDIT_TOTAL,        /* TotalTensorSizeInBytes = value */
    EDIT_TOTAL_MORE,   /* TotalTensorSizeInBytes += value */
    EDIT_TOTAL_LESS,   /* TotalTensorSizeInBytes -= value */
    EDIT_ALIGNMENT,    /* GuaranteedBaseOffsetAlignment = value */
    EDIT_FLAGS,        /* Flags = value */
    EDIT_RESHAPE       /* the tensor made again from `shape` */
} edit_kind;

/* A tensor to make again: its data type, Sizes and Strides (NULL: packed). */
typedef struct {
    DML_TENSOR_DATA_TYPE type;
    UINT dims;
    const UINT *sizes;
    const UINT *strides;
} shape;

typedef struct {
    part part;
    edit_kind kind;
    uint64_t value;
    const shape *shape; /* RESHAPE only */
} edit;

/* One creation case: the edits made to fresh standard descs, and what creation must return
   (with `needle` in the message). Its operator is the one of its first edit's part. */
typedef struct {
    const char *file; /* where the row is, for the report */
    int line;
    const kind *kind;
    edit edits[4];
    HRESULT want;
    const char *needle;
    const options *how; /* NULL: the plain case */
} create_case;

/* Row makers. ROW(kind, want, needle, how, edits...): `how` is NULL (the plain case) or one of
   ON, TYPED, NZ_DIMS, EACH, EACH_ON; each edit is one of the macros named as the EDIT_ kinds
   above, or SHAPE / STRIDED (SIZES: an array literal). */
#define ROW(kind, want, needle, how, ...)                                                          \
    {__FILE__, __LINE__, &kind, {__VA_ARGS__}, want, needle, how}
#define AS_IS(part) {part, EDIT_AS_IS, 0, NULL}
#define NULL_DESC(part) {part, EDIT_NULL_DESC, 0, NULL}
#define OP_TYPE(part, value) {part, EDIT_OP_TYPE, value, NULL}
#define OP_DESC_NULL(part) {part, EDIT_OP_DESC_NULL, 0, NULL}
#define TENSOR_NULL(part) {part, EDIT_TENSOR_NULL, 0, NULL}
#define DESC_NULL(part) {part, EDIT_DESC_NULL, 0, NULL}
#define TENSOR_TYPE(part, value) {part, EDIT_TENSOR_TYPE, value, NULL}
#define SIZES_NULL(part) {part, EDIT_SIZES_NULL, 0, NULL}
#define SIZE_ZERO(part, index) {part, EDIT_SIZE_ZERO, index, NULL}
#define DATA_TYPE(part, value) {part, EDIT_DATA_TYPE, value, NULL}
#define VALUE_TYPE(part, value) {part, EDIT_VALUE_TYPE, value, NULL}
#define DIMS(part, value) {part, EDIT_DIMS, value, NULL}
#define HEAP_SIZES(part, count) {part, EDIT_HEAP_SIZES, count, NULL}
#define HEAP_STRIDES(part, count) {part, EDIT_HEAP_STRIDES, count, NULL}
#define TOTAL(part, value) {part, EDIT_TOTAL, value, NULL}
#define TOTAL_MORE(part, value) {part, EDIT_TOTAL_MORE, value, NULL}
#define TOTAL_LESS(part, value) {part, EDIT_TOTAL_LESS, value, NULL}
#define ALIGNMENT(part, value) {part, EDIT_ALIGNMENT, value, NULL}
#define FLAGS(part, value) {part, EDIT_FLAGS, value, NULL}
#define SHAPE(part, type, dims, sizes)                                                             \
    {part, EDIT_RESHAPE, 0, &(const shape){DML_TENSOR_DATA_TYPE_##type, dims, sizes, NULL}}
#define STRIDED(part, type, dims, sizes, strides)                                                  \
    {part, EDIT_RESHAPE, 0, &(const shape){DML_TENSOR_DATA_TYPE_##type, dims, sizes, strides}}
#define SIZES(...) ((const UINT[]){__VA_ARGS__})
#define ON(dev) (&(const options){.device = dev})
#define TYPED(t) (&(const options){.type = DML_TENSOR_DATA_TYPE_##t})
#define NZ_DIMS(dims, dev) (&(const options){.device = dev, .nz_dims = dims})
#define CREATE_TABLE(cases) (cases), sizeof(cases) / sizeof(cases)[0] /* for create_table_cases */

/* ------------------------------------------------------------------------------------------ */
/* Running the rows                                                                           */

/* The devices the cases run on, made once. */
static dmls_device *g_devices[DEVICE_COUNT];

static inline void open_devices(void) {
    g_devices[NEWEST] = make_device(0, 0);
    g_devices[NEWEST_EXT] = make_device(0, DMLS_DEVICE_FLAG_EXTENSIONS);
    g_devices[L3_0] = make_device(DML_FEATURE_LEVEL_3_0, 0);
    g_devices[L3_1] = make_device(DML_FEATURE_LEVEL_3_1, 0);
    g_devices[L4_0] = make_device(DML_FEATURE_LEVEL_4_0, 0);
    g_devices[L4_0_EXT] = make_device(DML_FEATURE_LEVEL_4_0, DMLS_DEVICE_FLAG_EXTENSIONS);
    g_devices[L5_1] = make_device(DML_FEATURE_LEVEL_5_1, 0);
    g_devices[NO_DEVICE] = NULL;
}

static inline void close_devices(void) {
    int i;
    for (i = 0; i < DEVICE_COUNT; i++) {
        dmls_device_release(g_devices[i]);
        g_devices[i] = NULL;
    }
}

/* A heap array of `count` ones that lives until descs_free. */
static inline UINT *heap_ones(descs *d, uint64_t count) {
    UINT *a = (UINT *)malloc((size_t)count * sizeof(UINT));
    uint64_t i;
    if (a == NULL || d->heap_count == 2) {
        fprintf(stderr, "heap_ones: out of memory or slots\n");
        exit(2);
    }
    for (i = 0; i < count; i++) {
        a[i] = 1;
    }
    d->heap[d->heap_count++] = a;
    return a;
}

static inline void descs_free(descs *d) {
    while (d->heap_count > 0) {
        free(d->heap[--d->heap_count]);
    }
}

static inline DML_OPERATOR_DESC *operator_of(descs *d, part p) {
    if (p <= NZ_COORDS) {
        return &d->nz.op;
    }
    return p <= D1_OUT ? &d->d1.op : &d->d0.op;
}

/* The tensor a part names (NULL for an operator). */
static inline dmls_test_owned_tensor *tensor_of(descs *d, part p) {
    switch (p) {
    case NZ_IN: return &d->nz.in;
    case NZ_COUNT: return &d->nz.count;
    case NZ_COORDS: return &d->nz.coords;
    case D1_IN: return &d->d1.in;
    case D1_OUT: return &d->d1.out;
    case D0_OUT: return &d->d0.out;
    default: return NULL;
    }
}

/* Where the operator desc points to the tensor a part names. */
static inline const DML_TENSOR_DESC **tensor_pointer_of(descs *d, part p) {
    switch (p) {
    case NZ_IN: return &d->nz.nz.InputTensor;
    case NZ_COUNT: return &d->nz.nz.OutputCountTensor;
    case NZ_COORDS: return &d->nz.nz.OutputCoordinatesTensor;
    case D1_IN: return &d->d1.dm.InputTensor;
    case D1_OUT: return &d->d1.dm.OutputTensor;
    default: return &d->d0.dm.OutputTensor;
    }
}

/* Makes one edit; returns 0 when creation is to get a NULL desc. */
static inline int apply_edit(descs *d, const edit *e, uint64_t value) {
    dmls_test_owned_tensor *t = tensor_of(d, e->part);
    DML_BUFFER_TENSOR_DESC *b = t != NULL ? &t->buf : NULL;
    const int on_operator = e->kind < EDIT_DESC_NULL || e->kind == EDIT_VALUE_TYPE ||
                            (e->kind == EDIT_DATA_TYPE && e->part == D1);
    if (t == NULL && !on_operator) {
        fprintf(stderr, "bad table row in [%s]: edit %d needs a tensor\n", g_case, (int)e->kind);
        exit(2);
    }
    switch (e->kind) {
    case EDIT_END:
    case EDIT_AS_IS: break;
    case EDIT_NULL_DESC: return 0;
    case EDIT_OP_TYPE: operator_of(d, e->part)->Type = (DML_OPERATOR_TYPE)value; break;
    case EDIT_OP_DESC_NULL: operator_of(d, e->part)->Desc = NULL; break;
    case EDIT_TENSOR_NULL: *tensor_pointer_of(d, e->part) = NULL; break;
    case EDIT_DESC_NULL: t->desc.Desc = NULL; break;
    case EDIT_TENSOR_TYPE: t->desc.Type = (DML_TENSOR_TYPE)value; break;
    case EDIT_SIZES_NULL: b->Sizes = NULL; break;
    case EDIT_SIZE_ZERO: t->sizes[value] = 0; break;
    case EDIT_DATA_TYPE:
        if (e->part == D1) {
            d->d1.in.buf.DataType = (DML_TENSOR_DATA_TYPE)value;
            d->d1.out.buf.DataType = (DML_TENSOR_DATA_TYPE)value;
            d->d1.dm.ValueDataType = (DML_TENSOR_DATA_TYPE)value;
        } else {
            b->DataType = (DML_TENSOR_DATA_TYPE)value;
        }
        break;
    case EDIT_VALUE_TYPE: d->d1.dm.ValueDataType = (DML_TENSOR_DATA_TYPE)value; break;
    case EDIT_DIMS: b->DimensionCount = (UINT)value; break;
    case EDIT_HEAP_SIZES: b->Sizes = heap_ones(d, value); break;
    case EDIT_HEAP_STRIDES: b->Strides = heap_ones(d, value); break;
    case EDIT_TOTAL: b->TotalTensorSizeInBytes = value; break;
    case EDIT_TOTAL_MORE: b->TotalTensorSizeInBytes += value; break;
    case EDIT_TOTAL_LESS: b->TotalTensorSizeInBytes -= value; break;
    case EDIT_ALIGNMENT: b->GuaranteedBaseOffsetAlignment = (UINT)value; break;
    case EDIT_FLAGS: b->Flags = (DML_TENSOR_FLAGS)value; break;
    case EDIT_RESHAPE:
        dmls_test_owned_tensor_init(t, e->shape->type, e->shape->dims, e->shape->sizes,
                                    e->shape->strides);
        break;
    }
    return 1;
}

/* Runs one case (once, or once for each listed value) on `dev`. */
static inline void run_create_case(const create_case *c, const options *how, dmls_device *dev) {
    const DML_TENSOR_DATA_TYPE type = how->type != 0 ? how->type : DML_TENSOR_DATA_TYPE_FLOAT32;
    const size_t runs = how->values != NULL ? how->value_count : 1;
    size_t run, i;
    for (run = 0; run < runs; run++) {
        descs d;
        char what[96];
        int pass_desc = 1;
        memset(&d, 0, sizeof d);
        if (how->nz_dims != 0) {
            nz_init_dims(&d.nz, how->nz_dims);
        } else {
            nz_init(&d.nz);
        }
        dm1_init(&d.d1, type, 2);
        dm0_init(&d.d0, type, 4);
        for (i = 0; i < 4 && c->edits[i].kind != EDIT_END; i++) {
            const int listed = i == 0 && how->values != NULL;
            const uint64_t value = listed ? how->values[run] : c->edits[i].value;
            pass_desc &= apply_edit(&d, &c->edits[i], value);
        }
        if (how->values != NULL) {
            snprintf(what, sizeof what, "%s:%d, value 0x%llX", c->file, c->line,
                     (unsigned long long)how->values[run]);
        } else {
            snprintf(what, sizeof what, "%s:%d", c->file, c->line);
        }
        expect_create(what, dev, pass_desc ? operator_of(&d, c->edits[0].part) : NULL, c->want,
                      c->needle);
        descs_free(&d);
    }
}

/* Runs a table of creation cases, in order; each new kind starts a CASE. Needs open_devices. */
static inline void create_table_cases(const create_case *cases, size_t count) {
    static const options plain = {.device = KINDS_DEVICE};
    const kind *current = NULL;
    size_t i;
    for (i = 0; i < count; i++) {
        const create_case *c = &cases[i];
        const options *how = c->how != NULL ? c->how : &plain;
        if (c->kind != current) {
            current = c->kind;
            CASE(current->name);
        }
        run_create_case(c, how,
                        g_devices[how->device != KINDS_DEVICE ? how->device : current->device]);
    }
}

#endif /* DMLS_BAD_INPUT_CREATE_H */
