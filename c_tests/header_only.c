/*
 * The header on its own: it is the first and only project include, compiled as C99 and as C11
 * with -Wall -Wextra -Wpedantic -Werror. The program also links and calls the library.
 */
#include "directml_subset.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    /* A DirectML-style desc written with the header's own types and macros. */
    UINT sizes[2] = {2, 2};
    DML_BUFFER_TENSOR_DESC buffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, sizes,
                                     NULL, 16, 0};
    DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
    DML_DIAGONAL_MATRIX_OPERATOR_DESC eye = {&tensor, 0, 1.0f};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX, &eye};

    dmls_device *device = NULL;
    dmls_operator *op = NULL;
    HRESULT hr = dmls_device_create(NULL, &device);
    if (SUCCEEDED(hr)) hr = dmls_device_create_operator(device, &desc, &op);
    float out[4] = {9, 9, 9, 9};
    DML_BUFFER_BINDING binding = {out, 0, sizeof out};
    DML_BINDING_DESC output = {DML_BINDING_TYPE_BUFFER, &binding};
    if (SUCCEEDED(hr)) hr = dmls_operator_execute(op, 0, NULL, 1, &output);
    dmls_operator_release(op);
    dmls_device_release(device);

    const char *version = dmls_version();
    const int ok = SUCCEEDED(hr) && out[0] == 1.0f && out[1] == 0.0f && out[2] == 0.0f &&
                   out[3] == 1.0f && version != NULL && strlen(version) > 0;
    printf("header_only (C, __STDC_VERSION__ %ld): directml_subset %s: %s\n",
           (long)__STDC_VERSION__, version, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
