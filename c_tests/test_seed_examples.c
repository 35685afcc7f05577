/*
 * The examples of DirectML's documentation pages, with their exact expected outputs:
 * DML_NONZERO_COORDINATES_OPERATOR_DESC (the 2x4 example, at feature levels 3.0 and 6.4) and
 * the four DML_DIAGONAL_MATRIX1_OPERATOR_DESC examples, plus DIAGONAL_MATRIX as the page
 * describes it (DIAGONAL_MATRIX1 with Begin = Offset, End = Offset + 1).
 */
#include "dmls_test.h"

#include <stdint.h>

static void nonzero_example(DML_FEATURE_LEVEL level) {
    dmls_device *device = dmls_test_device(level);
    if (!device) return;
    const UINT in_sizes[4] = {1, 1, 2, 4};
    const UINT count_sizes[4] = {1, 1, 1, 1};
    const UINT coord_sizes[4] = {1, 1, 8, 3};
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    DML_BUFFER_TENSOR_DESC count_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 4, count_sizes, NULL);
    DML_BUFFER_TENSOR_DESC coord_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 4, coord_sizes, NULL);
    CHECK_EQ_U64(in_b.TotalTensorSizeInBytes, 32);
    CHECK_EQ_U64(count_b.TotalTensorSizeInBytes, 4);
    CHECK_EQ_U64(coord_b.TotalTensorSizeInBytes, 96);
    dmls_operator *op = dmls_test_create_nonzero(device, &in_b, &count_b, &coord_b);

    const float input[8] = {1.0f, 0.0f, 0.0f, 2.0f, -0.0f, 3.5f, 0.0f, -5.2f};
    uint32_t count[4] = {0xDEADBEEF, 0xCAFEF00D, 0xCAFEF00D, 0xCAFEF00D};
    uint32_t coords[8 * 3 + 4];
    for (size_t i = 0; i < sizeof coords / sizeof coords[0]; ++i) coords[i] = 0xCAFEF00D;
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC inputs[1] = {dmls_test_bind(&b_in, (void *)input, 0, sizeof input)};
    DML_BINDING_DESC outputs[2] = {dmls_test_bind(&b_count, count, 0, 4),
                                   dmls_test_bind(&b_coords, coords, 0, 96)};
    CHECK_HR(dmls_operator_execute(op, 1, inputs, 2, outputs), S_OK);

    static const uint32_t expected[4][3] = {{0, 0, 0}, {0, 0, 3}, {0, 1, 1}, {0, 1, 3}};
    CHECK_EQ_U64(count[0], 4);
    for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 3; ++c) {
            CHECK_EQ_U64(coords[r * 3 + c], expected[r][c]);
        }
    }
    /* Rows from the count on, and everything past the tensors, untouched. */
    for (size_t i = 12; i < sizeof coords / sizeof coords[0]; ++i) CHECK_EQ_U64(coords[i], 0xCAFEF00D);
    for (int i = 1; i < 4; ++i) CHECK_EQ_U64(count[i], 0xCAFEF00D);

    dmls_operator_release(op);
    dmls_device_release(device);
}

static const float seed_matrix[20] = {4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 1, 8, 7, 4, 3, 4, 2, 4};

/* Runs DIAGONAL_MATRIX1 on a 4x5 FLOAT32 matrix and compares with `expected`. */
static void diagonal1(const char *what, const float *input, float value, INT begin, INT end,
                      const float expected[20]) {
    dmls_device *device = dmls_test_device(DML_FEATURE_LEVEL_5_1);
    if (!device) return;
    const UINT sizes[2] = {4, 5};
    DML_BUFFER_TENSOR_DESC b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_TENSOR_DESC t = dmls_test_tensor(&b);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d =
        dmls_test_diagonal1(input ? &t : NULL, &t, DML_TENSOR_DATA_TYPE_FLOAT32, begin, end);
    d.Value.Float32 = value;
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &d};
    dmls_operator *op = dmls_test_create(device, &desc, what);

    float out[24];
    for (int i = 0; i < 24; ++i) out[i] = -123.0f;
    DML_BUFFER_BINDING b_in, b_out;
    DML_BINDING_DESC in_binding = {DML_BINDING_TYPE_NONE, NULL};
    if (input) in_binding = dmls_test_bind(&b_in, (void *)input, 0, 80);
    DML_BINDING_DESC out_binding = dmls_test_bind(&b_out, out, 0, 80);
    CHECK_HR(dmls_operator_execute(op, 1, &in_binding, 1, &out_binding), S_OK);
    for (int i = 0; i < 20; ++i) {
        if (out[i] != expected[i]) {
            ++dmls_test_failures;
            fprintf(stderr, "%s: element (%d,%d) is %g, expected %g\n", what, i / 5, i % 5,
                    (double)out[i], (double)expected[i]);
        }
    }
    for (int i = 20; i < 24; ++i) CHECK(out[i] == -123.0f);
    ++dmls_test_checks;
    dmls_operator_release(op);
    dmls_device_release(device);
}

static void diagonal_matrix1_examples(void) {
    /* "Default identity matrix": the page says Value 7 but shows ones. Its pseudocode writes
       Value on the diagonal, so Value 7 gives sevens; Value 1 gives the page's picture. */
    static const float identity7[20] = {7, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 7, 0};
    static const float identity1[20] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0};
    diagonal1("identity, Value 7", NULL, 7.0f, 0, 1, identity7);
    diagonal1("identity, Value 1", NULL, 1.0f, 0, 1, identity1);

    static const float strip[20] = {7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 0, 7, 7};
    diagonal1("3-wide strip", NULL, 7.0f, 0, 3, strip);

    static const float upper[20] = {0, 7, 3, 7, 9, 0, 0, 8, 6, 9, 0, 0, 0, 8, 7, 0, 0, 0, 0, 4};
    diagonal1("strictly upper triangle", seed_matrix, 0.0f, INT32_MIN, 1, upper);

    static const float diag[20] = {4, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0};
    diagonal1("diagonal only", seed_matrix, 0.0f, 1, 0, diag);
}

/* DIAGONAL_MATRIX: Out = (y + Offset == x) ? Value : 0, the FLOAT converted to the output type. */
static void diagonal_matrix_examples(void) {
    dmls_device *device = dmls_test_device(DML_FEATURE_LEVEL_2_1);
    if (!device) return;
    /* 2.x needs 4 dimensions. */
    const UINT sizes[4] = {1, 1, 3, 4};
    for (int type_index = 0; type_index < 2; ++type_index) {
        const DML_TENSOR_DATA_TYPE type =
            type_index == 0 ? DML_TENSOR_DATA_TYPE_FLOAT32 : DML_TENSOR_DATA_TYPE_INT32;
        for (INT offset = -3; offset <= 4; ++offset) {
            DML_BUFFER_TENSOR_DESC b = dmls_test_buffer(type, 4, sizes, NULL);
            DML_TENSOR_DESC t = dmls_test_tensor(&b);
            DML_DIAGONAL_MATRIX_OPERATOR_DESC d = {&t, offset, 10.6f};
            DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX, &d};
            dmls_operator *op = NULL;
            CHECK_HR(dmls_device_create_operator(device, &desc, &op), S_OK);
            union {
                float f[16];
                int32_t i[16];
            } out;
            for (int i = 0; i < 16; ++i) out.i[i] = 0x55555555;
            DML_BUFFER_BINDING b_out;
            DML_BINDING_DESC out_binding = dmls_test_bind(&b_out, &out, 0, 48);
            CHECK_HR(dmls_operator_execute(op, 0, NULL, 1, &out_binding), S_OK);
            for (int y = 0; y < 3; ++y) {
                for (int x = 0; x < 4; ++x) {
                    const int on = y + offset == x;
                    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
                        /* against a float object: where FLT_EVAL_METHOD is 1 (s390x),
                           the constant 10.6f itself has double's precision */
                        static const float value = 10.6f;
                        CHECK(out.f[y * 4 + x] == (on ? value : 0.0f));
                    } else {
                        /* integers truncate toward zero: 10.6 becomes 10 */
                        CHECK_EQ_U64((uint32_t)out.i[y * 4 + x], on ? 10u : 0u);
                    }
                }
            }
            for (int i = 12; i < 16; ++i) CHECK_EQ_U64((uint32_t)out.i[i], 0x55555555u);
            dmls_operator_release(op);
        }
    }
    dmls_device_release(device);
}

int main(void) {
    nonzero_example(DML_FEATURE_LEVEL_3_0);
    nonzero_example(DML_FEATURE_LEVEL_6_4);
    diagonal_matrix1_examples();
    diagonal_matrix_examples();
    return dmls_test_finish("test_seed_examples");
}
