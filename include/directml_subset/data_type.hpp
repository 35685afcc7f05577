/*
 * directml_subset/data_type.hpp: data types, a part of directml_subset.hpp (include that).
 *
 * The DML_TENSOR_DATA_TYPE of a C++ element type (data_type_of), a data type's element size and
 * name, and dmls::scalar, a typed DML_SCALAR_UNION.
 */
#ifndef DIRECTML_SUBSET_DATA_TYPE_HPP
#define DIRECTML_SUBSET_DATA_TYPE_HPP

#include "../directml_subset.h"

/* Beside the real DirectML.h, the wrapper needs the operators it wraps, which DirectML.h declares
   from DML_TARGET_VERSION 0x5100 (DIAGONAL_MATRIX1). (UINT4 and INT4 come at 0x6300; the wrapper
   does without them below that.) */
#if defined(DIRECTML_H) && DML_TARGET_VERSION < 0x5100
#error "directml_subset.hpp beside DirectML.h needs DML_TARGET_VERSION 0x5100 or higher (DML_OPERATOR_DIAGONAL_MATRIX1): define DML_TARGET_VERSION_USE_LATEST or DML_TARGET_VERSION before including DirectML.h"
#endif

#include <cstdint>
#include <type_traits>

namespace dmls {

/// Bytes per element of a data type; 0 for UNKNOWN, the 4-bit types and unknown values.
inline constexpr std::uint32_t element_size(DML_TENSOR_DATA_TYPE type) noexcept {
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8:
    case DML_TENSOR_DATA_TYPE_INT8: return 1;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_UINT16:
    case DML_TENSOR_DATA_TYPE_INT16: return 2;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_INT32: return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
    case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64: return 8;
    default: return 0;
    }
}

/// The DML_TENSOR_DATA_TYPE of a C++ element type (FLOAT16 has none: use uint16_t storage and
/// name the type explicitly). `name` is the C++ spelling, for messages.
template <class T> struct data_type_of;
#define DMLS_HPP_DATA_TYPE(T, V)                                                                \
    template <> struct data_type_of<T> {                                                        \
        static constexpr DML_TENSOR_DATA_TYPE value = V;                                        \
        static constexpr const char *name = #T;                                                 \
    }
DMLS_HPP_DATA_TYPE(float, DML_TENSOR_DATA_TYPE_FLOAT32);
DMLS_HPP_DATA_TYPE(double, DML_TENSOR_DATA_TYPE_FLOAT64);
DMLS_HPP_DATA_TYPE(std::int8_t, DML_TENSOR_DATA_TYPE_INT8);
DMLS_HPP_DATA_TYPE(std::int16_t, DML_TENSOR_DATA_TYPE_INT16);
DMLS_HPP_DATA_TYPE(std::int32_t, DML_TENSOR_DATA_TYPE_INT32);
DMLS_HPP_DATA_TYPE(std::int64_t, DML_TENSOR_DATA_TYPE_INT64);
DMLS_HPP_DATA_TYPE(std::uint8_t, DML_TENSOR_DATA_TYPE_UINT8);
DMLS_HPP_DATA_TYPE(std::uint16_t, DML_TENSOR_DATA_TYPE_UINT16);
DMLS_HPP_DATA_TYPE(std::uint32_t, DML_TENSOR_DATA_TYPE_UINT32);
DMLS_HPP_DATA_TYPE(std::uint64_t, DML_TENSOR_DATA_TYPE_UINT64);
#undef DMLS_HPP_DATA_TYPE

template <class T> inline constexpr DML_TENSOR_DATA_TYPE data_type_of_v = data_type_of<T>::value;

/// True when `T` is a C++ element type with a DML_TENSOR_DATA_TYPE (data_type_of<T> exists).
template <class T, class = void> struct has_data_type : std::false_type {};
template <class T>
struct has_data_type<T, std::void_t<decltype(data_type_of<T>::value)>> : std::true_type {};
template <class T> inline constexpr bool has_data_type_v = has_data_type<T>::value;

/// DirectML's name of a data type ("DML_TENSOR_DATA_TYPE_FLOAT32"), for messages.
inline const char *data_type_name(DML_TENSOR_DATA_TYPE type) noexcept {
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return "DML_TENSOR_DATA_TYPE_FLOAT32";
    case DML_TENSOR_DATA_TYPE_FLOAT16: return "DML_TENSOR_DATA_TYPE_FLOAT16";
    case DML_TENSOR_DATA_TYPE_UINT32: return "DML_TENSOR_DATA_TYPE_UINT32";
    case DML_TENSOR_DATA_TYPE_UINT16: return "DML_TENSOR_DATA_TYPE_UINT16";
    case DML_TENSOR_DATA_TYPE_UINT8: return "DML_TENSOR_DATA_TYPE_UINT8";
    case DML_TENSOR_DATA_TYPE_INT32: return "DML_TENSOR_DATA_TYPE_INT32";
    case DML_TENSOR_DATA_TYPE_INT16: return "DML_TENSOR_DATA_TYPE_INT16";
    case DML_TENSOR_DATA_TYPE_INT8: return "DML_TENSOR_DATA_TYPE_INT8";
    case DML_TENSOR_DATA_TYPE_FLOAT64: return "DML_TENSOR_DATA_TYPE_FLOAT64";
    case DML_TENSOR_DATA_TYPE_UINT64: return "DML_TENSOR_DATA_TYPE_UINT64";
    case DML_TENSOR_DATA_TYPE_INT64: return "DML_TENSOR_DATA_TYPE_INT64";
#if !defined(DIRECTML_H) || DML_TARGET_VERSION >= 0x6300
    case DML_TENSOR_DATA_TYPE_UINT4: return "DML_TENSOR_DATA_TYPE_UINT4";
    case DML_TENSOR_DATA_TYPE_INT4: return "DML_TENSOR_DATA_TYPE_INT4";
#endif
    default: return "DML_TENSOR_DATA_TYPE_UNKNOWN";
    }
}

/// A typed scalar: a DML_SCALAR_UNION and the type it holds (DIAGONAL_MATRIX1's Value).
struct scalar {
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_UNKNOWN;
    DML_SCALAR_UNION value{};

    /// A scalar of a C++ element type: scalar::of(7.0f) is FLOAT32 7.
    template <class T> static scalar of(T v) noexcept {
        static_assert(std::is_arithmetic_v<T>, "an element type");
        scalar s;
        s.type = data_type_of_v<T>;
        if constexpr (std::is_same_v<T, float>) s.value.Float32 = v;
        else if constexpr (std::is_same_v<T, double>) s.value.Float64 = v;
        else if constexpr (std::is_same_v<T, std::int8_t>) s.value.Int8 = v;
        else if constexpr (std::is_same_v<T, std::int16_t>) s.value.Int16 = v;
        else if constexpr (std::is_same_v<T, std::int32_t>) s.value.Int32 = v;
        else if constexpr (std::is_same_v<T, std::int64_t>) s.value.Int64 = v;
        else if constexpr (std::is_same_v<T, std::uint8_t>) s.value.UInt8 = v;
        else if constexpr (std::is_same_v<T, std::uint16_t>) s.value.UInt16 = v;
        else if constexpr (std::is_same_v<T, std::uint32_t>) s.value.UInt32 = v;
        else s.value.UInt64 = v;
        return s;
    }

    /// A FLOAT16 scalar from its IEEE binary16 bit pattern (0x3C00 is 1.0).
    static scalar float16_bits(std::uint16_t bits) noexcept {
        scalar s;
        s.type = DML_TENSOR_DATA_TYPE_FLOAT16;
        s.value.UInt16 = bits;
        return s;
    }
};

} // namespace dmls

#endif /* DIRECTML_SUBSET_DATA_TYPE_HPP */
