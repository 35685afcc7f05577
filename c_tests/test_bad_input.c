/*
 * Bad-input suite: every kind of invalid call the C API can receive, each checked for its
 * exact HRESULT, a non-empty message from dmls_get_last_error_message (naming what is wrong),
 * an untouched output parameter, and canary-filled output buffers proven untouched.
 *
 * Arrays the library must not read past (Sizes with a wrong DimensionCount, ...) are heap
 * allocations of exactly the length a correct reader may touch, so AddressSanitizer and
 * Valgrind (scripts/check_sanitizers.sh, scripts/check_valgrind.sh) catch an over-read.
 *
 * Each CASE is one distinct kind of invalid call; the suite fails unless there are at least 40.
 * Most cases are rows of tables: device_cases' `bad`, k_query_cases (feature queries),
 * k_create_cases (one valid desc per operator, edited by each row) and k_exec_cases (one valid
 * binding layout, edited by each row). A failing row is reported with its line in this file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmls_test.h"

/* ------------------------------------------------------------------------------------------ */
/* Bookkeeping                                                                                */

/* Checks and failed checks are counted in dmls_test_checks and dmls_test_failures
   (dmls_test.h); this suite reports them itself, with the kinds. */
static int g_kinds; /* distinct kinds of invalid call */
static const char *g_case = "";

#define CASE(name)                                                                                 \
    do {                                                                                           \
        g_case = (name);                                                                           \
        g_kinds++;                                                                                 \
    } while (0)

static void fail(const char *what, const char *detail) {
    dmls_test_failures++;
    fprintf(stderr, "FAIL [%s] %s: %s\n", g_case, what, detail);
}

/* Checks a returned HRESULT and the thread's message: on failure the message is non-empty,
   NUL-terminated, and contains `needle` (when given); on success it is empty. */
static void check_hr(const char *what, HRESULT got, HRESULT want, const char *needle) {
    char msg[1024];
    char detail[1400];
    size_t len;
    dmls_test_checks++;
    memset(msg, 0x7F, sizeof msg);
    len = dmls_get_last_error_message(msg, sizeof msg);
    if (got != want) {
        snprintf(detail, sizeof detail,
                 "returned 0x%08X (%s), expected 0x%08X (%s); message: %.900s", (unsigned)got,
                 dmls_test_hresult_name(got), (unsigned)want, dmls_test_hresult_name(want),
                 len ? msg : "(none)");
        fail(what, detail);
        return;
    }
    if (want == S_OK) {
        if (len != 0) {
            snprintf(detail, sizeof detail, "succeeded but left a message: %.900s", msg);
            fail(what, detail);
        }
        return;
    }
    if (len == 0 || msg[0] == '\0') {
        fail(what, "failed with the right code but no message");
        return;
    }
    if (strlen(msg) != (len < sizeof msg ? len : sizeof msg - 1)) {
        fail(what, "message length disagrees with dmls_get_last_error_message's return value");
        return;
    }
    if (needle != NULL && strstr(msg, needle) == NULL) {
        snprintf(detail, sizeof detail, "message does not mention \"%s\": %.900s", needle, msg);
        fail(what, detail);
    }
}

static void check_true(const char *what, int ok) {
    dmls_test_checks++;
    if (!ok) {
        fail(what, "condition false");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Canary-guarded buffers                                                                     */

#define CANARY 0xCDu
#define ARENA 8192u
#define GUARD 1024u /* bindings point at least this far inside an arena */

typedef struct {
    unsigned char *mem; /* ARENA bytes, 64-aligned */
    unsigned char fill; /* what every byte holds while untouched */
} arena;

static arena arena_new(unsigned char fill) {
    arena a;
    a.mem = (unsigned char *)aligned_alloc(64, ARENA);
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

/* ------------------------------------------------------------------------------------------ */
/* Operator descs (always used in place: the structs point into themselves)                    */

/* A NONZERO_COORDINATES desc: FLOAT32 input {2,3}, count {1}, coordinates {6,2}. */
static void nz_init(dmls_test_nonzero *d) {
    static const UINT in_sizes[2] = {2, 3}, count_sizes[1] = {1}, coord_sizes[2] = {6, 2};
    dmls_test_owned_tensor_init(&d->in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    dmls_test_owned_tensor_init(&d->count, DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    dmls_test_owned_tensor_init(&d->coords, DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, NULL);
    dmls_test_nonzero_link(d);
}

/* The same with `dims`-dimensional tensors for feature level 3.x: input {1,..,1,2,3}, count
   {1,..,1}, coordinates {1,..,1,6,N}. */
static void nz_init_dims(dmls_test_nonzero *d, UINT dims) {
    UINT in_sizes[8], count_sizes[8], coord_sizes[8], i;
    for (i = 0; i < 8; i++) {
        in_sizes[i] = count_sizes[i] = coord_sizes[i] = 1;
    }
    in_sizes[dims - 2] = 2;
    in_sizes[dims - 1] = 3;
    coord_sizes[dims - 2] = 6;
    coord_sizes[dims - 1] = 2;
    nz_init(d);
    dmls_test_owned_tensor_init(&d->in, DML_TENSOR_DATA_TYPE_FLOAT32, dims, in_sizes, NULL);
    dmls_test_owned_tensor_init(&d->count, DML_TENSOR_DATA_TYPE_UINT32, dims, count_sizes, NULL);
    dmls_test_owned_tensor_init(&d->coords, DML_TENSOR_DATA_TYPE_UINT32, dims, coord_sizes, NULL);
}

/* A DIAGONAL_MATRIX1 desc: FLOAT32 input and output {3,4}, Value 7, fill [0, 1). */
typedef struct {
    dmls_test_owned_tensor in, out;
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC dm;
    DML_OPERATOR_DESC op;
} dm1_desc;

static void dm1_init(dm1_desc *d, DML_TENSOR_DATA_TYPE type, UINT dims) {
    UINT sizes[4] = {1, 1, 1, 1};
    sizes[dims - 2] = 3;
    sizes[dims - 1] = 4;
    dmls_test_owned_tensor_init(&d->in, type, dims, sizes, NULL);
    dmls_test_owned_tensor_init(&d->out, type, dims, sizes, NULL);
    memset(&d->dm, 0, sizeof d->dm);
    d->dm.InputTensor = &d->in.desc;
    d->dm.OutputTensor = &d->out.desc;
    d->dm.ValueDataType = type;
    d->dm.Value.UInt64 = 0;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        d->dm.Value.Float32 = 7.0f;
    } else {
        d->dm.Value.UInt8 = 7;
    }
    d->dm.DiagonalFillBegin = 0;
    d->dm.DiagonalFillEnd = 1;
    d->op.Type = DML_OPERATOR_DIAGONAL_MATRIX1;
    d->op.Desc = &d->dm;
}

/* A DIAGONAL_MATRIX desc: output {1,1,3,4} (or `dims` dimensions ending in 3,4). */
typedef struct {
    dmls_test_owned_tensor out;
    DML_DIAGONAL_MATRIX_OPERATOR_DESC dm;
    DML_OPERATOR_DESC op;
} dm0_desc;

static void dm0_init(dm0_desc *d, DML_TENSOR_DATA_TYPE type, UINT dims) {
    UINT sizes[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    sizes[dims - 2] = 3;
    sizes[dims - 1] = 4;
    dmls_test_owned_tensor_init(&d->out, type, dims, sizes, NULL);
    d->dm.OutputTensor = &d->out.desc;
    d->dm.Offset = 1;
    d->dm.Value = 2.5f;
    d->op.Type = DML_OPERATOR_DIAGONAL_MATRIX;
    d->op.Desc = &d->dm;
}

/* ------------------------------------------------------------------------------------------ */
/* Devices and creation checks                                                                */

static const DML_FEATURE_LEVEL k_levels[15] = {
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};

/* A one-thread device; the suite cannot go on without it. */
static dmls_device *make_device(DML_FEATURE_LEVEL level, uint32_t flags) {
    dmls_device *dev = dmls_test_device_flags(level, flags);
    if (dev == NULL) {
        exit(2);
    }
    return dev;
}

/* A pointer value the library must never write or dereference; used to prove an output
   parameter is left untouched on failure. */
static int g_sentinel_storage;
#define SENTINEL_OP ((dmls_operator *)(void *)&g_sentinel_storage)
#define SENTINEL_DEV ((dmls_device *)(void *)&g_sentinel_storage)

/* Creates an operator and checks the code, the message and that `*op` is untouched on
   failure. A success is released. */
static void expect_create(const char *what, const dmls_device *dev, const DML_OPERATOR_DESC *desc,
                          HRESULT want, const char *needle) {
    dmls_operator *op = SENTINEL_OP;
    HRESULT hr = dmls_device_create_operator(dev, desc, &op);
    check_hr(what, hr, want, needle);
    if (hr == S_OK) {
        dmls_test_checks++;
        if (op == SENTINEL_OP || op == NULL) {
            fail(what, "succeeded without writing *op");
        } else {
            dmls_operator_release(op);
        }
    } else {
        dmls_test_checks++;
        if (op != SENTINEL_OP) {
            fail(what, "*op was written on failure");
        }
    }
}

static dmls_operator *create_ok(const dmls_device *dev, const DML_OPERATOR_DESC *desc) {
    dmls_operator *op = NULL;
    HRESULT hr = dmls_device_create_operator(dev, desc, &op);
    if (hr != S_OK || op == NULL) {
        char msg[512];
        dmls_get_last_error_message(msg, sizeof msg);
        fprintf(stderr, "cannot create a valid operator (%s): %s\n", g_case, msg);
        exit(2);
    }
    return op;
}

/* ------------------------------------------------------------------------------------------ */
/* Device creation and feature queries                                                        */

static void device_cases(void) {
    /* Bad device descs: each row is checked for its code and message, and *device stays
       untouched. A row with a kind starts a kind of invalid call. */
    static const struct {
        const char *kind;
        dmls_device_desc desc; /* feature_level, thread_count, flags */
        HRESULT want;
        const char *needle;
    } bad[] = {
        {"dmls_device_create: unknown feature level",
         {0x1234u, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x0FFFu, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x6401u, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x10000u, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0xFFFFFFFFu, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x1100u, 1, 0}, E_INVALIDARG, "feature_level"},
        {"dmls_device_create: well-formed level above 6_4",
         {0x6500u, 1, 0}, DXGI_ERROR_UNSUPPORTED, "6_4"},
        {NULL, {0x7000u, 1, 0}, DXGI_ERROR_UNSUPPORTED, "6_4"},
        {NULL, {0xFF00u, 1, 0}, DXGI_ERROR_UNSUPPORTED, "6_4"},
        {"dmls_device_create: unknown flags", {0, 1, 0x2u}, E_INVALIDARG, "flags"},
        {NULL, {0, 1, 0x3u}, E_INVALIDARG, "flags"},
        {NULL, {0, 1, 0x80000000u}, E_INVALIDARG, "flags"},
        {NULL, {0, 1, 0xFFFFFFFFu}, E_INVALIDARG, "flags"},
        {"dmls_device_create: too many threads",
         {0, DMLS_MAX_THREAD_COUNT + 1, 0}, E_INVALIDARG, "thread_count"},
        {NULL, {0, 0xFFFFFFFFu, 0}, E_INVALIDARG, "thread_count"},
    };
    size_t i;

    CASE("dmls_device_create: NULL device");
    check_hr("NULL out pointer", dmls_device_create(NULL, NULL), E_POINTER, "device");

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dmls_device *dev = SENTINEL_DEV;
        char what[96];
        if (bad[i].kind != NULL) {
            CASE(bad[i].kind);
        }
        snprintf(what, sizeof what, "level 0x%X, %u threads, flags 0x%X",
                 (unsigned)bad[i].desc.feature_level, (unsigned)bad[i].desc.thread_count,
                 (unsigned)bad[i].desc.flags);
        check_hr(what, dmls_device_create(&bad[i].desc, &dev), bad[i].want, bad[i].needle);
        check_true("device untouched", dev == SENTINEL_DEV);
    }
}

/* The support structs the feature queries write, between canaries that must stay 0xCD. */
static struct {
    uint32_t before;
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data;
    uint32_t after;
} g_types_support;
static struct {
    uint32_t before;
    DML_FEATURE_DATA_FEATURE_LEVELS data;
    uint32_t after;
} g_levels_support;

static void support_untouched(const char *what) {
    check_true(what, g_types_support.before == 0xCDCDCDCDu &&
                         g_types_support.after == 0xCDCDCDCDu &&
                         (uint32_t)g_types_support.data.IsSupported == 0xCDCDCDCDu &&
                         g_levels_support.before == 0xCDCDCDCDu &&
                         g_levels_support.after == 0xCDCDCDCDu &&
                         g_levels_support.data.MaxSupportedFeatureLevel == 0xCDCDCDCDu);
}

/* The levels a DML_FEATURE_FEATURE_LEVELS query asks about. */
typedef struct {
    UINT count;
    const DML_FEATURE_LEVEL *levels;
} level_list;

static const DML_FEATURE_LEVEL k_three_levels[3] = {DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_4_0,
                                                    DML_FEATURE_LEVEL_6_4};
static const DML_FEATURE_LEVEL k_above_4_0[2] = {DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_6_4};
static const level_list k_valid_levels = {3, k_three_levels};

/* One dmls_device_check_feature_support call on a DML_FEATURE_LEVEL_4_0 device (or NULL) with
   the feature's own query and support structs (or NULL), and what it must return; a failure
   leaves the support structs untouched. QT, QL, ST and SL are the right sizes. */
typedef struct {
    const char *kind; /* non-NULL: starts a kind of invalid call */
    int device;       /* PASSED or NULL_ARG */
    DML_FEATURE feature;
    UINT query_size;
    int query;
    UINT support_size;
    int support;
    const level_list *levels; /* the levels asked about (NULL: 3_0, 4_0, 6_4) */
    HRESULT want;
    const char *needle;
} query_case;

enum { NULL_ARG = 0, PASSED = 1 };
#define F_TYPES DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT
#define F_LEVELS DML_FEATURE_FEATURE_LEVELS
#define QT ((UINT)sizeof(DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT))
#define QL ((UINT)sizeof(DML_FEATURE_QUERY_FEATURE_LEVELS))
#define ST ((UINT)sizeof(DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT))
#define SL ((UINT)sizeof(DML_FEATURE_DATA_FEATURE_LEVELS))
#define LEVELS(count, levels) (&(const level_list){count, levels})

static const query_case k_query_cases[] = {
    {"check_feature_support: NULL device",
     NULL_ARG, F_TYPES, QT, PASSED, ST, PASSED, NULL, E_POINTER, "device"},
    {"check_feature_support: NULL query",
     PASSED, F_TYPES, QT, NULL_ARG, ST, PASSED, NULL, E_POINTER, "query"},
    {NULL, PASSED, F_LEVELS, QL, NULL_ARG, SL, PASSED, NULL, E_POINTER, "query"},
    {"check_feature_support: NULL support",
     PASSED, F_TYPES, QT, PASSED, ST, NULL_ARG, NULL, E_POINTER, "support"},
    {NULL, PASSED, F_LEVELS, QL, PASSED, SL, NULL_ARG, NULL, E_POINTER, "support"},
    {"check_feature_support: wrong query_size",
     PASSED, F_TYPES, 0, PASSED, ST, PASSED, NULL, E_INVALIDARG, "query_size"},
    {NULL, PASSED, F_LEVELS, QL - 1, PASSED, SL, PASSED, NULL, E_INVALIDARG, "query_size"},
    {NULL, PASSED, F_LEVELS, 0xFFFFFFFFu, PASSED, SL, PASSED, NULL, E_INVALIDARG, "query_size"},
    {"check_feature_support: wrong support_size",
     PASSED, F_TYPES, QT, PASSED, 8, PASSED, NULL, E_INVALIDARG, "support_size"},
    {NULL, PASSED, F_LEVELS, QL, PASSED, 0, PASSED, NULL, E_INVALIDARG, "support_size"},
    /* An unknown feature gets the data-type structs. */
    {"check_feature_support: unknown feature",
     PASSED, 2, QT, PASSED, ST, PASSED, NULL, DXGI_ERROR_UNSUPPORTED, "feature"},
    {NULL, PASSED, 0xFFFFFFFFu, QT, PASSED, ST, PASSED, NULL, DXGI_ERROR_UNSUPPORTED, "feature"},
    {"check_feature_support: RequestedFeatureLevelCount 0",
     PASSED, F_LEVELS, QL, PASSED, SL, PASSED, LEVELS(0, k_three_levels), E_INVALIDARG,
     "RequestedFeatureLevelCount"},
    {"check_feature_support: NULL RequestedFeatureLevels",
     PASSED, F_LEVELS, QL, PASSED, SL, PASSED, LEVELS(2, NULL), E_POINTER,
     "RequestedFeatureLevels"},
    {"check_feature_support: every requested level above the device's",
     PASSED, F_LEVELS, QL, PASSED, SL, PASSED, LEVELS(2, k_above_4_0), DXGI_ERROR_UNSUPPORTED,
     "4_0"},
};

static void feature_cases(void) {
    dmls_device *dev = make_device(DML_FEATURE_LEVEL_4_0, 0);
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT tq;
    DML_FEATURE_QUERY_FEATURE_LEVELS lq;
    DML_FEATURE_LEVEL levels[2];
    HRESULT hr;
    size_t i;
    memset(&g_types_support, 0xCD, sizeof g_types_support);
    memset(&g_levels_support, 0xCD, sizeof g_levels_support);
    tq.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;

    for (i = 0; i < sizeof k_query_cases / sizeof k_query_cases[0]; i++) {
        const query_case *c = &k_query_cases[i];
        const int levels_query = c->feature == F_LEVELS;
        void *support =
            levels_query ? (void *)&g_levels_support.data : (void *)&g_types_support.data;
        char what[64];
        if (c->kind != NULL) {
            CASE(c->kind);
        }
        lq.RequestedFeatureLevelCount = (c->levels != NULL ? c->levels : &k_valid_levels)->count;
        lq.RequestedFeatureLevels = (c->levels != NULL ? c->levels : &k_valid_levels)->levels;
        snprintf(what, sizeof what, "k_query_cases[%u]", (unsigned)i);
        hr = dmls_device_check_feature_support(
            c->device ? dev : NULL, c->feature, c->query_size,
            c->query ? (levels_query ? (const void *)&lq : (const void *)&tq) : NULL,
            c->support_size, c->support ? support : NULL);
        check_hr(what, hr, c->want, c->needle);
        support_untouched(what);
    }

    CASE("check_feature_support: a requested level that is not a DML_FEATURE_LEVEL");
    {
        /* Exactly two entries on the heap: a reader must not go past them. */
        DML_FEATURE_LEVEL *two = (DML_FEATURE_LEVEL *)malloc(2 * sizeof *two);
        two[0] = DML_FEATURE_LEVEL_3_0;
        two[1] = 0x3300u;
        lq.RequestedFeatureLevelCount = 2;
        lq.RequestedFeatureLevels = two;
        hr = dmls_device_check_feature_support(dev, F_LEVELS, QL, &lq, SL, &g_levels_support.data);
        check_hr("level 0x3300", hr, E_INVALIDARG, "RequestedFeatureLevels[1]");
        free(two);
    }
    support_untouched("support untouched");

    /* Positive controls: the same structs work when valid. */
    levels[0] = DML_FEATURE_LEVEL_3_0;
    levels[1] = DML_FEATURE_LEVEL_6_4;
    lq.RequestedFeatureLevelCount = 2;
    lq.RequestedFeatureLevels = levels;
    hr = dmls_device_check_feature_support(dev, F_LEVELS, QL, &lq, SL, &g_levels_support.data);
    check_hr("valid level query", hr, S_OK, NULL);
    check_true("answer 3_0",
               g_levels_support.data.MaxSupportedFeatureLevel == DML_FEATURE_LEVEL_3_0);
    tq.DataType = 99;
    hr = dmls_device_check_feature_support(dev, F_TYPES, QT, &tq, ST, &g_types_support.data);
    check_hr("unknown type query is answered, not an error", hr, S_OK, NULL);
    check_true("unknown type unsupported", g_types_support.data.IsSupported == 0);
    dmls_device_release(dev);
}

/* ------------------------------------------------------------------------------------------ */
/* Creation cases, as a table                                                                 */

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

/* The devices cases run on. */
typedef enum {
    KINDS_DEVICE = 0, /* the one its kind names */
    NEWEST,           /* level 0 (the newest), strict */
    NEWEST_EXT,       /* level 0 with DMLS_DEVICE_FLAG_EXTENSIONS */
    L3_0,
    L3_1,
    L4_0,
    L4_0_EXT,
    L5_1,
    NO_DEVICE, /* a NULL device */
    DEVICE_COUNT
} device_id;

/* How a case differs from the plain one (on its kind's device, from FLOAT32 descs, once). */
typedef struct {
    device_id device;
    DML_TENSOR_DATA_TYPE type; /* DIAGONAL_MATRIX and DIAGONAL_MATRIX1 descs of this type */
    UINT nz_dims; /* NONZERO_COORDINATES descs of this many dimensions (nz_init_dims) */
    const uint64_t *values; /* run once for each: it replaces the first edit's value */
    size_t value_count;
    UINT64 sizes[3]; /* execute: the binding sizes (input, output 0, output 1); 0s: the default */
} options;

/* A kind of invalid call (the suite's CASE) and the device its rows run on. */
typedef struct {
    const char *name;
    device_id device;
} kind;

/* One creation case: the edits made to fresh standard descs, and what creation must return
   (with `needle` in the message). Its operator is the one of its first edit's part. */
typedef struct {
    int line; /* in this file, for the report */
    const kind *kind;
    edit edits[4];
    HRESULT want;
    const char *needle;
    const options *how; /* NULL: the plain case */
} create_case;

/* Row makers. ROW(kind, want, needle, how, edits...): `how` is NULL (the plain case) or one of
   ON, TYPED, NZ_DIMS, EACH, EACH_ON; each edit is one of the macros named as the EDIT_ kinds
   above, or SHAPE / STRIDED (SIZES: an array literal). */
#define ROW(kind, want, needle, how, ...) {__LINE__, &kind, {__VA_ARGS__}, want, needle, how}
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
#define LISTED 0 /* the value comes from the case's EACH list */
#define ON(dev) (&(const options){.device = dev})
#define TYPED(t) (&(const options){.type = DML_TENSOR_DATA_TYPE_##t})
#define NZ_DIMS(dims, dev) (&(const options){.device = dev, .nz_dims = dims})
#define EACH_ON(list, dev)                                                                         \
    (&(const options){.device = dev, .values = list, .value_count = sizeof list / sizeof list[0]})
#define EACH(list) EACH_ON(list, KINDS_DEVICE)

/* Sizes too long for a row, shared with size_cases(). */
static const UINT k_huge8[8] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                                0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}; /* 2^256 */
static const UINT k_2p48[3] = {0x10000u, 0x10000u, 0x10000u};         /* 2^48 elements */
static const UINT k_wrap3[3] = {0x100000u, 0x100000u, 0x100000u};     /* 2^60 x 8 bytes */
static const UINT k_wrap_sizes[2] = {0xFFFFFFFFu, 1u};                 /* also the strides */
static const UINT k_wide_sizes[4] = {0xFFFFu, 0xFFFFu, 1u, 1u};
static const UINT k_wide_strides[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 1u, 1u};

/* Values a case runs with, one at a time (EACH). */
static const uint64_t k_unknown_operator_types[] = {178u, 1000u, 0x7FFFFFFFu, 0xFFFFFFFFu};
/* Real DirectML operators this library lacks. */
static const uint64_t k_lacking_operator_types[] = {
    1u, 92u, 94u, DML_OPERATOR_FILL_VALUE_CONSTANT, 132u, 134u, 162u, 164u, DML_OPERATOR_UNFOLD};
static const uint64_t k_bad_tensor_types[] = {DML_TENSOR_TYPE_INVALID, 2u, 0xFFFFFFFFu};
static const uint64_t k_unknown_data_types[] = {DML_TENSOR_DATA_TYPE_UNKNOWN, 14u, 255u,
                                                0xFFFFFFFFu};
static const uint64_t k_4bit_types[] = {DML_TENSOR_DATA_TYPE_UINT4, DML_TENSOR_DATA_TYPE_INT4};
static const uint64_t k_huge_dims[] = {64u, 0x10000u, 0x7FFFFFFFu, 0xFFFFFFFFu};
static const uint64_t k_not_powers_of_two[] = {3u, 6u, 24u, 0xFFFFFFFFu, 0x80000001u};
static const uint64_t k_unknown_tensor_flags[] = {0x2u, 0x3u, 0x80000000u, 0xFFFFFFFFu};
static const uint64_t k_64bit_types[] = {DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_INT64,
                                         DML_TENSOR_DATA_TYPE_UINT64};
static const uint64_t k_not_uint32[] = {
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16, 0u, 77u};
static const uint64_t k_bad_value_types[] = {DML_TENSOR_DATA_TYPE_FLOAT16,
                                             DML_TENSOR_DATA_TYPE_INT32,
                                             DML_TENSOR_DATA_TYPE_UNKNOWN, 99u};

/* The kinds of invalid call the tables check (each a CASE of the suite): creation, then
   execution. */
static const kind k_null_device =
    {"create_operator: NULL device", NO_DEVICE};
static const kind k_null_desc =
    {"create_operator: NULL desc", NEWEST};
static const kind k_null_op_desc =
    {"create_operator: NULL DML_OPERATOR_DESC.Desc", NEWEST};
static const kind k_null_nz_input =
    {"create_operator: NULL NONZERO_COORDINATES InputTensor", NEWEST};
static const kind k_null_nz_count =
    {"create_operator: NULL NONZERO_COORDINATES OutputCountTensor", NEWEST};
static const kind k_null_nz_coords =
    {"create_operator: NULL NONZERO_COORDINATES OutputCoordinatesTensor", NEWEST};
static const kind k_null_d1_output =
    {"create_operator: NULL DIAGONAL_MATRIX1 OutputTensor", NEWEST};
static const kind k_null_d0_output =
    {"create_operator: NULL DIAGONAL_MATRIX OutputTensor", NEWEST};
static const kind k_null_tensor_desc =
    {"create_operator: NULL DML_TENSOR_DESC.Desc", NEWEST};
static const kind k_null_sizes =
    {"create_operator: NULL Sizes", NEWEST};
static const kind k_op_invalid =
    {"create_operator: DML_OPERATOR_INVALID", NEWEST};
static const kind k_op_unknown =
    {"create_operator: operator type beyond DirectML's", NEWEST};
static const kind k_op_lacking =
    {"create_operator: a real DirectML operator this library lacks", NEWEST};
static const kind k_tensor_type =
    {"create_operator: tensor Type not DML_TENSOR_TYPE_BUFFER", NEWEST};
static const kind k_data_type =
    {"create_operator: unknown data type", NEWEST};
static const kind k_four_bit =
    {"create_operator: 4-bit data types (UINT4, INT4)", NEWEST};
static const kind k_dims_0 =
    {"create_operator: DimensionCount 0", NEWEST};
static const kind k_dims_9 =
    {"create_operator: DimensionCount 9", NEWEST};
static const kind k_dims_huge =
    {"create_operator: DimensionCount huge", NEWEST};
static const kind k_size_0 =
    {"create_operator: a size of 0", NEWEST};
static const kind k_over_2p32 =
    {"create_operator: more than 2^32 - 1 elements", NEWEST};
static const kind k_product_overflow =
    {"create_operator: size product overflowing 64 bits", NEWEST};
static const kind k_extent_overflow =
    {"create_operator: strided extent overflowing 64 bits", NEWEST};
static const kind k_total_small =
    {"create_operator: TotalTensorSizeInBytes too small", NEWEST};
static const kind k_total_not_x4 =
    {"create_operator: TotalTensorSizeInBytes not a multiple of 4", NEWEST};
static const kind k_total_huge =
    {"create_operator: TotalTensorSizeInBytes beyond the address space", NEWEST};
static const kind k_align_not_pow2 =
    {"create_operator: GuaranteedBaseOffsetAlignment not a power of two", NEWEST};
static const kind k_align_small =
    {"create_operator: GuaranteedBaseOffsetAlignment below the element size", NEWEST};
static const kind k_owned_by_dml =
    {"create_operator: Flags DML_TENSOR_FLAG_OWNED_BY_DML", NEWEST};
static const kind k_tensor_flags =
    {"create_operator: unknown tensor flags", NEWEST};
static const kind k_nz_dims_differ =
    {"NONZERO_COORDINATES at 3.x: DimensionCounts that differ", L3_0};
static const kind k_nz_coords_1d =
    {"NONZERO_COORDINATES from 4_0: coordinates with 1 dimension", L4_0};
static const kind k_nz_64bit_input =
    {"NONZERO_COORDINATES: 64-bit input on a strict device", L4_0};
static const kind k_nz_outputs_not_u32 =
    {"NONZERO_COORDINATES: count or coordinates not UINT32", L4_0};
static const kind k_nz_64bit_outputs =
    {"NONZERO_COORDINATES: 64-bit count and coordinates on a strict device", L4_0};
static const kind k_nz_output_types_differ =
    {"NONZERO_COORDINATES: count and coordinates of different types", L4_0_EXT};
static const kind k_nz_count_sizes =
    {"NONZERO_COORDINATES: count sizes not all 1", L4_0};
static const kind k_nz_coords_leading =
    {"NONZERO_COORDINATES: coordinates leading sizes not 1", L4_0};
static const kind k_nz_m =
    {"NONZERO_COORDINATES: M not the input's element count", L4_0};
static const kind k_nz_n_below =
    {"NONZERO_COORDINATES: N below the input's effective rank", L4_0};
static const kind k_nz_n_above =
    {"NONZERO_COORDINATES: N above the input's DimensionCount", L4_0};
static const kind k_nz_over_2p32_u32 =
    {"NONZERO_COORDINATES: more than 2^32 - 1 elements with 32-bit outputs (extensions)", L4_0_EXT};
static const kind k_d1_value_type =
    {"DIAGONAL_MATRIX1: ValueDataType differs from the output's", L5_1};
static const kind k_d1_output_dims =
    {"DIAGONAL_MATRIX1: output DimensionCount outside 2 to 4", L5_1};
static const kind k_d1_input_type =
    {"DIAGONAL_MATRIX1: input data type differs from the output's", L5_1};
static const kind k_d1_input_dims =
    {"DIAGONAL_MATRIX1: input DimensionCount differs from the output's", L5_1};
static const kind k_d1_input_sizes =
    {"DIAGONAL_MATRIX1: input sizes differ from the output's", L5_1};
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

/* Every creation case, in the order of the kinds. */
static const create_case k_create_cases[] = {
    /* Pointers */
    ROW(k_null_device, E_POINTER, "device", NULL, AS_IS(NZ)),
    ROW(k_null_desc, E_POINTER, "desc", NULL, NULL_DESC(NZ)),
    ROW(k_null_op_desc, E_POINTER, "NONZERO_COORDINATES", NULL, OP_DESC_NULL(NZ)),
    ROW(k_null_op_desc, E_POINTER, "DIAGONAL_MATRIX1", NULL, OP_DESC_NULL(D1)),
    ROW(k_null_op_desc, E_POINTER, "DIAGONAL_MATRIX", NULL, OP_DESC_NULL(D0)),
    ROW(k_null_nz_input, E_POINTER, "InputTensor", NULL, TENSOR_NULL(NZ_IN)),
    ROW(k_null_nz_count, E_POINTER, "OutputCountTensor", NULL, TENSOR_NULL(NZ_COUNT)),
    ROW(k_null_nz_coords, E_POINTER, "OutputCoordinatesTensor", NULL, TENSOR_NULL(NZ_COORDS)),
    ROW(k_null_d1_output, E_POINTER, "OutputTensor", NULL, TENSOR_NULL(D1_OUT)),
    ROW(k_null_d0_output, E_POINTER, "OutputTensor", NULL, TENSOR_NULL(D0_OUT)),
    ROW(k_null_tensor_desc, E_POINTER, "InputTensor", NULL, DESC_NULL(NZ_IN)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputCountTensor", NULL, DESC_NULL(NZ_COUNT)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputCoordinatesTensor", NULL, DESC_NULL(NZ_COORDS)),
    ROW(k_null_tensor_desc, E_POINTER, "InputTensor", NULL, DESC_NULL(D1_IN)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputTensor", NULL, DESC_NULL(D1_OUT)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputTensor", NULL, DESC_NULL(D0_OUT)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(NZ_IN)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(NZ_COUNT)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(NZ_COORDS)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(D1_IN)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(D1_OUT)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(D0_OUT)),
    /* NULL Strides and a NULL DIAGONAL_MATRIX1 InputTensor are allowed. */
    ROW(k_null_sizes, S_OK, NULL, NULL, TENSOR_NULL(D1_IN)),

    /* Values every operator checks */
    ROW(k_op_invalid, E_INVALIDARG, "INVALID", NULL, OP_TYPE(NZ, DML_OPERATOR_INVALID)),
    ROW(k_op_unknown, E_INVALIDARG, "DML_OPERATOR_TYPE", EACH(k_unknown_operator_types), OP_TYPE(NZ, LISTED)),
    /* Desc points to a NONZERO desc: the library must reject the type without reading it as the
       other operator's struct. */
    ROW(k_op_lacking, E_NOTIMPL, "does not implement", EACH(k_lacking_operator_types), OP_TYPE(NZ, LISTED)),
    ROW(k_tensor_type, E_INVALIDARG, "OutputCoordinatesTensor", EACH(k_bad_tensor_types), TENSOR_TYPE(NZ_COORDS, LISTED)),
    ROW(k_tensor_type, E_INVALIDARG, "InputTensor", EACH(k_bad_tensor_types), TENSOR_TYPE(D1_IN, LISTED)),
    ROW(k_tensor_type, E_INVALIDARG, "OutputTensor", EACH(k_bad_tensor_types), TENSOR_TYPE(D0_OUT, LISTED)),
    /* On D1: the input's, the output's and ValueDataType. */
    ROW(k_data_type, E_INVALIDARG, "DataType", EACH(k_unknown_data_types), DATA_TYPE(NZ_IN, LISTED)),
    ROW(k_data_type, E_INVALIDARG, "DataType", EACH(k_unknown_data_types), DATA_TYPE(D1, LISTED)),
    ROW(k_data_type, E_INVALIDARG, "DataType", EACH(k_unknown_data_types), DATA_TYPE(D0_OUT, LISTED)),
    ROW(k_four_bit, E_INVALIDARG, "4", EACH(k_4bit_types), DATA_TYPE(NZ_IN, LISTED)),
    ROW(k_four_bit, E_INVALIDARG, "4", EACH(k_4bit_types), DATA_TYPE(D1, LISTED)),
    ROW(k_four_bit, E_INVALIDARG, "4", EACH(k_4bit_types), DATA_TYPE(D0_OUT, LISTED)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_IN, 0)),
    /* Nothing to read for 0 dims: the count is what is wrong. */
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_IN, 0), SIZES_NULL(NZ_IN)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_COUNT, 0)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(D1_OUT, 0)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(D0_OUT, 0)),
    /* Sizes and Strides of exactly 8 entries: a reader trusting the count would overrun. */
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_IN, 9), HEAP_SIZES(NZ_IN, 8), HEAP_STRIDES(NZ_IN, 8)),
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_COORDS, 9), HEAP_SIZES(NZ_COORDS, 8)),
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(D1_OUT, 9), HEAP_SIZES(D1_OUT, 8)),
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(D0_OUT, 9), HEAP_SIZES(D0_OUT, 8)),
    ROW(k_dims_huge, E_INVALIDARG, "DimensionCount", EACH(k_huge_dims),
        DIMS(NZ_IN, LISTED), HEAP_SIZES(NZ_IN, 4), HEAP_STRIDES(NZ_IN, 4)),
    ROW(k_dims_huge, E_INVALIDARG, "DimensionCount", EACH(k_huge_dims), DIMS(D1_IN, LISTED), HEAP_SIZES(D1_IN, 4)),
    ROW(k_dims_huge, E_INVALIDARG, "DimensionCount", EACH(k_huge_dims), DIMS(D0_OUT, LISTED), HEAP_SIZES(D0_OUT, 4)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(NZ_IN, 0)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D1_OUT, 0), SIZE_ZERO(D1_IN, 0)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D0_OUT, 2)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(NZ_IN, 1)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D1_OUT, 1), SIZE_ZERO(D1_IN, 1)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D0_OUT, 3)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(NZ_COUNT, 0)),
    /* 65536 x 65536 is exactly 2^32. */
    ROW(k_over_2p32, E_INVALIDARG, "elements", NULL,
        SHAPE(NZ_IN, UINT8, 2, SIZES(65536u, 65536u)),
        SHAPE(NZ_COORDS, UINT32, 2, SIZES(0xFFFFFFFFu, 2u))),
    ROW(k_over_2p32, E_INVALIDARG, "elements", TYPED(UINT8),
        SHAPE(D1_OUT, UINT8, 2, SIZES(65536u, 65536u)), TENSOR_NULL(D1_IN)),
    ROW(k_over_2p32, E_INVALIDARG, "elements", TYPED(UINT8), SHAPE(D0_OUT, UINT8, 4, SIZES(1u, 2u, 0x80000000u, 1u))),
    /* With 64-bit outputs (an extension) the 2^32 - 1 cap is lifted, so only the 64-bit
       arithmetic stands between these sizes and a wrapped product: 2^256 elements, and 2^60
       FLOAT64 elements (2^63 bytes). size_cases() checks dmls_calc_buffer_tensor_size of the
       same sizes. */
    ROW(k_product_overflow, E_INVALIDARG, "InputTensor", ON(NEWEST_EXT),
        SHAPE(NZ_IN, FLOAT32, 8, k_huge8), TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull),
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)),
        SHAPE(NZ_COORDS, UINT64, 2, SIZES(0xFFFFFFFFu, 3u))),
    ROW(k_product_overflow, E_INVALIDARG, "InputTensor", ON(NEWEST_EXT),
        SHAPE(NZ_IN, FLOAT64, 3, k_wrap3), TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull),
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)),
        SHAPE(NZ_COORDS, UINT64, 2, SIZES(0xFFFFFFFFu, 3u))),
    ROW(k_product_overflow, E_INVALIDARG, "InputTensor", NULL,
        SHAPE(NZ_IN, FLOAT32, 8, k_huge8), TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull)),
    ROW(k_product_overflow, E_INVALIDARG, "elements", NULL, SHAPE(NZ_IN, FLOAT32, 3, k_2p48)),
    /* 2^32 - 1 elements is allowed, but (2^32 - 2) x stride (2^32 - 1) x 8 bytes wraps; (2 x
       0xFFFE x 0xFFFFFFFF + 1) x 8 bytes fits in 64 bits: a fine, but enormous, extent. */
    ROW(k_extent_overflow, E_INVALIDARG, "OutputTensor", TYPED(FLOAT64),
        STRIDED(D1_OUT, FLOAT64, 2, k_wrap_sizes, k_wrap_sizes),
        TOTAL(D1_OUT, 0xFFFFFFFFFFFFFFF0ull), TENSOR_NULL(D1_IN)),
    ROW(k_extent_overflow, E_INVALIDARG, "TotalTensorSizeInBytes", TYPED(INT64),
        STRIDED(D0_OUT, INT64, 4, k_wide_sizes, k_wide_strides), TOTAL(D0_OUT, 16)),
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL_LESS(NZ_IN, 4)),
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(NZ_COORDS, 0)),
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(D1_IN, 44)),
    /* Strides spanning 2 x 8 + 3 + 1 = 20 elements, and the packed size 48. */
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL,
        STRIDED(D0_OUT, FLOAT32, 4, SIZES(1u, 1u, 3u, 4u), SIZES(0u, 0u, 8u, 1u)),
        TOTAL(D0_OUT, 48)),
    ROW(k_total_not_x4, E_INVALIDARG, "multiple of 4", NULL, TOTAL_MORE(NZ_IN, 2)),
    ROW(k_total_not_x4, E_INVALIDARG, "multiple of 4", TYPED(UINT8), TOTAL(D0_OUT, 13)),
    ROW(k_total_not_x4, E_INVALIDARG, "multiple of 4", TYPED(INT8), TOTAL(D1_OUT, 0xFFFFFFFFFFFFFFFFull)),
    ROW(k_total_huge, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull)),
    ROW(k_total_huge, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(D1_OUT, 0x8000000000000000ull)),
    ROW(k_align_not_pow2, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", EACH(k_not_powers_of_two),
        ALIGNMENT(NZ_IN, LISTED)),
    ROW(k_align_not_pow2, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", EACH(k_not_powers_of_two),
        ALIGNMENT(D1_OUT, LISTED)),
    ROW(k_align_small, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", NULL, ALIGNMENT(NZ_COORDS, 2)),
    ROW(k_align_small, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", NULL, ALIGNMENT(D0_OUT, 1)),
    ROW(k_align_small, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", TYPED(FLOAT64), ALIGNMENT(D1_IN, 4)),
    ROW(k_owned_by_dml, E_INVALIDARG, "OWNED_BY_DML", NULL, FLAGS(NZ_IN, DML_TENSOR_FLAG_OWNED_BY_DML)),
    ROW(k_owned_by_dml, E_INVALIDARG, "OWNED_BY_DML", NULL, FLAGS(D1_IN, DML_TENSOR_FLAG_OWNED_BY_DML)),
    ROW(k_tensor_flags, E_INVALIDARG, "Flags", EACH(k_unknown_tensor_flags), FLAGS(NZ_COUNT, LISTED)),
    ROW(k_tensor_flags, E_INVALIDARG, "Flags", EACH(k_unknown_tensor_flags), FLAGS(D0_OUT, LISTED)),

    /* NONZERO_COORDINATES' rules (those at every level are in level_cases()) */
    /* 4-dimensional input and count, 5-dimensional coordinates: refused at 3.x, valid from 4_0. */
    ROW(k_nz_dims_differ, E_INVALIDARG, "same", NZ_DIMS(4, L3_0), SHAPE(NZ_COORDS, UINT32, 5, SIZES(1u, 1u, 1u, 6u, 2u))),
    ROW(k_nz_dims_differ, E_INVALIDARG, "same", NZ_DIMS(4, L3_1), SHAPE(NZ_COORDS, UINT32, 5, SIZES(1u, 1u, 1u, 6u, 2u))),
    ROW(k_nz_dims_differ, S_OK, NULL, NZ_DIMS(4, L4_0), SHAPE(NZ_COORDS, UINT32, 5, SIZES(1u, 1u, 1u, 6u, 2u))),
    ROW(k_nz_coords_1d, E_INVALIDARG, "DimensionCount", NULL, SHAPE(NZ_COORDS, UINT32, 1, SIZES(6u))),
    ROW(k_nz_64bit_input, E_INVALIDARG, "DMLS_DEVICE_FLAG_EXTENSIONS", EACH(k_64bit_types),
        DATA_TYPE(NZ_IN, LISTED), TOTAL(NZ_IN, 48)),
    ROW(k_nz_64bit_input, S_OK, NULL, EACH_ON(k_64bit_types, L4_0_EXT), DATA_TYPE(NZ_IN, LISTED), TOTAL(NZ_IN, 48)),
    ROW(k_nz_outputs_not_u32, E_INVALIDARG, "OutputCountTensor DataType", EACH(k_not_uint32), DATA_TYPE(NZ_COUNT, LISTED)),
    ROW(k_nz_outputs_not_u32, E_INVALIDARG, "OutputCountTensor DataType", EACH_ON(k_not_uint32, L4_0_EXT),
        DATA_TYPE(NZ_COUNT, LISTED)),
    ROW(k_nz_outputs_not_u32, E_INVALIDARG, "OutputCoordinatesTensor DataType", EACH(k_not_uint32),
        DATA_TYPE(NZ_COORDS, LISTED)),
    ROW(k_nz_64bit_outputs, E_INVALIDARG, "DMLS_DEVICE_FLAG_EXTENSIONS", NULL,
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)), SHAPE(NZ_COORDS, UINT64, 2, SIZES(6u, 2u))),
    ROW(k_nz_64bit_outputs, S_OK, NULL, ON(L4_0_EXT),
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)), SHAPE(NZ_COORDS, UINT64, 2, SIZES(6u, 2u))),
    ROW(k_nz_output_types_differ, E_INVALIDARG, "same", NULL,
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)), SHAPE(NZ_COORDS, INT64, 2, SIZES(6u, 2u))),
    ROW(k_nz_output_types_differ, E_INVALIDARG, "same", NULL, SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u))),
    ROW(k_nz_count_sizes, E_INVALIDARG, "OutputCountTensor Sizes[1]", NULL, SHAPE(NZ_COUNT, UINT32, 2, SIZES(1u, 2u))),
    ROW(k_nz_coords_leading, E_INVALIDARG, "OutputCoordinatesTensor Sizes[0]", NULL,
        SHAPE(NZ_COORDS, UINT32, 3, SIZES(2u, 6u, 2u))),
    ROW(k_nz_m, E_INVALIDARG, "(M)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(5u, 2u))),
    ROW(k_nz_m, E_INVALIDARG, "(M)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(7u, 2u))),
    ROW(k_nz_n_below, E_INVALIDARG, "(N)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(6u, 1u))),
    ROW(k_nz_n_above, E_INVALIDARG, "(N)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(6u, 3u))),
    ROW(k_nz_over_2p32_u32, E_INVALIDARG, "elements", NULL,
        SHAPE(NZ_IN, UINT8, 2, SIZES(0x10000u, 0x10000u)),
        SHAPE(NZ_COORDS, UINT32, 2, SIZES(0xFFFFFFFFu, 2u))),

    /* DIAGONAL_MATRIX1's rules */
    ROW(k_d1_value_type, E_INVALIDARG, "ValueDataType", EACH(k_bad_value_types), VALUE_TYPE(D1, LISTED)),
    ROW(k_d1_output_dims, E_INVALIDARG, "DimensionCount", NULL, TENSOR_NULL(D1_IN), SHAPE(D1_OUT, FLOAT32, 1, SIZES(4u))),
    ROW(k_d1_output_dims, E_INVALIDARG, "DimensionCount", NULL,
        TENSOR_NULL(D1_IN), SHAPE(D1_OUT, FLOAT32, 5, SIZES(1u, 1u, 1u, 3u, 4u))),
    ROW(k_d1_input_type, E_INVALIDARG, "InputTensor DataType", NULL, DATA_TYPE(D1_IN, DML_TENSOR_DATA_TYPE_INT32)),
    ROW(k_d1_input_dims, E_INVALIDARG, "InputTensor DimensionCount", NULL, SHAPE(D1_IN, FLOAT32, 3, SIZES(1u, 3u, 4u))),
    ROW(k_d1_input_sizes, E_INVALIDARG, "Sizes", NULL, SHAPE(D1_IN, FLOAT32, 2, SIZES(4u, 3u))),
};

/* The devices the cases run on, made once. */
static dmls_device *g_devices[DEVICE_COUNT];

static void open_devices(void) {
    g_devices[NEWEST] = make_device(0, 0);
    g_devices[NEWEST_EXT] = make_device(0, DMLS_DEVICE_FLAG_EXTENSIONS);
    g_devices[L3_0] = make_device(DML_FEATURE_LEVEL_3_0, 0);
    g_devices[L3_1] = make_device(DML_FEATURE_LEVEL_3_1, 0);
    g_devices[L4_0] = make_device(DML_FEATURE_LEVEL_4_0, 0);
    g_devices[L4_0_EXT] = make_device(DML_FEATURE_LEVEL_4_0, DMLS_DEVICE_FLAG_EXTENSIONS);
    g_devices[L5_1] = make_device(DML_FEATURE_LEVEL_5_1, 0);
    g_devices[NO_DEVICE] = NULL;
}

static void close_devices(void) {
    int i;
    for (i = 0; i < DEVICE_COUNT; i++) {
        dmls_device_release(g_devices[i]);
        g_devices[i] = NULL;
    }
}

/* A heap array of `count` ones that lives until descs_free. */
static UINT *heap_ones(descs *d, uint64_t count) {
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

static void descs_free(descs *d) {
    while (d->heap_count > 0) {
        free(d->heap[--d->heap_count]);
    }
}

static DML_OPERATOR_DESC *operator_of(descs *d, part p) {
    if (p <= NZ_COORDS) {
        return &d->nz.op;
    }
    return p <= D1_OUT ? &d->d1.op : &d->d0.op;
}

/* The tensor a part names (NULL for an operator). */
static dmls_test_owned_tensor *tensor_of(descs *d, part p) {
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
static const DML_TENSOR_DESC **tensor_pointer_of(descs *d, part p) {
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
static int apply_edit(descs *d, const edit *e, uint64_t value) {
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
static void run_create_case(const create_case *c, const options *how, dmls_device *dev) {
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
            snprintf(what, sizeof what, "%s:%d, value 0x%llX", __FILE__, c->line,
                     (unsigned long long)how->values[run]);
        } else {
            snprintf(what, sizeof what, "%s:%d", __FILE__, c->line);
        }
        expect_create(what, dev, pass_desc ? operator_of(&d, c->edits[0].part) : NULL, c->want,
                      c->needle);
        descs_free(&d);
    }
}

static void create_table_cases(void) {
    static const options plain = {.device = KINDS_DEVICE};
    const kind *current = NULL;
    size_t i;
    for (i = 0; i < sizeof k_create_cases / sizeof k_create_cases[0]; i++) {
        const create_case *c = &k_create_cases[i];
        const options *how = c->how != NULL ? c->how : &plain;
        if (c->kind != current) {
            current = c->kind;
            CASE(current->name);
        }
        run_create_case(c, how,
                        g_devices[how->device != KINDS_DEVICE ? how->device : current->device]);
    }
}

/* The creation checks a table row cannot say. */
static void create_other_cases(void) {
    dmls_test_nonzero nz;
    CASE("create_operator: NULL op");
    nz_init(&nz);
    check_hr("NULL op", dmls_device_create_operator(g_devices[NEWEST], &nz.op, NULL), E_POINTER,
             "op");
}

/* dmls_calc_buffer_tensor_size of the sizes "size product overflowing 64 bits" and "strided
   extent overflowing 64 bits" create with. */
static void size_cases(void) {
    /* 3 x 2^62 4-bit elements: the bit count overflows 64 bits, the bytes (3 x 2^61) do not. */
    static const UINT s4[3] = {0x80000000u, 0x80000000u, 3u};
    check_true("calc size of 2^256 elements is 0",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 8, k_huge8, NULL) == 0);
    /* 2^60 x 8 bytes = 2^63 fits in 64 bits: the header promises the size, not 0. */
    check_true("calc size of 2^60 INT64 elements is 2^63 (it fits in 64 bits)",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 3, k_wrap3, NULL) ==
                   0x8000000000000000ull);
    check_true("calc size of 3 x 2^62 UINT4 elements is 3 x 2^61 (it fits in 64 bits)",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT4, 3, s4, NULL) ==
                   0x6000000000000000ull);
    check_true("calc size of the wrapped extent is 0",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT64, 2, k_wrap_sizes,
                                            k_wrap_sizes) == 0);
}

/* An operator introduced at `from`: refused below it (the message names the level), valid from
   it, at every level. */
static void check_introduced_at(const char *what, part op, DML_FEATURE_LEVEL from,
                                const char *needle) {
    size_t li;
    for (li = 0; li < 15; li++) {
        dmls_device *dev = make_device(k_levels[li], 0);
        descs d;
        memset(&d, 0, sizeof d);
        nz_init_dims(&d.nz, 4);
        dm1_init(&d.d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        expect_create(what, dev, operator_of(&d, op),
                      k_levels[li] >= from ? S_OK : E_INVALIDARG, needle);
        dmls_device_release(dev);
    }
}

/* Rules that change with the feature level, at every level. */
static void level_cases(void) {
    static const DML_TENSOR_DATA_TYPE types[11] = {
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
        DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,
        DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_FLOAT64,
        DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64};
    dmls_test_nonzero nz;
    dm0_desc d0;
    size_t li, ti;
    UINT dims;

    CASE("NONZERO_COORDINATES below DML_FEATURE_LEVEL_3_0 (and valid from 3_0), every level");
    check_introduced_at("4-dim NONZERO", NZ, DML_FEATURE_LEVEL_3_0, "3_0");

    CASE("NONZERO_COORDINATES at 3.x: DimensionCount other than 4 or 5, every level");
    for (li = 3; li < 15; li++) { /* from 3_0 */
        dmls_device *dev = make_device(k_levels[li], 0);
        for (dims = 2; dims <= 8; dims++) {
            const int only_4_or_5 = k_levels[li] < DML_FEATURE_LEVEL_4_0;
            nz_init_dims(&nz, dims);
            expect_create("NONZERO dims", dev, &nz.op,
                          only_4_or_5 && dims != 4 && dims != 5 ? E_INVALIDARG : S_OK,
                          "DimensionCount");
        }
        dmls_device_release(dev);
    }

    CASE("DIAGONAL_MATRIX1 below DML_FEATURE_LEVEL_5_1 (and valid from 5_1), every level");
    check_introduced_at("DIAGONAL_MATRIX1", D1, DML_FEATURE_LEVEL_5_1, "5_1");

    CASE("DIAGONAL_MATRIX data types by feature level (2_0 floats, 2_1 integers, 5_1 64-bit)");
    for (li = 0; li < 15; li++) {
        dmls_device *dev = make_device(k_levels[li], 0);
        for (ti = 0; ti < 11; ti++) {
            DML_FEATURE_LEVEL needs = DML_FEATURE_LEVEL_2_0;
            const DML_TENSOR_DATA_TYPE t = types[ti];
            if (t >= DML_TENSOR_DATA_TYPE_UINT32 && t <= DML_TENSOR_DATA_TYPE_INT8) {
                needs = DML_FEATURE_LEVEL_2_1;
            } else if (t >= DML_TENSOR_DATA_TYPE_FLOAT64) {
                needs = DML_FEATURE_LEVEL_5_1;
            }
            dm0_init(&d0, t, 4);
            expect_create("DIAGONAL_MATRIX type at level", dev, &d0.op,
                          k_levels[li] >= needs ? S_OK : E_INVALIDARG, "DIAGONAL_MATRIX");
        }
        dmls_device_release(dev);
    }

    CASE("DIAGONAL_MATRIX DimensionCount by feature level (4 before 4_0, 2 to 4 from 4_0)");
    for (li = 1; li < 15; li++) { /* from 2_0 */
        static const UINT one[1] = {4};
        const int two_to_four = k_levels[li] >= DML_FEATURE_LEVEL_4_0;
        dmls_device *dev = make_device(k_levels[li], 0);
        for (dims = 2; dims <= 8; dims++) {
            const int valid = dims == 4 || (two_to_four && dims >= 2 && dims <= 4);
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, dims);
            expect_create("DIAGONAL_MATRIX dims at level", dev, &d0.op,
                          valid ? S_OK : E_INVALIDARG, "DimensionCount");
        }
        dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmls_test_owned_tensor_init(&d0.out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, one, NULL);
        expect_create("DIAGONAL_MATRIX 1 dim", dev, &d0.op, E_INVALIDARG, "DimensionCount");
        dmls_device_release(dev);
    }
}

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
    free(s->in.mem);
    free(s->a.mem);
    free(s->b.mem);
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
                       E_INVALIDARG, "layout");
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

/* ------------------------------------------------------------------------------------------ */
/* Helpers: calc size and the message buffer                                                  */

static void helper_cases(void) {
    static const UINT sizes[2] = {2, 3};
    char small[4];
    size_t len;
    HRESULT hr;

    CASE("dmls_calc_buffer_tensor_size: unknown type, NULL sizes, 0 or 9 dimensions");
    check_true("unknown type", dmls_calc_buffer_tensor_size(0, 2, sizes, NULL) == 0);
    check_true("type 14", dmls_calc_buffer_tensor_size(14, 2, sizes, NULL) == 0);
    check_true("NULL sizes",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, NULL, NULL) == 0);
    check_true("0 dims",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 0, sizes, NULL) == 0);
    {
        UINT *two = (UINT *)malloc(2 * sizeof(UINT));
        two[0] = 2;
        two[1] = 3;
        check_true("9 dims (2-entry array)",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 9, two, two) == 0);
        check_true("2^32-1 dims (2-entry array)",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 0xFFFFFFFFu, two,
                                                NULL) == 0);
        check_true("valid control",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, two, NULL) == 24);
        free(two);
    }

    CASE("dmls_get_last_error_message: NULL buffer, size 0, truncation");
    hr = dmls_device_create(NULL, NULL);
    check_hr("make a message", hr, E_POINTER, NULL);
    len = dmls_get_last_error_message(NULL, 100);
    check_true("NULL buffer returns the length", len > 0);
    memset(small, 'x', sizeof small);
    check_true("size 0 copies nothing", dmls_get_last_error_message(small, 0) == len &&
                                            small[0] == 'x' && small[3] == 'x');
    check_true("truncates with a NUL",
               dmls_get_last_error_message(small, sizeof small) == len && small[3] == '\0' &&
                   strlen(small) == 3);
    check_true("a message stays until the next call", dmls_get_last_error_message(NULL, 0) == len);
}

int main(void) {
    printf("directml_subset %s: bad-input suite\n", dmls_version());

    device_cases();
    feature_cases();
    open_devices();
    create_table_cases();
    create_other_cases();
    close_devices();
    size_cases();
    level_cases();
    execute_cases();
    helper_cases();

    printf("%d kinds of invalid call, %d checks, %d failed\n", g_kinds, dmls_test_checks,
           dmls_test_failures);
    if (g_kinds < 40) {
        fprintf(stderr, "FAIL: only %d kinds of invalid call (at least 40 required)\n", g_kinds);
        return 1;
    }
    return dmls_test_failures == 0 ? 0 : 1;
}
