/* The C example of README.md: NONZERO_COORDINATES on a 2x4 FLOAT32 tensor. */
#include <stdio.h>
#include "directml_subset.h"

static int fail(const char *what) {
    char msg[256];
    dmls_get_last_error_message(msg, sizeof msg);
    fprintf(stderr, "%s: %s\n", what, msg);
    return 1;
}

int main(void) {
    dmls_device *device = NULL;
    if (FAILED(dmls_device_create(NULL, &device))) return fail("dmls_device_create");

    /* Input {2,4}; count {1}; coordinates {M, N} = {8 elements, 2 indices each}. */
    UINT in_sizes[] = {2, 4}, count_sizes[] = {1}, xy_sizes[] = {8, 2};
    DML_BUFFER_TENSOR_DESC in = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, in_sizes, NULL, 32, 0};
    DML_BUFFER_TENSOR_DESC count = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, count_sizes, NULL, 4, 0};
    DML_BUFFER_TENSOR_DESC xy = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 2, xy_sizes, NULL, 64, 0};
    DML_TENSOR_DESC in_t = {DML_TENSOR_TYPE_BUFFER, &in}, count_t = {DML_TENSOR_TYPE_BUFFER, &count},
                    xy_t = {DML_TENSOR_TYPE_BUFFER, &xy};
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &xy_t};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};

    dmls_operator *op = NULL;
    if (FAILED(dmls_device_create_operator(device, &desc, &op))) return fail("create_operator");

    float input[8] = {1.0f, 0.0f, 0.0f, 2.0f, -0.0f, 3.5f, 0.0f, -5.2f};
    uint32_t n = 0, coords[8][2];
    DML_BUFFER_BINDING b_in = {input, 0, sizeof input}, b_n = {&n, 0, sizeof n},
                       b_xy = {coords, 0, sizeof coords};
    DML_BINDING_DESC inputs[] = {{DML_BINDING_TYPE_BUFFER, &b_in}};
    DML_BINDING_DESC outputs[] = {{DML_BINDING_TYPE_BUFFER, &b_n}, {DML_BINDING_TYPE_BUFFER, &b_xy}};
    if (FAILED(dmls_operator_execute(op, 1, inputs, 2, outputs))) return fail("execute");

    printf("count %u:", (unsigned)n); /* count 4: (0,0) (0,3) (1,1) (1,3) */
    for (uint32_t i = 0; i < n; ++i) printf(" (%u,%u)", (unsigned)coords[i][0], (unsigned)coords[i][1]);
    printf("\n");

    dmls_operator_release(op);
    dmls_device_release(device);
    return 0;
}
