/*
 * Messages that state the remedy: where the library knows what the caller must do instead, the
 * message says it (not only what is wrong).
 */
#include "dmls_test.h"

static DML_OPERATOR_DESC diag1_desc(DML_DIAGONAL_MATRIX1_OPERATOR_DESC *g, const DML_TENSOR_DESC *in,
                                    const DML_TENSOR_DESC *out) {
    memset(g, 0, sizeof *g);
    g->InputTensor = in;
    g->OutputTensor = out;
    g->ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    g->Value.Float32 = 1.0f;
    g->DiagonalFillBegin = 0;
    g->DiagonalFillEnd = 1;
    DML_OPERATOR_DESC d;
    d.Type = DML_OPERATOR_DIAGONAL_MATRIX1;
    d.Desc = g;
    return d;
}

int main(void) {
    dmls_device *device = dmls_test_device(DML_FEATURE_LEVEL_6_4);
    dmls_device *old = dmls_test_device(DML_FEATURE_LEVEL_5_0);
    if (device == NULL || old == NULL) {
        return dmls_test_finish("test_remedies");
    }
    const UINT sizes[2] = {2, 2};
    DML_BUFFER_TENSOR_DESC buf = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_TENSOR_DESC t = dmls_test_tensor(&buf);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC g;
    DML_OPERATOR_DESC no_input = diag1_desc(&g, NULL, &t);
    dmls_operator *op = NULL;
    CHECK_HR(dmls_device_create_operator(device, &no_input, &op), S_OK);

    float out[4] = {0};
    DML_BUFFER_BINDING b_out;
    DML_BINDING_DESC outputs[1] = {dmls_test_bind(&b_out, out, 0, sizeof out)};

    /* A DIAGONAL_MATRIX1 without an input still has its input slot: bind it as NONE. */
    CHECK_HR(dmls_operator_execute(op, 0, NULL, 1, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("input_count is 0, the operator has 1 input (InputTensor); the desc's "
                      "InputTensor is NULL, so bind its slot with DML_BINDING_TYPE_NONE and pass "
                      "input_count 1");
    DML_BINDING_DESC none = {DML_BINDING_TYPE_NONE, NULL};
    CHECK_HR(dmls_operator_execute(op, 1, &none, 1, outputs), S_OK);
    CHECK(out[0] == 1.0f && out[1] == 0.0f);

    /* Output count: says how many and in which order. */
    CHECK_HR(dmls_operator_execute(op, 1, &none, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("output_count is 2, the operator has 1 output (OutputTensor); pass "
                      "output_count 1");

    /* A binding too small: says how many bytes to bind. */
    b_out.SizeInBytes = 8;
    CHECK_HR(dmls_operator_execute(op, 1, &none, 1, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("bind at least 16 bytes");
    dmls_operator_release(op);

    /* TotalTensorSizeInBytes too small, or not a multiple of 4: the size to use. */
    buf.TotalTensorSizeInBytes = 12;
    CHECK_HR(dmls_device_create_operator(device, &no_input, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("set it to at least 16");
    buf.TotalTensorSizeInBytes = 18;
    CHECK_HR(dmls_device_create_operator(device, &no_input, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("round it up to 20");
    buf.TotalTensorSizeInBytes = 16;

    /* An operator newer than the device's feature level: the level to create the device with. */
    CHECK_HR(dmls_device_create_operator(old, &no_input, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("create the device with feature level 5_1 or newer");

    dmls_device_release(old);
    dmls_device_release(device);
    return dmls_test_finish("test_remedies");
}
