/*
 * Bad-input suite (bad_input.h): dmls_operator_execute: operators, counts, binding types,
 * NULL pointers, sizes, offsets and addresses, overflow and overlapping outputs, each checked
 * to leave every bound buffer (and the canary bytes around it) untouched. Most cases are rows
 * of k_exec_cases (one valid binding layout, edited by each row).
 */
#include "bad_input.h"

/* ------------------------------------------------------------------------------------------ */
/* Canary-guarded buffers                                                                     */

#define CANARY 0xCDu
#define ARENA 8192u
#define GUARD 1024u /* bindings point at least this far inside an arena */

/* C11's aligned_alloc and free; the Windows C runtime has neither for aligned blocks. */
#ifdef _WIN32
#include <malloc.h>
#define arena_alloc(bytes) _aligned_malloc((bytes), 64)
#define arena_free(p) _aligned_free(p)
#else
#define arena_alloc(bytes) aligned_alloc(64, (bytes))
#define arena_free(p) free(p)
#endif

typedef struct {
    unsigned char *mem; /* ARENA bytes, 64-aligned */
    unsigned char fill; /* what every byte holds while untouched */
} arena;

static arena arena_new(unsigned char fill) {
    arena a;
    a.mem = (unsigned char *)arena_alloc(ARENA);
    if (a.mem == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(a.mem, fill, ARENA);
    a.fill = fill;
    return a;
}

static int arena_untouched(const arena *a) {
    size_t i;
    for (i = 0; i < ARENA; i++) {
        if (a->mem[i] != a->fill) {
            return 0;
        }
    }
    return 1;
}

static void arena_reset(arena *a) { memset(a->mem, a->fill, ARENA); }

/* The kinds of invalid call the table checks (each a CASE of the suite). */
static const kind k_run_null_op =
    {"execute: NULL op", NEWEST};
static const kind k_run_input_count =
    {"execute: wrong input_count", NEWEST};
static const kind k_run_output_count =
    {"execute: wrong output_count", NEWEST};
static const kind k_run_null_inputs =
    {"execute: NULL inputs array with a nonzero count", NEWEST};
static const kind k_run_null_outputs =
    {"execute: NULL outputs array", NEWEST};
static const kind k_run_binding_type =
    {"execute: unknown binding Type", NEWEST};
static const kind k_run_buffer_array =
    {"execute: DML_BINDING_TYPE_BUFFER_ARRAY", NEWEST};
static const kind k_run_null_desc =
    {"execute: NULL binding Desc", NEWEST};
static const kind k_run_null_buffer =
    {"execute: NULL DML_BUFFER_BINDING.Buffer", NEWEST};
static const kind k_run_output_none =
    {"execute: an output bound with DML_BINDING_TYPE_NONE", NEWEST};
static const kind k_run_input_none =
    {"execute: a required input bound with DML_BINDING_TYPE_NONE", NEWEST};
static const kind k_run_input_without_desc =
    {"execute: DIAGONAL_MATRIX1 input bound although the desc's InputTensor is NULL", NEWEST};
static const kind k_run_size =
    {"execute: SizeInBytes below TotalTensorSizeInBytes", NEWEST};
static const kind k_run_offset_16 =
    {"execute: Offset not a multiple of 16", NEWEST};
static const kind k_run_offset_alignment =
    {"execute: Offset not a multiple of GuaranteedBaseOffsetAlignment", NEWEST};
static const kind k_run_address_element =
    {"execute: Buffer + Offset not aligned to the element size", NEWEST};
static const kind k_run_address_alignment =
    {"execute: Buffer + Offset not aligned to GuaranteedBaseOffsetAlignment", NEWEST};
static const kind k_run_offset_overflow =
    {"execute: Offset overflowing the address space", NEWEST};
static const kind k_run_end_overflow =
    {"execute: Offset + SizeInBytes overflowing the address space", NEWEST};
static const kind k_run_outputs_overlap =
    {"execute: outputs overlapping each other", NEWEST};
static const kind k_run_over_input =
    {"execute: an output overlapping an input", NEWEST};

/* ------------------------------------------------------------------------------------------ */
/* dmls_operator_execute                                                                      */

typedef struct {
    arena in, a, b;          /* input arena, two output arenas */
    unsigned char in_copy[ARENA];
    DML_BUFFER_BINDING bin, bout0, bout1;
    DML_BINDING_DESC in_desc[2], out_desc[3];
    DML_BUFFER_ARRAY_BINDING array; /* for a binding made a BUFFER_ARRAY */
} bindings;

/* Fills the input arena with a pattern holding zeros and non-zeros. */
static void bindings_init(bindings *s) {
    size_t i;
    s->in = arena_new(0);
    s->a = arena_new(CANARY);
    s->b = arena_new(CANARY);
    for (i = 0; i < ARENA; i += 4) {
        float v = (i / 4) % 3 == 0 ? 0.0f : (float)(i / 4);
        memcpy(s->in.mem + i, &v, sizeof v);
    }
    memcpy(s->in_copy, s->in.mem, ARENA);
}

/* Binds the standard layout: input at GUARD in the input arena, outputs at GUARD in a and b. */
static void bindings_reset(bindings *s, UINT64 in_size, UINT64 out0_size, UINT64 out1_size) {
    memcpy(s->in.mem, s->in_copy, ARENA);
    arena_reset(&s->a);
    arena_reset(&s->b);
    s->in_desc[0] = dmls_test_bind(&s->bin, s->in.mem, GUARD, in_size);
    s->out_desc[0] = dmls_test_bind(&s->bout0, s->a.mem, GUARD, out0_size);
    s->out_desc[1] = dmls_test_bind(&s->bout1, s->b.mem, GUARD, out1_size);
    s->in_desc[1] = s->in_desc[0];
    s->out_desc[2] = s->out_desc[1];
}

static void bindings_untouched(const char *what, bindings *s) {
    dmls_test_checks++;
    if (!arena_untouched(&s->a) || !arena_untouched(&s->b)) {
        fail(what, "an output buffer was written on failure");
    }
    if (memcmp(s->in.mem, s->in_copy, ARENA) != 0) {
        fail(what, "the input buffer was written");
    }
}

static void bindings_free(bindings *s) {
    arena_free(s->in.mem);
    arena_free(s->a.mem);
    arena_free(s->b.mem);
}

/* Executes and checks the code and message; on failure no buffer may have been written. */
static void expect_execute(const char *what, bindings *s, const dmls_operator *op, UINT input_count,
                           const DML_BINDING_DESC *inputs, UINT output_count,
                           const DML_BINDING_DESC *outputs, HRESULT want, const char *needle) {
    check_hr(what, dmls_operator_execute(op, input_count, inputs, output_count, outputs), want,
             needle);
    if (want != S_OK) {
        bindings_untouched(what, s);
    }
}

/* Execute cases, as a table: each row binds the standard layout (bindings_reset with the
   sizes of NONZERO_COORDINATES' tensors, 24, 4 and 48 bytes, unless `how` gives others), edits
   the bindings, and executes one of the operators below. */
typedef enum { OP_NULL, OP_NZ, OP_D1, OP_D1_NO_INPUT, OP_D0, OP_NZ_ALIGNED, OP_COUNT } op_id;

/* The call: the operator, the counts, and whether the arrays are passed (BOUND) or NULL. */
typedef struct {
    op_id op;
    UINT input_count;
    int inputs;
    UINT output_count;
    int outputs;
} call;
enum { NONE = 0, BOUND = 1 };

/* Which binding an edit changes, and which arena a Buffer is moved into. */
typedef enum { IN0, OUT0, OUT1 } slot;
typedef enum { ARENA_IN, ARENA_A, ARENA_B } arena_id;

typedef enum {
    BIND_END = 0,         /* no more edits */
    BIND_TYPE_SET,        /* DML_BINDING_DESC.Type = value */
    BIND_DESC_SET_NULL,   /* DML_BINDING_DESC.Desc = NULL */
    BIND_ARRAY,           /* a BUFFER_ARRAY holding the slot's own DML_BUFFER_BINDING */
    BIND_BUFFER_SET_NULL, /* DML_BUFFER_BINDING.Buffer = NULL */
    BIND_BUFFER_MOVE,     /* Buffer = the start of `arena` + value bytes */
    BIND_OFFSET_SET,      /* Offset = value */
    BIND_SIZE_SET         /* SizeInBytes = value */
} bind_kind;

typedef struct {
    slot slot;
    bind_kind kind;
    arena_id arena;
    uint64_t value;
} bind_edit;

typedef struct {
    int line; /* in this file, for the report */
    const kind *kind;
    call call;
    HRESULT want;
    const char *needle;
    const options *how; /* NULL, EACH (values for the first edit), SIZED or EACH_SIZED */
    bind_edit edits[2];
} exec_case;

/* Row makers: RUN(kind, call, want, needle, how, edits...). */
#define RUN(kind, call, want, needle, how, ...)                                                    \
    {__LINE__, &kind, call, want, needle, how, {__VA_ARGS__}}
#define CALL(op, input_count, inputs, output_count, outputs)                                       \
    {op, input_count, inputs, output_count, outputs}
#define NZ_CALL CALL(OP_NZ, 1, BOUND, 2, BOUND)
#define ALIGNED_CALL CALL(OP_NZ_ALIGNED, 1, BOUND, 2, BOUND)
#define D1_CALL CALL(OP_D1, 1, BOUND, 1, BOUND)
#define D0_CALL CALL(OP_D0, 0, NONE, 1, BOUND)
#define AS_BOUND {IN0, BIND_END, ARENA_IN, 0} /* no edit: the standard layout as it is */
#define BIND_TYPE(slot, value) {slot, BIND_TYPE_SET, ARENA_IN, value}
#define BIND_NONE(slot) BIND_TYPE(slot, DML_BINDING_TYPE_NONE)
#define BIND_DESC_NULL(slot) {slot, BIND_DESC_SET_NULL, ARENA_IN, 0}
#define BUFFER_ARRAY(slot) {slot, BIND_ARRAY, ARENA_IN, 0}
#define BUFFER_NULL(slot) {slot, BIND_BUFFER_SET_NULL, ARENA_IN, 0}
#define BUFFER(slot, arena, offset) {slot, BIND_BUFFER_MOVE, arena, offset}
#define OFFSET(slot, value) {slot, BIND_OFFSET_SET, ARENA_IN, value}
#define SIZE(slot, value) {slot, BIND_SIZE_SET, ARENA_IN, value}
#define SIZED(in, out0, out1) (&(const options){.sizes = {in, out0, out1}})
/* The sizes of DIAGONAL_MATRIX1's and DIAGONAL_MATRIX's tensors. */
#define DM_BOUND SIZED(48, 48, 0)
#define EACH_SIZED(list, in, out0, out1)                                                           \
    (&(const options){.values = list, .value_count = sizeof list / sizeof list[0],                \
                      .sizes = {in, out0, out1}})

static const uint64_t k_bad_binding_types[] = {3u, 100u, 0xFFFFFFFFu};
static const uint64_t k_offsets_not_16[] = {4, 8, 12, 1, 17, 1000};
static const uint64_t k_huge_offsets[] = {0xFFFFFFFFFFFFFFF0ull, 0x8000000000000000ull,
                                          0x7FFFFFFFFFFFFFF0ull};

/* Every execute case, in the order of the kinds. */
static const exec_case k_exec_cases[] = {
    RUN(k_run_null_op, CALL(OP_NULL, 1, BOUND, 2, BOUND), E_POINTER, "op", NULL, AS_BOUND),
    RUN(k_run_input_count, CALL(OP_NZ, 0, BOUND, 2, BOUND), E_INVALIDARG, "input_count", NULL, AS_BOUND),
    RUN(k_run_input_count, CALL(OP_NZ, 2, BOUND, 2, BOUND), E_INVALIDARG, "input_count", NULL, AS_BOUND),
    RUN(k_run_input_count, CALL(OP_NZ, 0xFFFFFFFFu, BOUND, 2, BOUND), E_INVALIDARG, "input_count", NULL, AS_BOUND),
    RUN(k_run_input_count, CALL(OP_D0, 1, BOUND, 1, BOUND), E_INVALIDARG, "input_count", NULL, AS_BOUND),
    RUN(k_run_input_count, CALL(OP_D1_NO_INPUT, 0, NONE, 1, BOUND), E_INVALIDARG, "input_count", NULL, AS_BOUND),
    RUN(k_run_output_count, CALL(OP_NZ, 1, BOUND, 1, BOUND), E_INVALIDARG, "output_count", NULL, AS_BOUND),
    RUN(k_run_output_count, CALL(OP_NZ, 1, BOUND, 3, BOUND), E_INVALIDARG, "output_count", NULL, AS_BOUND),
    RUN(k_run_output_count, CALL(OP_D0, 0, NONE, 0, BOUND), E_INVALIDARG, "output_count", NULL, AS_BOUND),
    RUN(k_run_output_count, CALL(OP_D1, 1, BOUND, 0xFFFFFFFFu, BOUND), E_INVALIDARG, "output_count", NULL, AS_BOUND),
    RUN(k_run_null_inputs, CALL(OP_NZ, 1, NONE, 2, BOUND), E_POINTER, "inputs", NULL, AS_BOUND),
    RUN(k_run_null_inputs, CALL(OP_D1, 1, NONE, 1, BOUND), E_POINTER, "inputs", NULL, AS_BOUND),
    RUN(k_run_null_outputs, CALL(OP_NZ, 1, BOUND, 2, NONE), E_POINTER, "outputs", NULL, AS_BOUND),
    RUN(k_run_null_outputs, CALL(OP_D0, 0, NONE, 1, NONE), E_POINTER, "outputs", NULL, AS_BOUND),
    RUN(k_run_binding_type, NZ_CALL, E_INVALIDARG, "DML_BINDING_TYPE", EACH(k_bad_binding_types), BIND_TYPE(IN0, LISTED)),
    RUN(k_run_binding_type, NZ_CALL, E_INVALIDARG, "DML_BINDING_TYPE", EACH(k_bad_binding_types), BIND_TYPE(OUT1, LISTED)),
    /* Each a BUFFER_ARRAY of one binding: the one the slot had. */
    RUN(k_run_buffer_array, NZ_CALL, E_INVALIDARG, "BUFFER_ARRAY", NULL, BUFFER_ARRAY(OUT0)),
    RUN(k_run_buffer_array, NZ_CALL, E_INVALIDARG, "BUFFER_ARRAY", NULL, BUFFER_ARRAY(IN0)),
    RUN(k_run_null_desc, NZ_CALL, E_POINTER, "Desc", NULL, BIND_DESC_NULL(IN0)),
    RUN(k_run_null_desc, NZ_CALL, E_POINTER, "Desc", NULL, BIND_DESC_NULL(OUT1)),
    RUN(k_run_null_buffer, NZ_CALL, E_POINTER, "Buffer", NULL, BUFFER_NULL(IN0)),
    RUN(k_run_null_buffer, NZ_CALL, E_POINTER, "Buffer", NULL, BUFFER_NULL(OUT0)),
    RUN(k_run_null_buffer, D0_CALL, E_POINTER, "Buffer", DM_BOUND, BUFFER_NULL(OUT0)),
    RUN(k_run_output_none, NZ_CALL, E_INVALIDARG, "OutputCountTensor", NULL, BIND_NONE(OUT0)),
    RUN(k_run_output_none, D1_CALL, E_INVALIDARG, "OutputTensor", DM_BOUND, BIND_NONE(OUT0), BIND_DESC_NULL(OUT0)),
    RUN(k_run_input_none, NZ_CALL, E_INVALIDARG, "InputTensor", NULL, BIND_NONE(IN0)),
    /* DIAGONAL_MATRIX1 whose desc has an InputTensor. */
    RUN(k_run_input_none, D1_CALL, E_INVALIDARG, "InputTensor", DM_BOUND, BIND_NONE(IN0)),
    RUN(k_run_input_without_desc, CALL(OP_D1_NO_INPUT, 1, BOUND, 1, BOUND), E_INVALIDARG, "InputTensor", DM_BOUND, AS_BOUND),
    RUN(k_run_size, NZ_CALL, E_INVALIDARG, "SizeInBytes", SIZED(24 - 4, 4, 48), AS_BOUND),
    RUN(k_run_size, NZ_CALL, E_INVALIDARG, "SizeInBytes", SIZED(24, 0, 48), AS_BOUND),
    RUN(k_run_size, NZ_CALL, E_INVALIDARG, "SizeInBytes", SIZED(24, 4, 48 - 1), AS_BOUND),
    RUN(k_run_size, D0_CALL, E_INVALIDARG, "SizeInBytes", SIZED(48, 48 - 4, 0), AS_BOUND),
    RUN(k_run_offset_16, NZ_CALL, E_INVALIDARG, "Offset", EACH(k_offsets_not_16), OFFSET(OUT1, LISTED)),
    RUN(k_run_offset_16, D1_CALL, E_INVALIDARG, "Offset", EACH_SIZED(k_offsets_not_16, 48, 48, 0), OFFSET(IN0, LISTED)),
    /* A multiple of 16, not of the input's alignment 64. */
    RUN(k_run_offset_alignment, ALIGNED_CALL, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", NULL, OFFSET(IN0, GUARD + 16)),
    RUN(k_run_address_element, NZ_CALL, E_INVALIDARG, "aligned", NULL, BUFFER(IN0, ARENA_IN, 2)),
    RUN(k_run_address_element, NZ_CALL, E_INVALIDARG, "aligned", NULL, BUFFER(OUT1, ARENA_B, 1)),
    RUN(k_run_address_element, D0_CALL, E_INVALIDARG, "aligned", DM_BOUND, BUFFER(OUT0, ARENA_A, 3)),
    /* 4-aligned, not 64-aligned (Offset GUARD is a multiple of 64). */
    RUN(k_run_address_alignment, ALIGNED_CALL, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", NULL, BUFFER(IN0, ARENA_IN, 32)),
    RUN(k_run_offset_overflow, NZ_CALL, E_INVALIDARG, "address space", EACH(k_huge_offsets), OFFSET(OUT1, LISTED)),
    RUN(k_run_offset_overflow, NZ_CALL, E_INVALIDARG, "address space", EACH(k_huge_offsets), OFFSET(IN0, LISTED)),
    RUN(k_run_end_overflow, NZ_CALL, E_INVALIDARG, "address space", SIZED(24, 4, 0xFFFFFFFFFFFFFFFFull), AS_BOUND),
    /* Past isize::MAX. */
    RUN(k_run_end_overflow, NZ_CALL, E_INVALIDARG, "address space", NULL, OFFSET(OUT0, 0x7FFFFFFFFFFFFF00ull), SIZE(OUT0, 0x100)),
    /* At the same address; then coordinates [GUARD - 32, GUARD + 16) over the count. */
    RUN(k_run_outputs_overlap, NZ_CALL, E_INVALIDARG, "overlaps", NULL, BUFFER(OUT1, ARENA_A, 0)),
    RUN(k_run_outputs_overlap, NZ_CALL, E_INVALIDARG, "overlaps", NULL, BUFFER(OUT1, ARENA_A, 0), OFFSET(OUT1, GUARD - 32)),
    RUN(k_run_over_input, NZ_CALL, E_INVALIDARG, "overlaps", NULL, BUFFER(OUT1, ARENA_IN, 0), OFFSET(OUT1, GUARD + 16)),
    RUN(k_run_over_input, NZ_CALL, E_INVALIDARG, "overlaps", NULL, BUFFER(OUT0, ARENA_IN, 0)),
    RUN(k_run_over_input, D1_CALL, E_INVALIDARG, "overlaps", DM_BOUND, BUFFER(OUT0, ARENA_IN, 0), OFFSET(OUT0, GUARD + 16)),
};

static void apply_bind_edit(bindings *s, const bind_edit *e, uint64_t value) {
    DML_BINDING_DESC *desc =
        e->slot == IN0 ? &s->in_desc[0] : &s->out_desc[e->slot == OUT0 ? 0 : 1];
    DML_BUFFER_BINDING *b = e->slot == IN0 ? &s->bin : e->slot == OUT0 ? &s->bout0 : &s->bout1;
    arena *memory = e->arena == ARENA_IN ? &s->in : e->arena == ARENA_A ? &s->a : &s->b;
    switch (e->kind) {
    case BIND_END: break;
    case BIND_TYPE_SET: desc->Type = (DML_BINDING_TYPE)value; break;
    case BIND_DESC_SET_NULL: desc->Desc = NULL; break;
    case BIND_ARRAY:
        s->array.BindingCount = 1;
        s->array.Bindings = b;
        desc->Type = DML_BINDING_TYPE_BUFFER_ARRAY;
        desc->Desc = &s->array;
        break;
    case BIND_BUFFER_SET_NULL: b->Buffer = NULL; break;
    case BIND_BUFFER_MOVE: b->Buffer = memory->mem + value; break;
    case BIND_OFFSET_SET: b->Offset = value; break;
    case BIND_SIZE_SET: b->SizeInBytes = value; break;
    }
}

static void exec_table_cases(bindings *s, dmls_operator *const ops[OP_COUNT]) {
    static const options plain = {.sizes = {24, 4, 48}};
    const kind *current = NULL;
    size_t i, run, j;
    for (i = 0; i < sizeof k_exec_cases / sizeof k_exec_cases[0]; i++) {
        const exec_case *c = &k_exec_cases[i];
        const options *how = c->how != NULL ? c->how : &plain;
        const int sized = (how->sizes[0] | how->sizes[1] | how->sizes[2]) != 0;
        const UINT64 *sizes = sized ? how->sizes : plain.sizes;
        const size_t runs = how->values != NULL ? how->value_count : 1;
        if (c->kind != current) {
            current = c->kind;
            CASE(current->name);
        }
        for (run = 0; run < runs; run++) {
            char what[96];
            bindings_reset(s, sizes[0], sizes[1], sizes[2]);
            for (j = 0; j < 2 && c->edits[j].kind != BIND_END; j++) {
                const int listed = j == 0 && how->values != NULL;
                apply_bind_edit(s, &c->edits[j], listed ? how->values[run] : c->edits[j].value);
            }
            if (how->values != NULL) {
                snprintf(what, sizeof what, "%s:%d, value 0x%llX", __FILE__, c->line,
                         (unsigned long long)how->values[run]);
            } else {
                snprintf(what, sizeof what, "%s:%d", __FILE__, c->line);
            }
            expect_execute(what, s, ops[c->call.op], c->call.input_count,
                           c->call.inputs ? s->in_desc : NULL, c->call.output_count,
                           c->call.outputs ? s->out_desc : NULL, c->want, c->needle);
        }
    }
}

static void execute_cases(void) {
    dmls_device *dev = make_device(0, 0);
    dmls_test_nonzero nz;
    dm1_desc d1;
    dm0_desc d0;
    dmls_operator *ops[OP_COUNT];
    bindings s;
    const UINT64 dm_bytes = 48;

    bindings_init(&s);
    ops[OP_NULL] = NULL;
    nz_init(&nz);
    ops[OP_NZ] = create_ok(dev, &nz.op);
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    ops[OP_D1] = create_ok(dev, &d1.op);
    d1.dm.InputTensor = NULL;
    ops[OP_D1_NO_INPUT] = create_ok(dev, &d1.op);
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    ops[OP_D0] = create_ok(dev, &d0.op);
    nz_init(&nz);
    nz.in.buf.GuaranteedBaseOffsetAlignment = 64;
    ops[OP_NZ_ALIGNED] = create_ok(dev, &nz.op);

    /* Positive control: the standard bindings run and write only the outputs' bytes. */
    bindings_reset(&s, 24, 4, 48);
    expect_execute("valid NONZERO", &s, ops[OP_NZ], 1, s.in_desc, 2, s.out_desc, S_OK, NULL);
    {
        uint32_t count;
        size_t i;
        memcpy(&count, s.a.mem + GUARD, 4);
        check_true("count is 4 (inputs 0,1,2,3,4,5 with 0 and 3 zero)", count == 4);
        for (i = 0; i < ARENA; i++) {
            if ((i < GUARD || i >= GUARD + 4) && s.a.mem[i] != CANARY) {
                fail("valid NONZERO", "wrote outside OutputCountTensor");
                break;
            }
        }
        for (i = 0; i < ARENA; i++) {
            if ((i < GUARD || i >= GUARD + 4 * 2 * 4) && s.b.mem[i] != CANARY) {
                fail("valid NONZERO", "wrote outside the first count rows of coordinates");
                break;
            }
        }
    }

    exec_table_cases(&s, ops);

    CASE("execute: DIAGONAL_MATRIX1 in place with a different layout");
    {
        static const UINT sizes[2] = {3, 4};
        static const UINT transposed[2] = {1, 3};
        dm1_desc t;
        dmls_operator *top;
        dm1_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        dmls_test_owned_tensor_init(&t.in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, transposed);
        top = create_ok(dev, &t.op);
        bindings_reset(&s, dm_bytes, dm_bytes, 0);
        s.bout0.Buffer = s.in.mem;
        expect_execute("same address, transposed input", &s, top, 1, s.in_desc, 1, s.out_desc,
                       E_INVALIDARG, "sizes and strides");
        dmls_operator_release(top);
    }

    /* Positive controls: in place with the same layout, and no-input DIAGONAL_MATRIX1 with a
       NONE binding (Desc ignored). */
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.bout0.Buffer = s.in.mem;
    check_hr("DIAGONAL_MATRIX1 in place is valid",
             dmls_operator_execute(ops[OP_D1], 1, s.in_desc, 1, s.out_desc), S_OK, NULL);
    memcpy(s.in.mem, s.in_copy, ARENA);
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.in_desc[0].Type = DML_BINDING_TYPE_NONE;
    s.in_desc[0].Desc = (const void *)&g_sentinel_storage;
    check_hr("DIAGONAL_MATRIX1 NONE input (Desc ignored) is valid",
             dmls_operator_execute(ops[OP_D1_NO_INPUT], 1, s.in_desc, 1, s.out_desc), S_OK, NULL);

    for (int i = 0; i < OP_COUNT; i++) {
        dmls_operator_release(ops[i]);
    }
    dmls_device_release(dev);
    bindings_free(&s);
}

int main(void) {
    printf("directml_subset %s: bad-input suite, execute\n", dmls_version());

    execute_cases();

    return bad_input_finish("test_bad_input_execute", 22);
}
