/*
 * DMLS_DEVICE_FLAG_EXTENSIONS through the C API: 64-bit NONZERO_COORDINATES inputs (FLOAT64,
 * INT64, UINT64), UINT64 / INT64 counts and coordinates (both the same type), inputs of more
 * than 2^32 - 1 elements with 64-bit outputs (coordinates whose rows spread over the
 * dimensions before N); a strict device rejects each with E_INVALIDARG and a message naming
 * the flag; unknown flag bits are rejected.
 *
 * C11: the library's header, the shared helpers in dmls_test.h and the standard library.
 */
#include "dmls_test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static dmls_device *make_device(uint32_t flags) {
    dmls_device_desc desc = {0, 1, flags};
    dmls_device *device = NULL;
    CHECK_HR(dmls_device_create(&desc, &device), S_OK);
    CHECK(device != NULL);
    return device;
}

/* NONZERO_COORDINATES of an input of `in_type` with count/coordinates of `out_type`: count {1},
 * the other two as given (NULL strides: packed). */
static void nonzero_init_full(dmls_test_nonzero *n, DML_TENSOR_DATA_TYPE in_type, UINT in_dims,
                              const UINT *in_sizes, const UINT *in_strides,
                              DML_TENSOR_DATA_TYPE count_type, DML_TENSOR_DATA_TYPE coords_type,
                              UINT coords_dims, const UINT *coords_sizes,
                              const UINT *coords_strides) {
    const UINT count_sizes[1] = {1};
    dmls_test_owned_tensor_init(&n->in, in_type, in_dims, in_sizes, in_strides);
    dmls_test_owned_tensor_init(&n->count, count_type, 1, count_sizes, NULL);
    dmls_test_owned_tensor_init(&n->coords, coords_type, coords_dims, coords_sizes,
                                coords_strides);
    dmls_test_nonzero_link(n);
}

/* NONZERO_COORDINATES of a packed 2-D input {rows, cols}. */
static void nonzero_init(dmls_test_nonzero *n, DML_TENSOR_DATA_TYPE in_type, UINT rows, UINT cols,
                         DML_TENSOR_DATA_TYPE count_type, DML_TENSOR_DATA_TYPE coords_type) {
    const UINT in_sizes[2] = {rows, cols};
    const UINT coords_sizes[2] = {rows * cols, 2};
    nonzero_init_full(n, in_type, 2, in_sizes, NULL, count_type, coords_type, 2, coords_sizes,
                      NULL);
}

static HRESULT execute3(const dmls_operator *op, void *in, uint64_t in_bytes, void *count,
                        uint64_t count_bytes, void *coords, uint64_t coords_bytes) {
    DML_BUFFER_BINDING b[3] = {
        {in, 0, in_bytes}, {count, 0, count_bytes}, {coords, 0, coords_bytes}};
    DML_BINDING_DESC in_binding = {DML_BINDING_TYPE_BUFFER, &b[0]};
    DML_BINDING_DESC out_bindings[2] = {{DML_BINDING_TYPE_BUFFER, &b[1]},
                                        {DML_BINDING_TYPE_BUFFER, &b[2]}};
    return dmls_operator_execute(op, 1, &in_binding, 2, out_bindings);
}

static const char *type_name(DML_TENSOR_DATA_TYPE t) {
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT64: return "FLOAT64";
    case DML_TENSOR_DATA_TYPE_INT64: return "INT64";
    case DML_TENSOR_DATA_TYPE_UINT64: return "UINT64";
    case DML_TENSOR_DATA_TYPE_UINT32: return "UINT32";
    default: return "?";
    }
}

/* The flag itself: 0 and 0x1 are devices, any other bit is E_INVALIDARG. */
static void test_flags(void) {
    static const uint32_t bad[] = {0x2, 0x3, 0x4, 0x80000000u, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        dmls_device_desc desc = {0, 0, bad[i]};
        dmls_device *device = (dmls_device *)&desc; /* a sentinel that must stay */
        CHECK_HR(dmls_device_create(&desc, &device), E_INVALIDARG);
        CHECK(device == (dmls_device *)&desc);
        CHECK_MESSAGE_HAS("DMLS_DEVICE_FLAG_EXTENSIONS");
        CHECK_MESSAGE_HAS("flags");
    }
    CHECK_EQ_U64(DMLS_DEVICE_FLAG_EXTENSIONS, 1);
    dmls_device_release(make_device(0));
    dmls_device_release(make_device(DMLS_DEVICE_FLAG_EXTENSIONS));
    /* Extensions combine with any feature level and thread count. */
    dmls_device_desc desc = {DML_FEATURE_LEVEL_3_0, 2, DMLS_DEVICE_FLAG_EXTENSIONS};
    dmls_device *device = NULL;
    CHECK_HR(dmls_device_create(&desc, &device), S_OK);
    dmls_device_release(device);
}

/* 64-bit inputs: rejected by a strict device, found exactly with extensions. */
static void test_wide_inputs(dmls_device *strict, dmls_device *ext) {
    static const DML_TENSOR_DATA_TYPE types[] = {
        DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64};
    for (size_t t = 0; t < 3; ++t) {
        dmls_test_nonzero n;
        nonzero_init(&n, types[t], 3, 4, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT32);
        dmls_operator *op = (dmls_operator *)&n; /* sentinel */
        CHECK_HR(dmls_device_create_operator(strict, &n.op, &op), E_INVALIDARG);
        CHECK(op == (dmls_operator *)&n);
        CHECK_MESSAGE_HAS("DMLS_DEVICE_FLAG_EXTENSIONS");
        CHECK_MESSAGE_HAS("InputTensor");
        CHECK_MESSAGE_HAS(type_name(types[t]));

        op = NULL;
        CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), S_OK);
        if (op == NULL) {
            continue;
        }
        /* Values that a narrower read would get wrong: only high bits set, -0.0, NaN. */
        uint64_t in[12];
        int nonzero_at[12];
        for (int i = 0; i < 12; ++i) {
            in[i] = 0;
            nonzero_at[i] = 0;
        }
        if (types[t] == DML_TENSOR_DATA_TYPE_FLOAT64) {
            double v[12] = {0.0, -0.0, 1.5, 0.0, NAN, -0.0, 0.0, -INFINITY, 4.9e-324, 0.0, 0.0, -2.0};
            memcpy(in, v, sizeof v);
            int nz[12] = {0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1};
            memcpy(nonzero_at, nz, sizeof nz);
        } else {
            in[1] = (uint64_t)1 << 32;
            in[4] = (uint64_t)1 << 63;
            in[6] = 1;
            in[9] = UINT64_MAX;
            in[11] = (uint64_t)0xFFFFFFFF00000000ull;
            nonzero_at[1] = nonzero_at[4] = nonzero_at[6] = nonzero_at[9] = nonzero_at[11] = 1;
        }
        uint32_t count[4] = {0xAAAAAAAAu, 0xAAAAAAAAu, 0xAAAAAAAAu, 0xAAAAAAAAu};
        uint32_t coords[24];
        for (int i = 0; i < 24; ++i) {
            coords[i] = 0xDEADBEEFu;
        }
        CHECK_HR(execute3(op, in, sizeof in, count, sizeof count, coords, sizeof coords), S_OK);
        uint32_t row = 0;
        for (uint32_t i = 0; i < 12; ++i) {
            if (nonzero_at[i]) {
                CHECK_EQ_U64(coords[2 * row], i / 4);
                CHECK_EQ_U64(coords[2 * row + 1], i % 4);
                ++row;
            }
        }
        CHECK_EQ_U64(count[0], row);
        CHECK_EQ_U64(count[1], 0xAAAAAAAAu); /* nothing past the count tensor */
        for (uint32_t i = 2 * row; i < 24; ++i) {
            CHECK_EQ_U64(coords[i], 0xDEADBEEFu); /* rows from the count on are untouched */
        }
        dmls_operator_release(op);
    }
}

/* 64-bit counts and coordinates: UINT64 or INT64, both the same type. */
static void test_wide_outputs(dmls_device *strict, dmls_device *ext) {
    static const DML_TENSOR_DATA_TYPE outs[] = {DML_TENSOR_DATA_TYPE_UINT64,
                                                DML_TENSOR_DATA_TYPE_INT64};
    static const DML_TENSOR_DATA_TYPE ins[] = {DML_TENSOR_DATA_TYPE_UINT8,
                                               DML_TENSOR_DATA_TYPE_FLOAT32,
                                               DML_TENSOR_DATA_TYPE_INT64};
    for (size_t o = 0; o < 2; ++o) {
        for (size_t i = 0; i < 3; ++i) {
            dmls_test_nonzero n;
            nonzero_init(&n, ins[i], 2, 5, outs[o], outs[o]);
            dmls_operator *op = NULL;
            CHECK_HR(dmls_device_create_operator(strict, &n.op, &op), E_INVALIDARG);
            CHECK(op == NULL);
            CHECK_MESSAGE_HAS("DMLS_DEVICE_FLAG_EXTENSIONS");
            CHECK_MESSAGE_HAS(ins[i] == DML_TENSOR_DATA_TYPE_INT64 ? "InputTensor"
                                                                    : "OutputCountTensor");

            CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), S_OK);
            if (op == NULL) {
                continue;
            }
            /* Input: elements 0, 3, 4 and 9 nonzero. */
            uint64_t in64[10] = {0};
            float in32[12] = {0};
            uint8_t in8[12] = {0};
            static const int hits[4] = {0, 3, 4, 9};
            for (int h = 0; h < 4; ++h) {
                in64[hits[h]] = 7;
                in32[hits[h]] = -1.0f;
                in8[hits[h]] = 200;
            }
            void *in = ins[i] == DML_TENSOR_DATA_TYPE_INT64 ? (void *)in64
                     : ins[i] == DML_TENSOR_DATA_TYPE_FLOAT32 ? (void *)in32
                                                               : (void *)in8;
            uint64_t count[2] = {0x5555555555555555ull, 0x5555555555555555ull};
            uint64_t coords[20];
            for (int k = 0; k < 20; ++k) {
                coords[k] = 0x0123456789ABCDEFull;
            }
            CHECK_HR(execute3(op, in, n.in.buf.TotalTensorSizeInBytes, count, 8, coords,
                              sizeof coords),
                     S_OK);
            CHECK_EQ_U64(count[0], 4);
            CHECK_EQ_U64(count[1], 0x5555555555555555ull);
            for (int h = 0; h < 4; ++h) {
                CHECK_EQ_U64(coords[2 * h], (uint64_t)(hits[h] / 5));
                CHECK_EQ_U64(coords[2 * h + 1], (uint64_t)(hits[h] % 5));
            }
            for (int k = 8; k < 20; ++k) {
                CHECK_EQ_U64(coords[k], 0x0123456789ABCDEFull);
            }
            dmls_operator_release(op);
        }
    }

    /* Mixed or other types are E_INVALIDARG even with extensions. */
    static const DML_TENSOR_DATA_TYPE pairs[][2] = {
        {DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64},
        {DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64},
        {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64},
        {DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT32},
    };
    for (size_t p = 0; p < 4; ++p) {
        dmls_test_nonzero n;
        nonzero_init(&n, DML_TENSOR_DATA_TYPE_FLOAT32, 2, 2, pairs[p][0], pairs[p][1]);
        dmls_operator *op = NULL;
        CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), E_INVALIDARG);
        CHECK(op == NULL);
        CHECK_MESSAGE_HAS("both must be the same");
    }
    static const DML_TENSOR_DATA_TYPE others[] = {
        DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT16};
    for (size_t k = 0; k < 3; ++k) {
        dmls_test_nonzero n;
        nonzero_init(&n, DML_TENSOR_DATA_TYPE_FLOAT32, 2, 2, others[k], others[k]);
        dmls_operator *op = NULL;
        CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), E_INVALIDARG);
        CHECK_MESSAGE_HAS("OutputCountTensor DataType");
        CHECK_MESSAGE_HAS("UINT64 or INT64");
        CHECK_HR(dmls_device_create_operator(strict, &n.op, &op), E_INVALIDARG);
        CHECK_MESSAGE_HAS("must be UINT32");
        CHECK(op == NULL);
    }
}

/* ONNX Runtime's layout with 64-bit coordinates: INT64 written transposed into an [N, M] buffer
 * through strides {1, M}, read back as [rank, nnz]. */
static void test_wide_strided_coordinates(dmls_device *ext) {
    enum { R = 3, C = 4, M = R * C, N = 2 };
    const UINT in_sizes[2] = {R, C};
    const UINT coords_sizes[2] = {M, N};
    const UINT coords_strides[2] = {1, M};
    dmls_test_nonzero n;
    nonzero_init_full(&n, DML_TENSOR_DATA_TYPE_INT16, 2, in_sizes, NULL, DML_TENSOR_DATA_TYPE_INT64,
                      DML_TENSOR_DATA_TYPE_INT64, 2, coords_sizes, coords_strides);
    dmls_operator *op = NULL;
    CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), S_OK);
    if (op == NULL) {
        return;
    }
    int16_t in[M] = {0, 5, 0, 0, -1, 0, 0, 0, 0, 0, 0, 9};
    int64_t count[2] = {-1, -1};
    int64_t coords[N * M];
    for (int i = 0; i < N * M; ++i) {
        coords[i] = -7;
    }
    CHECK_HR(execute3(op, in, 24, count, 8, coords, sizeof coords), S_OK);
    CHECK_EQ_U64(count[0], 3);
    /* Row 0 holds the first indices, row 1 the second. */
    static const int64_t want[N][3] = {{0, 1, 2}, {1, 0, 3}};
    for (int d = 0; d < N; ++d) {
        for (int j = 0; j < 3; ++j) {
            CHECK_EQ_U64(coords[d * M + j], want[d][j]);
        }
        for (int j = 3; j < M; ++j) {
            CHECK_EQ_U64(coords[d * M + j], (uint64_t)(int64_t)-7);
        }
    }
    dmls_operator_release(op);
}

/* A UINT8 input; count and coordinates of `out_type`. */
static void nonzero_init_strided(dmls_test_nonzero *n, UINT in_dims, const UINT *in_sizes,
                                 const UINT *in_strides, DML_TENSOR_DATA_TYPE out_type,
                                 UINT coords_dims, const UINT *coords_sizes,
                                 const UINT *coords_strides) {
    nonzero_init_full(n, DML_TENSOR_DATA_TYPE_UINT8, in_dims, in_sizes, in_strides, out_type,
                      out_type, coords_dims, coords_sizes, coords_strides);
}

/* Both devices refuse `desc` with E_INVALIDARG and a message containing `needle`. */
static void expect_both_refuse(dmls_device *strict, dmls_device *ext,
                               const DML_OPERATOR_DESC *desc, const char *needle) {
    dmls_operator *op = NULL;
    CHECK_HR(dmls_device_create_operator(strict, desc, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS(needle);
    CHECK_HR(dmls_device_create_operator(ext, desc, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS(needle);
    CHECK(op == NULL);
}

/* Only the device with DMLS_DEVICE_FLAG_EXTENSIONS accepts `desc`; the strict one names the flag. */
static void expect_extensions_only(dmls_device *strict, dmls_device *ext,
                                   const DML_OPERATOR_DESC *desc) {
    dmls_operator *op = NULL;
    CHECK_HR(dmls_device_create_operator(strict, desc, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("DMLS_DEVICE_FLAG_EXTENSIONS");
    CHECK(op == NULL);
    CHECK_HR(dmls_device_create_operator(ext, desc, &op), S_OK);
    CHECK(op != NULL);
    dmls_operator_release(op);
}

/* Tensors of more than 2^32 - 1 elements need 64-bit counts and coordinates. Inputs and
 * coordinates are broadcast (stride 0), so the descs span a few bytes; only operator creation
 * is checked (running one would scan 2^32 elements). */
static void test_element_limit(dmls_device *strict, dmls_device *ext) {
    /* An input of 65535 * 65537 = 2^32 - 1 elements (DirectML's limit) with N = 2: the
     * coordinates tensor {2^32 - 1, 2} has 2^33 - 2 elements, beyond UINT32 outputs. */
    const UINT in_sizes[2] = {65535, 65537};
    const UINT zero_strides[3] = {0, 0, 0};
    const UINT coords_sizes[2] = {0xFFFFFFFFu, 2};
    const UINT coords_strides[2] = {2, 1}; /* outputs may not overlap themselves */
    dmls_test_nonzero n;
    dmls_operator *op = NULL;

    nonzero_init_strided(&n, 2, in_sizes, zero_strides, DML_TENSOR_DATA_TYPE_UINT32, 2,
                         coords_sizes, coords_strides);
    expect_both_refuse(strict, ext, &n.op, "OutputCoordinatesTensor has 8589934590 elements");

    DML_TENSOR_DATA_TYPE wide[2] = {DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64};
    for (int w = 0; w < 2; ++w) {
        nonzero_init_strided(&n, 2, in_sizes, zero_strides, wide[w], 2, coords_sizes,
                             coords_strides);
        expect_extensions_only(strict, ext, &n.op);
    }

    /* An input of 65536 * 65537 = 2^32 + 65536 elements: beyond DirectML's limit; a strict
     * device refuses it whatever the outputs. */
    const UINT big_sizes[2] = {65536, 65537};
    const UINT small_coords[2] = {65536, 2};
    nonzero_init_strided(&n, 2, big_sizes, zero_strides, DML_TENSOR_DATA_TYPE_UINT32, 2,
                         small_coords, NULL);
    expect_both_refuse(strict, ext, &n.op, "InputTensor has 4295032832 elements");

    /* With 64-bit outputs such an input works: the coordinates' rows spread over the
     * dimensions before N ({65536, 65537, 2}, whose product is the element count), evenly
     * spaced (each leading stride is the row stride times the rows below it). */
    const UINT big_coords[3] = {65536, 65537, 2};
    const UINT big_coords_strides[3] = {131074, 2, 1};
    for (int w = 0; w < 2; ++w) {
        nonzero_init_strided(&n, 2, big_sizes, zero_strides, wide[w], 3, big_coords,
                             big_coords_strides);
        expect_extensions_only(strict, ext, &n.op);
    }
    /* The rows must add up to the element count. */
    const UINT short_coords[3] = {65536, 65536, 2};
    const UINT short_coords_strides[3] = {131072, 2, 1};
    nonzero_init_strided(&n, 2, big_sizes, zero_strides, DML_TENSOR_DATA_TYPE_UINT64, 3,
                         short_coords, short_coords_strides);
    CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("must equal the input's element count 4295032832");
    CHECK(op == NULL);
}

/* Spread rows on a small input, run: {2, 3, N} coordinates hold the same rows as {6, N}, with
 * packed and with evenly spaced strides; uneven spacing and 32-bit outputs are refused. */
static void test_spread_rows(dmls_device *strict, dmls_device *ext) {
    const UINT in_sizes[2] = {2, 3};
    const UINT coords_sizes[3] = {2, 3, 2};
    const UINT spaced[3] = {12, 4, 1}; /* rows 4 elements apart */
    const UINT uneven[3] = {13, 4, 1};
    dmls_test_nonzero n;
    dmls_operator *op = NULL;

    nonzero_init_strided(&n, 2, in_sizes, NULL, DML_TENSOR_DATA_TYPE_UINT32, 3, coords_sizes,
                         NULL);
    CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("must be 1");
    CHECK_HR(dmls_device_create_operator(strict, &n.op, &op), E_INVALIDARG);
    CHECK(op == NULL);

    nonzero_init_strided(&n, 2, in_sizes, NULL, DML_TENSOR_DATA_TYPE_INT64, 3, coords_sizes,
                         uneven);
    CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), E_INVALIDARG);
    CHECK_MESSAGE_HAS("evenly spaced");
    CHECK(op == NULL);

    for (int layout = 0; layout < 2; ++layout) {
        nonzero_init_strided(&n, 2, in_sizes, NULL, DML_TENSOR_DATA_TYPE_INT64, 3, coords_sizes,
                             layout ? spaced : NULL);
        CHECK_HR(dmls_device_create_operator(ext, &n.op, &op), S_OK);
        if (op == NULL) {
            continue;
        }
        uint64_t in[1] = {0};
        uint8_t *bytes = (uint8_t *)in;
        bytes[1] = 1; /* (0, 1) */
        bytes[3] = 9; /* (1, 0) */
        bytes[5] = 255; /* (1, 2) */
        int64_t count[1] = {-1};
        int64_t coords[24];
        for (int i = 0; i < 24; ++i) {
            coords[i] = -5;
        }
        CHECK_HR(execute3(op, in, 8, count, 8, coords, sizeof coords), S_OK);
        CHECK_EQ_U64(count[0], 3);
        const int64_t want[3][2] = {{0, 1}, {1, 0}, {1, 2}};
        const int row_stride = layout ? 4 : 2;
        for (int r = 0; r < 6; ++r) {
            for (int c = 0; c < 2; ++c) {
                int64_t v = coords[r * row_stride + c];
                CHECK_EQ_U64(v, r < 3 ? want[r][c] : -5);
            }
        }
        dmls_operator_release(op);
        op = NULL;
    }
}

int main(void) {
    test_flags();
    dmls_device *strict = make_device(0);
    dmls_device *ext = make_device(DMLS_DEVICE_FLAG_EXTENSIONS);
    test_wide_inputs(strict, ext);
    test_wide_outputs(strict, ext);
    test_wide_strided_coordinates(ext);
    test_element_limit(strict, ext);
    test_spread_rows(strict, ext);
    dmls_device_release(strict);
    dmls_device_release(ext);
    return dmls_test_finish("test_extensions");
}
