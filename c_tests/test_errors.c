/*
 * Error paths: every broken rule returns its documented HRESULT, leaves a message that names
 * what is wrong, writes no output parameter and touches no output buffer. A later success
 * clears the message. Also dmls_get_last_error_message's copying and truncation rules.
 */
#include "dmls_test.h"

#include <stdint.h>

/* A valid NONZERO_COORDINATES desc over a {2,4} FLOAT32 input, for breaking one field at a time. */
typedef struct {
    UINT in_sizes[2], count_sizes[1], coord_sizes[2];
    DML_BUFFER_TENSOR_DESC in_b, count_b, coord_b;
    DML_TENSOR_DESC in_t, count_t, coord_t;
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz;
    DML_OPERATOR_DESC desc;
} nonzero_desc;

static void nonzero_desc_init(nonzero_desc *d) {
    d->in_sizes[0] = 2;
    d->in_sizes[1] = 4;
    d->count_sizes[0] = 1;
    d->coord_sizes[0] = 8;
    d->coord_sizes[1] = 2;
    d->in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, d->in_sizes, NULL);
    d->count_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 1, d->count_sizes, NULL);
    d->coord_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 2, d->coord_sizes, NULL);
    d->in_t = dmls_test_tensor(&d->in_b);
    d->count_t = dmls_test_tensor(&d->count_b);
    d->coord_t = dmls_test_tensor(&d->coord_b);
    d->nz.InputTensor = &d->in_t;
    d->nz.OutputCountTensor = &d->count_t;
    d->nz.OutputCoordinatesTensor = &d->coord_t;
    d->desc.Type = DML_OPERATOR_NONZERO_COORDINATES;
    d->desc.Desc = &d->nz;
}

/* Creating the operator must fail with `want`; *op must stay untouched. */
static void expect_create_fails(dmls_device *device, const DML_OPERATOR_DESC *desc, HRESULT want,
                                const char *needle, int line) {
    dmls_operator *sentinel = (dmls_operator *)(uintptr_t)0x1234;
    dmls_operator *op = sentinel;
    HRESULT hr = dmls_device_create_operator(device, desc, &op);
    const char *msg = dmls_test_message();
    ++dmls_test_checks;
    if (hr != want) {
        ++dmls_test_failures;
        fprintf(stderr, "line %d: create_operator returned 0x%08X, expected 0x%08X (\"%s\")\n", line,
                (unsigned)hr, (unsigned)want, msg);
    } else if (msg[0] == '\0') {
        ++dmls_test_failures;
        fprintf(stderr, "line %d: create_operator failed without a message\n", line);
    } else if (needle && !strstr(msg, needle)) {
        ++dmls_test_failures;
        fprintf(stderr, "line %d: message \"%s\" does not contain \"%s\"\n", line, msg, needle);
    }
    if (op != sentinel) {
        ++dmls_test_failures;
        fprintf(stderr, "line %d: a failed create_operator wrote *op\n", line);
        if (hr == S_OK) dmls_operator_release(op);
    }
}
#define EXPECT_CREATE_FAILS(device, desc, want, needle) \
    expect_create_fails((device), (desc), (want), (needle), __LINE__)

/* One part of a valid NONZERO_COORDINATES desc to break, the HRESULT creation must return, and
   what the message must say (NULL: any message). */
/* (Prefixed: <windows.h> defines IN as a macro and SIZE as a type.) */
typedef enum { T_IN, T_COUNT, T_COORD } which_tensor;
typedef enum {
    F_OPERATOR_TYPE,   /* DML_OPERATOR_DESC.Type = value (the operator fields ignore `tensor`) */
    F_OPERATOR_DESC,   /* DML_OPERATOR_DESC.Desc = NULL */
    F_TENSOR_POINTER,  /* the operator desc's pointer to the tensor = NULL */
    F_TENSOR_DESC,     /* DML_TENSOR_DESC.Desc = NULL */
    F_SIZES_POINTER,   /* Sizes = NULL */
    F_SIZE,            /* Sizes[index] = value */
    F_DATA_TYPE,
    F_FLAGS,
    F_TENSOR_TYPE,
    F_TOTAL,           /* only the new TotalTensorSizeInBytes below */
    F_ALIGNMENT,
    F_DIMENSION_COUNT
} which_field;
typedef struct {
    int line;
    HRESULT want;
    which_tensor tensor;
    which_field field;
    UINT index; /* F_SIZE: which size */
    UINT value;
    UINT64 total; /* when not 0, the tensor's new TotalTensorSizeInBytes too */
    const char *message;
} bad_nonzero_case;

#define BAD(...) {__LINE__, __VA_ARGS__}
static const bad_nonzero_case bad_nonzero[] = {
    /* NULL pointers: E_POINTER. */
    BAD(E_POINTER, T_IN, F_OPERATOR_DESC, 0, 0, 0, NULL),
    BAD(E_POINTER, T_IN, F_TENSOR_POINTER, 0, 0, 0, "InputTensor"),
    BAD(E_POINTER, T_COUNT, F_TENSOR_POINTER, 0, 0, 0, "OutputCountTensor"),
    BAD(E_POINTER, T_COORD, F_TENSOR_POINTER, 0, 0, 0, "OutputCoordinatesTensor"),
    BAD(E_POINTER, T_COORD, F_TENSOR_DESC, 0, 0, 0, "OutputCoordinatesTensor"),
    BAD(E_POINTER, T_IN, F_SIZES_POINTER, 0, 0, 0, "InputTensor"),
    /* Operator types: DirectML's that this library lacks (E_NOTIMPL), and others. */
    BAD(E_NOTIMPL, T_IN, F_OPERATOR_TYPE, 0, 103, 0, "103"), /* FILL_VALUE_CONSTANT */
    BAD(E_NOTIMPL, T_IN, F_OPERATOR_TYPE, 0, 1, 0, NULL),
    BAD(E_NOTIMPL, T_IN, F_OPERATOR_TYPE, 0, DML_OPERATOR_UNFOLD, 0, NULL),
    BAD(E_INVALIDARG, T_IN, F_OPERATOR_TYPE, 0, DML_OPERATOR_INVALID, 0, NULL),
    BAD(E_INVALIDARG, T_IN, F_OPERATOR_TYPE, 0, 178, 0, "178"),
    BAD(E_INVALIDARG, T_IN, F_OPERATOR_TYPE, 0, 0xFFFFFFFFu, 0, NULL),
    /* Bad descs: E_INVALIDARG with a message naming the tensor and the values. */
    BAD(E_INVALIDARG, T_COORD, F_SIZE, 0, 6, 48, "OutputCoordinatesTensor Sizes[0] (M) is 6, must equal the input's element count 8"),
    BAD(E_INVALIDARG, T_IN, F_SIZE, 1, 0, 0, "Sizes[1] is 0"),
    BAD(E_INVALIDARG, T_IN, F_DATA_TYPE, 0, DML_TENSOR_DATA_TYPE_FLOAT64, 64, "DMLS_DEVICE_FLAG_EXTENSIONS"), /* extension only */
    BAD(E_INVALIDARG, T_IN, F_DATA_TYPE, 0, 99, 0, "InputTensor"),
    BAD(E_INVALIDARG, T_IN, F_DATA_TYPE, 0, DML_TENSOR_DATA_TYPE_INT4, 0, "InputTensor"),
    BAD(E_INVALIDARG, T_COUNT, F_DATA_TYPE, 0, DML_TENSOR_DATA_TYPE_INT32, 0, "OutputCountTensor"),
    BAD(E_INVALIDARG, T_COUNT, F_SIZE, 0, 2, 8, "OutputCountTensor Sizes[0] is 2"),
    BAD(E_INVALIDARG, T_COORD, F_SIZE, 1, 3, 96, "(N) is 3"), /* N above the input's DimensionCount 2 */
    BAD(E_INVALIDARG, T_COORD, F_SIZE, 1, 1, 32, "(N) is 1"), /* N below the effective rank 2 */
    BAD(E_INVALIDARG, T_IN, F_FLAGS, 0, DML_TENSOR_FLAG_OWNED_BY_DML, 0, "OWNED_BY_DML"),
    BAD(E_INVALIDARG, T_IN, F_FLAGS, 0, 0x10, 0, "Flags"),
    BAD(E_INVALIDARG, T_IN, F_TENSOR_TYPE, 0, DML_TENSOR_TYPE_INVALID, 0, "InputTensor"),
    BAD(E_INVALIDARG, T_IN, F_TOTAL, 0, 0, 28, "TotalTensorSizeInBytes is 28"), /* below the 32 bytes needed */
    BAD(E_INVALIDARG, T_IN, F_TOTAL, 0, 0, 34, "multiple of 4"),
    BAD(E_INVALIDARG, T_IN, F_ALIGNMENT, 0, 24, 0, "GuaranteedBaseOffsetAlignment"), /* not a power of two */
    BAD(E_INVALIDARG, T_IN, F_ALIGNMENT, 0, 2, 0, "GuaranteedBaseOffsetAlignment"),  /* below the element size 4 */
    BAD(E_INVALIDARG, T_IN, F_DIMENSION_COUNT, 0, 0, 0, "DimensionCount"),
    BAD(E_INVALIDARG, T_IN, F_DIMENSION_COUNT, 0, 9, 0, "DimensionCount"),
};
#undef BAD

static void break_nonzero_desc(nonzero_desc *d, const bad_nonzero_case *c) {
    DML_BUFFER_TENSOR_DESC *b = c->tensor == T_IN ? &d->in_b : c->tensor == T_COUNT ? &d->count_b : &d->coord_b;
    DML_TENSOR_DESC *t = c->tensor == T_IN ? &d->in_t : c->tensor == T_COUNT ? &d->count_t : &d->coord_t;
    const DML_TENSOR_DESC **pointer = c->tensor == T_IN      ? &d->nz.InputTensor
                                      : c->tensor == T_COUNT ? &d->nz.OutputCountTensor
                                                             : &d->nz.OutputCoordinatesTensor;
    UINT *sizes = c->tensor == T_IN ? d->in_sizes : c->tensor == T_COUNT ? d->count_sizes : d->coord_sizes;
    switch (c->field) {
    case F_OPERATOR_TYPE: d->desc.Type = (DML_OPERATOR_TYPE)c->value; break;
    case F_OPERATOR_DESC: d->desc.Desc = NULL; break;
    case F_TENSOR_POINTER: *pointer = NULL; break;
    case F_TENSOR_DESC: t->Desc = NULL; break;
    case F_SIZES_POINTER: b->Sizes = NULL; break;
    case F_SIZE: sizes[c->index] = c->value; break;
    case F_DATA_TYPE: b->DataType = (DML_TENSOR_DATA_TYPE)c->value; break;
    case F_FLAGS: b->Flags = (DML_TENSOR_FLAGS)c->value; break;
    case F_TENSOR_TYPE: t->Type = (DML_TENSOR_TYPE)c->value; break;
    case F_TOTAL: break;
    case F_ALIGNMENT: b->GuaranteedBaseOffsetAlignment = c->value; break;
    case F_DIMENSION_COUNT: b->DimensionCount = c->value; break;
    }
    if (c->total) b->TotalTensorSizeInBytes = c->total;
}

static void device_errors(void) {
    dmls_device_desc desc = {0, 0, 0};
    dmls_device *sentinel = (dmls_device *)(uintptr_t)0x5678;
    dmls_device *device = sentinel;

    CHECK_HR(dmls_device_create(&desc, NULL), E_POINTER);
    CHECK_HR(dmls_device_create(NULL, NULL), E_POINTER);

    /* Bad device descs: nothing is written to *device. */
    static const struct {
        dmls_device_desc desc; /* feature_level, thread_count, flags */
        HRESULT want;
        const char *needle;
    } bad_devices[] = {
        {{0x6500, 0, 0}, DXGI_ERROR_UNSUPPORTED, "6_5"}, /* well-formed, newer than 6_4 */
        {{0x1234, 0, 0}, E_INVALIDARG, "0x1234"},        /* not a DML_FEATURE_LEVEL */
        {{DML_FEATURE_LEVEL_5_1, 0, 0x2}, E_INVALIDARG, "flags"}, /* not a DMLS_DEVICE_FLAG */
        {{DML_FEATURE_LEVEL_5_1, 100000, 0}, E_INVALIDARG, NULL},
    };
    for (size_t i = 0; i < sizeof bad_devices / sizeof bad_devices[0]; ++i) {
        CHECK_HR(dmls_device_create(&bad_devices[i].desc, &device), bad_devices[i].want);
        if (bad_devices[i].needle) CHECK_MESSAGE_HAS(bad_devices[i].needle);
        CHECK(device == sentinel);
    }

    /* Every defined level, and 0 (the newest), creates a device. */
    static const DML_FEATURE_LEVEL levels[] = {
        0, DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
        DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
        DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
        DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; ++i) {
        dmls_device_desc ok = {levels[i], 1, 0};
        dmls_device *d = NULL;
        CHECK_HR(dmls_device_create(&ok, &d), S_OK);
        CHECK(d != NULL);
        dmls_device_release(d);
    }
    /* The extensions flag is accepted. */
    dmls_device_desc ext = {0, 1, DMLS_DEVICE_FLAG_EXTENSIONS};
    dmls_device *d = NULL;
    CHECK_HR(dmls_device_create(&ext, &d), S_OK);
    dmls_device_release(d);

    /* Release functions accept NULL. */
    dmls_device_release(NULL);
    dmls_operator_release(NULL);
}

static void create_operator_errors(dmls_device *device) {
    nonzero_desc d;
    dmls_operator *op = NULL;

    /* NULL pointers: E_POINTER. */
    nonzero_desc_init(&d);
    CHECK_HR(dmls_device_create_operator(NULL, &d.desc, &op), E_POINTER);
    CHECK_HR(dmls_device_create_operator(device, NULL, &op), E_POINTER);
    CHECK_HR(dmls_device_create_operator(device, &d.desc, NULL), E_POINTER);
    CHECK(op == NULL);

    /* Broken descs: each row of bad_nonzero on a fresh valid desc. */
    for (size_t i = 0; i < sizeof bad_nonzero / sizeof bad_nonzero[0]; ++i) {
        const bad_nonzero_case *c = &bad_nonzero[i];
        nonzero_desc_init(&d);
        break_nonzero_desc(&d, c);
        expect_create_fails(device, &d.desc, c->want, c->message, c->line);
    }

    /* DIAGONAL_MATRIX1 desc errors. */
    const UINT sizes[2] = {3, 3}, sizes_other[2] = {3, 4};
    DML_BUFFER_TENSOR_DESC out_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes_other, NULL);
    DML_TENSOR_DESC out_t = dmls_test_tensor(&out_b), in_t = dmls_test_tensor(&in_b);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC g;
    memset(&g, 0, sizeof g);
    g.OutputTensor = &out_t;
    g.ValueDataType = DML_TENSOR_DATA_TYPE_INT32; /* must equal the output's type */
    g.DiagonalFillEnd = 1;
    DML_OPERATOR_DESC gd = {DML_OPERATOR_DIAGONAL_MATRIX1, &g};
    EXPECT_CREATE_FAILS(device, &gd, E_INVALIDARG, "ValueDataType");
    g.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    g.InputTensor = &in_t; /* sizes differ */
    EXPECT_CREATE_FAILS(device, &gd, E_INVALIDARG, "InputTensor");
    g.InputTensor = NULL;
    g.OutputTensor = NULL;
    EXPECT_CREATE_FAILS(device, &gd, E_POINTER, "OutputTensor");
    g.OutputTensor = &out_t;
    const UINT five[5] = {1, 1, 1, 3, 3};
    DML_BUFFER_TENSOR_DESC out5 = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 5, five, NULL);
    DML_TENSOR_DESC out5_t = dmls_test_tensor(&out5);
    g.OutputTensor = &out5_t;
    EXPECT_CREATE_FAILS(device, &gd, E_INVALIDARG, "DimensionCount is 5");

    /* The message is cleared by the next success. */
    nonzero_desc_init(&d);
    CHECK_HR(dmls_device_create_operator(device, &d.desc, &op), S_OK);
    CHECK(dmls_get_last_error_message(NULL, 0) == 0);
    dmls_operator_release(op);
}

static void execute_errors(dmls_device *device) {
    nonzero_desc d;
    nonzero_desc_init(&d);
    dmls_operator *op = NULL;
    CHECK_HR(dmls_device_create_operator(device, &d.desc, &op), S_OK);
    if (!op) return;

    /* 16-aligned memory for the tensors. */
    static _Alignas(16) float input[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    static _Alignas(16) uint32_t count[4];
    static _Alignas(16) uint32_t coords[20];
    for (int i = 0; i < 4; ++i) count[i] = 0xAAAAAAAAu;
    for (int i = 0; i < 20; ++i) coords[i] = 0xAAAAAAAAu;

    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC inputs[1] = {dmls_test_bind(&b_in, input, 0, 32)};
    DML_BINDING_DESC outputs[2] = {dmls_test_bind(&b_count, count, 0, 4),
                                   dmls_test_bind(&b_coords, coords, 0, 64)};

    CHECK_HR(dmls_operator_execute(NULL, 1, inputs, 2, outputs), E_POINTER);
    CHECK_HR(dmls_operator_execute(op, 1, NULL, 2, outputs), E_POINTER);
    CHECK_HR(dmls_operator_execute(op, 1, inputs, 2, NULL), E_POINTER);
    CHECK_HR(dmls_operator_execute(op, 0, NULL, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("input_count is 0");
    CHECK_HR(dmls_operator_execute(op, 1, inputs, 1, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("output_count is 1");

    DML_BINDING_DESC null_desc = {DML_BINDING_TYPE_BUFFER, NULL};
    CHECK_HR(dmls_operator_execute(op, 1, &null_desc, 2, outputs), E_POINTER);
    b_in.Buffer = NULL;
    CHECK_HR(dmls_operator_execute(op, 1, inputs, 2, outputs), E_POINTER);
    CHECK_MESSAGE_HAS("InputTensor");
    b_in.Buffer = input;

    DML_BINDING_DESC none = {DML_BINDING_TYPE_NONE, NULL};
    CHECK_HR(dmls_operator_execute(op, 1, &none, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("InputTensor");

    DML_BUFFER_ARRAY_BINDING array = {1, &b_in};
    DML_BINDING_DESC array_binding = {DML_BINDING_TYPE_BUFFER_ARRAY, &array};
    CHECK_HR(dmls_operator_execute(op, 1, &array_binding, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("BUFFER_ARRAY");

    DML_BINDING_DESC bad_type = {7, &b_in};
    CHECK_HR(dmls_operator_execute(op, 1, &bad_type, 2, outputs), E_INVALIDARG);

    b_coords.SizeInBytes = 60; /* below TotalTensorSizeInBytes 64 */
    CHECK_HR(dmls_operator_execute(op, 1, inputs, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("OutputCoordinatesTensor");
    b_coords.SizeInBytes = 64;

    /* None of the failures above wrote anything. */
    for (int i = 0; i < 4; ++i) CHECK_EQ_U64(count[i], 0xAAAAAAAAu);
    for (int i = 0; i < 20; ++i) CHECK_EQ_U64(coords[i], 0xAAAAAAAAu);

    CHECK_HR(dmls_operator_execute(op, 1, inputs, 2, outputs), S_OK);
    CHECK_EQ_U64(count[0], 4);
    CHECK(dmls_get_last_error_message(NULL, 0) == 0);
    dmls_operator_release(op);
}

static void feature_support_errors(dmls_device *device) {
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT q = {DML_TENSOR_DATA_TYPE_FLOAT32};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT s = {12345};
    CHECK_HR(dmls_device_check_feature_support(NULL, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                               sizeof q, &q, sizeof s, &s), E_POINTER);
    CHECK_HR(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                               sizeof q, NULL, sizeof s, &s), E_POINTER);
    CHECK_HR(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                               sizeof q, &q, sizeof s, NULL), E_POINTER);
    CHECK_HR(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                               sizeof q + 4, &q, sizeof s, &s), E_INVALIDARG);
    CHECK_HR(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                               sizeof q, &q, 8, &s), E_INVALIDARG);
    CHECK_HR(dmls_device_check_feature_support(device, 2, sizeof q, &q, sizeof s, &s),
             DXGI_ERROR_UNSUPPORTED);
    CHECK_EQ_U64(s.IsSupported, 12345); /* untouched by the failures */
}

static void message_buffer_rules(dmls_device *device) {
    dmls_operator *op = NULL;
    CHECK_HR(dmls_device_create_operator(device, NULL, &op), E_POINTER);
    const size_t len = dmls_get_last_error_message(NULL, 0);
    CHECK(len > 0);
    char full[1024];
    CHECK(dmls_get_last_error_message(full, sizeof full) == len);
    CHECK(strlen(full) == len);

    char small[8];
    memset(small, 'x', sizeof small);
    CHECK(dmls_get_last_error_message(small, 5) == len); /* full length, not the copied one */
    CHECK(small[4] == '\0' && strncmp(small, full, 4) == 0);
    CHECK(small[5] == 'x'); /* nothing past buffer_size */

    memset(small, 'x', sizeof small);
    CHECK(dmls_get_last_error_message(small, 0) == len);
    CHECK(small[0] == 'x');
    CHECK(dmls_get_last_error_message(small, 1) == len);
    CHECK(small[0] == '\0' && small[1] == 'x');

    /* A success clears it; an empty message copies as "". */
    CHECK(dmls_version() != NULL);
    dmls_device *d2 = NULL;
    CHECK_HR(dmls_device_create(NULL, &d2), S_OK);
    dmls_device_release(d2);
    memset(small, 'x', sizeof small);
    CHECK(dmls_get_last_error_message(small, sizeof small) == 0);
    CHECK(small[0] == '\0');
}

static void calc_buffer_tensor_size(void) {
    const UINT sizes[4] = {1, 1, 2, 4}, strides[4] = {8, 8, 4, 1};
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL), 32);
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, strides), 32);
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT8, 4, sizes, NULL), 8);
    const UINT three[1] = {3};
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT8, 1, three, NULL), 4);
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT16, 1, three, NULL), 8);
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT64, 1, three, NULL), 24);
    /* Strided: 1 + sum((size - 1) * stride) elements. */
    const UINT s2[2] = {3, 2}, st2[2] = {10, 3};
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT32, 2, s2, st2), (1 + 20 + 3) * 4);
    /* Broadcast: stride 0. */
    const UINT st0[2] = {0, 0};
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT32, 2, s2, st0), 4);
    /* 64-bit arithmetic: no 32-bit wrap. */
    const UINT big[2] = {65536, 65536};
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT64, 2, big, NULL),
                 (uint64_t)65536 * 65536 * 8);
    /* Zero for unknown types, NULL sizes, a count of 0. */
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UNKNOWN, 4, sizes, NULL), 0);
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(99, 4, sizes, NULL), 0);
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 4, NULL, NULL), 0);
    CHECK_EQ_U64(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 0, sizes, NULL), 0);
}

int main(void) {
    device_errors();
    dmls_device *device = dmls_test_device(0);
    if (device) {
        create_operator_errors(device);
        execute_errors(device);
        feature_support_errors(device);
        message_buffer_rules(device);
        dmls_device_release(device);
    }
    calc_buffer_tensor_size();
    return dmls_test_finish("test_errors");
}
