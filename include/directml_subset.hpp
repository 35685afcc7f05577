/*
 * directml_subset.hpp: C++17 RAII wrappers over the C API of directml_subset.h.
 *
 *   dmls::device device;                                         // feature level 6_4
 *   dmls::tensor_desc input(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 4});
 *   dmls::op nonzero = device.create_operator(dmls::nonzero_coordinates(input));
 *   std::vector<float> x = {1, 0, 0, 2, -0.0f, 3.5f, 0, -5.2f};
 *   uint32_t count = 0;
 *   std::vector<uint32_t> coords(8 * 2);
 *   nonzero.execute({dmls::binding::of(x)},
 *                   {dmls::binding::of(&count, 1), dmls::binding::of(coords)});
 *
 * - dmls::device and dmls::op own a dmls_device / dmls_operator and release it; both are
 *   move-only. An operator keeps what it needs of its device alive.
 * - dmls::tensor_desc builds a DML_BUFFER_TENSOR_DESC in the spirit of DirectMLX: sizes in (and
 *   optionally strides), the packed strides, element count and TotalTensorSizeInBytes
 *   (DMLCalcBufferTensorSize) computed. It owns its arrays.
 * - dmls::nonzero_coordinates, dmls::diagonal_matrix1 and dmls::diagonal_matrix build operator
 *   descs; nonzero_coordinates derives the output tensors from the input, as DirectMLX does.
 * - dmls::binding binds host memory from a pointer and a size (bytes or elements), a
 *   std::vector, a std::array or a C array; binding::none() is DML_BINDING_TYPE_NONE. A binding
 *   of elements is typed: execute() throws dmls::error when its element type is not the bound
 *   tensor's data type (binding::bytes binds untyped memory).
 * - Every failure throws dmls::error, which carries the HRESULT and the library's message.
 *
 * Header-only; link the library as for directml_subset.h.
 */
#ifndef DIRECTML_SUBSET_HPP
#define DIRECTML_SUBSET_HPP

#include "directml_subset.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dmls {

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

/// The name of an HRESULT this library returns ("E_INVALIDARG", ...), or "HRESULT" for others.
inline const char *hresult_name(HRESULT hr) noexcept {
    switch (static_cast<std::uint32_t>(hr)) {
    case 0x00000000u: return "S_OK";
    case 0x80070057u: return "E_INVALIDARG";
    case 0x80004003u: return "E_POINTER";
    case 0x8007000Eu: return "E_OUTOFMEMORY";
    case 0x80004001u: return "E_NOTIMPL";
    case 0x80004005u: return "E_FAIL";
    case 0x887A0004u: return "DXGI_ERROR_UNSUPPORTED";
    default: return "HRESULT";
    }
}

/// The calling thread's last error message ("" when its last dmls_ call succeeded).
inline std::string last_error_message() {
    const std::size_t length = dmls_get_last_error_message(nullptr, 0);
    if (length == 0) {
        return std::string();
    }
    std::vector<char> buffer(length + 1, '\0');
    dmls_get_last_error_message(buffer.data(), buffer.size());
    return std::string(buffer.data());
}

/// A failed call: the HRESULT and the library's message.
class error : public std::runtime_error {
public:
    error(HRESULT code, std::string message)
        : std::runtime_error(describe(code, message)), code_(code), message_(std::move(message)) {}

    /// The HRESULT the library returned.
    HRESULT code() const noexcept { return code_; }

    /// The library's message (what dmls_get_last_error_message gave), without the code.
    const std::string &message() const noexcept { return message_; }

private:
    static std::string describe(HRESULT code, const std::string &message) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "0x%08X", static_cast<unsigned>(code));
        std::string s = std::string(hresult_name(code)) + " (" + hex + ")";
        if (!message.empty()) {
            s += ": " + message;
        }
        return s;
    }

    HRESULT code_;
    std::string message_;
};

/// Throws dmls::error, with the calling thread's message, when `hr` is a failure.
inline void check(HRESULT hr) {
    if (FAILED(hr)) {
        throw error(hr, last_error_message());
    }
}

/// The library's version, "MAJOR.MINOR.PATCH".
inline const char *version() noexcept { return dmls_version(); }

/* ------------------------------------------------------------------------------------------ */
/* Data types                                                                                  */

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
    case DML_TENSOR_DATA_TYPE_UINT4: return "DML_TENSOR_DATA_TYPE_UINT4";
    case DML_TENSOR_DATA_TYPE_INT4: return "DML_TENSOR_DATA_TYPE_INT4";
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

/* ------------------------------------------------------------------------------------------ */
/* Tensor descs                                                                                */

/// DMLCalcBufferTensorSize (64-bit): bytes a buffer tensor needs; 0 for an unknown type.
inline std::uint64_t calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type,
                                             const std::vector<std::uint32_t> &sizes,
                                             const std::vector<std::uint32_t> *strides = nullptr) {
    return dmls_calc_buffer_tensor_size(type, static_cast<std::uint32_t>(sizes.size()), sizes.data(),
                                        strides ? strides->data() : nullptr);
}

/// A buffer tensor desc that owns its sizes and strides. Sizes in; packed strides, element
/// count and TotalTensorSizeInBytes computed (the latter can be raised, as ONNX Runtime does
/// for an oversized buffer). get() gives the DML_TENSOR_DESC, valid while this object lives
/// and is not modified.
class tensor_desc {
public:
    /// A packed (row-major) tensor.
    tensor_desc(DML_TENSOR_DATA_TYPE type, std::vector<std::uint32_t> sizes)
        : type_(type), sizes_(std::move(sizes)) {
        total_ = calc_buffer_tensor_size(type_, sizes_);
    }

    /// A strided tensor (strides in elements; 0 broadcasts). Throws std::invalid_argument when
    /// there is not one stride per size.
    tensor_desc(DML_TENSOR_DATA_TYPE type, std::vector<std::uint32_t> sizes,
                std::vector<std::uint32_t> strides)
        : type_(type), sizes_(std::move(sizes)), strides_(std::move(strides)), has_strides_(true) {
        if (strides_.size() != sizes_.size()) {
            throw std::invalid_argument("dmls::tensor_desc: one stride per size is needed");
        }
        total_ = calc_buffer_tensor_size(type_, sizes_, &strides_);
    }

    /// The packed (row-major) strides of `sizes`: the last is 1.
    static std::vector<std::uint32_t> packed_strides(const std::vector<std::uint32_t> &sizes) {
        std::vector<std::uint32_t> strides(sizes.size());
        std::uint64_t stride = 1;
        for (std::size_t i = sizes.size(); i-- > 0;) {
            strides[i] = static_cast<std::uint32_t>(stride);
            stride *= sizes[i];
        }
        return strides;
    }

    DML_TENSOR_DATA_TYPE data_type() const noexcept { return type_; }
    std::uint32_t dimension_count() const noexcept { return static_cast<std::uint32_t>(sizes_.size()); }
    const std::vector<std::uint32_t> &sizes() const noexcept { return sizes_; }
    /// True when strides were given (DML_BUFFER_TENSOR_DESC.Strides is then non-NULL).
    bool has_strides() const noexcept { return has_strides_; }
    /// The strides given, or the packed strides.
    std::vector<std::uint32_t> strides() const { return has_strides_ ? strides_ : packed_strides(sizes_); }
    /// The number of elements (the product of the sizes).
    std::uint64_t element_count() const noexcept {
        std::uint64_t n = 1;
        for (std::uint32_t s : sizes_) n *= s;
        return n;
    }
    std::uint32_t element_size() const noexcept { return dmls::element_size(type_); }
    std::uint64_t total_tensor_size_in_bytes() const noexcept { return total_; }
    std::uint32_t guaranteed_base_offset_alignment() const noexcept { return alignment_; }

    /// Sets TotalTensorSizeInBytes (at least the computed size, a multiple of 4).
    tensor_desc &set_total_tensor_size_in_bytes(std::uint64_t bytes) noexcept {
        total_ = bytes;
        return *this;
    }
    /// Sets GuaranteedBaseOffsetAlignment (0, or a power of two of at least the element size).
    tensor_desc &set_guaranteed_base_offset_alignment(std::uint32_t alignment) noexcept {
        alignment_ = alignment;
        return *this;
    }
    /// Sets DML_BUFFER_TENSOR_DESC.Flags (this library accepts only DML_TENSOR_FLAG_NONE).
    tensor_desc &set_flags(DML_TENSOR_FLAGS flags) noexcept {
        flags_ = flags;
        return *this;
    }

    /// The DML_BUFFER_TENSOR_DESC, pointing into this object.
    const DML_BUFFER_TENSOR_DESC *buffer_desc() const noexcept {
        buffer_.DataType = type_;
        buffer_.Flags = flags_;
        buffer_.DimensionCount = dimension_count();
        buffer_.Sizes = sizes_.data();
        buffer_.Strides = has_strides_ ? strides_.data() : nullptr;
        buffer_.TotalTensorSizeInBytes = total_;
        buffer_.GuaranteedBaseOffsetAlignment = alignment_;
        return &buffer_;
    }

    /// The DML_TENSOR_DESC (DML_TENSOR_TYPE_BUFFER), pointing into this object.
    const DML_TENSOR_DESC *get() const noexcept {
        tensor_.Type = DML_TENSOR_TYPE_BUFFER;
        tensor_.Desc = buffer_desc();
        return &tensor_;
    }

private:
    DML_TENSOR_DATA_TYPE type_;
    std::vector<std::uint32_t> sizes_;
    std::vector<std::uint32_t> strides_;
    bool has_strides_ = false;
    std::uint64_t total_ = 0;
    std::uint32_t alignment_ = 0;
    DML_TENSOR_FLAGS flags_ = DML_TENSOR_FLAG_NONE;
    // Filled by get()/buffer_desc() so that copies and moves never hold stale pointers.
    mutable DML_BUFFER_TENSOR_DESC buffer_{};
    mutable DML_TENSOR_DESC tensor_{};
};

/* ------------------------------------------------------------------------------------------ */
/* Operator descs                                                                              */

/// DML_NONZERO_COORDINATES_OPERATOR_DESC with owned tensor descs.
struct nonzero_coordinates_desc {
    tensor_desc input;
    tensor_desc output_count;
    tensor_desc output_coordinates;
};

/// NONZERO_COORDINATES for `input`, with the outputs derived as DirectMLX would: the count all
/// ones and the coordinates {1,...,1,M,N} (M the input's element count, N its DimensionCount),
/// both with the input's DimensionCount (at least 2 for the coordinates), so the desc is valid
/// at every feature level that supports the input. `output_type` is UINT32 (or, on a device
/// with DMLS_DEVICE_FLAG_EXTENSIONS, UINT64 or INT64).
inline nonzero_coordinates_desc nonzero_coordinates(
    const tensor_desc &input, DML_TENSOR_DATA_TYPE output_type = DML_TENSOR_DATA_TYPE_UINT32) {
    const std::size_t dims = input.sizes().size();
    std::vector<std::uint32_t> count_sizes(dims == 0 ? 1 : dims, 1u);
    std::vector<std::uint32_t> coord_sizes(dims < 2 ? 2 : dims, 1u);
    coord_sizes[coord_sizes.size() - 2] = static_cast<std::uint32_t>(input.element_count());
    coord_sizes[coord_sizes.size() - 1] = static_cast<std::uint32_t>(dims);
    return nonzero_coordinates_desc{input, tensor_desc(output_type, std::move(count_sizes)),
                                    tensor_desc(output_type, std::move(coord_sizes))};
}

/// DML_DIAGONAL_MATRIX1_OPERATOR_DESC with owned tensor descs.
struct diagonal_matrix1_desc {
    std::optional<tensor_desc> input;
    tensor_desc output;
    scalar value;
    std::int32_t diagonal_fill_begin = 0;
    std::int32_t diagonal_fill_end = 1;
};

/// DIAGONAL_MATRIX1: `value` where DiagonalFillBegin <= x - y < DiagonalFillEnd (inverted when
/// begin > end), elsewhere the input's element (or 0 without an input).
inline diagonal_matrix1_desc diagonal_matrix1(tensor_desc output, scalar value, std::int32_t begin,
                                              std::int32_t end,
                                              std::optional<tensor_desc> input = std::nullopt) {
    return diagonal_matrix1_desc{std::move(input), std::move(output), value, begin, end};
}

/// DML_DIAGONAL_MATRIX_OPERATOR_DESC with an owned tensor desc.
struct diagonal_matrix_desc {
    tensor_desc output;
    std::int32_t offset = 0;
    float value = 1.0f;
};

/// DIAGONAL_MATRIX: Out = (y + offset == x) ? value : 0 (EyeLike).
inline diagonal_matrix_desc diagonal_matrix(tensor_desc output, std::int32_t offset = 0,
                                            float value = 1.0f) {
    return diagonal_matrix_desc{std::move(output), offset, value};
}

/* ------------------------------------------------------------------------------------------ */
/* Bindings                                                                                    */

/// One binding slot: host memory (DML_BINDING_TYPE_BUFFER) or nothing (DML_BINDING_TYPE_NONE).
/// Inputs may be bound read-only; the library never writes an input.
class binding {
public:
    /// DML_BINDING_TYPE_NONE.
    binding() noexcept = default;
    static binding none() noexcept { return binding(); }

    /// `size_in_bytes` bytes at `data + offset`.
    static binding bytes(const void *data, std::uint64_t size_in_bytes, std::uint64_t offset = 0) noexcept {
        binding b;
        b.type_ = DML_BINDING_TYPE_BUFFER;
        // A host pointer; beside the real DirectML.h, Buffer is an ID3D12Resource *.
        b.buffer_.Buffer = static_cast<decltype(b.buffer_.Buffer)>(const_cast<void *>(data));
        b.buffer_.Offset = offset;
        b.buffer_.SizeInBytes = size_in_bytes;
        return b;
    }

    /// `count` elements at `data`. The binding is typed: execute() checks that the tensor bound
    /// to it has T's data type (data_type_of<T>; uint16_t storage also binds FLOAT16) and
    /// throws dmls::error (E_INVALIDARG) naming the tensor and both types when it has not. A
    /// type with no DML_TENSOR_DATA_TYPE does not compile; bind raw memory (another element
    /// type's storage, e.g. ONNX Runtime's int64 coordinates through a UINT32 view) with
    /// binding::bytes, which is unchecked.
    template <class T> static binding of(T *data, std::size_t count) noexcept {
        using E = std::remove_cv_t<T>;
        static_assert(has_data_type_v<E>,
                      "dmls::binding::of: the element type has no DML_TENSOR_DATA_TYPE (float, double, "
                      "[u]int8/16/32/64_t); bind raw memory with dmls::binding::bytes");
        binding b = bytes(data, static_cast<std::uint64_t>(count) * sizeof(T));
        b.element_type_ = data_type_of<E>::value;
        b.element_name_ = data_type_of<E>::name;
        return b;
    }
    template <class T> static binding of(std::vector<T> &v) noexcept { return of(v.data(), v.size()); }
    template <class T> static binding of(const std::vector<T> &v) noexcept { return of(v.data(), v.size()); }
    template <class T, std::size_t N> static binding of(std::array<T, N> &a) noexcept { return of(a.data(), N); }
    template <class T, std::size_t N> static binding of(const std::array<T, N> &a) noexcept {
        return of(a.data(), N);
    }
    template <class T, std::size_t N> static binding of(T (&a)[N]) noexcept { return of(&a[0], N); }

    DML_BINDING_TYPE type() const noexcept { return type_; }
    const DML_BUFFER_BINDING &buffer() const noexcept { return buffer_; }
    /// The element type of a typed binding (binding::of); DML_TENSOR_DATA_TYPE_UNKNOWN for an
    /// untyped one (binding::bytes, none).
    DML_TENSOR_DATA_TYPE element_type() const noexcept { return element_type_; }
    /// The C++ element type's spelling ("float") of a typed binding, nullptr otherwise.
    const char *element_name() const noexcept { return element_name_; }

    /// The DML_BINDING_DESC, pointing into this object.
    DML_BINDING_DESC desc() const noexcept {
        DML_BINDING_DESC d;
        d.Type = type_;
        d.Desc = type_ == DML_BINDING_TYPE_NONE ? nullptr : &buffer_;
        return d;
    }

private:
    DML_BINDING_TYPE type_ = DML_BINDING_TYPE_NONE;
    DML_BUFFER_BINDING buffer_{};
    DML_TENSOR_DATA_TYPE element_type_ = DML_TENSOR_DATA_TYPE_UNKNOWN;
    const char *element_name_ = nullptr;
};

/* ------------------------------------------------------------------------------------------ */
/* Operators and devices                                                                       */

/// The data types of an operator's binding slots, as its desc gave them, so that execute() can
/// check typed bindings. Filled by device::create_operator from the desc.
struct slot_types {
    /// DirectML's name of the operator ("NONZERO_COORDINATES"); nullptr when unknown.
    const char *op_name = nullptr;
    /// Per input and output slot: the tensor's name and data type (UNKNOWN for an optional
    /// tensor left out).
    std::vector<std::pair<const char *, DML_TENSOR_DATA_TYPE>> inputs, outputs;

    /// The slots of a DML_OPERATOR_DESC that the library accepted (an unknown type gives none).
    static slot_types of(const DML_OPERATOR_DESC &desc) {
        const auto type_of = [](const DML_TENSOR_DESC *t) -> DML_TENSOR_DATA_TYPE {
            if (t == nullptr || t->Type != DML_TENSOR_TYPE_BUFFER || t->Desc == nullptr) {
                return DML_TENSOR_DATA_TYPE_UNKNOWN;
            }
            return static_cast<const DML_BUFFER_TENSOR_DESC *>(t->Desc)->DataType;
        };
        slot_types s;
        if (desc.Desc == nullptr) {
            return s;
        }
        switch (desc.Type) {
        case DML_OPERATOR_NONZERO_COORDINATES: {
            const auto *d = static_cast<const DML_NONZERO_COORDINATES_OPERATOR_DESC *>(desc.Desc);
            s.op_name = "NONZERO_COORDINATES";
            s.inputs = {{"InputTensor", type_of(d->InputTensor)}};
            s.outputs = {{"OutputCountTensor", type_of(d->OutputCountTensor)},
                         {"OutputCoordinatesTensor", type_of(d->OutputCoordinatesTensor)}};
            break;
        }
        case DML_OPERATOR_DIAGONAL_MATRIX1: {
            const auto *d = static_cast<const DML_DIAGONAL_MATRIX1_OPERATOR_DESC *>(desc.Desc);
            s.op_name = "DIAGONAL_MATRIX1";
            s.inputs = {{"InputTensor", type_of(d->InputTensor)}};
            s.outputs = {{"OutputTensor", type_of(d->OutputTensor)}};
            break;
        }
        case DML_OPERATOR_DIAGONAL_MATRIX: {
            const auto *d = static_cast<const DML_DIAGONAL_MATRIX_OPERATOR_DESC *>(desc.Desc);
            s.op_name = "DIAGONAL_MATRIX";
            s.outputs = {{"OutputTensor", type_of(d->OutputTensor)}};
            break;
        }
        default: break;
        }
        return s;
    }
};

/// An operator (owns a dmls_operator). Immutable: execute() may run from many threads at once.
class op {
public:
    op() noexcept = default;
    /// Takes ownership of `handle`. Bindings are checked for their element type only when
    /// `slots` gives the desc's tensor types (device::create_operator does).
    explicit op(dmls_operator *handle, slot_types slots = slot_types()) noexcept
        : handle_(handle), slots_(std::move(slots)) {}
    op(const op &) = delete;
    op &operator=(const op &) = delete;
    op(op &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), slots_(std::exchange(other.slots_, slot_types())) {}
    op &operator=(op &&other) noexcept {
        if (this != &other) {
            dmls_operator_release(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
            slots_ = std::exchange(other.slots_, slot_types());
        }
        return *this;
    }
    ~op() { dmls_operator_release(handle_); }

    dmls_operator *get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != nullptr; }
    /// Gives up ownership.
    dmls_operator *release() noexcept {
        slots_ = slot_types();
        return std::exchange(handle_, nullptr);
    }
    /// The slots' tensor names and data types (empty when unknown).
    const slot_types &slots() const noexcept { return slots_; }

    /// Runs the operator; the slots are in DirectML's order (see dmls_operator_execute). A typed
    /// binding (binding::of) whose element type is not its tensor's data type throws dmls::error
    /// (E_INVALIDARG) before anything runs.
    void execute(std::initializer_list<binding> inputs, std::initializer_list<binding> outputs) const {
        run(inputs.begin(), inputs.size(), outputs.begin(), outputs.size());
    }
    void execute(const std::vector<binding> &inputs, const std::vector<binding> &outputs) const {
        run(inputs.data(), inputs.size(), outputs.data(), outputs.size());
    }

private:
    // Compares each typed binding with its slot's tensor type. Slot counts that differ from the
    // operator's are left to the library, whose message names them.
    void check_types(const binding *b, std::size_t n, const char *kind,
                     const std::vector<std::pair<const char *, DML_TENSOR_DATA_TYPE>> &slots) const {
        if (n != slots.size()) {
            return;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const DML_TENSOR_DATA_TYPE bound = b[i].element_type();
            const DML_TENSOR_DATA_TYPE want = slots[i].second;
            if (b[i].type() != DML_BINDING_TYPE_BUFFER || bound == DML_TENSOR_DATA_TYPE_UNKNOWN ||
                want == DML_TENSOR_DATA_TYPE_UNKNOWN || bound == want ||
                (bound == DML_TENSOR_DATA_TYPE_UINT16 && want == DML_TENSOR_DATA_TYPE_FLOAT16)) {
                continue;
            }
            throw error(E_INVALIDARG,
                        std::string(slots_.op_name) + ": " + slots[i].first + " (" + kind + " " +
                            std::to_string(i) + ") is bound to " + b[i].element_name() +
                            " elements (" + data_type_name(bound) + "), but the tensor is " +
                            data_type_name(want) +
                            "; bind elements of that type, or raw memory with dmls::binding::bytes");
        }
    }

    void run(const binding *in, std::size_t n_in, const binding *out, std::size_t n_out) const {
        if (handle_ != nullptr && slots_.op_name != nullptr) {
            check_types(in, n_in, "input", slots_.inputs);
            check_types(out, n_out, "output", slots_.outputs);
        }
        std::vector<DML_BINDING_DESC> descs;
        descs.reserve(n_in + n_out);
        for (std::size_t i = 0; i < n_in; ++i) descs.push_back(in[i].desc());
        for (std::size_t i = 0; i < n_out; ++i) descs.push_back(out[i].desc());
        check(dmls_operator_execute(handle_, static_cast<std::uint32_t>(n_in),
                                    n_in ? descs.data() : nullptr, static_cast<std::uint32_t>(n_out),
                                    n_out ? descs.data() + n_in : nullptr));
    }

    dmls_operator *handle_ = nullptr;
    slot_types slots_;
};

/// A device (owns a dmls_device): the DirectML feature level it emulates and its threads.
class device {
public:
    /// Feature level 6_4, one thread per logical core, strict DirectML.
    device() : device(static_cast<DML_FEATURE_LEVEL>(0)) {}

    /// `feature_level` 0 is the newest (6_4); `thread_count` 0 is one per logical core;
    /// `flags` are DMLS_DEVICE_FLAG_* bits.
    explicit device(DML_FEATURE_LEVEL feature_level, std::uint32_t thread_count = 0,
                    std::uint32_t flags = 0) {
        dmls_device_desc desc;
        desc.feature_level = feature_level;
        desc.thread_count = thread_count;
        desc.flags = flags;
        check(dmls_device_create(&desc, &handle_));
    }

    device(const device &) = delete;
    device &operator=(const device &) = delete;
    device(device &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    device &operator=(device &&other) noexcept {
        if (this != &other) {
            dmls_device_release(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ~device() { dmls_device_release(handle_); }

    dmls_device *get() const noexcept { return handle_; }

    /// DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT.
    bool supports_data_type(DML_TENSOR_DATA_TYPE type) const {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query;
        query.DataType = type;
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT support;
        support.IsSupported = 0;
        check(dmls_device_check_feature_support(handle_, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT,
                                                sizeof query, &query, sizeof support, &support));
        return support.IsSupported != 0;
    }

    /// DML_FEATURE_FEATURE_LEVELS: the highest of `requested` not above the device's level.
    /// Throws dmls::error (DXGI_ERROR_UNSUPPORTED) when every requested level is above it.
    DML_FEATURE_LEVEL max_supported_feature_level(const std::vector<DML_FEATURE_LEVEL> &requested) const {
        DML_FEATURE_QUERY_FEATURE_LEVELS query;
        query.RequestedFeatureLevelCount = static_cast<UINT>(requested.size());
        query.RequestedFeatureLevels = requested.data();
        DML_FEATURE_DATA_FEATURE_LEVELS support;
        support.MaxSupportedFeatureLevel = static_cast<DML_FEATURE_LEVEL>(0);
        check(dmls_device_check_feature_support(handle_, DML_FEATURE_FEATURE_LEVELS, sizeof query,
                                                &query, sizeof support, &support));
        return support.MaxSupportedFeatureLevel;
    }

    /// Creates an operator from a raw DirectML desc.
    op create_operator(const DML_OPERATOR_DESC &desc) const {
        dmls_operator *handle = nullptr;
        check(dmls_device_create_operator(handle_, &desc, &handle));
        return op(handle, slot_types::of(desc));
    }

    op create_operator(const nonzero_coordinates_desc &d) const {
        DML_NONZERO_COORDINATES_OPERATOR_DESC nz;
        nz.InputTensor = d.input.get();
        nz.OutputCountTensor = d.output_count.get();
        nz.OutputCoordinatesTensor = d.output_coordinates.get();
        return create_operator_of(DML_OPERATOR_NONZERO_COORDINATES, nz);
    }

    op create_operator(const diagonal_matrix1_desc &d) const {
        DML_DIAGONAL_MATRIX1_OPERATOR_DESC g;
        g.InputTensor = d.input ? d.input->get() : nullptr;
        g.OutputTensor = d.output.get();
        g.ValueDataType = d.value.type;
        g.Value = d.value.value;
        g.DiagonalFillBegin = d.diagonal_fill_begin;
        g.DiagonalFillEnd = d.diagonal_fill_end;
        return create_operator_of(DML_OPERATOR_DIAGONAL_MATRIX1, g);
    }

    op create_operator(const diagonal_matrix_desc &d) const {
        DML_DIAGONAL_MATRIX_OPERATOR_DESC g;
        g.OutputTensor = d.output.get();
        g.Offset = d.offset;
        g.Value = d.value;
        return create_operator_of(DML_OPERATOR_DIAGONAL_MATRIX, g);
    }

private:
    // Wraps an operator-specific desc in the DML_OPERATOR_DESC of `type` and creates it.
    template <class OperatorDesc>
    op create_operator_of(DML_OPERATOR_TYPE type, const OperatorDesc &operator_desc) const {
        DML_OPERATOR_DESC desc;
        desc.Type = type;
        desc.Desc = &operator_desc;
        return create_operator(desc);
    }

    dmls_device *handle_ = nullptr;
};

} // namespace dmls

#endif /* DIRECTML_SUBSET_HPP */
