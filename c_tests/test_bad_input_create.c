/*
 * Bad-input suite (bad_input.h): what dmls_device_create_operator checks of every operator's
 * desc and tensors: NULL pointers, unknown enum values, dimension counts, sizes and element
 * counts, totals, alignments and flags. Most cases are rows of k_create_cases
 * (bad_input_create.h: one valid desc per operator, edited by each row).
 */
#include "bad_input_create.h"

/* Sizes too long for a row, shared with size_cases(). */
static const UINT k_huge8[8] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
                                0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}; /* 2^256 */
static const UINT k_2p48[3] = {0x10000u, 0x10000u, 0x10000u};         /* 2^48 elements */
static const UINT k_wrap3[3] = {0x100000u, 0x100000u, 0x100000u};     /* 2^60 x 8 bytes */
static const UINT k_wrap_sizes[2] = {0xFFFFFFFFu, 1u};                 /* also the strides */
static const UINT k_wide_sizes[4] = {0xFFFFu, 0xFFFFu, 1u, 1u};
static const UINT k_wide_strides[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 1u, 1u};

/* Values a case runs with, one at a time (EACH). */
static const uint64_t k_unknown_operator_types[] = {178u, 1000u, 0x7FFFFFFFu, 0xFFFFFFFFu};
/* Real DirectML operators this library lacks. */
static const uint64_t k_lacking_operator_types[] = {
    1u, 92u, 94u, DML_OPERATOR_FILL_VALUE_CONSTANT, 132u, 134u, 162u, 164u, DML_OPERATOR_UNFOLD};
static const uint64_t k_bad_tensor_types[] = {DML_TENSOR_TYPE_INVALID, 2u, 0xFFFFFFFFu};
static const uint64_t k_unknown_data_types[] = {DML_TENSOR_DATA_TYPE_UNKNOWN, 14u, 255u,
                                                0xFFFFFFFFu};
static const uint64_t k_4bit_types[] = {DML_TENSOR_DATA_TYPE_UINT4, DML_TENSOR_DATA_TYPE_INT4};
static const uint64_t k_huge_dims[] = {64u, 0x10000u, 0x7FFFFFFFu, 0xFFFFFFFFu};
static const uint64_t k_not_powers_of_two[] = {3u, 6u, 24u, 0xFFFFFFFFu, 0x80000001u};
static const uint64_t k_unknown_tensor_flags[] = {0x2u, 0x3u, 0x80000000u, 0xFFFFFFFFu};

/* The kinds of invalid call the table checks (each a CASE of the suite). */
static const kind k_null_device =
    {"create_operator: NULL device", NO_DEVICE};
static const kind k_null_desc =
    {"create_operator: NULL desc", NEWEST};
static const kind k_null_op_desc =
    {"create_operator: NULL DML_OPERATOR_DESC.Desc", NEWEST};
static const kind k_null_nz_input =
    {"create_operator: NULL NONZERO_COORDINATES InputTensor", NEWEST};
static const kind k_null_nz_count =
    {"create_operator: NULL NONZERO_COORDINATES OutputCountTensor", NEWEST};
static const kind k_null_nz_coords =
    {"create_operator: NULL NONZERO_COORDINATES OutputCoordinatesTensor", NEWEST};
static const kind k_null_d1_output =
    {"create_operator: NULL DIAGONAL_MATRIX1 OutputTensor", NEWEST};
static const kind k_null_d0_output =
    {"create_operator: NULL DIAGONAL_MATRIX OutputTensor", NEWEST};
static const kind k_null_tensor_desc =
    {"create_operator: NULL DML_TENSOR_DESC.Desc", NEWEST};
static const kind k_null_sizes =
    {"create_operator: NULL Sizes", NEWEST};
static const kind k_op_invalid =
    {"create_operator: DML_OPERATOR_INVALID", NEWEST};
static const kind k_op_unknown =
    {"create_operator: operator type beyond DirectML's", NEWEST};
static const kind k_op_lacking =
    {"create_operator: a real DirectML operator this library lacks", NEWEST};
static const kind k_tensor_type =
    {"create_operator: tensor Type not DML_TENSOR_TYPE_BUFFER", NEWEST};
static const kind k_data_type =
    {"create_operator: unknown data type", NEWEST};
static const kind k_four_bit =
    {"create_operator: 4-bit data types (UINT4, INT4)", NEWEST};
static const kind k_dims_0 =
    {"create_operator: DimensionCount 0", NEWEST};
static const kind k_dims_9 =
    {"create_operator: DimensionCount 9", NEWEST};
static const kind k_dims_huge =
    {"create_operator: DimensionCount huge", NEWEST};
static const kind k_size_0 =
    {"create_operator: a size of 0", NEWEST};
static const kind k_over_2p32 =
    {"create_operator: more than 2^32 - 1 elements", NEWEST};
static const kind k_product_overflow =
    {"create_operator: size product overflowing 64 bits", NEWEST};
static const kind k_extent_overflow =
    {"create_operator: strided extent overflowing 64 bits", NEWEST};
static const kind k_total_small =
    {"create_operator: TotalTensorSizeInBytes too small", NEWEST};
static const kind k_total_not_x4 =
    {"create_operator: TotalTensorSizeInBytes not a multiple of 4", NEWEST};
static const kind k_total_huge =
    {"create_operator: TotalTensorSizeInBytes beyond the address space", NEWEST};
static const kind k_align_not_pow2 =
    {"create_operator: GuaranteedBaseOffsetAlignment not a power of two", NEWEST};
static const kind k_align_small =
    {"create_operator: GuaranteedBaseOffsetAlignment below the element size", NEWEST};
static const kind k_owned_by_dml =
    {"create_operator: Flags DML_TENSOR_FLAG_OWNED_BY_DML", NEWEST};
static const kind k_tensor_flags =
    {"create_operator: unknown tensor flags", NEWEST};

/* Every creation case of this program, in the order of the kinds. */
static const create_case k_create_cases[] = {
    /* Pointers */
    ROW(k_null_device, E_POINTER, "device", NULL, AS_IS(NZ)),
    ROW(k_null_desc, E_POINTER, "desc", NULL, NULL_DESC(NZ)),
    ROW(k_null_op_desc, E_POINTER, "NONZERO_COORDINATES", NULL, OP_DESC_NULL(NZ)),
    ROW(k_null_op_desc, E_POINTER, "DIAGONAL_MATRIX1", NULL, OP_DESC_NULL(D1)),
    ROW(k_null_op_desc, E_POINTER, "DIAGONAL_MATRIX", NULL, OP_DESC_NULL(D0)),
    ROW(k_null_nz_input, E_POINTER, "InputTensor", NULL, TENSOR_NULL(NZ_IN)),
    ROW(k_null_nz_count, E_POINTER, "OutputCountTensor", NULL, TENSOR_NULL(NZ_COUNT)),
    ROW(k_null_nz_coords, E_POINTER, "OutputCoordinatesTensor", NULL, TENSOR_NULL(NZ_COORDS)),
    ROW(k_null_d1_output, E_POINTER, "OutputTensor", NULL, TENSOR_NULL(D1_OUT)),
    ROW(k_null_d0_output, E_POINTER, "OutputTensor", NULL, TENSOR_NULL(D0_OUT)),
    ROW(k_null_tensor_desc, E_POINTER, "InputTensor", NULL, DESC_NULL(NZ_IN)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputCountTensor", NULL, DESC_NULL(NZ_COUNT)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputCoordinatesTensor", NULL, DESC_NULL(NZ_COORDS)),
    ROW(k_null_tensor_desc, E_POINTER, "InputTensor", NULL, DESC_NULL(D1_IN)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputTensor", NULL, DESC_NULL(D1_OUT)),
    ROW(k_null_tensor_desc, E_POINTER, "OutputTensor", NULL, DESC_NULL(D0_OUT)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(NZ_IN)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(NZ_COUNT)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(NZ_COORDS)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(D1_IN)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(D1_OUT)),
    ROW(k_null_sizes, E_POINTER, "Sizes", NULL, SIZES_NULL(D0_OUT)),
    /* NULL Strides and a NULL DIAGONAL_MATRIX1 InputTensor are allowed. */
    ROW(k_null_sizes, S_OK, NULL, NULL, TENSOR_NULL(D1_IN)),

    /* Values every operator checks */
    ROW(k_op_invalid, E_INVALIDARG, "INVALID", NULL, OP_TYPE(NZ, DML_OPERATOR_INVALID)),
    ROW(k_op_unknown, E_INVALIDARG, "DML_OPERATOR_TYPE", EACH(k_unknown_operator_types), OP_TYPE(NZ, LISTED)),
    /* Desc points to a NONZERO desc: the library must reject the type without reading it as the
       other operator's struct. */
    ROW(k_op_lacking, E_NOTIMPL, "does not implement", EACH(k_lacking_operator_types), OP_TYPE(NZ, LISTED)),
    ROW(k_tensor_type, E_INVALIDARG, "OutputCoordinatesTensor", EACH(k_bad_tensor_types), TENSOR_TYPE(NZ_COORDS, LISTED)),
    ROW(k_tensor_type, E_INVALIDARG, "InputTensor", EACH(k_bad_tensor_types), TENSOR_TYPE(D1_IN, LISTED)),
    ROW(k_tensor_type, E_INVALIDARG, "OutputTensor", EACH(k_bad_tensor_types), TENSOR_TYPE(D0_OUT, LISTED)),
    /* On D1: the input's, the output's and ValueDataType. */
    ROW(k_data_type, E_INVALIDARG, "DataType", EACH(k_unknown_data_types), DATA_TYPE(NZ_IN, LISTED)),
    ROW(k_data_type, E_INVALIDARG, "DataType", EACH(k_unknown_data_types), DATA_TYPE(D1, LISTED)),
    ROW(k_data_type, E_INVALIDARG, "DataType", EACH(k_unknown_data_types), DATA_TYPE(D0_OUT, LISTED)),
    ROW(k_four_bit, E_INVALIDARG, "4", EACH(k_4bit_types), DATA_TYPE(NZ_IN, LISTED)),
    ROW(k_four_bit, E_INVALIDARG, "4", EACH(k_4bit_types), DATA_TYPE(D1, LISTED)),
    ROW(k_four_bit, E_INVALIDARG, "4", EACH(k_4bit_types), DATA_TYPE(D0_OUT, LISTED)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_IN, 0)),
    /* Nothing to read for 0 dims: the count is what is wrong. */
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_IN, 0), SIZES_NULL(NZ_IN)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_COUNT, 0)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(D1_OUT, 0)),
    ROW(k_dims_0, E_INVALIDARG, "DimensionCount", NULL, DIMS(D0_OUT, 0)),
    /* Sizes and Strides of exactly 8 entries: a reader trusting the count would overrun. */
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_IN, 9), HEAP_SIZES(NZ_IN, 8), HEAP_STRIDES(NZ_IN, 8)),
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(NZ_COORDS, 9), HEAP_SIZES(NZ_COORDS, 8)),
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(D1_OUT, 9), HEAP_SIZES(D1_OUT, 8)),
    ROW(k_dims_9, E_INVALIDARG, "DimensionCount", NULL, DIMS(D0_OUT, 9), HEAP_SIZES(D0_OUT, 8)),
    ROW(k_dims_huge, E_INVALIDARG, "DimensionCount", EACH(k_huge_dims),
        DIMS(NZ_IN, LISTED), HEAP_SIZES(NZ_IN, 4), HEAP_STRIDES(NZ_IN, 4)),
    ROW(k_dims_huge, E_INVALIDARG, "DimensionCount", EACH(k_huge_dims), DIMS(D1_IN, LISTED), HEAP_SIZES(D1_IN, 4)),
    ROW(k_dims_huge, E_INVALIDARG, "DimensionCount", EACH(k_huge_dims), DIMS(D0_OUT, LISTED), HEAP_SIZES(D0_OUT, 4)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(NZ_IN, 0)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D1_OUT, 0), SIZE_ZERO(D1_IN, 0)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D0_OUT, 2)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(NZ_IN, 1)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D1_OUT, 1), SIZE_ZERO(D1_IN, 1)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(D0_OUT, 3)),
    ROW(k_size_0, E_INVALIDARG, "Sizes", NULL, SIZE_ZERO(NZ_COUNT, 0)),
    /* 65536 x 65536 is exactly 2^32. */
    ROW(k_over_2p32, E_INVALIDARG, "elements", NULL,
        SHAPE(NZ_IN, UINT8, 2, SIZES(65536u, 65536u)),
        SHAPE(NZ_COORDS, UINT32, 2, SIZES(0xFFFFFFFFu, 2u))),
    ROW(k_over_2p32, E_INVALIDARG, "elements", TYPED(UINT8),
        SHAPE(D1_OUT, UINT8, 2, SIZES(65536u, 65536u)), TENSOR_NULL(D1_IN)),
    ROW(k_over_2p32, E_INVALIDARG, "elements", TYPED(UINT8), SHAPE(D0_OUT, UINT8, 4, SIZES(1u, 2u, 0x80000000u, 1u))),
    /* With 64-bit outputs (an extension) the 2^32 - 1 cap is lifted, so only the 64-bit
       arithmetic stands between these sizes and a wrapped product: 2^256 elements, and 2^60
       FLOAT64 elements (2^63 bytes). size_cases() checks dmls_calc_buffer_tensor_size of the
       same sizes. */
    ROW(k_product_overflow, E_INVALIDARG, "InputTensor", ON(NEWEST_EXT),
        SHAPE(NZ_IN, FLOAT32, 8, k_huge8), TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull),
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)),
        SHAPE(NZ_COORDS, UINT64, 2, SIZES(0xFFFFFFFFu, 3u))),
    ROW(k_product_overflow, E_INVALIDARG, "InputTensor", ON(NEWEST_EXT),
        SHAPE(NZ_IN, FLOAT64, 3, k_wrap3), TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull),
        SHAPE(NZ_COUNT, UINT64, 1, SIZES(1u)),
        SHAPE(NZ_COORDS, UINT64, 2, SIZES(0xFFFFFFFFu, 3u))),
    ROW(k_product_overflow, E_INVALIDARG, "InputTensor", NULL,
        SHAPE(NZ_IN, FLOAT32, 8, k_huge8), TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull)),
    ROW(k_product_overflow, E_INVALIDARG, "elements", NULL, SHAPE(NZ_IN, FLOAT32, 3, k_2p48)),
    /* 2^32 - 1 elements is allowed, but (2^32 - 2) x stride (2^32 - 1) x 8 bytes wraps; (2 x
       0xFFFE x 0xFFFFFFFF + 1) x 8 bytes fits in 64 bits: a fine, but enormous, extent. */
    ROW(k_extent_overflow, E_INVALIDARG, "OutputTensor", TYPED(FLOAT64),
        STRIDED(D1_OUT, FLOAT64, 2, k_wrap_sizes, k_wrap_sizes),
        TOTAL(D1_OUT, 0xFFFFFFFFFFFFFFF0ull), TENSOR_NULL(D1_IN)),
    ROW(k_extent_overflow, E_INVALIDARG, "TotalTensorSizeInBytes", TYPED(INT64),
        STRIDED(D0_OUT, INT64, 4, k_wide_sizes, k_wide_strides), TOTAL(D0_OUT, 16)),
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL_LESS(NZ_IN, 4)),
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(NZ_COORDS, 0)),
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(D1_IN, 44)),
    /* Strides spanning 2 x 8 + 3 + 1 = 20 elements, and the packed size 48. */
    ROW(k_total_small, E_INVALIDARG, "TotalTensorSizeInBytes", NULL,
        STRIDED(D0_OUT, FLOAT32, 4, SIZES(1u, 1u, 3u, 4u), SIZES(0u, 0u, 8u, 1u)),
        TOTAL(D0_OUT, 48)),
    ROW(k_total_not_x4, E_INVALIDARG, "multiple of 4", NULL, TOTAL_MORE(NZ_IN, 2)),
    ROW(k_total_not_x4, E_INVALIDARG, "multiple of 4", TYPED(UINT8), TOTAL(D0_OUT, 13)),
    ROW(k_total_not_x4, E_INVALIDARG, "multiple of 4", TYPED(INT8), TOTAL(D1_OUT, 0xFFFFFFFFFFFFFFFFull)),
    ROW(k_total_huge, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(NZ_IN, 0xFFFFFFFFFFFFFFFCull)),
    ROW(k_total_huge, E_INVALIDARG, "TotalTensorSizeInBytes", NULL, TOTAL(D1_OUT, 0x8000000000000000ull)),
    ROW(k_align_not_pow2, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", EACH(k_not_powers_of_two),
        ALIGNMENT(NZ_IN, LISTED)),
    ROW(k_align_not_pow2, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", EACH(k_not_powers_of_two),
        ALIGNMENT(D1_OUT, LISTED)),
    ROW(k_align_small, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", NULL, ALIGNMENT(NZ_COORDS, 2)),
    ROW(k_align_small, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", NULL, ALIGNMENT(D0_OUT, 1)),
    ROW(k_align_small, E_INVALIDARG, "GuaranteedBaseOffsetAlignment", TYPED(FLOAT64), ALIGNMENT(D1_IN, 4)),
    ROW(k_owned_by_dml, E_INVALIDARG, "OWNED_BY_DML", NULL, FLAGS(NZ_IN, DML_TENSOR_FLAG_OWNED_BY_DML)),
    ROW(k_owned_by_dml, E_INVALIDARG, "OWNED_BY_DML", NULL, FLAGS(D1_IN, DML_TENSOR_FLAG_OWNED_BY_DML)),
    ROW(k_tensor_flags, E_INVALIDARG, "Flags", EACH(k_unknown_tensor_flags), FLAGS(NZ_COUNT, LISTED)),
    ROW(k_tensor_flags, E_INVALIDARG, "Flags", EACH(k_unknown_tensor_flags), FLAGS(D0_OUT, LISTED)),
};

/* The creation checks a table row cannot say. */
static void create_other_cases(void) {
    dmls_test_nonzero nz;
    CASE("create_operator: NULL op");
    nz_init(&nz);
    check_hr("NULL op", dmls_device_create_operator(g_devices[NEWEST], &nz.op, NULL), E_POINTER,
             "op");
}

/* dmls_calc_buffer_tensor_size of the sizes "size product overflowing 64 bits" and "strided
   extent overflowing 64 bits" create with. */
static void size_cases(void) {
    /* 3 x 2^62 4-bit elements: the bit count overflows 64 bits, the bytes (3 x 2^61) do not. */
    static const UINT s4[3] = {0x80000000u, 0x80000000u, 3u};
    check_true("calc size of 2^256 elements is 0",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 8, k_huge8, NULL) == 0);
    /* 2^60 x 8 bytes = 2^63 fits in 64 bits: the header promises the size, not 0. */
    check_true("calc size of 2^60 INT64 elements is 2^63 (it fits in 64 bits)",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 3, k_wrap3, NULL) ==
                   0x8000000000000000ull);
    check_true("calc size of 3 x 2^62 UINT4 elements is 3 x 2^61 (it fits in 64 bits)",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT4, 3, s4, NULL) ==
                   0x6000000000000000ull);
    check_true("calc size of the wrapped extent is 0",
               dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT64, 2, k_wrap_sizes,
                                            k_wrap_sizes) == 0);
}

int main(void) {
    printf("directml_subset %s: bad-input suite, descs and tensors\n", dmls_version());

    open_devices();
    create_table_cases(CREATE_TABLE(k_create_cases));
    create_other_cases();
    close_devices();
    size_cases();

    return bad_input_finish("test_bad_input_create", 31);
}
