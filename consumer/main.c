/*
 * A consumer of an installed directml_subset: checks the version (library, header macros, and
 * the version the build system found, DMLS_EXPECTED_VERSION) and runs one operator.
 */
#include <directml_subset.h>

#include <stdio.h>
#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define HEADER_VERSION STR(DMLS_VERSION_MAJOR) "." STR(DMLS_VERSION_MINOR) "." STR(DMLS_VERSION_PATCH)

int main(void) {
    const char *version = dmls_version();
    printf("library %s, header %s", version, HEADER_VERSION);
#ifdef DMLS_EXPECTED_VERSION
    printf(", build system %s", DMLS_EXPECTED_VERSION);
    if (strcmp(version, DMLS_EXPECTED_VERSION) != 0) {
        printf("\nversion mismatch\n");
        return 1;
    }
#endif
    printf("\n");
    if (strcmp(version, HEADER_VERSION) != 0) {
        printf("version mismatch\n");
        return 1;
    }

    /* EyeLike: a 3x3 identity as DIAGONAL_MATRIX. */
    UINT sizes[2] = {3, 3};
    DML_BUFFER_TENSOR_DESC buffer = {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_FLAG_NONE, 2, sizes,
                                     NULL, 36, 0};
    DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
    DML_DIAGONAL_MATRIX_OPERATOR_DESC eye = {&tensor, 0, 1.0f};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX, &eye};
    dmls_device *device = NULL;
    dmls_operator *op = NULL;
    HRESULT hr = dmls_device_create(NULL, &device);
    if (SUCCEEDED(hr)) hr = dmls_device_create_operator(device, &desc, &op);
    int32_t out[9];
    DML_BUFFER_BINDING binding = {out, 0, sizeof out};
    DML_BINDING_DESC output = {DML_BINDING_TYPE_BUFFER, &binding};
    if (SUCCEEDED(hr)) hr = dmls_operator_execute(op, 0, NULL, 1, &output);
    dmls_operator_release(op);
    dmls_device_release(device);
    if (FAILED(hr)) {
        char message[256];
        dmls_get_last_error_message(message, sizeof message);
        printf("failed: 0x%08X %s\n", (unsigned)hr, message);
        return 1;
    }
    for (int i = 0; i < 9; ++i) {
        if (out[i] != (i % 4 == 0 ? 1 : 0)) {
            printf("wrong identity matrix at %d\n", i);
            return 1;
        }
    }
    printf("consumer ok\n");
    return 0;
}
