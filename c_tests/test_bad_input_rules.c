/*
 * Bad-input suite (bad_input.h): NONZERO_COORDINATES', DIAGONAL_MATRIX1's and DIAGONAL_MATRIX's
 * own rules: types, dimension counts and sizes, with and without the extensions, and the rules
 * that change with the feature level, at every level. The level-independent cases are rows of
 * k_create_cases (bad_input_create.h).
 */
#include "bad_input_create.h"

static const DML_FEATURE_LEVEL k_levels[15] = {
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};

/* Values a case runs with, one at a time (EACH). */
static const uint64_t k_64bit_types[] = {DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_INT64,
                                         DML_TENSOR_DATA_TYPE_UINT64};
static const uint64_t k_not_uint32[] = {
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16, 0u, 77u};
static const uint64_t k_bad_value_types[] = {DML_TENSOR_DATA_TYPE_FLOAT16,
                                             DML_TENSOR_DATA_TYPE_INT32,
                                             DML_TENSOR_DATA_TYPE_UNKNOWN, 99u};

/* The kinds of invalid call the table checks (each a CASE of the suite). */
static const kind k_nz_dims_differ =
    {"NONZERO_COORDINATES at 3.x: DimensionCounts that differ", L3_0};
static const kind k_nz_coords_1d =
    {"NONZERO_COORDINATES from 4_0: coordinates with 1 dimension", L4_0};
static const kind k_nz_64bit_input =
    {"NONZERO_COORDINATES: 64-bit input on a strict device", L4_0};
static const kind k_nz_outputs_not_u32 =
    {"NONZERO_COORDINATES: count or coordinates not UINT32", L4_0};
static const kind k_nz_64bit_outputs =
    {"NONZERO_COORDINATES: 64-bit count and coordinates on a strict device", L4_0};
static const kind k_nz_output_types_differ =
    {"NONZERO_COORDINATES: count and coordinates of different types", L4_0_EXT};
static const kind k_nz_count_sizes =
    {"NONZERO_COORDINATES: count sizes not all 1", L4_0};
static const kind k_nz_coords_leading =
    {"NONZERO_COORDINATES: coordinates leading sizes not 1", L4_0};
static const kind k_nz_m =
    {"NONZERO_COORDINATES: M not the input's element count", L4_0};
static const kind k_nz_n_below =
    {"NONZERO_COORDINATES: N below the input's effective rank", L4_0};
static const kind k_nz_n_above =
    {"NONZERO_COORDINATES: N above the input's DimensionCount", L4_0};
static const kind k_nz_over_2p32_u32 =
    {"NONZERO_COORDINATES: more than 2^32 - 1 elements with 32-bit outputs (extensions)", L4_0_EXT};
static const kind k_d1_value_type =
    {"DIAGONAL_MATRIX1: ValueDataType differs from the output's", L5_1};
static const kind k_d1_output_dims =
    {"DIAGONAL_MATRIX1: output DimensionCount outside 2 to 4", L5_1};
static const kind k_d1_input_type =
    {"DIAGONAL_MATRIX1: input data type differs from the output's", L5_1};
static const kind k_d1_input_dims =
    {"DIAGONAL_MATRIX1: input DimensionCount differs from the output's", L5_1};
static const kind k_d1_input_sizes =
    {"DIAGONAL_MATRIX1: input sizes differ from the output's", L5_1};

/* Every creation case of this program, in the order of the kinds. */
static const create_case k_create_cases[] = {
    /* NONZERO_COORDINATES' rules (those at every level are in level_cases()) */
    /* 4-dimensional input and count, 5-dimensional coordinates: refused at 3.x, valid from 4_0. */
    ROW(k_nz_dims_differ, E_INVALIDARG, "same", NZ_DIMS(4, L3_0), SHAPE(NZ_COORDS, UINT32, 5, SIZES(1u, 1u, 1u, 6u, 2u))),
    ROW(k_nz_dims_differ, E_INVALIDARG, "same", NZ_DIMS(4, L3_1), SHAPE(NZ_COORDS, UINT32, 5, SIZES(1u, 1u, 1u, 6u, 2u))),
    ROW(k_nz_dims_differ, S_OK, NULL, NZ_DIMS(4, L4_0), SHAPE(NZ_COORDS, UINT32, 5, SIZES(1u, 1u, 1u, 6u, 2u))),
    ROW(k_nz_coords_1d, E_INVALIDARG, "DimensionCount", NULL, SHAPE(NZ_COORDS, UINT32, 1, SIZES(6u))),
    ROW(k_nz_64bit_input, E_INVALIDARG, "DMLS_DEVICE_FLAG_EXTENSIONS", EACH(k_64bit_types),
        DATA_TYPE(NZ_IN, LISTED), TOTAL(NZ_IN, 48)),
    ROW(k_nz_64bit_input, S_OK, NULL, EACH_ON(k_64bit_types, L4_0_EXT), DATA_TYPE(NZ_IN, LISTED), TOTAL(NZ_IN, 48)),
    ROW(k_nz_outputs_not_u32, E_INVALIDARG, "OutputCountTensor DataType", EACH(k_not_uint32), DATA_TYPE(NZ_COUNT, LISTED)),
    ROW(k_nz_outputs_not_u32, E_INVALIDARG, "OutputCountTensor DataType", EACH_ON(k_not_uint32, L4_0_EXT),
        DATA_TYPE(NZ_COUNT, LISTED)),
    ROW(k_nz_outputs_not_u32, E_INVALIDARG, "OutputCoordinatesTensor DataType", EACH(k_not_uint32),
        DATA_TYPE(NZ_COORDS, LISTED)),
    ROW(k_nz_64bit_outputs, E_INVALIDARG, "DMLS_DEVICE_FLAG_EXTENSIONS", NULL,
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)), SHAPE(NZ_COORDS, UINT64, 2, SIZES(6u, 2u))),
    ROW(k_nz_64bit_outputs, S_OK, NULL, ON(L4_0_EXT),
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)), SHAPE(NZ_COORDS, UINT64, 2, SIZES(6u, 2u))),
    ROW(k_nz_output_types_differ, E_INVALIDARG, "same", NULL,
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)), SHAPE(NZ_COORDS, INT64, 2, SIZES(6u, 2u))),
    ROW(k_nz_output_types_differ, E_INVALIDARG, "same", NULL, SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u))),
    ROW(k_nz_count_sizes, E_INVALIDARG, "OutputCountTensor Sizes[1]", NULL, SHAPE(NZ_COUNT, UINT32, 2, SIZES(1u, 2u))),
    ROW(k_nz_coords_leading, E_INVALIDARG, "OutputCoordinatesTensor Sizes[0]", NULL,
        SHAPE(NZ_COORDS, UINT32, 3, SIZES(2u, 6u, 2u))),
    ROW(k_nz_m, E_INVALIDARG, "(M)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(5u, 2u))),
    ROW(k_nz_m, E_INVALIDARG, "(M)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(7u, 2u))),
    ROW(k_nz_n_below, E_INVALIDARG, "(N)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(6u, 1u))),
    ROW(k_nz_n_above, E_INVALIDARG, "(N)", NULL, SHAPE(NZ_COORDS, UINT32, 2, SIZES(6u, 3u))),
    ROW(k_nz_over_2p32_u32, E_INVALIDARG, "elements", NULL,
        SHAPE(NZ_IN, UINT8, 2, SIZES(0x10000u, 0x10000u)),
        SHAPE(NZ_COORDS, UINT32, 2, SIZES(0xFFFFFFFFu, 2u))),

    /* DIAGONAL_MATRIX1's rules */
    ROW(k_d1_value_type, E_INVALIDARG, "ValueDataType", EACH(k_bad_value_types), VALUE_TYPE(D1, LISTED)),
    ROW(k_d1_output_dims, E_INVALIDARG, "DimensionCount", NULL, TENSOR_NULL(D1_IN), SHAPE(D1_OUT, FLOAT32, 1, SIZES(4u))),
    ROW(k_d1_output_dims, E_INVALIDARG, "DimensionCount", NULL,
        TENSOR_NULL(D1_IN), SHAPE(D1_OUT, FLOAT32, 5, SIZES(1u, 1u, 1u, 3u, 4u))),
    ROW(k_d1_input_type, E_INVALIDARG, "InputTensor DataType", NULL, DATA_TYPE(D1_IN, DML_TENSOR_DATA_TYPE_INT32)),
    ROW(k_d1_input_dims, E_INVALIDARG, "InputTensor DimensionCount", NULL, SHAPE(D1_IN, FLOAT32, 3, SIZES(1u, 3u, 4u))),
    ROW(k_d1_input_sizes, E_INVALIDARG, "Sizes", NULL, SHAPE(D1_IN, FLOAT32, 2, SIZES(4u, 3u))),
};

/* An operator introduced at `from`: refused below it (the message names the level), valid from
   it, at every level. */
static void check_introduced_at(const char *what, part op, DML_FEATURE_LEVEL from,
                                const char *needle) {
    size_t li;
    for (li = 0; li < 15; li++) {
        dmls_device *dev = make_device(k_levels[li], 0);
        descs d;
        memset(&d, 0, sizeof d);
        nz_init_dims(&d.nz, 4);
        dm1_init(&d.d1, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
        expect_create(what, dev, operator_of(&d, op),
                      k_levels[li] >= from ? S_OK : E_INVALIDARG, needle);
        dmls_device_release(dev);
    }
}

/* Rules that change with the feature level, at every level. */
static void level_cases(void) {
    static const DML_TENSOR_DATA_TYPE types[11] = {
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
        DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,
        DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_FLOAT64,
        DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64};
    dmls_test_nonzero nz;
    dm0_desc d0;
    size_t li, ti;
    UINT dims;

    CASE("NONZERO_COORDINATES below DML_FEATURE_LEVEL_3_0 (and valid from 3_0), every level");
    check_introduced_at("4-dim NONZERO", NZ, DML_FEATURE_LEVEL_3_0, "3_0");

    CASE("NONZERO_COORDINATES at 3.x: DimensionCount other than 4 or 5, every level");
    for (li = 3; li < 15; li++) { /* from 3_0 */
        dmls_device *dev = make_device(k_levels[li], 0);
        for (dims = 2; dims <= 8; dims++) {
            const int only_4_or_5 = k_levels[li] < DML_FEATURE_LEVEL_4_0;
            nz_init_dims(&nz, dims);
            expect_create("NONZERO dims", dev, &nz.op,
                          only_4_or_5 && dims != 4 && dims != 5 ? E_INVALIDARG : S_OK,
                          "DimensionCount");
        }
        dmls_device_release(dev);
    }

    CASE("DIAGONAL_MATRIX1 below DML_FEATURE_LEVEL_5_1 (and valid from 5_1), every level");
    check_introduced_at("DIAGONAL_MATRIX1", D1, DML_FEATURE_LEVEL_5_1, "5_1");

    CASE("DIAGONAL_MATRIX data types by feature level (2_0 floats, 2_1 integers, 5_1 64-bit)");
    for (li = 0; li < 15; li++) {
        dmls_device *dev = make_device(k_levels[li], 0);
        for (ti = 0; ti < 11; ti++) {
            DML_FEATURE_LEVEL needs = DML_FEATURE_LEVEL_2_0;
            const DML_TENSOR_DATA_TYPE t = types[ti];
            if (t >= DML_TENSOR_DATA_TYPE_UINT32 && t <= DML_TENSOR_DATA_TYPE_INT8) {
                needs = DML_FEATURE_LEVEL_2_1;
            } else if (t >= DML_TENSOR_DATA_TYPE_FLOAT64) {
                needs = DML_FEATURE_LEVEL_5_1;
            }
            dm0_init(&d0, t, 4);
            expect_create("DIAGONAL_MATRIX type at level", dev, &d0.op,
                          k_levels[li] >= needs ? S_OK : E_INVALIDARG, "DIAGONAL_MATRIX");
        }
        dmls_device_release(dev);
    }

    CASE("DIAGONAL_MATRIX DimensionCount by feature level (4 before 4_0, 2 to 4 from 4_0)");
    for (li = 1; li < 15; li++) { /* from 2_0 */
        static const UINT one[1] = {4};
        const int two_to_four = k_levels[li] >= DML_FEATURE_LEVEL_4_0;
        dmls_device *dev = make_device(k_levels[li], 0);
        for (dims = 2; dims <= 8; dims++) {
            const int valid = dims == 4 || (two_to_four && dims >= 2 && dims <= 4);
            dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, dims);
            expect_create("DIAGONAL_MATRIX dims at level", dev, &d0.op,
                          valid ? S_OK : E_INVALIDARG, "DimensionCount");
        }
        dm0_init(&d0, DML_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmls_test_owned_tensor_init(&d0.out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, one, NULL);
        expect_create("DIAGONAL_MATRIX 1 dim", dev, &d0.op, E_INVALIDARG, "DimensionCount");
        dmls_device_release(dev);
    }
}

int main(void) {
    printf("directml_subset %s: bad-input suite, operator rules\n", dmls_version());

    open_devices();
    create_table_cases(CREATE_TABLE(k_create_cases));
    close_devices();
    level_cases();

    return bad_input_finish("test_bad_input_rules", 22);
}
