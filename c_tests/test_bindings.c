/*
 * Binding rules and what execution writes: Offset and address alignment (16, or
 * GuaranteedBaseOffsetAlignment), SizeInBytes, overlap between bound ranges, DIAGONAL_MATRIX1 in
 * place, NONE for a NULL optional input, ONNX Runtime's NonZero binding (coordinates with
 * strides {2, 2*M} on a UINT32 view of an int64 buffer), and canary bytes around and inside
 * outputs: nothing past the last element, no padding between strided elements, and no
 * NONZERO_COORDINATES row from the count on is ever written.
 */
#include "dmls_test.h"

#include <stdint.h>
#include <string.h>

#define CANARY32 0xA5A5A5A5u
#define CANARY64 0xA5A5A5A5A5A5A5A5ull

/* NONZERO_COORDINATES over a {2,4} FLOAT32 input; count {1}; coordinates {8,2}. */
static dmls_operator *make_nonzero(dmls_device *device, UINT input_alignment) {
    const UINT in_sizes[2] = {2, 4}, count_sizes[1] = {1}, coord_sizes[2] = {8, 2};
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    in_b.GuaranteedBaseOffsetAlignment = input_alignment;
    DML_BUFFER_TENSOR_DESC count_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    DML_BUFFER_TENSOR_DESC coord_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, NULL);
    return dmls_test_create_nonzero(device, &in_b, &count_b, &coord_b);
}

static _Alignas(64) unsigned char arena[1024];

static void fill_arena(void) {
    for (size_t i = 0; i < sizeof arena; ++i) arena[i] = 0xA5;
}

static void offsets_and_alignment(dmls_device *device) {
    dmls_operator *op = make_nonzero(device, 0);
    static const float values[8] = {1, 0, 0, 2, 0, 3, 0, 4};
    static _Alignas(16) uint32_t count[4];
    static _Alignas(16) uint32_t coords[16];
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC outputs[2] = {dmls_test_bind(&b_count, count, 0, 4),
                                   dmls_test_bind(&b_coords, coords, 0, 64)};

    /* Offset 16 in a 16-aligned arena: fine; bytes before the offset stay untouched. */
    fill_arena();
    memcpy(arena + 16, values, sizeof values);
    DML_BINDING_DESC in = dmls_test_bind(&b_in, arena, 16, 32);
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);
    CHECK_EQ_U64(count[0], 4);

    /* Offset 8: not a multiple of 16. */
    memcpy(arena + 8, values, sizeof values);
    b_in.Offset = 8;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("Offset is 8");

    /* Buffer + Offset not aligned to the element size. */
    b_in.Buffer = arena + 2;
    b_in.Offset = 0;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("aligned");

    /* SizeInBytes below TotalTensorSizeInBytes; Offset counts before SizeInBytes starts. */
    b_in.Buffer = arena;
    b_in.Offset = 16;
    b_in.SizeInBytes = 31;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("SizeInBytes is 31");
    dmls_operator_release(op);

    /* GuaranteedBaseOffsetAlignment 4: Offset 4 is fine, Offset 2 is not. */
    op = make_nonzero(device, 4);
    fill_arena();
    memcpy(arena + 4, values, sizeof values);
    in = dmls_test_bind(&b_in, arena, 4, 32);
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);
    CHECK_EQ_U64(count[0], 4);
    b_in.Offset = 2;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    dmls_operator_release(op);

    /* GuaranteedBaseOffsetAlignment 32: Offset 16 is not a multiple of it; the address must be
       32-aligned too. */
    op = make_nonzero(device, 32);
    memcpy(arena + 32, values, sizeof values);
    in = dmls_test_bind(&b_in, arena, 32, 32);
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);
    b_in.Offset = 16;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    memcpy(arena + 48, values, sizeof values);
    b_in.Buffer = arena + 16; /* Offset 32 is a multiple of 32, the address is not */
    b_in.Offset = 32;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    dmls_operator_release(op);
}

static void overlaps(dmls_device *device) {
    dmls_operator *op = make_nonzero(device, 0);
    static const float values[8] = {1, 0, 0, 2, 0, 3, 0, 4};
    fill_arena();
    memcpy(arena, values, sizeof values);
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC in = dmls_test_bind(&b_in, arena, 0, 32);
    DML_BINDING_DESC outputs[2] = {dmls_test_bind(&b_count, arena, 64, 4),
                                   dmls_test_bind(&b_coords, arena, 128, 64)};
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);

    /* The count inside the coordinates. */
    b_count.Offset = 160;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("overlaps");
    /* Coordinates over the input (the count well clear of both). */
    b_count.Offset = 512;
    b_coords.Offset = 16;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    CHECK_MESSAGE_HAS("InputTensor");
    /* Count right after the coordinates: touching, not overlapping. */
    b_coords.Offset = 64;
    b_count.Offset = 128;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);
    /* The same memory through different Buffer pointers still overlaps. */
    b_count.Buffer = arena + 64;
    b_count.Offset = 16;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), E_INVALIDARG);
    dmls_operator_release(op);
}

/* DIAGONAL_MATRIX1 over a {4,5} FLOAT32 tensor (optionally with explicit strides). */
static dmls_operator *make_diag1(dmls_device *device, int with_input, const UINT *in_strides,
                                 const UINT *out_strides, INT begin, INT end) {
    const UINT sizes[2] = {4, 5};
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, in_strides);
    DML_BUFFER_TENSOR_DESC out_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, out_strides);
    DML_TENSOR_DESC in_t = dmls_test_tensor(&in_b), out_t = dmls_test_tensor(&out_b);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d = dmls_test_diagonal1(
        with_input ? &in_t : NULL, &out_t, DML_TENSOR_DATA_TYPE_FLOAT32, begin, end);
    d.Value.Float32 = 0.0f;
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &d};
    return dmls_test_create(device, &desc, "DIAGONAL_MATRIX1");
}

static const float seed_matrix[20] = {4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 1, 8, 7, 4, 3, 4, 2, 4};
static const float seed_upper[20] = {0, 7, 3, 7, 9, 0, 0, 8, 6, 9, 0, 0, 0, 8, 7, 0, 0, 0, 0, 4};

static void in_place(dmls_device *device) {
    /* Same address, same layout: allowed, and the result is the upper-triangle example. */
    dmls_operator *op = make_diag1(device, 1, NULL, NULL, INT32_MIN, 1);
    static _Alignas(16) float m[24];
    memcpy(m, seed_matrix, sizeof seed_matrix);
    for (int i = 20; i < 24; ++i) m[i] = -1.0f;
    DML_BUFFER_BINDING b_in, b_out;
    DML_BINDING_DESC in = dmls_test_bind(&b_in, m, 0, 80);
    DML_BINDING_DESC out = dmls_test_bind(&b_out, m, 0, 80);
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &out), S_OK);
    for (int i = 0; i < 20; ++i) CHECK(m[i] == seed_upper[i]);
    for (int i = 20; i < 24; ++i) CHECK(m[i] == -1.0f);

    /* Same memory via Buffer + Offset on both sides: still in place. */
    static _Alignas(16) float big[48];
    memcpy(big + 16, seed_matrix, sizeof seed_matrix);
    b_in.Buffer = big;
    b_in.Offset = 64;
    b_out.Buffer = big + 4;
    b_out.Offset = 48;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &out), S_OK);
    for (int i = 0; i < 20; ++i) CHECK(big[16 + i] == seed_upper[i]);

    /* Partly overlapping: rejected, nothing written. */
    memcpy(m, seed_matrix, sizeof seed_matrix);
    static _Alignas(16) float shifted[40];
    memcpy(shifted, seed_matrix, sizeof seed_matrix);
    b_in.Buffer = shifted;
    b_in.Offset = 0;
    b_out.Buffer = shifted;
    b_out.Offset = 16;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &out), E_INVALIDARG);
    CHECK_MESSAGE_HAS("overlaps");
    for (int i = 0; i < 20; ++i) CHECK(shifted[i] == seed_matrix[i]);
    dmls_operator_release(op);

    /* Same address, same interleaved strides: element (i, j) at 5i + 3j (the rows interleave, but
       no two elements share an address). Allowed, and only those 20 elements change. */
    const UINT interleaved[2] = {5, 3};
    op = make_diag1(device, 1, interleaved, interleaved, INT32_MIN, 1);
    static _Alignas(16) float w[32];
    for (int i = 0; i < 32; ++i) w[i] = -1.0f;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 5; ++j) w[5 * i + 3 * j] = seed_matrix[5 * i + j];
    b_in.Buffer = w;
    b_out.Buffer = w;
    b_in.Offset = b_out.Offset = 0;
    b_in.SizeInBytes = b_out.SizeInBytes = sizeof w;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &out), S_OK);
    {
        int placed[32] = {0};
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 5; ++j) {
                CHECK(w[5 * i + 3 * j] == seed_upper[5 * i + j]);
                placed[5 * i + 3 * j] = 1;
            }
        for (int i = 0; i < 32; ++i)
            if (!placed[i]) CHECK(w[i] == -1.0f);
    }
    dmls_operator_release(op);

    /* Same address, different layout (output rows padded to 6): rejected. */
    const UINT padded[2] = {6, 1};
    op = make_diag1(device, 1, NULL, padded, INT32_MIN, 1);
    static _Alignas(16) float p[32];
    b_in.Buffer = p;
    b_out.Buffer = p;
    b_in.Offset = b_out.Offset = 0;
    b_in.SizeInBytes = b_out.SizeInBytes = sizeof p;
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &out), E_INVALIDARG);
    dmls_operator_release(op);

    /* NONZERO_COORDINATES and DIAGONAL_MATRIX have no in-place form: an output over the input
       is rejected (covered in overlaps() for NonZero). */
}

static void optional_input_slot(dmls_device *device) {
    static _Alignas(16) float m[20], out[20];
    DML_BUFFER_BINDING b_in, b_out;
    DML_BINDING_DESC in = dmls_test_bind(&b_in, m, 0, 80);
    DML_BINDING_DESC none = {DML_BINDING_TYPE_NONE, NULL};
    DML_BINDING_DESC o = dmls_test_bind(&b_out, out, 0, 80);

    /* The desc has no InputTensor: the slot must be NONE. */
    dmls_operator *op = make_diag1(device, 0, NULL, NULL, 0, 1);
    CHECK_HR(dmls_operator_execute(op, 1, &none, 1, &o), S_OK);
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &o), E_INVALIDARG);
    CHECK_MESSAGE_HAS("InputTensor");
    CHECK_HR(dmls_operator_execute(op, 0, NULL, 1, &o), E_INVALIDARG);
    dmls_operator_release(op);

    /* The desc has an InputTensor: the slot must be a buffer. */
    op = make_diag1(device, 1, NULL, NULL, 0, 1);
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &o), S_OK);
    CHECK_HR(dmls_operator_execute(op, 1, &none, 1, &o), E_INVALIDARG);
    CHECK_MESSAGE_HAS("InputTensor");
    /* Outputs are never NONE. */
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &none), E_INVALIDARG);
    dmls_operator_release(op);

    /* DIAGONAL_MATRIX has no input slot: input_count 0, inputs may be NULL. */
    const UINT sizes[2] = {4, 5};
    DML_BUFFER_TENSOR_DESC b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    DML_TENSOR_DESC t = dmls_test_tensor(&b);
    DML_DIAGONAL_MATRIX_OPERATOR_DESC dd = {&t, 0, 1.0f};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX, &dd};
    CHECK_HR(dmls_device_create_operator(device, &desc, &op), S_OK);
    CHECK_HR(dmls_operator_execute(op, 0, NULL, 1, &o), S_OK);
    CHECK_HR(dmls_operator_execute(op, 1, &in, 1, &o), E_INVALIDARG);
    CHECK_MESSAGE_HAS("input_count is 1");
    dmls_operator_release(op);
}

/* ONNX Runtime's NonZero: a worst-case {M, rank} coordinates tensor with strides {2, 2*M} on a
   UINT32 view of an int64 buffer [rank][M], so coordinate n of row m lands in the first four
   bytes of int64 element n*M + m (its low half on a little-endian CPU, where ONNX Runtime's
   DirectML provider runs; the library writes what the strides say on any CPU). */
static void onnx_runtime_nonzero(dmls_device *device) {
    enum { ROWS = 3, COLS = 5, M = ROWS * COLS, RANK = 2 };
    const UINT in_sizes[2] = {ROWS, COLS}, count_sizes[1] = {1}, coord_sizes[2] = {M, RANK};
    const UINT coord_strides[2] = {2, 2 * M};
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_INT32, 2, in_sizes, NULL);
    DML_BUFFER_TENSOR_DESC count_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    DML_BUFFER_TENSOR_DESC coord_b =
        dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, coord_strides);
    CHECK_EQ_U64(coord_b.TotalTensorSizeInBytes, (1 + (M - 1) * 2 + (RANK - 1) * 2 * M) * 4);
    coord_b.TotalTensorSizeInBytes = (UINT64)M * RANK * 8; /* ORT gives the int64 buffer's size */
    dmls_operator *op = dmls_test_create_nonzero(device, &in_b, &count_b, &coord_b);
    if (!op) return;

    static _Alignas(16) int32_t input[M];
    int expected_count = 0;
    for (int i = 0; i < M; ++i) {
        input[i] = (i % 3 == 1 || i == 14) ? i - 7 : 0; /* some negative, some positive */
        expected_count += input[i] != 0;
    }
    static _Alignas(16) int64_t coords[RANK * M + 2];
    static _Alignas(16) uint32_t count[4];
    for (int i = 0; i < RANK * M + 2; ++i) coords[i] = (int64_t)CANARY64;
    for (int i = 0; i < 4; ++i) count[i] = CANARY32;
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC in = dmls_test_bind(&b_in, input, 0, sizeof input);
    DML_BINDING_DESC outputs[2] = {dmls_test_bind(&b_count, count, 0, 4),
                                   dmls_test_bind(&b_coords, coords, 0, (UINT64)M * RANK * 8)};
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);

    CHECK_EQ_U64(count[0], (uint64_t)expected_count);
    for (int i = 1; i < 4; ++i) CHECK_EQ_U64(count[i], CANARY32);
    int row = 0;
    for (int i = 0; i < M; ++i) {
        if (input[i] == 0) continue;
        uint32_t y[2], x[2];
        memcpy(y, &coords[0 * M + row], 8);
        memcpy(x, &coords[1 * M + row], 8);
        /* first four bytes: the coordinate; the other four: untouched */
        CHECK_EQ_U64(y[0], (uint64_t)(i / COLS));
        CHECK_EQ_U64(x[0], (uint64_t)(i % COLS));
        CHECK_EQ_U64(y[1], CANARY32);
        CHECK_EQ_U64(x[1], CANARY32);
        ++row;
    }
    /* Rows from the count on, and past the buffer: untouched. */
    for (int r = row; r < M; ++r) {
        CHECK_EQ_U64((uint64_t)coords[0 * M + r], CANARY64);
        CHECK_EQ_U64((uint64_t)coords[1 * M + r], CANARY64);
    }
    CHECK_EQ_U64((uint64_t)coords[RANK * M], CANARY64);
    CHECK_EQ_U64((uint64_t)coords[RANK * M + 1], CANARY64);
    dmls_operator_release(op);
}

/* Padding inside strided outputs, and slack up to a larger TotalTensorSizeInBytes, stay untouched. */
static void canaries(dmls_device *device) {
    /* NONZERO_COORDINATES: coordinates {8,2} with strides {3,1} (a padding column) and a
       TotalTensorSizeInBytes of 128 (more than the 92 bytes needed). */
    const UINT in_sizes[2] = {2, 4}, count_sizes[1] = {1}, coord_sizes[2] = {8, 2};
    const UINT coord_strides[2] = {3, 1};
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT8, 2, in_sizes, NULL);
    DML_BUFFER_TENSOR_DESC count_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    DML_BUFFER_TENSOR_DESC coord_b =
        dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, coord_strides);
    CHECK_EQ_U64(coord_b.TotalTensorSizeInBytes, 92);
    coord_b.TotalTensorSizeInBytes = 128;
    dmls_operator *op = dmls_test_create_nonzero(device, &in_b, &count_b, &coord_b);
    static _Alignas(16) uint8_t input[8] = {0, 9, 0, 0, 7, 0, 0, 1};
    static _Alignas(16) uint32_t count[4], coords[40];
    for (int i = 0; i < 4; ++i) count[i] = CANARY32;
    for (int i = 0; i < 40; ++i) coords[i] = CANARY32;
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC in = dmls_test_bind(&b_in, input, 0, 8);
    DML_BINDING_DESC outputs[2] = {dmls_test_bind(&b_count, count, 0, 4),
                                   dmls_test_bind(&b_coords, coords, 0, 128)};
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);
    CHECK_EQ_U64(count[0], 3);
    static const uint32_t want[3][2] = {{0, 1}, {1, 0}, {1, 3}};
    for (int r = 0; r < 8; ++r) {
        for (int c = 0; c < 3; ++c) {
            const uint32_t v = coords[r * 3 + c];
            if (r < 3 && c < 2) {
                CHECK_EQ_U64(v, want[r][c]);
            } else {
                CHECK_EQ_U64(v, CANARY32); /* padding column, or a row from the count on */
            }
        }
    }
    for (int i = 24; i < 40; ++i) CHECK_EQ_U64(coords[i], CANARY32);
    dmls_operator_release(op);

    /* DIAGONAL_MATRIX1: output {4,5} with rows padded to 7 elements. */
    const UINT padded[2] = {7, 1};
    op = make_diag1(device, 1, NULL, padded, INT32_MIN, 1);
    static _Alignas(16) float out[40];
    for (int i = 0; i < 40; ++i) out[i] = -99.0f;
    DML_BUFFER_BINDING b_src, b_out;
    DML_BINDING_DESC src = dmls_test_bind(&b_src, (void *)seed_matrix, 0, 80);
    DML_BINDING_DESC o = dmls_test_bind(&b_out, out, 0, sizeof out);
    CHECK_HR(dmls_operator_execute(op, 1, &src, 1, &o), S_OK);
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 7; ++x) {
            CHECK(out[y * 7 + x] == (x < 5 ? seed_upper[y * 5 + x] : -99.0f));
        }
    }
    for (int i = 28; i < 40; ++i) CHECK(out[i] == -99.0f);
    dmls_operator_release(op);
}

/* A broadcast input (stride 0) repeats one element. */
static void broadcast_input(dmls_device *device) {
    const UINT in_sizes[2] = {3, 4}, in_strides[2] = {0, 1}, count_sizes[1] = {1};
    const UINT coord_sizes[2] = {12, 2};
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_INT16, 2, in_sizes, in_strides);
    CHECK_EQ_U64(in_b.TotalTensorSizeInBytes, 8);
    DML_BUFFER_TENSOR_DESC count_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    DML_BUFFER_TENSOR_DESC coord_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, 2, coord_sizes, NULL);
    dmls_operator *op = dmls_test_create_nonzero(device, &in_b, &count_b, &coord_b);
    static _Alignas(16) int16_t row[4] = {0, -3, 0, 5};
    static _Alignas(16) uint32_t count[1], coords[24];
    DML_BUFFER_BINDING b_in, b_count, b_coords;
    DML_BINDING_DESC in = dmls_test_bind(&b_in, row, 0, 8);
    DML_BINDING_DESC outputs[2] = {dmls_test_bind(&b_count, count, 0, 4),
                                   dmls_test_bind(&b_coords, coords, 0, sizeof coords)};
    CHECK_HR(dmls_operator_execute(op, 1, &in, 2, outputs), S_OK);
    CHECK_EQ_U64(count[0], 6);
    for (int r = 0; r < 6; ++r) {
        CHECK_EQ_U64(coords[r * 2], (uint32_t)(r / 2));
        CHECK_EQ_U64(coords[r * 2 + 1], (uint32_t)(r % 2 == 0 ? 1 : 3));
    }
    dmls_operator_release(op);
}

int main(void) {
    dmls_device *device = dmls_test_device(0);
    if (!device) return dmls_test_finish("test_bindings");
    offsets_and_alignment(device);
    overlaps(device);
    in_place(device);
    optional_input_slot(device);
    onnx_runtime_nonzero(device);
    canaries(device);
    broadcast_input(device);
    dmls_device_release(device);
    return dmls_test_finish("test_bindings");
}
