/*
 * The header on its own: it is the first and only project include, compiled as C99 and as C11
 * with -Wall -Wextra -Wpedantic -Werror. The program also links and calls the library.
 */
#include "directml_subset.h"

#include <stdio.h>
#include <string.h>

/* Runs a 2x2 DIAGONAL_MATRIX (an identity) into `out`, the descs written with C99 designated
   initialisers: the header's field names are DirectML's. */
static HRESULT identity_2x2(float out[4]) {
    const UINT sizes[2] = {2, 2};
    const DML_BUFFER_TENSOR_DESC buffer = {
        .DataType = DML_TENSOR_DATA_TYPE_FLOAT32,
        .Flags = DML_TENSOR_FLAG_NONE,
        .DimensionCount = 2,
        .Sizes = sizes,
        .Strides = NULL,
        .TotalTensorSizeInBytes = 16,
        .GuaranteedBaseOffsetAlignment = 0,
    };
    const DML_TENSOR_DESC tensor = {.Type = DML_TENSOR_TYPE_BUFFER, .Desc = &buffer};
    const DML_DIAGONAL_MATRIX_OPERATOR_DESC eye = {
        .OutputTensor = &tensor, .Offset = 0, .Value = 1.0f};
    const DML_OPERATOR_DESC desc = {.Type = DML_OPERATOR_DIAGONAL_MATRIX, .Desc = &eye};
    DML_BUFFER_BINDING binding = {.Buffer = out, .Offset = 0, .SizeInBytes = 4 * sizeof(float)};
    const DML_BINDING_DESC output = {.Type = DML_BINDING_TYPE_BUFFER, .Desc = &binding};

    dmls_device *device = NULL;
    HRESULT hr = dmls_device_create(NULL, &device);
    if (FAILED(hr)) {
        return hr;
    }
    dmls_operator *op = NULL;
    hr = dmls_device_create_operator(device, &desc, &op);
    if (SUCCEEDED(hr)) {
        hr = dmls_operator_execute(op, 0, NULL, 1, &output);
        dmls_operator_release(op);
    }
    dmls_device_release(device);
    return hr;
}

int main(void) {
    float out[4] = {9, 9, 9, 9};
    const HRESULT hr = identity_2x2(out);
    const char *version = dmls_version();
    const int ok = SUCCEEDED(hr) && out[0] == 1.0f && out[1] == 0.0f && out[2] == 0.0f &&
                   out[3] == 1.0f && version != NULL && strlen(version) > 0;
    printf("header_only (C, __STDC_VERSION__ %ld): directml_subset %s: %s\n",
           (long)__STDC_VERSION__, version, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
