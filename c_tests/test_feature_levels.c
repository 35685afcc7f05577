/*
 * Feature levels: each operator's availability and tensor tables follow the level the device
 * emulates (NONZERO_COORDINATES from 3.0, 4-5 dims at 3.x, 1-8 from 4.0; DIAGONAL_MATRIX1 from
 * 5.1; DIAGONAL_MATRIX's 2.0 / 2.1 / 4.0 / 5.1 table), and the two feature queries.
 */
#include "dmls_test.h"

#include <stdint.h>

static HRESULT create(DML_FEATURE_LEVEL level, const DML_OPERATOR_DESC *desc) {
    dmls_device *device = dmls_test_device(level);
    if (!device) return E_FAIL;
    dmls_operator *op = NULL;
    HRESULT hr = dmls_device_create_operator(device, desc, &op);
    /* Keep the message of the create call: release and device release return nothing. */
    dmls_operator_release(op);
    dmls_device_release(device);
    return hr;
}

/* NONZERO_COORDINATES on an input of `dims` dimensions {1,...,1,2,3}: count and coordinates
   with `out_dims` dimensions (coordinates {1,...,6,N}). */
static HRESULT nonzero(DML_FEATURE_LEVEL level, UINT in_dims, UINT count_dims, UINT coord_dims,
                       UINT n) {
    UINT in_sizes[8], count_sizes[8], coord_sizes[8];
    for (UINT i = 0; i < 8; ++i) in_sizes[i] = count_sizes[i] = coord_sizes[i] = 1;
    in_sizes[in_dims - 1] = 3;
    if (in_dims >= 2) in_sizes[in_dims - 2] = 2;
    const UINT elements = in_dims >= 2 ? 6 : 3;
    if (coord_dims >= 2) {
        coord_sizes[coord_dims - 2] = elements;
        coord_sizes[coord_dims - 1] = n;
    } else {
        coord_sizes[0] = elements; /* an invalid 1-D coordinates tensor */
    }
    DML_BUFFER_TENSOR_DESC in_b = dmls_test_buffer(DML_TENSOR_DATA_TYPE_INT8, in_dims, in_sizes, NULL);
    DML_BUFFER_TENSOR_DESC count_b =
        dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, count_dims, count_sizes, NULL);
    DML_BUFFER_TENSOR_DESC coord_b =
        dmls_test_buffer(DML_TENSOR_DATA_TYPE_UINT32, coord_dims, coord_sizes, NULL);
    DML_TENSOR_DESC in_t = dmls_test_tensor(&in_b), count_t = dmls_test_tensor(&count_b),
                    coord_t = dmls_test_tensor(&coord_b);
    DML_NONZERO_COORDINATES_OPERATOR_DESC nz = {&in_t, &count_t, &coord_t};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_NONZERO_COORDINATES, &nz};
    return create(level, &desc);
}

/* NONZERO_COORDINATES by level: the input's, count's and coordinates' DimensionCounts, N, and
   the answer (and a part of the message, where one is checked). */
static const struct {
    DML_FEATURE_LEVEL level;
    UINT in_dims, count_dims, coord_dims, n;
    HRESULT want;
    const char *needle;
} nonzero_cases[] = {
    /* Introduced at 3.0. */
    {DML_FEATURE_LEVEL_2_1, 4, 4, 4, 2, E_INVALIDARG, "3_0"},
    {DML_FEATURE_LEVEL_1_0, 4, 4, 4, 2, E_INVALIDARG, NULL},
    {DML_FEATURE_LEVEL_3_0, 4, 4, 4, 2, S_OK, NULL},
    {DML_FEATURE_LEVEL_3_0, 5, 5, 5, 2, S_OK, NULL},
    {DML_FEATURE_LEVEL_3_1, 5, 5, 5, 5, S_OK, NULL},
    /* 3.x: 4 or 5 dims, all three the same. */
    {DML_FEATURE_LEVEL_3_0, 2, 2, 2, 2, E_INVALIDARG, "DimensionCount"},
    {DML_FEATURE_LEVEL_3_1, 4, 5, 5, 2, E_INVALIDARG, NULL},
    {DML_FEATURE_LEVEL_3_1, 5, 5, 4, 2, E_INVALIDARG, NULL},
    {DML_FEATURE_LEVEL_3_1, 6, 6, 6, 2, E_INVALIDARG, NULL},
    /* 4.0 and later: input 1-8, count 1-8, coordinates 2-8, independently. */
    {DML_FEATURE_LEVEL_4_0, 1, 1, 2, 1, S_OK, NULL},
    {DML_FEATURE_LEVEL_4_0, 2, 1, 2, 2, S_OK, NULL},
    {DML_FEATURE_LEVEL_4_0, 8, 8, 8, 8, S_OK, NULL},
    {DML_FEATURE_LEVEL_6_4, 6, 3, 7, 4, S_OK, NULL},
    {DML_FEATURE_LEVEL_4_0, 2, 1, 1, 2, E_INVALIDARG, NULL},
};

/* Says which table row failed when a check of it did. */
static void name_failed_row(const char *table, size_t row, int failures_before) {
    if (dmls_test_failures != failures_before) {
        fprintf(stderr, "  (in %s[%zu])\n", table, row);
    }
}

static void nonzero_levels(void) {
    for (size_t i = 0; i < sizeof nonzero_cases / sizeof nonzero_cases[0]; ++i) {
        const int failures = dmls_test_failures;
        CHECK_HR(nonzero(nonzero_cases[i].level, nonzero_cases[i].in_dims,
                         nonzero_cases[i].count_dims, nonzero_cases[i].coord_dims,
                         nonzero_cases[i].n),
                 nonzero_cases[i].want);
        if (nonzero_cases[i].needle) CHECK_MESSAGE_HAS(nonzero_cases[i].needle);
        name_failed_row("nonzero_cases", i, failures);
    }
}

static HRESULT diagonal1(DML_FEATURE_LEVEL level, DML_TENSOR_DATA_TYPE type, UINT dims, int with_input) {
    UINT sizes[8] = {2, 2, 3, 3, 3, 3, 3, 3};
    DML_BUFFER_TENSOR_DESC b = dmls_test_buffer(type, dims, sizes, NULL);
    DML_TENSOR_DESC t = dmls_test_tensor(&b);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d =
        dmls_test_diagonal1(with_input ? &t : NULL, &t, type, 0, 1);
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &d};
    return create(level, &desc);
}

static const DML_TENSOR_DATA_TYPE all_types[11] = {
    DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};

static void diagonal_matrix1_levels(void) {
    CHECK_HR(diagonal1(DML_FEATURE_LEVEL_5_0, DML_TENSOR_DATA_TYPE_FLOAT32, 2, 0), E_INVALIDARG);
    CHECK_MESSAGE_HAS("5_1");
    CHECK_HR(diagonal1(DML_FEATURE_LEVEL_4_1, DML_TENSOR_DATA_TYPE_FLOAT32, 4, 1), E_INVALIDARG);
    for (int i = 0; i < 11; ++i) {
        for (UINT dims = 2; dims <= 4; ++dims) {
            CHECK_HR(diagonal1(DML_FEATURE_LEVEL_5_1, all_types[i], dims, 0), S_OK);
            CHECK_HR(diagonal1(DML_FEATURE_LEVEL_6_4, all_types[i], dims, 1), S_OK);
        }
        CHECK_HR(diagonal1(DML_FEATURE_LEVEL_5_1, all_types[i], 1, 0), E_INVALIDARG);
        CHECK_HR(diagonal1(DML_FEATURE_LEVEL_5_1, all_types[i], 5, 0), E_INVALIDARG);
    }
    CHECK_HR(diagonal1(DML_FEATURE_LEVEL_6_4, DML_TENSOR_DATA_TYPE_UINT4, 2, 0), E_INVALIDARG);
}

static HRESULT diagonal(DML_FEATURE_LEVEL level, DML_TENSOR_DATA_TYPE type, UINT dims) {
    UINT sizes[4] = {1, 1, 1, 1};
    sizes[dims - 1] = 3;
    if (dims >= 2) sizes[dims - 2] = 3;
    DML_BUFFER_TENSOR_DESC b = dmls_test_buffer(type, dims, sizes, NULL);
    DML_TENSOR_DESC t = dmls_test_tensor(&b);
    DML_DIAGONAL_MATRIX_OPERATOR_DESC d = {&t, 0, 1.0f};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_DIAGONAL_MATRIX, &d};
    return create(level, &desc);
}

/* DIAGONAL_MATRIX by level: the output's data type and DimensionCount, and the answer (and a
   part of the message, where one is checked). */
static const struct {
    DML_FEATURE_LEVEL level;
    DML_TENSOR_DATA_TYPE type;
    UINT dims;
    HRESULT want;
    const char *needle;
} diagonal_cases[] = {
    /* Not in 1.0. */
    {DML_FEATURE_LEVEL_1_0, DML_TENSOR_DATA_TYPE_FLOAT32, 4, E_INVALIDARG, "2_0"},
    /* 2.0: 4 dims, FLOAT32 and FLOAT16. */
    {DML_FEATURE_LEVEL_2_0, DML_TENSOR_DATA_TYPE_FLOAT32, 4, S_OK, NULL},
    {DML_FEATURE_LEVEL_2_0, DML_TENSOR_DATA_TYPE_FLOAT16, 4, S_OK, NULL},
    {DML_FEATURE_LEVEL_2_0, DML_TENSOR_DATA_TYPE_INT32, 4, E_INVALIDARG, "2_1"},
    {DML_FEATURE_LEVEL_2_0, DML_TENSOR_DATA_TYPE_FLOAT32, 2, E_INVALIDARG, NULL},
    {DML_FEATURE_LEVEL_2_0, DML_TENSOR_DATA_TYPE_FLOAT32, 3, E_INVALIDARG, NULL},
    /* 2.1 adds the 8-32 bit integers (the loop below), not FLOAT64. */
    {DML_FEATURE_LEVEL_2_1, DML_TENSOR_DATA_TYPE_FLOAT64, 4, E_INVALIDARG, NULL},
    /* 4.0: 2 to 4 dims. */
    {DML_FEATURE_LEVEL_4_0, DML_TENSOR_DATA_TYPE_FLOAT32, 2, S_OK, NULL},
    {DML_FEATURE_LEVEL_4_0, DML_TENSOR_DATA_TYPE_FLOAT16, 3, S_OK, NULL},
    {DML_FEATURE_LEVEL_4_0, DML_TENSOR_DATA_TYPE_FLOAT32, 1, E_INVALIDARG, NULL},
    /* No 4-bit types. */
    {DML_FEATURE_LEVEL_6_4, DML_TENSOR_DATA_TYPE_INT4, 2, E_INVALIDARG, NULL},
};

static void diagonal_matrix_levels(void) {
    for (size_t i = 0; i < sizeof diagonal_cases / sizeof diagonal_cases[0]; ++i) {
        const int failures = dmls_test_failures;
        CHECK_HR(diagonal(diagonal_cases[i].level, diagonal_cases[i].type, diagonal_cases[i].dims),
                 diagonal_cases[i].want);
        if (diagonal_cases[i].needle) CHECK_MESSAGE_HAS(diagonal_cases[i].needle);
        name_failed_row("diagonal_cases", i, failures);
    }
    /* 2.1: adds the 8-32 bit integers; still 4 dims before 4.0. */
    static const DML_TENSOR_DATA_TYPE ints[6] = {
        DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
        DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8};
    for (int i = 0; i < 6; ++i) {
        CHECK_HR(diagonal(DML_FEATURE_LEVEL_2_1, ints[i], 4), S_OK);
        CHECK_HR(diagonal(DML_FEATURE_LEVEL_3_1, ints[i], 2), E_INVALIDARG);
        CHECK_HR(diagonal(DML_FEATURE_LEVEL_4_0, ints[i], 2), S_OK);
    }
    /* 5.1: adds FLOAT64, INT64, UINT64. */
    static const DML_TENSOR_DATA_TYPE wide[3] = {
        DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64};
    for (int i = 0; i < 3; ++i) {
        CHECK_HR(diagonal(DML_FEATURE_LEVEL_5_0, wide[i], 2), E_INVALIDARG);
        CHECK_MESSAGE_HAS("5_1");
        CHECK_HR(diagonal(DML_FEATURE_LEVEL_5_1, wide[i], 2), S_OK);
    }
}

static HRESULT query_levels(dmls_device *device, const DML_FEATURE_LEVEL *levels, UINT count,
                            DML_FEATURE_LEVEL *answer) {
    DML_FEATURE_QUERY_FEATURE_LEVELS q = {count, levels};
    DML_FEATURE_DATA_FEATURE_LEVELS s = {0xFFFFFFFFu};
    HRESULT hr = dmls_device_check_feature_support(device, DML_FEATURE_FEATURE_LEVELS, sizeof q, &q,
                                                   sizeof s, &s);
    *answer = s.MaxSupportedFeatureLevel;
    return hr;
}

static void feature_queries(void) {
    dmls_device *device = dmls_test_device(DML_FEATURE_LEVEL_4_0);
    if (!device) return;

    /* Data types: TRUE for the 11 types of 8 to 64 bits, FALSE for the 4-bit ones and unknowns. */
    for (UINT type = 0; type <= 20; ++type) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT q = {type};
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT s = {12345};
        CHECK_HR(dmls_device_check_feature_support(device, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                                   sizeof q, &q, sizeof s, &s), S_OK);
        CHECK_EQ_U64(s.IsSupported, (type >= 1 && type <= 11) ? 1 : 0);
    }

    DML_FEATURE_LEVEL answer;
    const DML_FEATURE_LEVEL mixed[3] = {DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_5_1,
                                        DML_FEATURE_LEVEL_4_0};
    CHECK_HR(query_levels(device, mixed, 3, &answer), S_OK);
    CHECK_EQ_U64(answer, DML_FEATURE_LEVEL_4_0);
    CHECK_HR(query_levels(device, mixed, 2, &answer), S_OK);
    CHECK_EQ_U64(answer, DML_FEATURE_LEVEL_3_0);
    const DML_FEATURE_LEVEL newer[2] = {DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_6_0};
    CHECK_HR(query_levels(device, newer, 2, &answer), DXGI_ERROR_UNSUPPORTED);
    CHECK_EQ_U64(answer, 0xFFFFFFFFu); /* no output on failure */
    const DML_FEATURE_LEVEL bogus[2] = {DML_FEATURE_LEVEL_3_0, 0x1234};
    CHECK_HR(query_levels(device, bogus, 2, &answer), E_INVALIDARG);
    CHECK_HR(query_levels(device, mixed, 0, &answer), E_INVALIDARG);
    CHECK_HR(query_levels(device, NULL, 2, &answer), E_POINTER);
    dmls_device_release(device);

    /* A default device emulates 6_4. */
    dmls_device *newest = dmls_test_device(0);
    const DML_FEATURE_LEVEL all[3] = {DML_FEATURE_LEVEL_6_4, DML_FEATURE_LEVEL_1_0,
                                      DML_FEATURE_LEVEL_6_3};
    CHECK_HR(query_levels(newest, all, 3, &answer), S_OK);
    CHECK_EQ_U64(answer, DML_FEATURE_LEVEL_6_4);
    dmls_device_release(newest);
}

int main(void) {
    nonzero_levels();
    diagonal_matrix1_levels();
    diagonal_matrix_levels();
    feature_queries();
    return dmls_test_finish("test_feature_levels");
}
