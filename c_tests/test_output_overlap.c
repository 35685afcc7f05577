/* Bad input, output tensors that overlap themselves: a zero stride or strides that fold the
 * tensor onto itself are E_INVALIDARG at dmls_device_create_operator, for every operator and
 * every output tensor, with a message naming the tensor and its strides; interleaved but
 * disjoint layouts stay valid and give the right results. */
#include "directml_subset.h"
#include "dmls_test.h"

#include <stdint.h>
#include <string.h>

static void diag_case(dmls_device *dev, int which, const UINT *sizes, const UINT *strides, int valid) {
    DML_BUFFER_TENSOR_DESC b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, strides);
    DML_TENSOR_DESC t = dmls_test_tensor(&b);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d1;
    DML_DIAGONAL_MATRIX_OPERATOR_DESC d0;
    DML_OPERATOR_DESC op;
    memset(&d1, 0, sizeof d1);
    d1.OutputTensor = &t;
    d1.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    d1.Value.Float32 = 9.0f;
    d1.DiagonalFillBegin = 0;
    d1.DiagonalFillEnd = 1;
    d0.OutputTensor = &t;
    d0.Offset = 0;
    d0.Value = 9.0f;
    op.Type = which == 1 ? DML_OPERATOR_DIAGONAL_MATRIX1 : DML_OPERATOR_DIAGONAL_MATRIX;
    op.Desc = which == 1 ? (const void *)&d1 : (const void *)&d0;
    dmls_operator *o = NULL;
    if (!valid) {
        CHECK_HR(dmls_device_create_operator(dev, &op, &o), E_INVALIDARG);
        CHECK_MESSAGE_HAS("OutputTensor Strides");
        CHECK_MESSAGE_HAS("overlap");
        CHECK(o == NULL);
        return;
    }
    CHECK_HR(dmls_device_create_operator(dev, &op, &o), S_OK);
    if (o == NULL) return;
    float mem[16];
    for (int i = 0; i < 16; ++i) mem[i] = -1.0f;
    DML_BUFFER_BINDING bb;
    DML_BINDING_DESC out = dmls_test_bind(&bb, mem, 0, sizeof mem);
    DML_BINDING_DESC none;
    none.Type = DML_BINDING_TYPE_NONE;
    none.Desc = NULL;
    CHECK_HR(dmls_operator_execute(o, which == 1 ? 1 : 0, which == 1 ? &none : NULL, 1, &out), S_OK);
    for (UINT y = 0; y < sizes[0]; ++y)
        for (UINT x = 0; x < sizes[1]; ++x)
            CHECK(mem[y * strides[0] + x * strides[1]] == (x == y ? 9.0f : 0.0f));
    dmls_operator_release(o);
}

static void nonzero_case(dmls_device *dev, const UINT *coord_sizes, const UINT *coord_strides,
                         const UINT *count_strides, int valid, const char *tensor) {
    dmls_test_nonzero n;
    UINT in_sizes[3] = {1, 1, 2};
    UINT count_sizes[3] = {1, 1, 1};
    dmls_test_owned_tensor_init(&n.in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, in_sizes, NULL);
    dmls_test_owned_tensor_init(&n.count, DML_TENSOR_DATA_TYPE_UINT32, 3, count_sizes, count_strides);
    dmls_test_owned_tensor_init(&n.coords, DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, coord_strides);
    dmls_test_nonzero_link(&n);
    dmls_operator *o = NULL;
    if (!valid) {
        CHECK_HR(dmls_device_create_operator(dev, &n.op, &o), E_INVALIDARG);
        CHECK_MESSAGE_HAS(tensor);
        CHECK_MESSAGE_HAS("Strides");
        CHECK(o == NULL);
        return;
    }
    CHECK_HR(dmls_device_create_operator(dev, &n.op, &o), S_OK);
    if (o == NULL) return;
    float in[2] = {0.0f, 5.0f};
    uint32_t count = 77, coords[16];
    for (int i = 0; i < 16; ++i) coords[i] = 0xAAAAAAAAu;
    DML_BUFFER_BINDING bi, bc, bk;
    DML_BINDING_DESC inputs[1], outputs[2];
    inputs[0] = dmls_test_bind(&bi, in, 0, sizeof in);
    outputs[0] = dmls_test_bind(&bc, &count, 0, sizeof count);
    outputs[1] = dmls_test_bind(&bk, coords, 0, sizeof coords);
    CHECK_HR(dmls_operator_execute(o, 1, inputs, 2, outputs), S_OK);
    CHECK(count == 1);
    /* The one nonzero element is (0, 0, 1); its row is row 0. */
    for (UINT c = 0; c < coord_sizes[1]; ++c) CHECK(coords[c * coord_strides[1]] == (c == 2 ? 1u : 0u));
    dmls_operator_release(o);
}

int main(void) {
    dmls_device *dev = dmls_test_device(DML_FEATURE_LEVEL_6_4);
    if (dev == NULL) return dmls_test_finish("test_output_overlap");
    UINT s22[2] = {2, 2}, s23[2] = {2, 3};
    UINT zero[2] = {0, 1}, zero2[2] = {1, 0}, fold[2] = {1, 1}, inter[2] = {3, 2}, packed[2] = {3, 1};
    for (int which = 0; which <= 1; ++which) {
        diag_case(dev, which, s22, zero, 0);
        diag_case(dev, which, s22, zero2, 0);
        diag_case(dev, which, s22, fold, 0);
        diag_case(dev, which, s23, packed, 1);
        diag_case(dev, which, s23, inter, 1); /* addresses 0, 2, 4, 3, 5, 7 */
    }
    /* NONZERO_COORDINATES: M = 2, N = 3. */
    UINT c23[2] = {2, 3};
    UINT czero[2] = {0, 1}, cfold[2] = {1, 1}, ort[2] = {2, 4}, cinter[2] = {3, 2}, cpacked[2] = {3, 1};
    UINT count_zero[3] = {0, 0, 0};
    nonzero_case(dev, c23, czero, NULL, 0, "OutputCoordinatesTensor Strides");
    nonzero_case(dev, c23, cfold, NULL, 0, "OutputCoordinatesTensor Strides");
    nonzero_case(dev, c23, cpacked, NULL, 1, NULL);
    nonzero_case(dev, c23, ort, NULL, 1, NULL);    /* ONNX Runtime's {2, 2*M} */
    nonzero_case(dev, c23, cinter, NULL, 1, NULL); /* {3, 2} on {2, 3} */
    /* The count tensor has one element: zero strides on its size-1 dimensions share nothing. */
    nonzero_case(dev, c23, cpacked, count_zero, 1, NULL);
    dmls_device_release(dev);
    return dmls_test_finish("test_output_overlap");
}
