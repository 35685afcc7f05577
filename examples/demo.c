/*
 * demo: runs every example of the DirectML documentation pages this library reproduces
 * (DML_NONZERO_COORDINATES_OPERATOR_DESC, DML_DIAGONAL_MATRIX1_OPERATOR_DESC) and two
 * DML_DIAGONAL_MATRIX_OPERATOR_DESC examples through the C API, and prints the results.
 *
 * Built and run by:   cmake --workflow --preset demo
 */
#include "directml_subset.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exits with the library's message when a call fails. */
static void check(HRESULT hr, const char *what) {
    if (SUCCEEDED(hr)) {
        return;
    }
    char message[512];
    dmls_get_last_error_message(message, sizeof message);
    fprintf(stderr, "%s failed: HRESULT 0x%08X: %s\n", what, (unsigned)hr, message);
    exit(EXIT_FAILURE);
}

/* A packed buffer tensor desc; TotalTensorSizeInBytes computed the way DirectMLX does. */
static DML_BUFFER_TENSOR_DESC buffer_desc(DML_TENSOR_DATA_TYPE type, UINT dims, const UINT *sizes) {
    DML_BUFFER_TENSOR_DESC d;
    memset(&d, 0, sizeof d);
    d.DataType = type;
    d.Flags = DML_TENSOR_FLAG_NONE;
    d.DimensionCount = dims;
    d.Sizes = sizes;
    d.Strides = NULL;
    d.TotalTensorSizeInBytes = dmls_calc_buffer_tensor_size(type, dims, sizes, NULL);
    d.GuaranteedBaseOffsetAlignment = 0;
    return d;
}

static DML_BINDING_DESC bind_buffer(DML_BUFFER_BINDING *b, void *memory, UINT64 bytes) {
    b->Buffer = memory;
    b->Offset = 0;
    b->SizeInBytes = bytes;
    DML_BINDING_DESC d = {DML_BINDING_TYPE_BUFFER, b};
    return d;
}

static void print_f32_matrix(const char *indent, const float *m, unsigned rows, unsigned cols) {
    for (unsigned r = 0; r < rows; ++r) {
        printf("%s%s", indent, r == 0 ? "[[" : " [");
        for (unsigned c = 0; c < cols; ++c) {
            printf("%s%g", c == 0 ? "" : ", ", (double)m[r * cols + c]);
        }
        printf("]%s\n", r + 1 == rows ? "]" : ",");
    }
}

static void print_i32_matrix(const char *indent, const int32_t *m, unsigned rows, unsigned cols) {
    for (unsigned r = 0; r < rows; ++r) {
        printf("%s%s", indent, r == 0 ? "[[" : " [");
        for (unsigned c = 0; c < cols; ++c) {
            printf("%s%d", c == 0 ? "" : ", ", m[r * cols + c]);
        }
        printf("]%s\n", r + 1 == rows ? "]" : ",");
    }
}

static void nonzero_example(dmls_device *device) {
    printf("== NONZERO_COORDINATES (DML_NONZERO_COORDINATES_OPERATOR_DESC example) ==\n");
    const float input[8] = {1.0f, 0.0f, 0.0f, 2.0f, -0.0f, 3.5f, 0.0f, -5.2f};
    const UINT in_sizes[4] = {1, 1, 2, 4};
    const UINT count_sizes[4] = {1, 1, 1, 1};
    const UINT coord_sizes[4] = {1, 1, 8, 3};
    DML_BUFFER_TENSOR_DESC in_buf = buffer_desc(DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes);
    DML_BUFFER_TENSOR_DESC count_buf = buffer_desc(DML_TENSOR_DATA_TYPE_UINT32, 4, count_sizes);
    DML_BUFFER_TENSOR_DESC coord_buf = buffer_desc(DML_TENSOR_DATA_TYPE_UINT32, 4, coord_sizes);
    DML_TENSOR_DESC in_t = {DML_TENSOR_TYPE_BUFFER, &in_buf};
    DML_TENSOR_DESC count_t = {DML_TENSOR_TYPE_BUFFER, &count_buf};
    DML_TENSOR_DESC coord_t = {DML_TENSOR_TYPE_BUFFER, &coord_buf};
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &coord_t};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};

    dmls_operator *op = NULL;
    check(dmls_device_create_operator(device, &desc, &op), "create NONZERO_COORDINATES");

    uint32_t count = 0;
    uint32_t coords[8][3];
    memset(coords, 0, sizeof coords);
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC inputs[1] = {bind_buffer(&b_in, (void *)input, sizeof input)};
    DML_BINDING_DESC outputs[2] = {bind_buffer(&b_count, &count, sizeof count),
                                   bind_buffer(&b_coords, coords, sizeof coords)};
    check(dmls_operator_execute(op, 1, inputs, 2, outputs), "execute NONZERO_COORDINATES");
    dmls_operator_release(op);

    printf("InputTensor: (Sizes:{1,1,2,4}, DataType:FLOAT32)\n");
    print_f32_matrix("  ", input, 2, 4);
    printf("OutputCountTensor: (Sizes:{1,1,1,1}, DataType:UINT32)\n  [%u]\n", (unsigned)count);
    printf("OutputCoordinatesTensor: (Sizes:{1,1,8,3}, DataType:UINT32), zero-filled before the run\n");
    for (unsigned r = 0; r < 8; ++r) {
        printf("  %s%u, %u, %u]%s", r == 0 ? "[[" : " [", (unsigned)coords[r][0],
               (unsigned)coords[r][1], (unsigned)coords[r][2], r == 7 ? "]" : ",");
        if (r >= count) {
            printf("  // row >= count: left untouched (undefined in DirectML)");
        }
        printf("\n");
    }
    printf("\n");
}

/* One DIAGONAL_MATRIX1 example on a 4x5 FLOAT32 matrix. */
static void diagonal1_example(dmls_device *device, const char *title, const float *input,
                              float value, INT begin, INT end, const char *note) {
    printf("== DIAGONAL_MATRIX1: %s ==\n", title);
    const UINT sizes[2] = {4, 5};
    DML_BUFFER_TENSOR_DESC buf = buffer_desc(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes);
    DML_TENSOR_DESC t = {DML_TENSOR_TYPE_BUFFER, &buf};
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d;
    memset(&d, 0, sizeof d);
    d.InputTensor = input ? &t : NULL;
    d.OutputTensor = &t;
    d.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    d.Value.Float32 = value;
    d.DiagonalFillBegin = begin;
    d.DiagonalFillEnd = end;
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &d};

    dmls_operator *op = NULL;
    check(dmls_device_create_operator(device, &desc, &op), "create DIAGONAL_MATRIX1");
    float output[20];
    memset(output, 0, sizeof output);
    DML_BUFFER_BINDING b_in, b_out;
    DML_BINDING_DESC in_binding = {DML_BINDING_TYPE_NONE, NULL};
    if (input) {
        in_binding = bind_buffer(&b_in, (void *)input, 20 * sizeof(float));
    }
    DML_BINDING_DESC out_binding = bind_buffer(&b_out, output, sizeof output);
    check(dmls_operator_execute(op, 1, &in_binding, 1, &out_binding), "execute DIAGONAL_MATRIX1");
    dmls_operator_release(op);

    if (input) {
        printf("InputTensor: (Sizes:{4,5} DataType:FLOAT32)\n");
        print_f32_matrix("    ", input, 4, 5);
    } else {
        printf("InputTensor: none\n");
    }
    printf("ValueDataType: FLOAT32\nValue: %g\n", (double)value);
    if (begin == INT32_MIN) {
        printf("DiagonalFillBegin: INT32_MIN\n");
    } else {
        printf("DiagonalFillBegin: %d\n", (int)begin);
    }
    printf("DiagonalFillEnd: %d\n", (int)end);
    printf("OutputTensor: (Sizes:{4,5} DataType:FLOAT32)\n");
    print_f32_matrix("    ", output, 4, 5);
    if (note) {
        printf("Note: %s\n", note);
    }
    printf("\n");
}

/* One DIAGONAL_MATRIX example on a 2-D tensor (feature level 4.0 and later allow 2 dims). */
static void diagonal_example(dmls_device *device, DML_TENSOR_DATA_TYPE type, UINT rows, UINT cols,
                             INT offset, FLOAT value) {
    const int is_float = type == DML_TENSOR_DATA_TYPE_FLOAT32;
    printf("== DIAGONAL_MATRIX: Offset %d, Value %g, DataType %s ==\n", (int)offset, (double)value,
           is_float ? "FLOAT32" : "INT32");
    const UINT sizes[2] = {rows, cols};
    DML_BUFFER_TENSOR_DESC buf = buffer_desc(type, 2, sizes);
    DML_TENSOR_DESC t = {DML_TENSOR_TYPE_BUFFER, &buf};
    DML_DIAGONAL_MATRIX_OPERATOR_DESC d = {&t, offset, value};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX, &d};
    dmls_operator *op = NULL;
    check(dmls_device_create_operator(device, &desc, &op), "create DIAGONAL_MATRIX");
    /* 4-byte elements either way; the union keeps the buffer aligned for both. */
    union {
        float f[64];
        int32_t i[64];
    } out;
    memset(&out, 0, sizeof out);
    DML_BUFFER_BINDING b_out;
    DML_BINDING_DESC out_binding = bind_buffer(&b_out, &out, sizeof out);
    check(dmls_operator_execute(op, 0, NULL, 1, &out_binding), "execute DIAGONAL_MATRIX");
    dmls_operator_release(op);
    printf("OutputTensor: (Sizes:{%u,%u} DataType:%s)   Out = (y + Offset == x) ? Value : 0\n",
           (unsigned)rows, (unsigned)cols, is_float ? "FLOAT32" : "INT32");
    if (is_float) {
        print_f32_matrix("    ", out.f, rows, cols);
    } else {
        print_i32_matrix("    ", out.i, rows, cols);
        printf("Note: the FLOAT Value %g is converted to INT32 by truncating toward zero.\n",
               (double)value);
    }
    printf("\n");
}

int main(void) {
    printf("directml_subset %s: the DirectML documentation examples, run through the C API\n\n",
           dmls_version());

    dmls_device *device = NULL;
    check(dmls_device_create(NULL, &device), "dmls_device_create");

    nonzero_example(device);

    static const float matrix[20] = {4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 1, 8, 7, 4, 3, 4, 2, 4};
    diagonal1_example(device, "Default identity matrix", NULL, 7.0f, 0, 1,
                      "the documentation page says Value 7 but shows ones; its pseudocode puts "
                      "Value on the diagonal, and so does this library (DirectML's identity "
                      "matrix is Value 1).");
    diagonal1_example(device, "Fill a 3-element wide diagonal strip", NULL, 7.0f, 0, 3, NULL);
    diagonal1_example(device, "Keep top-right diagonal half (the strictly upper triangle)", matrix,
                      0.0f, INT32_MIN, 1, NULL);
    diagonal1_example(device, "Keep only the values along the diagonal", matrix, 0.0f, 1, 0, NULL);

    diagonal_example(device, DML_TENSOR_DATA_TYPE_FLOAT32, 3, 4, 1, 1.0f);
    diagonal_example(device, DML_TENSOR_DATA_TYPE_INT32, 4, 4, -1, -2.7f);

    dmls_device_release(device);
    printf("All examples ran.\n");
    return EXIT_SUCCESS;
}
