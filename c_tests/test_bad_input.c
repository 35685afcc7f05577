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

static const char *hr_name(HRESULT hr) {
    switch ((uint32_t)hr) {
    case 0u: return "S_OK";
    case 0x80070057u: return "E_INVALIDARG";
    case 0x80004003u: return "E_POINTER";
    case 0x8007000Eu: return "E_OUTOFMEMORY";
    case 0x80004001u: return "E_NOTIMPL";
    case 0x80004005u: return "E_FAIL";
    case 0x887A0004u: return "DXGI_ERROR_UNSUPPORTED";
    default: return "an undocumented HRESULT";
    }
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
        snprintf(detail, sizeof detail, "returned 0x%08X (%s), expected 0x%08X (%s); message: %.900s",
                 (unsigned)got, hr_name(got), (unsigned)want, hr_name(want), len ? msg : "(none)");
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
    dmls_device_desc d;
    dmls_device *dev;
    HRESULT hr;

    CASE("dmls_device_create: NULL device");
    hr = dmls_device_create(NULL, NULL);
    check_hr("NULL out pointer", hr, E_POINTER, "device");

    CASE("dmls_device_create: unknown feature level");
    {
        static const DML_FEATURE_LEVEL bad[] = {0x1234u, 0x0FFFu, 0x6401u, 0x10000u, 0xFFFFFFFFu,
                                                0x1100u};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            d.feature_level = bad[i];
            d.thread_count = 1;
            d.flags = 0;
            dev = SENTINEL_DEV;
            hr = dmls_device_create(&d, &dev);
            check_hr("unknown level", hr, E_INVALIDARG, "feature_level");
            check_true("device untouched", dev == SENTINEL_DEV);
        }
    }

    CASE("dmls_device_create: well-formed level above 6_4");
    {
        static const DML_FEATURE_LEVEL newer[] = {0x6500u, 0x7000u, 0xFF00u};
        size_t i;
        for (i = 0; i < sizeof newer / sizeof newer[0]; i++) {
            d.feature_level = newer[i];
            d.thread_count = 1;
            d.flags = 0;
            dev = SENTINEL_DEV;
            hr = dmls_device_create(&d, &dev);
            check_hr("newer level", hr, DXGI_ERROR_UNSUPPORTED, "6_4");
            check_true("device untouched", dev == SENTINEL_DEV);
        }
    }

    CASE("dmls_device_create: unknown flags");
    {
        static const uint32_t flags[] = {0x2u, 0x3u, 0x80000000u, 0xFFFFFFFFu};
        size_t i;
        for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
            d.feature_level = 0;
            d.thread_count = 1;
            d.flags = flags[i];
            dev = SENTINEL_DEV;
            hr = dmls_device_create(&d, &dev);
            check_hr("unknown flags", hr, E_INVALIDARG, "flags");
            check_true("device untouched", dev == SENTINEL_DEV);
        }
    }

    CASE("dmls_device_create: too many threads");
    d.feature_level = 0;
    d.thread_count = DMLS_MAX_THREAD_COUNT + 1;
    d.flags = 0;
    dev = SENTINEL_DEV;
    hr = dmls_device_create(&d, &dev);
    check_hr("thread_count 1025", hr, E_INVALIDARG, "thread_count");
    check_true("device untouched", dev == SENTINEL_DEV);
    d.thread_count = 0xFFFFFFFFu;
    hr = dmls_device_create(&d, &dev);
    check_hr("thread_count 2^32-1", hr, E_INVALIDARG, "thread_count");
    check_true("device untouched", dev == SENTINEL_DEV);
}

static void feature_cases(void) {
    dmls_device *dev = make_device(DML_FEATURE_LEVEL_4_0, 0);
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT tq;
    DML_FEATURE_QUERY_FEATURE_LEVELS lq;
    DML_FEATURE_LEVEL levels[3];
    struct {
        uint32_t before;
        DML_FEATURE_DATA_FEATURE_LEVELS data;
        uint32_t after;
    } ls;
    struct {
        uint32_t before;
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data;
        uint32_t after;
    } ts;
    HRESULT hr;
#define SUPPORT_UNTOUCHED()                                                                        \
    check_true("support untouched", ts.before == 0xCDCDCDCDu && ts.after == 0xCDCDCDCDu &&        \
                                        (uint32_t)ts.data.IsSupported == 0xCDCDCDCDu &&           \
                                        ls.before == 0xCDCDCDCDu && ls.after == 0xCDCDCDCDu &&    \
                                        ls.data.MaxSupportedFeatureLevel == 0xCDCDCDCDu)
    memset(&ts, 0xCD, sizeof ts);
    memset(&ls, 0xCD, sizeof ls);
    tq.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    levels[0] = DML_FEATURE_LEVEL_3_0;
    levels[1] = DML_FEATURE_LEVEL_4_0;
    levels[2] = DML_FEATURE_LEVEL_6_4;
    lq.RequestedFeatureLevelCount = 3;
    lq.RequestedFeatureLevels = levels;

    CASE("check_feature_support: NULL device");
    hr = dmls_device_check_feature_support(NULL, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof tq,
                                           &tq, sizeof ts.data, &ts.data);
    check_hr("NULL device", hr, E_POINTER, "device");
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: NULL query");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof tq,
                                           NULL, sizeof ts.data, &ts.data);
    check_hr("NULL query (data types)", hr, E_POINTER, "query");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, NULL,
                                           sizeof ls.data, &ls.data);
    check_hr("NULL query (levels)", hr, E_POINTER, "query");
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: NULL support");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof tq,
                                           &tq, sizeof ts.data, NULL);
    check_hr("NULL support (data types)", hr, E_POINTER, "support");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, &lq,
                                           sizeof ls.data, NULL);
    check_hr("NULL support (levels)", hr, E_POINTER, "support");

    CASE("check_feature_support: wrong query_size");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, 0, &tq,
                                           sizeof ts.data, &ts.data);
    check_hr("query_size 0", hr, E_INVALIDARG, "query_size");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq - 1, &lq,
                                           sizeof ls.data, &ls.data);
    check_hr("query_size 15", hr, E_INVALIDARG, "query_size");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, 0xFFFFFFFFu, &lq,
                                           sizeof ls.data, &ls.data);
    check_hr("query_size huge", hr, E_INVALIDARG, "query_size");
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: wrong support_size");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof tq,
                                           &tq, 8, &ts.data);
    check_hr("support_size 8", hr, E_INVALIDARG, "support_size");
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, &lq, 0,
                                           &ls.data);
    check_hr("support_size 0", hr, E_INVALIDARG, "support_size");
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: unknown feature");
    hr = dmls_device_check_feature_support(dev, 2, sizeof tq, &tq, sizeof ts.data, &ts.data);
    check_hr("feature 2", hr, DXGI_ERROR_UNSUPPORTED, "feature");
    hr = dmls_device_check_feature_support(dev, 0xFFFFFFFFu, sizeof tq, &tq, sizeof ts.data,
                                           &ts.data);
    check_hr("feature 2^32-1", hr, DXGI_ERROR_UNSUPPORTED, "feature");
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: RequestedFeatureLevelCount 0");
    lq.RequestedFeatureLevelCount = 0;
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, &lq,
                                           sizeof ls.data, &ls.data);
    check_hr("count 0", hr, E_INVALIDARG, "RequestedFeatureLevelCount");
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: NULL RequestedFeatureLevels");
    lq.RequestedFeatureLevelCount = 2;
    lq.RequestedFeatureLevels = NULL;
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, &lq,
                                           sizeof ls.data, &ls.data);
    check_hr("NULL levels", hr, E_POINTER, "RequestedFeatureLevels");
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: a requested level that is not a DML_FEATURE_LEVEL");
    {
        /* Exactly two entries on the heap: a reader must not go past them. */
        DML_FEATURE_LEVEL *two = (DML_FEATURE_LEVEL *)malloc(2 * sizeof *two);
        two[0] = DML_FEATURE_LEVEL_3_0;
        two[1] = 0x3300u;
        lq.RequestedFeatureLevelCount = 2;
        lq.RequestedFeatureLevels = two;
        hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, &lq,
                                               sizeof ls.data, &ls.data);
        check_hr("level 0x3300", hr, E_INVALIDARG, "RequestedFeatureLevels[1]");
        free(two);
    }
    SUPPORT_UNTOUCHED();

    CASE("check_feature_support: every requested level above the device's");
    levels[0] = DML_FEATURE_LEVEL_5_1;
    levels[1] = DML_FEATURE_LEVEL_6_4;
    lq.RequestedFeatureLevelCount = 2;
    lq.RequestedFeatureLevels = levels;
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, &lq,
                                           sizeof ls.data, &ls.data);
    check_hr("levels above 4_0", hr, DXGI_ERROR_UNSUPPORTED, "4_0");
    SUPPORT_UNTOUCHED();

    /* Positive controls: the same structs work when valid. */
    levels[0] = DML_FEATURE_LEVEL_3_0;
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_FEATURE_LEVELS, sizeof lq, &lq,
                                           sizeof ls.data, &ls.data);
    check_hr("valid level query", hr, S_OK, NULL);
    check_true("answer 3_0", ls.data.MaxSupportedFeatureLevel == DML_FEATURE_LEVEL_3_0);
    tq.DataType = 99;
    hr = dmls_device_check_feature_support(dev, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof tq,
                                           &tq, sizeof ts.data, &ts.data);
    check_hr("unknown type query is answered, not an error", hr, S_OK, NULL);
    check_true("unknown type unsupported", ts.data.IsSupported == 0);
    dmls_device_release(dev);
#undef SUPPORT_UNTOUCHED
}

/* ------------------------------------------------------------------------------------------ */
/* dmls_device_create_operator: pointers and values common to every operator                  */

static void create_pointer_cases(dmls_device *dev) {
    dmls_test_nonzero nz;
    dm1_desc d1;
    dm0_desc d0;
    dmls_operator *op = SENTINEL_OP;
    HRESULT hr;

    CASE("create_operator: NULL device");
    nz_init(&nz);
    expect_create("NULL device", NULL, &nz.op, E_POINTER, "device");

    CASE("create_operator: NULL desc");
    expect_create("NULL desc", dev, NULL, E_POINTER, "desc");

    CASE("create_operator: NULL op");
    hr = dmls_device_create_operator(dev, &nz.op, NULL);
    check_hr("NULL op", hr, E_POINTER, "op");

    CASE("create_operator: NULL DML_OPERATOR_DESC.Desc");
    nz.op.Desc = NULL;
    expect_create("NONZERO_COORDINATES Desc NULL", dev, &nz.op, E_POINTER, "NONZERO_COORDINATES");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.op.Desc = NULL;
    expect_create("DIAGONAL_MATRIX1 Desc NULL", dev, &d1.op, E_POINTER, "DIAGONAL_MATRIX1");
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    d0.op.Desc = NULL;
    expect_create("DIAGONAL_MATRIX Desc NULL", dev, &d0.op, E_POINTER, "DIAGONAL_MATRIX");

    CASE("create_operator: NULL NONZERO_COORDINATES InputTensor");
    nz_init(&nz);
    nz.nz.InputTensor = NULL;
    expect_create("InputTensor NULL", dev, &nz.op, E_POINTER, "InputTensor");

    CASE("create_operator: NULL NONZERO_COORDINATES OutputCountTensor");
    nz_init(&nz);
    nz.nz.OutputCountTensor = NULL;
    expect_create("OutputCountTensor NULL", dev, &nz.op, E_POINTER, "OutputCountTensor");

    CASE("create_operator: NULL NONZERO_COORDINATES OutputCoordinatesTensor");
    nz_init(&nz);
    nz.nz.OutputCoordinatesTensor = NULL;
    expect_create("OutputCoordinatesTensor NULL", dev, &nz.op, E_POINTER,
                  "OutputCoordinatesTensor");

    CASE("create_operator: NULL DIAGONAL_MATRIX1 OutputTensor");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.dm.OutputTensor = NULL;
    expect_create("DIAGONAL_MATRIX1 OutputTensor NULL", dev, &d1.op, E_POINTER, "OutputTensor");

    CASE("create_operator: NULL DIAGONAL_MATRIX OutputTensor");
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    d0.dm.OutputTensor = NULL;
    expect_create("DIAGONAL_MATRIX OutputTensor NULL", dev, &d0.op, E_POINTER, "OutputTensor");

    CASE("create_operator: NULL DML_TENSOR_DESC.Desc");
    nz_init(&nz);
    nz.in.desc.Desc = NULL;
    expect_create("NONZERO_COORDINATES InputTensor Desc", dev, &nz.op, E_POINTER, "InputTensor");
    nz_init(&nz);
    nz.count.desc.Desc = NULL;
    expect_create("NONZERO_COORDINATES OutputCountTensor Desc", dev, &nz.op, E_POINTER,
                  "OutputCountTensor");
    nz_init(&nz);
    nz.coords.desc.Desc = NULL;
    expect_create("NONZERO_COORDINATES OutputCoordinatesTensor Desc", dev, &nz.op, E_POINTER,
                  "OutputCoordinatesTensor");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.in.desc.Desc = NULL;
    expect_create("DIAGONAL_MATRIX1 InputTensor Desc", dev, &d1.op, E_POINTER, "InputTensor");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.out.desc.Desc = NULL;
    expect_create("DIAGONAL_MATRIX1 OutputTensor Desc", dev, &d1.op, E_POINTER, "OutputTensor");
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    d0.out.desc.Desc = NULL;
    expect_create("DIAGONAL_MATRIX OutputTensor Desc", dev, &d0.op, E_POINTER, "OutputTensor");

    CASE("create_operator: NULL Sizes");
    nz_init(&nz);
    nz.in.buf.Sizes = NULL;
    expect_create("NONZERO_COORDINATES InputTensor Sizes", dev, &nz.op, E_POINTER, "Sizes");
    nz_init(&nz);
    nz.count.buf.Sizes = NULL;
    expect_create("NONZERO_COORDINATES OutputCountTensor Sizes", dev, &nz.op, E_POINTER, "Sizes");
    nz_init(&nz);
    nz.coords.buf.Sizes = NULL;
    expect_create("NONZERO_COORDINATES OutputCoordinatesTensor Sizes", dev, &nz.op, E_POINTER,
                  "Sizes");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.in.buf.Sizes = NULL;
    expect_create("DIAGONAL_MATRIX1 InputTensor Sizes", dev, &d1.op, E_POINTER, "Sizes");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.out.buf.Sizes = NULL;
    expect_create("DIAGONAL_MATRIX1 OutputTensor Sizes", dev, &d1.op, E_POINTER, "Sizes");
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    d0.out.buf.Sizes = NULL;
    expect_create("DIAGONAL_MATRIX OutputTensor Sizes", dev, &d0.op, E_POINTER, "Sizes");

    /* NULL Strides and a NULL DIAGONAL_MATRIX1 InputTensor are allowed. */
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.dm.InputTensor = NULL;
    expect_create("optional InputTensor NULL is valid", dev, &d1.op, S_OK, NULL);
    (void)op;
}

static void create_value_cases(dmls_device *dev) {
    dmls_test_nonzero nz;
    dm1_desc d1;
    dm0_desc d0;
    size_t i;

    CASE("create_operator: DML_OPERATOR_INVALID");
    nz_init(&nz);
    nz.op.Type = DML_OPERATOR_INVALID;
    expect_create("Type 0", dev, &nz.op, E_INVALIDARG, "INVALID");

    CASE("create_operator: operator type beyond DirectML's");
    {
        static const DML_OPERATOR_TYPE bad[] = {178u, 1000u, 0x7FFFFFFFu, 0xFFFFFFFFu};
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            nz_init(&nz);
            nz.op.Type = bad[i];
            expect_create("unknown type", dev, &nz.op, E_INVALIDARG, "DML_OPERATOR_TYPE");
        }
    }

    CASE("create_operator: a real DirectML operator this library lacks");
    {
        static const DML_OPERATOR_TYPE lacking[] = {1u, 92u, 94u, DML_OPERATOR_FILL_VALUE_CONSTANT,
                                                    132u, 134u, 162u, 164u, DML_OPERATOR_UNFOLD};
        for (i = 0; i < sizeof lacking / sizeof lacking[0]; i++) {
            nz_init(&nz);
            nz.op.Type = lacking[i];
            /* Desc points to a NONZERO desc: the library must reject the type without reading it
               as the other operator's struct. */
            expect_create("unimplemented type", dev, &nz.op, E_NOTIMPL, "does not implement");
        }
    }

    CASE("create_operator: tensor Type not DML_TENSOR_TYPE_BUFFER");
    {
        static const DML_TENSOR_TYPE bad[] = {DML_TENSOR_TYPE_INVALID, 2u, 0xFFFFFFFFu};
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            nz_init(&nz);
            nz.coords.desc.Type = bad[i];
            expect_create("coordinates Type", dev, &nz.op, E_INVALIDARG, "OutputCoordinatesTensor");
            dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
            d1.in.desc.Type = bad[i];
            expect_create("DIAGONAL_MATRIX1 input Type", dev, &d1.op, E_INVALIDARG, "InputTensor");
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
            d0.out.desc.Type = bad[i];
            expect_create("DIAGONAL_MATRIX output Type", dev, &d0.op, E_INVALIDARG, "OutputTensor");
        }
    }

    CASE("create_operator: unknown data type");
    {
        static const DML_TENSOR_DATA_TYPE bad[] = {DML_TENSOR_DATA_TYPE_UNKNOWN, 14u, 255u,
                                                   0xFFFFFFFFu};
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            nz_init(&nz);
            nz.in.buf.DataType = bad[i];
            expect_create("NONZERO input type", dev, &nz.op, E_INVALIDARG, "DataType");
            dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
            d1.out.buf.DataType = bad[i];
            d1.in.buf.DataType = bad[i];
            d1.dm.ValueDataType = bad[i];
            expect_create("DIAGONAL_MATRIX1 type", dev, &d1.op, E_INVALIDARG, "DataType");
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
            d0.out.buf.DataType = bad[i];
            expect_create("DIAGONAL_MATRIX type", dev, &d0.op, E_INVALIDARG, "DataType");
        }
    }

    CASE("create_operator: 4-bit data types (UINT4, INT4)");
    {
        static const DML_TENSOR_DATA_TYPE four[] = {DML_TENSOR_DATA_TYPE_UINT4,
                                                    DML_TENSOR_DATA_TYPE_INT4};
        for (i = 0; i < 2; i++) {
            nz_init(&nz);
            nz.in.buf.DataType = four[i];
            expect_create("NONZERO 4-bit input", dev, &nz.op, E_INVALIDARG, "4");
            dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
            d1.out.buf.DataType = four[i];
            d1.in.buf.DataType = four[i];
            d1.dm.ValueDataType = four[i];
            expect_create("DIAGONAL_MATRIX1 4-bit", dev, &d1.op, E_INVALIDARG, "4");
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
            d0.out.buf.DataType = four[i];
            expect_create("DIAGONAL_MATRIX 4-bit", dev, &d0.op, E_INVALIDARG, "4");
        }
    }

    CASE("create_operator: DimensionCount 0");
    nz_init(&nz);
    nz.in.buf.DimensionCount = 0;
    expect_create("NONZERO input 0 dims", dev, &nz.op, E_INVALIDARG, "DimensionCount");
    nz_init(&nz);
    nz.in.buf.DimensionCount = 0;
    nz.in.buf.Sizes = NULL; /* nothing to read for 0 dims: the count is what is wrong */
    expect_create("NONZERO input 0 dims, NULL Sizes", dev, &nz.op, E_INVALIDARG,
                  "DimensionCount");
    nz_init(&nz);
    nz.count.buf.DimensionCount = 0;
    expect_create("NONZERO count 0 dims", dev, &nz.op, E_INVALIDARG, "DimensionCount");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.out.buf.DimensionCount = 0;
    expect_create("DIAGONAL_MATRIX1 output 0 dims", dev, &d1.op, E_INVALIDARG, "DimensionCount");
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    d0.out.buf.DimensionCount = 0;
    expect_create("DIAGONAL_MATRIX output 0 dims", dev, &d0.op, E_INVALIDARG, "DimensionCount");

    CASE("create_operator: DimensionCount 9");
    {
        /* Sizes and Strides of exactly 8 entries: a reader trusting the count would overrun. */
        UINT *eight = (UINT *)malloc(8 * sizeof(UINT));
        UINT *strides8 = (UINT *)malloc(8 * sizeof(UINT));
        for (i = 0; i < 8; i++) {
            eight[i] = 1;
            strides8[i] = 1;
        }
        nz_init(&nz);
        nz.in.buf.DimensionCount = 9;
        nz.in.buf.Sizes = eight;
        nz.in.buf.Strides = strides8;
        expect_create("NONZERO input 9 dims", dev, &nz.op, E_INVALIDARG, "DimensionCount");
        nz_init(&nz);
        nz.coords.buf.DimensionCount = 9;
        nz.coords.buf.Sizes = eight;
        expect_create("NONZERO coordinates 9 dims", dev, &nz.op, E_INVALIDARG, "DimensionCount");
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        d1.out.buf.DimensionCount = 9;
        d1.out.buf.Sizes = eight;
        expect_create("DIAGONAL_MATRIX1 output 9 dims", dev, &d1.op, E_INVALIDARG,
                      "DimensionCount");
        dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
        d0.out.buf.DimensionCount = 9;
        d0.out.buf.Sizes = eight;
        expect_create("DIAGONAL_MATRIX output 9 dims", dev, &d0.op, E_INVALIDARG, "DimensionCount");
        free(eight);
        free(strides8);
    }

    CASE("create_operator: DimensionCount huge");
    {
        static const UINT huge[] = {64u, 0x10000u, 0x7FFFFFFFu, 0xFFFFFFFFu};
        UINT *four = (UINT *)malloc(4 * sizeof(UINT));
        for (i = 0; i < 4; i++) {
            four[i] = 2;
        }
        for (i = 0; i < sizeof huge / sizeof huge[0]; i++) {
            nz_init(&nz);
            nz.in.buf.DimensionCount = huge[i];
            nz.in.buf.Sizes = four;
            nz.in.buf.Strides = four;
            expect_create("NONZERO input huge dims", dev, &nz.op, E_INVALIDARG, "DimensionCount");
            dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
            d1.in.buf.DimensionCount = huge[i];
            d1.in.buf.Sizes = four;
            expect_create("DIAGONAL_MATRIX1 input huge dims", dev, &d1.op, E_INVALIDARG,
                          "DimensionCount");
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
            d0.out.buf.DimensionCount = huge[i];
            d0.out.buf.Sizes = four;
            expect_create("DIAGONAL_MATRIX output huge dims", dev, &d0.op, E_INVALIDARG,
                          "DimensionCount");
        }
        free(four);
    }

    CASE("create_operator: a size of 0");
    for (i = 0; i < 2; i++) {
        nz_init(&nz);
        nz.in.sizes[i] = 0;
        expect_create("NONZERO input size 0", dev, &nz.op, E_INVALIDARG, "Sizes");
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        d1.out.sizes[i] = 0;
        d1.in.sizes[i] = 0;
        expect_create("DIAGONAL_MATRIX1 size 0", dev, &d1.op, E_INVALIDARG, "Sizes");
        dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
        d0.out.sizes[2 + i] = 0;
        expect_create("DIAGONAL_MATRIX size 0", dev, &d0.op, E_INVALIDARG, "Sizes");
    }
    nz_init(&nz);
    nz.count.sizes[0] = 0;
    expect_create("NONZERO count size 0", dev, &nz.op, E_INVALIDARG, "Sizes");

    CASE("create_operator: more than 2^32 - 1 elements");
    {
        static const UINT big[2] = {65536u, 65536u}; /* exactly 2^32 */
        static const UINT coords[2] = {0xFFFFFFFFu, 2u};
        static const UINT one[1] = {1};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.in, DML_TENSOR_DATA_TYPE_UINT8, 2, big, NULL);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, coords, NULL);
        dmls_test_owned_tensor_init(&nz.count, DML_TENSOR_DATA_TYPE_UINT32, 1, one, NULL);
        expect_create("NONZERO input 2^32 elements", dev, &nz.op, E_INVALIDARG, "elements");
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_UINT8, 2);
        dmls_test_owned_tensor_init(&d1.out, DML_TENSOR_DATA_TYPE_UINT8, 2, big, NULL);
        d1.dm.InputTensor = NULL;
        expect_create("DIAGONAL_MATRIX1 output 2^32 elements", dev, &d1.op, E_INVALIDARG,
                      "elements");
        {
            static const UINT big4[4] = {1u, 2u, 0x80000000u, 1u};
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_UINT8, 4);
            dmls_test_owned_tensor_init(&d0.out, DML_TENSOR_DATA_TYPE_UINT8, 4, big4, NULL);
            expect_create("DIAGONAL_MATRIX output 2^32 elements", dev, &d0.op, E_INVALIDARG,
                          "elements");
        }
    }

    CASE("create_operator: size product overflowing 64 bits");
    {
        /* With 64-bit outputs (an extension) the 2^32 - 1 cap is lifted, so only the 64-bit
           arithmetic stands between these sizes and a wrapped product. */
        dmls_device *ext = make_device(0, DMLS_DEVICE_FLAG_EXTENSIONS);
        static const UINT huge8[8] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                                      0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
        static const UINT three[3] = {0x10000u, 0x10000u, 0x10000u}; /* 2^48 elements */
        static const UINT wrap3[3] = {0x100000u, 0x100000u, 0x100000u}; /* 2^60 x 8 bytes */
        static const UINT one[1] = {1};
        static const UINT coords[2] = {0xFFFFFFFFu, 3u};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.in, DML_TENSOR_DATA_TYPE_FLOAT32, 8, huge8, NULL);
        nz.in.buf.TotalTensorSizeInBytes = 0xFFFFFFFFFFFFFFFCull;
        dmls_test_owned_tensor_init(&nz.count, DML_TENSOR_DATA_TYPE_UINT64, 1, one, NULL);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT64, 2, coords, NULL);
        expect_create("2^256 elements (extensions)", ext, &nz.op, E_INVALIDARG, "InputTensor");
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.in, DML_TENSOR_DATA_TYPE_FLOAT64, 3, wrap3, NULL);
        nz.in.buf.TotalTensorSizeInBytes = 0xFFFFFFFFFFFFFFFCull;
        dmls_test_owned_tensor_init(&nz.count, DML_TENSOR_DATA_TYPE_UINT64, 1, one, NULL);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT64, 2, coords, NULL);
        expect_create("2^60 FLOAT64 elements = 2^63 bytes (extensions)", ext, &nz.op,
                      E_INVALIDARG, "InputTensor");
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.in, DML_TENSOR_DATA_TYPE_FLOAT32, 8, huge8, NULL);
        nz.in.buf.TotalTensorSizeInBytes = 0xFFFFFFFFFFFFFFFCull;
        expect_create("2^256 elements (strict)", dev, &nz.op, E_INVALIDARG, "InputTensor");
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, three, NULL);
        expect_create("2^48 elements (strict)", dev, &nz.op, E_INVALIDARG, "elements");
        check_true("calc size of 2^256 elements is 0",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 8, huge8, NULL) == 0);
        /* 2^60 x 8 bytes = 2^63 fits in 64 bits: the header promises the size, not 0. */
        check_true("calc size of 2^60 INT64 elements is 2^63 (it fits in 64 bits)",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 3, wrap3, NULL) ==
                       0x8000000000000000ull);
        {
            /* 3 x 2^62 4-bit elements: the bit count overflows 64 bits, the bytes (3 x 2^61)
               do not. */
            static const UINT s4[3] = {0x80000000u, 0x80000000u, 3u};
            check_true("calc size of 3 x 2^62 UINT4 elements is 3 x 2^61 (it fits in 64 bits)",
                       dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT4, 3, s4, NULL) ==
                           0x6000000000000000ull);
        }
        dmls_device_release(ext);
    }

    CASE("create_operator: strided extent overflowing 64 bits");
    {
        /* 2^32 - 1 elements is allowed, but (2^32 - 2) x stride (2^32 - 1) x 8 bytes wraps. */
        static const UINT sizes[2] = {0xFFFFFFFFu, 1u};
        static const UINT strides[2] = {0xFFFFFFFFu, 1u};
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT64, 2);
        dmls_test_owned_tensor_init(&d1.out, DML_TENSOR_DATA_TYPE_FLOAT64, 2, sizes, strides);
        d1.out.buf.TotalTensorSizeInBytes = 0xFFFFFFFFFFFFFFF0ull;
        d1.dm.InputTensor = NULL;
        expect_create("DIAGONAL_MATRIX1 FLOAT64 extent", dev, &d1.op, E_INVALIDARG, "OutputTensor");
        check_true("calc size of the wrapped extent is 0",
                   dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT64, 2, sizes, strides) ==
                       0);
        {
            static const UINT s4[4] = {0xFFFFu, 0xFFFFu, 1u, 1u};
            static const UINT st4[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 1u, 1u};
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_INT64, 4);
            dmls_test_owned_tensor_init(&d0.out, DML_TENSOR_DATA_TYPE_INT64, 4, s4, st4);
            /* (2 x 0xFFFE x 0xFFFFFFFF + 1) x 8 fits in 64 bits: a fine, but enormous, extent. */
            d0.out.buf.TotalTensorSizeInBytes = 16;
            expect_create("DIAGONAL_MATRIX INT64 extent above the total", dev, &d0.op, E_INVALIDARG,
                          "TotalTensorSizeInBytes");
        }
    }

    CASE("create_operator: TotalTensorSizeInBytes too small");
    nz_init(&nz);
    nz.in.buf.TotalTensorSizeInBytes -= 4;
    expect_create("NONZERO input total - 4", dev, &nz.op, E_INVALIDARG, "TotalTensorSizeInBytes");
    nz_init(&nz);
    nz.coords.buf.TotalTensorSizeInBytes = 0;
    expect_create("NONZERO coordinates total 0", dev, &nz.op, E_INVALIDARG,
                  "TotalTensorSizeInBytes");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.in.buf.TotalTensorSizeInBytes = 44;
    expect_create("DIAGONAL_MATRIX1 input total 44 < 48", dev, &d1.op, E_INVALIDARG,
                  "TotalTensorSizeInBytes");
    {
        static const UINT sizes[4] = {1, 1, 3, 4};
        static const UINT strides[4] = {0, 0, 8, 1}; /* spans 2 x 8 + 3 + 1 = 20 elements */
        dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmls_test_owned_tensor_init(&d0.out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, strides);
        d0.out.buf.TotalTensorSizeInBytes = 48; /* the packed size, too small for the strides */
        expect_create("DIAGONAL_MATRIX strided total", dev, &d0.op, E_INVALIDARG,
                      "TotalTensorSizeInBytes");
    }

    CASE("create_operator: TotalTensorSizeInBytes not a multiple of 4");
    nz_init(&nz);
    nz.in.buf.TotalTensorSizeInBytes += 2;
    expect_create("NONZERO input total 26", dev, &nz.op, E_INVALIDARG, "multiple of 4");
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_UINT8, 4);
    d0.out.buf.TotalTensorSizeInBytes = 13;
    expect_create("DIAGONAL_MATRIX UINT8 total 13", dev, &d0.op, E_INVALIDARG, "multiple of 4");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_INT8, 2);
    d1.out.buf.TotalTensorSizeInBytes = 0xFFFFFFFFFFFFFFFFull;
    expect_create("DIAGONAL_MATRIX1 total 2^64 - 1", dev, &d1.op, E_INVALIDARG, "multiple of 4");

    CASE("create_operator: TotalTensorSizeInBytes beyond the address space");
    nz_init(&nz);
    nz.in.buf.TotalTensorSizeInBytes = 0xFFFFFFFFFFFFFFFCull;
    expect_create("NONZERO input total 2^64 - 4", dev, &nz.op, E_INVALIDARG,
                  "TotalTensorSizeInBytes");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.out.buf.TotalTensorSizeInBytes = 0x8000000000000000ull;
    expect_create("DIAGONAL_MATRIX1 output total 2^63", dev, &d1.op, E_INVALIDARG,
                  "TotalTensorSizeInBytes");

    CASE("create_operator: GuaranteedBaseOffsetAlignment not a power of two");
    {
        static const UINT bad[] = {3u, 6u, 24u, 0xFFFFFFFFu, 0x80000001u};
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            nz_init(&nz);
            nz.in.buf.GuaranteedBaseOffsetAlignment = bad[i];
            expect_create("NONZERO input alignment", dev, &nz.op, E_INVALIDARG,
                          "GuaranteedBaseOffsetAlignment");
            dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
            d1.out.buf.GuaranteedBaseOffsetAlignment = bad[i];
            expect_create("DIAGONAL_MATRIX1 output alignment", dev, &d1.op, E_INVALIDARG,
                          "GuaranteedBaseOffsetAlignment");
        }
    }

    CASE("create_operator: GuaranteedBaseOffsetAlignment below the element size");
    nz_init(&nz);
    nz.coords.buf.GuaranteedBaseOffsetAlignment = 2; /* UINT32 */
    expect_create("NONZERO coordinates alignment 2", dev, &nz.op, E_INVALIDARG,
                  "GuaranteedBaseOffsetAlignment");
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    d0.out.buf.GuaranteedBaseOffsetAlignment = 1;
    expect_create("DIAGONAL_MATRIX FLOAT32 alignment 1", dev, &d0.op, E_INVALIDARG,
                  "GuaranteedBaseOffsetAlignment");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    dmls_test_owned_tensor_init(&d1.out, DML_TENSOR_DATA_TYPE_FLOAT64, 2, d1.in.sizes, NULL);
    dmls_test_owned_tensor_init(&d1.in, DML_TENSOR_DATA_TYPE_FLOAT64, 2, d1.out.sizes, NULL);
    d1.dm.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT64;
    d1.in.buf.GuaranteedBaseOffsetAlignment = 4;
    expect_create("DIAGONAL_MATRIX1 FLOAT64 alignment 4", dev, &d1.op, E_INVALIDARG,
                  "GuaranteedBaseOffsetAlignment");

    CASE("create_operator: Flags DML_TENSOR_FLAG_OWNED_BY_DML");
    nz_init(&nz);
    nz.in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    expect_create("NONZERO input OWNED_BY_DML", dev, &nz.op, E_INVALIDARG, "OWNED_BY_DML");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.in.buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    expect_create("DIAGONAL_MATRIX1 input OWNED_BY_DML", dev, &d1.op, E_INVALIDARG,
                  "OWNED_BY_DML");

    CASE("create_operator: unknown tensor flags");
    {
        static const DML_TENSOR_FLAGS bad[] = {0x2u, 0x3u, 0x80000000u, 0xFFFFFFFFu};
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            nz_init(&nz);
            nz.count.buf.Flags = bad[i];
            expect_create("NONZERO count flags", dev, &nz.op, E_INVALIDARG, "Flags");
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
            d0.out.buf.Flags = bad[i];
            expect_create("DIAGONAL_MATRIX output flags", dev, &d0.op, E_INVALIDARG, "Flags");
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Operator rules at every feature level                                                      */

static void nonzero_rule_cases(void) {
    dmls_test_nonzero nz;
    size_t li;
    dmls_device *dev;
    dmls_device *ext;

    CASE("NONZERO_COORDINATES below DML_FEATURE_LEVEL_3_0 (and valid from 3_0), every level");
    for (li = 0; li < 15; li++) {
        dev = make_device(k_levels[li], 0);
        nz_init_dims(&nz, 4);
        expect_create("4-dim NONZERO", dev, &nz.op,
                      k_levels[li] >= DML_FEATURE_LEVEL_3_0 ? S_OK : E_INVALIDARG, "3_0");
        dmls_device_release(dev);
    }

    CASE("NONZERO_COORDINATES at 3.x: DimensionCount other than 4 or 5, every level");
    for (li = 0; li < 15; li++) {
        UINT dims;
        if (k_levels[li] < DML_FEATURE_LEVEL_3_0) {
            continue;
        }
        dev = make_device(k_levels[li], 0);
        for (dims = 2; dims <= 8; dims++) {
            HRESULT want = S_OK;
            if (k_levels[li] < DML_FEATURE_LEVEL_4_0 && dims != 4 && dims != 5) {
                want = E_INVALIDARG;
            }
            nz_init_dims(&nz, dims);
            expect_create("NONZERO dims", dev, &nz.op, want, "DimensionCount");
        }
        dmls_device_release(dev);
    }

    CASE("NONZERO_COORDINATES at 3.x: DimensionCounts that differ");
    for (li = 3; li <= 4; li++) {
        UINT five[5] = {1, 1, 1, 6, 2};
        dev = make_device(k_levels[li], 0);
        nz_init_dims(&nz, 4);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 5, five, NULL);
        expect_create("4/4/5 dims at 3.x", dev, &nz.op, E_INVALIDARG, "same");
        dmls_device_release(dev);
        dev = make_device(DML_FEATURE_LEVEL_4_0, 0);
        expect_create("4/4/5 dims at 4_0 is valid", dev, &nz.op, S_OK, NULL);
        dmls_device_release(dev);
    }

    dev = make_device(DML_FEATURE_LEVEL_4_0, 0);
    ext = make_device(DML_FEATURE_LEVEL_4_0, DMLS_DEVICE_FLAG_EXTENSIONS);

    CASE("NONZERO_COORDINATES from 4_0: coordinates with 1 dimension");
    {
        static const UINT six[1] = {6};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 1, six, NULL);
        expect_create("coordinates 1 dim", dev, &nz.op, E_INVALIDARG, "DimensionCount");
    }

    CASE("NONZERO_COORDINATES: 64-bit input on a strict device");
    {
        static const DML_TENSOR_DATA_TYPE wide[3] = {DML_TENSOR_DATA_TYPE_FLOAT64,
                                                     DML_TENSOR_DATA_TYPE_INT64,
                                                     DML_TENSOR_DATA_TYPE_UINT64};
        for (li = 0; li < 3; li++) {
            nz_init(&nz);
            nz.in.buf.DataType = wide[li];
            nz.in.buf.TotalTensorSizeInBytes = 48;
            expect_create("64-bit input strict", dev, &nz.op, E_INVALIDARG,
                          "DMLS_DEVICE_FLAG_EXTENSIONS");
            expect_create("64-bit input with extensions", ext, &nz.op, S_OK, NULL);
        }
    }

    CASE("NONZERO_COORDINATES: count or coordinates not UINT32");
    {
        static const DML_TENSOR_DATA_TYPE bad[] = {
            DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT16,
            DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16, 0u, 77u};
        for (li = 0; li < sizeof bad / sizeof bad[0]; li++) {
            nz_init(&nz);
            nz.count.buf.DataType = bad[li];
            expect_create("count type", dev, &nz.op, E_INVALIDARG, "OutputCountTensor DataType");
            expect_create("count type (extensions)", ext, &nz.op, E_INVALIDARG,
                          "OutputCountTensor DataType");
            nz_init(&nz);
            nz.coords.buf.DataType = bad[li];
            expect_create("coordinates type", dev, &nz.op, E_INVALIDARG,
                          "OutputCoordinatesTensor DataType");
        }
    }

    CASE("NONZERO_COORDINATES: 64-bit count and coordinates on a strict device");
    nz_init(&nz);
    nz.count.buf.DataType = DML_TENSOR_DATA_TYPE_UINT64;
    nz.count.buf.TotalTensorSizeInBytes = 8;
    nz.coords.buf.DataType = DML_TENSOR_DATA_TYPE_UINT64;
    nz.coords.buf.TotalTensorSizeInBytes = 96;
    expect_create("UINT64 outputs strict", dev, &nz.op, E_INVALIDARG,
                  "DMLS_DEVICE_FLAG_EXTENSIONS");
    expect_create("UINT64 outputs with extensions", ext, &nz.op, S_OK, NULL);

    CASE("NONZERO_COORDINATES: count and coordinates of different types");
    nz.coords.buf.DataType = DML_TENSOR_DATA_TYPE_INT64;
    expect_create("UINT64 count, INT64 coordinates", ext, &nz.op, E_INVALIDARG, "same");
    nz.coords.buf.DataType = DML_TENSOR_DATA_TYPE_UINT32;
    nz.coords.buf.TotalTensorSizeInBytes = 48;
    expect_create("UINT64 count, UINT32 coordinates", ext, &nz.op, E_INVALIDARG, "same");

    CASE("NONZERO_COORDINATES: count sizes not all 1");
    {
        static const UINT two[2] = {1, 2};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.count, DML_TENSOR_DATA_TYPE_UINT32, 2, two, NULL);
        expect_create("count {1,2}", dev, &nz.op, E_INVALIDARG, "OutputCountTensor Sizes[1]");
    }

    CASE("NONZERO_COORDINATES: coordinates leading sizes not 1");
    {
        static const UINT s[3] = {2, 6, 2};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 3, s, NULL);
        expect_create("coordinates {2,6,2}", dev, &nz.op, E_INVALIDARG,
                      "OutputCoordinatesTensor Sizes[0]");
    }

    CASE("NONZERO_COORDINATES: M not the input's element count");
    {
        static const UINT s5[2] = {5, 2}, s7[2] = {7, 2};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, s5, NULL);
        expect_create("M 5 for 6 elements", dev, &nz.op, E_INVALIDARG, "(M)");
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, s7, NULL);
        expect_create("M 7 for 6 elements", dev, &nz.op, E_INVALIDARG, "(M)");
    }

    CASE("NONZERO_COORDINATES: N below the input's effective rank");
    {
        static const UINT s[2] = {6, 1};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, s, NULL);
        expect_create("N 1 for a {2,3} input", dev, &nz.op, E_INVALIDARG, "(N)");
    }

    CASE("NONZERO_COORDINATES: N above the input's DimensionCount");
    {
        static const UINT s[2] = {6, 3};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, s, NULL);
        expect_create("N 3 for a 2-dim input", dev, &nz.op, E_INVALIDARG, "(N)");
    }

    CASE("NONZERO_COORDINATES: more than 2^32 - 1 elements with 32-bit outputs (extensions)");
    {
        static const UINT big[2] = {0x10000u, 0x10000u};
        static const UINT coords[2] = {0xFFFFFFFFu, 2u};
        nz_init(&nz);
        dmls_test_owned_tensor_init(&nz.in, DML_TENSOR_DATA_TYPE_UINT8, 2, big, NULL);
        dmls_test_owned_tensor_init(&nz.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, coords, NULL);
        expect_create("2^32 input elements, UINT32 outputs", ext, &nz.op, E_INVALIDARG,
                      "elements");
    }

    dmls_device_release(dev);
    dmls_device_release(ext);
}

static void diagonal1_rule_cases(void) {
    dm1_desc d1;
    size_t li;
    dmls_device *dev;

    CASE("DIAGONAL_MATRIX1 below DML_FEATURE_LEVEL_5_1 (and valid from 5_1), every level");
    for (li = 0; li < 15; li++) {
        dev = make_device(k_levels[li], 0);
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        expect_create("DIAGONAL_MATRIX1", dev, &d1.op,
                      k_levels[li] >= DML_FEATURE_LEVEL_5_1 ? S_OK : E_INVALIDARG, "5_1");
        dmls_device_release(dev);
    }

    dev = make_device(DML_FEATURE_LEVEL_5_1, 0);

    CASE("DIAGONAL_MATRIX1: ValueDataType differs from the output's");
    {
        static const DML_TENSOR_DATA_TYPE bad[] = {DML_TENSOR_DATA_TYPE_FLOAT16,
                                                   DML_TENSOR_DATA_TYPE_INT32,
                                                   DML_TENSOR_DATA_TYPE_UNKNOWN, 99u};
        for (li = 0; li < sizeof bad / sizeof bad[0]; li++) {
            dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
            d1.dm.ValueDataType = bad[li];
            expect_create("ValueDataType", dev, &d1.op, E_INVALIDARG, "ValueDataType");
        }
    }

    CASE("DIAGONAL_MATRIX1: output DimensionCount outside 2 to 4");
    {
        static const UINT one[1] = {4};
        static const UINT five[5] = {1, 1, 1, 3, 4};
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        d1.dm.InputTensor = NULL;
        dmls_test_owned_tensor_init(&d1.out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, one, NULL);
        expect_create("1 dim", dev, &d1.op, E_INVALIDARG, "DimensionCount");
        dmls_test_owned_tensor_init(&d1.out, DML_TENSOR_DATA_TYPE_FLOAT32, 5, five, NULL);
        expect_create("5 dims", dev, &d1.op, E_INVALIDARG, "DimensionCount");
    }

    CASE("DIAGONAL_MATRIX1: input data type differs from the output's");
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1.in.buf.DataType = DML_TENSOR_DATA_TYPE_INT32;
    expect_create("INT32 input, FLOAT32 output", dev, &d1.op, E_INVALIDARG, "InputTensor DataType");

    CASE("DIAGONAL_MATRIX1: input DimensionCount differs from the output's");
    {
        static const UINT s3[3] = {1, 3, 4};
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        dmls_test_owned_tensor_init(&d1.in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, s3, NULL);
        expect_create("3-dim input, 2-dim output", dev, &d1.op, E_INVALIDARG,
                      "InputTensor DimensionCount");
    }

    CASE("DIAGONAL_MATRIX1: input sizes differ from the output's");
    {
        static const UINT s[2] = {4, 3};
        dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        dmls_test_owned_tensor_init(&d1.in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, s, NULL);
        expect_create("{4,3} input, {3,4} output", dev, &d1.op, E_INVALIDARG, "Sizes");
    }

    dmls_device_release(dev);
}

static void diagonal_rule_cases(void) {
    static const DML_TENSOR_DATA_TYPE types[11] = {
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
        DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,
        DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_FLOAT64,
        DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64};
    dm0_desc d0;
    size_t li, ti;
    dmls_device *dev;

    CASE("DIAGONAL_MATRIX data types by feature level (2_0 floats, 2_1 integers, 5_1 64-bit)");
    for (li = 0; li < 15; li++) {
        DML_FEATURE_LEVEL l = k_levels[li];
        dev = make_device(l, 0);
        for (ti = 0; ti < 11; ti++) {
            DML_TENSOR_DATA_TYPE t = types[ti];
            DML_FEATURE_LEVEL needs = DML_FEATURE_LEVEL_2_0;
            if (t >= DML_TENSOR_DATA_TYPE_UINT32 && t <= DML_TENSOR_DATA_TYPE_INT8) {
                needs = DML_FEATURE_LEVEL_2_1;
            } else if (t >= DML_TENSOR_DATA_TYPE_FLOAT64) {
                needs = DML_FEATURE_LEVEL_5_1;
            }
            dm0_init(&d0, t, 4);
            expect_create("DIAGONAL_MATRIX type at level", dev, &d0.op,
                          l >= needs ? S_OK : E_INVALIDARG, "DIAGONAL_MATRIX");
        }
        dmls_device_release(dev);
    }

    CASE("DIAGONAL_MATRIX DimensionCount by feature level (4 before 4_0, 2 to 4 from 4_0)");
    for (li = 0; li < 15; li++) {
        DML_FEATURE_LEVEL l = k_levels[li];
        UINT dims;
        if (l < DML_FEATURE_LEVEL_2_0) {
            continue;
        }
        dev = make_device(l, 0);
        for (dims = 2; dims <= 8; dims++) {
            HRESULT want = E_INVALIDARG;
            if (dims == 4 || (l >= DML_FEATURE_LEVEL_4_0 && dims >= 2 && dims <= 4)) {
                want = S_OK;
            }
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, dims);
            expect_create("DIAGONAL_MATRIX dims at level", dev, &d0.op, want, "DimensionCount");
        }
        {
            static const UINT one[1] = {4};
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
            dmls_test_owned_tensor_init(&d0.out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, one, NULL);
            expect_create("DIAGONAL_MATRIX 1 dim", dev, &d0.op, E_INVALIDARG, "DimensionCount");
        }
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

#define EXEC(what, op, ni, in, no, out, want, needle)                                              \
    do {                                                                                           \
        HRESULT hr_ = dmls_operator_execute((op), (ni), (in), (no), (out));                        \
        check_hr((what), hr_, (want), (needle));                                                   \
        if ((want) != S_OK) {                                                                      \
            bindings_untouched((what), &s);                                                        \
        }                                                                                          \
    } while (0)

static void execute_cases(void) {
    dmls_device *dev = make_device(0, 0);
    dmls_test_nonzero nz;
    dm1_desc d1;
    dm0_desc d0;
    dmls_operator *nzop, *d1op, *d1op_noin, *d0op, *alignop;
    bindings s;
    const UINT64 nz_in = 24, nz_count = 4, nz_coords = 48, dm_bytes = 48;

    bindings_init(&s);
    nz_init(&nz);
    nzop = create_ok(dev, &nz.op);
    dm1_init(&d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
    d1op = create_ok(dev, &d1.op);
    d1.dm.InputTensor = NULL;
    d1op_noin = create_ok(dev, &d1.op);
    dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
    d0op = create_ok(dev, &d0.op);
    nz_init(&nz);
    nz.in.buf.GuaranteedBaseOffsetAlignment = 64;
    alignop = create_ok(dev, &nz.op);

    /* Positive control: the standard bindings run and write only the outputs' bytes. */
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    EXEC("valid NONZERO", nzop, 1, s.in_desc, 2, s.out_desc, S_OK, NULL);
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

    CASE("execute: NULL op");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    EXEC("NULL op", NULL, 1, s.in_desc, 2, s.out_desc, E_POINTER, "op");

    CASE("execute: wrong input_count");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    EXEC("NONZERO 0 inputs", nzop, 0, s.in_desc, 2, s.out_desc, E_INVALIDARG, "input_count");
    EXEC("NONZERO 2 inputs", nzop, 2, s.in_desc, 2, s.out_desc, E_INVALIDARG, "input_count");
    EXEC("NONZERO 2^32-1 inputs", nzop, 0xFFFFFFFFu, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "input_count");
    EXEC("DIAGONAL_MATRIX 1 input", d0op, 1, s.in_desc, 1, s.out_desc, E_INVALIDARG,
         "input_count");
    EXEC("DIAGONAL_MATRIX1 0 inputs", d1op_noin, 0, NULL, 1, s.out_desc, E_INVALIDARG,
         "input_count");

    CASE("execute: wrong output_count");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    EXEC("NONZERO 1 output", nzop, 1, s.in_desc, 1, s.out_desc, E_INVALIDARG, "output_count");
    EXEC("NONZERO 3 outputs", nzop, 1, s.in_desc, 3, s.out_desc, E_INVALIDARG, "output_count");
    EXEC("DIAGONAL_MATRIX 0 outputs", d0op, 0, NULL, 0, s.out_desc, E_INVALIDARG, "output_count");
    EXEC("DIAGONAL_MATRIX1 2^32-1 outputs", d1op, 1, s.in_desc, 0xFFFFFFFFu, s.out_desc,
         E_INVALIDARG, "output_count");

    CASE("execute: NULL inputs array with a nonzero count");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    EXEC("NONZERO inputs NULL", nzop, 1, NULL, 2, s.out_desc, E_POINTER, "inputs");
    EXEC("DIAGONAL_MATRIX1 inputs NULL", d1op, 1, NULL, 1, s.out_desc, E_POINTER, "inputs");

    CASE("execute: NULL outputs array");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    EXEC("NONZERO outputs NULL", nzop, 1, s.in_desc, 2, NULL, E_POINTER, "outputs");
    EXEC("DIAGONAL_MATRIX outputs NULL", d0op, 0, NULL, 1, NULL, E_POINTER, "outputs");

    CASE("execute: unknown binding Type");
    {
        static const DML_BINDING_TYPE bad[] = {3u, 100u, 0xFFFFFFFFu};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            bindings_reset(&s, nz_in, nz_count, nz_coords);
            s.in_desc[0].Type = bad[i];
            EXEC("input binding Type", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
                 "DML_BINDING_TYPE");
            bindings_reset(&s, nz_in, nz_count, nz_coords);
            s.out_desc[1].Type = bad[i];
            EXEC("output binding Type", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
                 "DML_BINDING_TYPE");
        }
    }

    CASE("execute: DML_BINDING_TYPE_BUFFER_ARRAY");
    {
        DML_BUFFER_ARRAY_BINDING arr;
        arr.BindingCount = 1;
        arr.Bindings = &s.bout0;
        bindings_reset(&s, nz_in, nz_count, nz_coords);
        s.out_desc[0].Type = DML_BINDING_TYPE_BUFFER_ARRAY;
        s.out_desc[0].Desc = &arr;
        EXEC("output BUFFER_ARRAY", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
             "BUFFER_ARRAY");
        bindings_reset(&s, nz_in, nz_count, nz_coords);
        arr.Bindings = &s.bin;
        s.in_desc[0].Type = DML_BINDING_TYPE_BUFFER_ARRAY;
        s.in_desc[0].Desc = &arr;
        EXEC("input BUFFER_ARRAY", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
             "BUFFER_ARRAY");
    }

    CASE("execute: NULL binding Desc");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.in_desc[0].Desc = NULL;
    EXEC("input Desc NULL", nzop, 1, s.in_desc, 2, s.out_desc, E_POINTER, "Desc");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.out_desc[1].Desc = NULL;
    EXEC("output Desc NULL", nzop, 1, s.in_desc, 2, s.out_desc, E_POINTER, "Desc");

    CASE("execute: NULL DML_BUFFER_BINDING.Buffer");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bin.Buffer = NULL;
    EXEC("input Buffer NULL", nzop, 1, s.in_desc, 2, s.out_desc, E_POINTER, "Buffer");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bout0.Buffer = NULL;
    EXEC("output Buffer NULL", nzop, 1, s.in_desc, 2, s.out_desc, E_POINTER, "Buffer");
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.bout0.Buffer = NULL;
    EXEC("DIAGONAL_MATRIX output Buffer NULL", d0op, 0, NULL, 1, s.out_desc, E_POINTER, "Buffer");

    CASE("execute: an output bound with DML_BINDING_TYPE_NONE");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.out_desc[0].Type = DML_BINDING_TYPE_NONE;
    EXEC("count NONE", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "OutputCountTensor");
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.out_desc[0].Type = DML_BINDING_TYPE_NONE;
    s.out_desc[0].Desc = NULL;
    EXEC("DIAGONAL_MATRIX1 output NONE", d1op, 1, s.in_desc, 1, s.out_desc, E_INVALIDARG,
         "OutputTensor");

    CASE("execute: a required input bound with DML_BINDING_TYPE_NONE");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.in_desc[0].Type = DML_BINDING_TYPE_NONE;
    EXEC("NONZERO input NONE", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "InputTensor");
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.in_desc[0].Type = DML_BINDING_TYPE_NONE;
    EXEC("DIAGONAL_MATRIX1 input NONE with a desc InputTensor", d1op, 1, s.in_desc, 1, s.out_desc,
         E_INVALIDARG, "InputTensor");

    CASE("execute: DIAGONAL_MATRIX1 input bound although the desc's InputTensor is NULL");
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    EXEC("bound input without a desc", d1op_noin, 1, s.in_desc, 1, s.out_desc, E_INVALIDARG,
         "InputTensor");

    CASE("execute: SizeInBytes below TotalTensorSizeInBytes");
    bindings_reset(&s, nz_in - 4, nz_count, nz_coords);
    EXEC("input short", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "SizeInBytes");
    bindings_reset(&s, nz_in, 0, nz_coords);
    EXEC("count size 0", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "SizeInBytes");
    bindings_reset(&s, nz_in, nz_count, nz_coords - 1);
    EXEC("coordinates short by 1", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "SizeInBytes");
    bindings_reset(&s, dm_bytes, dm_bytes - 4, 0);
    EXEC("DIAGONAL_MATRIX output short", d0op, 0, NULL, 1, s.out_desc, E_INVALIDARG,
         "SizeInBytes");

    CASE("execute: Offset not a multiple of 16");
    {
        static const UINT64 offs[] = {4, 8, 12, 1, 17, 1000};
        size_t i;
        for (i = 0; i < sizeof offs / sizeof offs[0]; i++) {
            bindings_reset(&s, nz_in, nz_count, nz_coords);
            s.bout1.Offset = offs[i];
            EXEC("coordinates Offset", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "Offset");
            bindings_reset(&s, dm_bytes, dm_bytes, 0);
            s.bin.Offset = offs[i];
            EXEC("DIAGONAL_MATRIX1 input Offset", d1op, 1, s.in_desc, 1, s.out_desc, E_INVALIDARG,
                 "Offset");
        }
    }

    CASE("execute: Offset not a multiple of GuaranteedBaseOffsetAlignment");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bin.Offset = GUARD + 16; /* a multiple of 16, not of 64 */
    EXEC("input Offset vs alignment 64", alignop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "GuaranteedBaseOffsetAlignment");

    CASE("execute: Buffer + Offset not aligned to the element size");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bin.Buffer = s.in.mem + 2;
    EXEC("FLOAT32 input at +2", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "aligned");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bout1.Buffer = s.b.mem + 1;
    EXEC("UINT32 coordinates at +1", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG, "aligned");
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.bout0.Buffer = s.a.mem + 3;
    EXEC("DIAGONAL_MATRIX output at +3", d0op, 0, NULL, 1, s.out_desc, E_INVALIDARG, "aligned");

    CASE("execute: Buffer + Offset not aligned to GuaranteedBaseOffsetAlignment");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bin.Buffer = s.in.mem + 32; /* 4-aligned, not 64-aligned; Offset GUARD is a multiple of 64 */
    EXEC("input at +32 vs alignment 64", alignop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "GuaranteedBaseOffsetAlignment");

    CASE("execute: Offset overflowing the address space");
    {
        static const UINT64 offs[] = {0xFFFFFFFFFFFFFFF0ull, 0x8000000000000000ull,
                                      0x7FFFFFFFFFFFFFF0ull};
        size_t i;
        for (i = 0; i < sizeof offs / sizeof offs[0]; i++) {
            bindings_reset(&s, nz_in, nz_count, nz_coords);
            s.bout1.Offset = offs[i];
            EXEC("coordinates Offset huge", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
                 "address space");
            bindings_reset(&s, nz_in, nz_count, nz_coords);
            s.bin.Offset = offs[i];
            EXEC("input Offset huge", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
                 "address space");
        }
    }

    CASE("execute: Offset + SizeInBytes overflowing the address space");
    bindings_reset(&s, nz_in, nz_count, 0xFFFFFFFFFFFFFFFFull);
    EXEC("coordinates SizeInBytes 2^64-1", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "address space");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bout0.Offset = 0x7FFFFFFFFFFFFF00ull;
    s.bout0.SizeInBytes = 0x100;
    EXEC("count Offset + Size past isize::MAX", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "address space");

    CASE("execute: outputs overlapping each other");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bout1.Buffer = s.a.mem;
    EXEC("count and coordinates at the same address", nzop, 1, s.in_desc, 2, s.out_desc,
         E_INVALIDARG, "overlaps");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bout1.Buffer = s.a.mem;
    s.bout1.Offset = GUARD - 32; /* coordinates [GUARD-32, GUARD+16) covers the count */
    EXEC("coordinates ending over the count", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "overlaps");

    CASE("execute: an output overlapping an input");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bout1.Buffer = s.in.mem;
    s.bout1.Offset = GUARD + 16;
    EXEC("NONZERO coordinates over the input", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "overlaps");
    bindings_reset(&s, nz_in, nz_count, nz_coords);
    s.bout0.Buffer = s.in.mem;
    EXEC("NONZERO count at the input's address", nzop, 1, s.in_desc, 2, s.out_desc, E_INVALIDARG,
         "overlaps");
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.bout0.Buffer = s.in.mem;
    s.bout0.Offset = GUARD + 16;
    EXEC("DIAGONAL_MATRIX1 output partly over the input", d1op, 1, s.in_desc, 1, s.out_desc,
         E_INVALIDARG, "overlaps");

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
        EXEC("same address, transposed input", top, 1, s.in_desc, 1, s.out_desc, E_INVALIDARG,
             "layout");
        dmls_operator_release(top);
    }

    /* Positive controls: in place with the same layout, and no-input DIAGONAL_MATRIX1 with a
       NONE binding (Desc ignored). */
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.bout0.Buffer = s.in.mem;
    check_hr("DIAGONAL_MATRIX1 in place is valid",
             dmls_operator_execute(d1op, 1, s.in_desc, 1, s.out_desc), S_OK, NULL);
    memcpy(s.in.mem, s.in_copy, ARENA);
    bindings_reset(&s, dm_bytes, dm_bytes, 0);
    s.in_desc[0].Type = DML_BINDING_TYPE_NONE;
    s.in_desc[0].Desc = (const void *)&g_sentinel_storage;
    check_hr("DIAGONAL_MATRIX1 NONE input (Desc ignored) is valid",
             dmls_operator_execute(d1op_noin, 1, s.in_desc, 1, s.out_desc), S_OK, NULL);

    dmls_operator_release(nzop);
    dmls_operator_release(d1op);
    dmls_operator_release(d1op_noin);
    dmls_operator_release(d0op);
    dmls_operator_release(alignop);
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
    dmls_device *dev;
    printf("directml_subset %s: bad-input suite\n", dmls_version());

    device_cases();
    feature_cases();
    dev = make_device(0, 0);
    create_pointer_cases(dev);
    create_value_cases(dev);
    dmls_device_release(dev);
    nonzero_rule_cases();
    diagonal1_rule_cases();
    diagonal_rule_cases();
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
