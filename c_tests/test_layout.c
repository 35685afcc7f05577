/*
 * DirectML's types, byte for byte: the size and every field offset of each struct, and every
 * enum value and constant, as DirectML.h (1.16, feature level 6.4) has them on 64-bit targets.
 * Almost everything here is checked at compile time.
 */
#include "directml_subset.h"

#include <stddef.h>
#if !defined(DMLS_LAYOUT_ASSERTS_ONLY)
#include <stdio.h>
#include <string.h>
#endif

#define SIZE(T, n) _Static_assert(sizeof(T) == (n), "sizeof(" #T ") must be " #n)
#define OFFSET(T, f, n) _Static_assert(offsetof(T, f) == (n), "offsetof(" #T ", " #f ") must be " #n)
#define VALUE(name, v) _Static_assert((name) == (v), #name " must be " #v)

/* LAYOUT(T, size, field, offset, ...): sizeof(T) and the offset of each field listed (1 to 11),
 * one row a struct. OFFSETS_k checks k fields; PICK_OFFSETS picks it by the number of arguments
 * (2k, then the names below: the 23rd argument is OFFSETS_k). */
#define OFFSETS_1(T, f, n) OFFSET(T, f, n)
#define OFFSETS_2(T, f, n, ...) OFFSET(T, f, n); OFFSETS_1(T, __VA_ARGS__)
#define OFFSETS_3(T, f, n, ...) OFFSET(T, f, n); OFFSETS_2(T, __VA_ARGS__)
#define OFFSETS_4(T, f, n, ...) OFFSET(T, f, n); OFFSETS_3(T, __VA_ARGS__)
#define OFFSETS_5(T, f, n, ...) OFFSET(T, f, n); OFFSETS_4(T, __VA_ARGS__)
#define OFFSETS_6(T, f, n, ...) OFFSET(T, f, n); OFFSETS_5(T, __VA_ARGS__)
#define OFFSETS_7(T, f, n, ...) OFFSET(T, f, n); OFFSETS_6(T, __VA_ARGS__)
#define OFFSETS_8(T, f, n, ...) OFFSET(T, f, n); OFFSETS_7(T, __VA_ARGS__)
#define OFFSETS_9(T, f, n, ...) OFFSET(T, f, n); OFFSETS_8(T, __VA_ARGS__)
#define OFFSETS_10(T, f, n, ...) OFFSET(T, f, n); OFFSETS_9(T, __VA_ARGS__)
#define OFFSETS_11(T, f, n, ...) OFFSET(T, f, n); OFFSETS_10(T, __VA_ARGS__)
#define ARG_23(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18,   \
               a19, a20, a21, a22, name, ...)                                                      \
    name
#define PICK_OFFSETS(...)                                                                          \
    ARG_23(__VA_ARGS__, OFFSETS_11, ~, OFFSETS_10, ~, OFFSETS_9, ~, OFFSETS_8, ~, OFFSETS_7, ~,    \
           OFFSETS_6, ~, OFFSETS_5, ~, OFFSETS_4, ~, OFFSETS_3, ~, OFFSETS_2, ~, OFFSETS_1, ~)
#define LAYOUT(T, size, ...) SIZE(T, size); PICK_OFFSETS(__VA_ARGS__)(T, __VA_ARGS__)

_Static_assert(sizeof(void *) == 8, "these layouts are the 64-bit ones");

/* Windows' scalar types. */
SIZE(UINT, 4);
SIZE(INT, 4);
SIZE(UINT64, 8);
SIZE(FLOAT, 4);
SIZE(DOUBLE, 8);
SIZE(BOOL, 4);
SIZE(BYTE, 1);
SIZE(HRESULT, 4);

/* Enum-typed fields are 4-byte integers. */
SIZE(DML_TENSOR_DATA_TYPE, 4);
SIZE(DML_TENSOR_TYPE, 4);
SIZE(DML_TENSOR_FLAGS, 4);
SIZE(DML_OPERATOR_TYPE, 4);
SIZE(DML_BINDING_TYPE, 4);
SIZE(DML_FEATURE, 4);
SIZE(DML_FEATURE_LEVEL, 4);

/* Structs. */
LAYOUT(DML_BUFFER_TENSOR_DESC, 48, DataType, 0, Flags, 4, DimensionCount, 8, Sizes, 16, Strides, 24,
       TotalTensorSizeInBytes, 32, GuaranteedBaseOffsetAlignment, 40);
LAYOUT(DML_TENSOR_DESC, 16, Type, 0, Desc, 8);
LAYOUT(DML_OPERATOR_DESC, 16, Type, 0, Desc, 8);
LAYOUT(DML_SCALAR_UNION, 8, Bytes, 0, Int8, 0, UInt8, 0, Int16, 0, UInt16, 0, Int32, 0, UInt32, 0,
       Int64, 0, UInt64, 0, Float32, 0, Float64, 0);
_Static_assert(_Alignof(DML_SCALAR_UNION) == 8, "DML_SCALAR_UNION is 8-aligned");
_Static_assert(sizeof(((DML_SCALAR_UNION *)0)->Bytes) == 8, "Bytes[8]");
_Static_assert(sizeof(((DML_SCALAR_UNION *)0)->Float32) == 4, "Float32 is a FLOAT");
_Static_assert(sizeof(((DML_SCALAR_UNION *)0)->Float64) == 8, "Float64 is a DOUBLE");
LAYOUT(DML_NONZERO_COORDINATES_OPERATOR_DESC, 24, InputTensor, 0, OutputCountTensor, 8,
       OutputCoordinatesTensor, 16);
LAYOUT(DML_DIAGONAL_MATRIX_OPERATOR_DESC, 16, OutputTensor, 0, Offset, 8, Value, 12);
LAYOUT(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, 40, InputTensor, 0, OutputTensor, 8, ValueDataType, 16,
       Value, 24, DiagonalFillBegin, 32, DiagonalFillEnd, 36);
LAYOUT(DML_BINDING_DESC, 16, Type, 0, Desc, 8);
LAYOUT(DML_BUFFER_BINDING, 24, Buffer, 0, Offset, 8, SizeInBytes, 16);
LAYOUT(DML_BUFFER_ARRAY_BINDING, 16, BindingCount, 0, Bindings, 8);
LAYOUT(DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT, 4, DataType, 0);
LAYOUT(DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT, 4, IsSupported, 0);
LAYOUT(DML_FEATURE_QUERY_FEATURE_LEVELS, 16, RequestedFeatureLevelCount, 0,
       RequestedFeatureLevels, 8);
LAYOUT(DML_FEATURE_DATA_FEATURE_LEVELS, 4, MaxSupportedFeatureLevel, 0);
LAYOUT(dmls_device_desc, 12, feature_level, 0, thread_count, 4, flags, 8);

/* DML_TENSOR_DATA_TYPE */
VALUE(DML_TENSOR_DATA_TYPE_UNKNOWN, 0);
VALUE(DML_TENSOR_DATA_TYPE_FLOAT32, 1);
VALUE(DML_TENSOR_DATA_TYPE_FLOAT16, 2);
VALUE(DML_TENSOR_DATA_TYPE_UINT32, 3);
VALUE(DML_TENSOR_DATA_TYPE_UINT16, 4);
VALUE(DML_TENSOR_DATA_TYPE_UINT8, 5);
VALUE(DML_TENSOR_DATA_TYPE_INT32, 6);
VALUE(DML_TENSOR_DATA_TYPE_INT16, 7);
VALUE(DML_TENSOR_DATA_TYPE_INT8, 8);
VALUE(DML_TENSOR_DATA_TYPE_FLOAT64, 9);
VALUE(DML_TENSOR_DATA_TYPE_UINT64, 10);
VALUE(DML_TENSOR_DATA_TYPE_INT64, 11);
VALUE(DML_TENSOR_DATA_TYPE_UINT4, 12);
VALUE(DML_TENSOR_DATA_TYPE_INT4, 13);

/* DML_TENSOR_TYPE, DML_TENSOR_FLAGS */
VALUE(DML_TENSOR_TYPE_INVALID, 0);
VALUE(DML_TENSOR_TYPE_BUFFER, 1);
VALUE(DML_TENSOR_FLAG_NONE, 0);
VALUE(DML_TENSOR_FLAG_OWNED_BY_DML, 1);

/* DML_BINDING_TYPE, DML_FEATURE */
VALUE(DML_BINDING_TYPE_NONE, 0);
VALUE(DML_BINDING_TYPE_BUFFER, 1);
VALUE(DML_BINDING_TYPE_BUFFER_ARRAY, 2);
VALUE(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, 0);
VALUE(DML_FEATURE_FEATURE_LEVELS, 1);

/* DML_FEATURE_LEVEL */
VALUE(DML_FEATURE_LEVEL_1_0, 0x1000);
VALUE(DML_FEATURE_LEVEL_2_0, 0x2000);
VALUE(DML_FEATURE_LEVEL_2_1, 0x2100);
VALUE(DML_FEATURE_LEVEL_3_0, 0x3000);
VALUE(DML_FEATURE_LEVEL_3_1, 0x3100);
VALUE(DML_FEATURE_LEVEL_4_0, 0x4000);
VALUE(DML_FEATURE_LEVEL_4_1, 0x4100);
VALUE(DML_FEATURE_LEVEL_5_0, 0x5000);
VALUE(DML_FEATURE_LEVEL_5_1, 0x5100);
VALUE(DML_FEATURE_LEVEL_5_2, 0x5200);
VALUE(DML_FEATURE_LEVEL_6_0, 0x6000);
VALUE(DML_FEATURE_LEVEL_6_1, 0x6100);
VALUE(DML_FEATURE_LEVEL_6_2, 0x6200);
VALUE(DML_FEATURE_LEVEL_6_3, 0x6300);
VALUE(DML_FEATURE_LEVEL_6_4, 0x6400);

/* DML_OPERATOR_TYPE */
VALUE(DML_OPERATOR_INVALID, 0);
VALUE(DML_OPERATOR_DIAGONAL_MATRIX, 93);
VALUE(DML_OPERATOR_FILL_VALUE_CONSTANT, 103);
VALUE(DML_OPERATOR_NONZERO_COORDINATES, 133);
VALUE(DML_OPERATOR_DIAGONAL_MATRIX1, 163);
VALUE(DML_OPERATOR_UNFOLD, 177);

/* Constants */
VALUE(DML_TENSOR_DIMENSION_COUNT_MAX, 5);
VALUE(DML_TENSOR_DIMENSION_COUNT_MAX1, 8);
VALUE(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, 16);
VALUE(DML_TEMPORARY_BUFFER_ALIGNMENT, 256);
VALUE(DML_PERSISTENT_BUFFER_ALIGNMENT, 256);
VALUE(DMLS_DEVICE_FLAG_EXTENSIONS, 1);

/* HRESULTs: Windows' numbers, as 32-bit values. */
VALUE((uint32_t)S_OK, 0u);
VALUE((uint32_t)E_INVALIDARG, 0x80070057u);
VALUE((uint32_t)E_POINTER, 0x80004003u);
VALUE((uint32_t)E_OUTOFMEMORY, 0x8007000Eu);
VALUE((uint32_t)E_NOTIMPL, 0x80004001u);
VALUE((uint32_t)E_FAIL, 0x80004005u);
VALUE((uint32_t)DXGI_ERROR_UNSUPPORTED, 0x887A0004u);
_Static_assert(FAILED(E_INVALIDARG) && FAILED(DXGI_ERROR_UNSUPPORTED), "failures are negative");
_Static_assert(SUCCEEDED(S_OK) && !FAILED(S_OK), "S_OK succeeds");

/* DMLS_LAYOUT_ASSERTS_ONLY: the compile-time checks alone, for a compiler without a C library
   here (MSVC's layout rules, through clang-cl: scripts/check_windows.sh). */
#if !defined(DMLS_LAYOUT_ASSERTS_ONLY)
int main(void) {
    /* The union's members really alias: FLOAT16 is a bit pattern in UInt16 (bytes 0-1, in
       the CPU's byte order). */
    DML_SCALAR_UNION u;
    u.UInt64 = 0;
    u.UInt16 = 0x3C00; /* 1.0 as binary16 */
    uint16_t half;
    memcpy(&half, u.Bytes, 2);
    int ok = half == 0x3C00 && u.Bytes[2] == 0;
    u.Float32 = 1.0f;
    ok = ok && u.UInt32 == 0x3F800000u;
    if (!ok) {
        fprintf(stderr, "test_layout: DML_SCALAR_UNION members do not alias as expected\n");
        return 1;
    }
    printf("test_layout: every size, offset and value matches DirectML\n");
    return 0;
}
#endif
