/*
 * directml_subset/binding.hpp: bindings, a part of directml_subset.hpp (include that).
 *
 * dmls::binding binds host memory from a pointer and a size (bytes or elements), a std::vector, a
 * std::array or a C array; binding::none() is DML_BINDING_TYPE_NONE. A binding of elements is
 * typed: op::execute() throws dmls::error when its element type is not the bound tensor's data
 * type (binding::bytes binds untyped memory). A binding of const memory (a const pointer or
 * container) is read-only: op::execute() throws dmls::error when it is bound as an output.
 */
#ifndef DIRECTML_SUBSET_BINDING_HPP
#define DIRECTML_SUBSET_BINDING_HPP

#include "../directml_subset.h"
#include "data_type.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace dmls {

/// One binding slot: host memory (DML_BINDING_TYPE_BUFFER) or nothing (DML_BINDING_TYPE_NONE).
/// Inputs may be bound read-only (from const memory); the library never writes an input, and
/// op::execute() refuses a read-only binding as an output.
class binding {
public:
    /// DML_BINDING_TYPE_NONE.
    binding() noexcept = default;
    static binding none() noexcept { return binding(); }

    /// `size_in_bytes` bytes at `data + offset`, writable.
    static binding bytes(void *data, std::uint64_t size_in_bytes, std::uint64_t offset = 0) noexcept {
        binding b;
        b.type_ = DML_BINDING_TYPE_BUFFER;
        // A host pointer; beside the real DirectML.h, Buffer is an ID3D12Resource *.
        b.buffer_.Buffer = static_cast<decltype(b.buffer_.Buffer)>(data);
        b.buffer_.Offset = offset;
        b.buffer_.SizeInBytes = size_in_bytes;
        return b;
    }
    /// No memory: the library answers E_POINTER for a NULL Buffer.
    static binding bytes(std::nullptr_t, std::uint64_t size_in_bytes, std::uint64_t offset = 0) noexcept {
        return bytes(static_cast<void *>(nullptr), size_in_bytes, offset);
    }
    /// `size_in_bytes` bytes at `data + offset`, read-only: an input only.
    static binding bytes(const void *data, std::uint64_t size_in_bytes, std::uint64_t offset = 0) noexcept {
        binding b = bytes(const_cast<void *>(data), size_in_bytes, offset);
        b.read_only_ = true;
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
    /// True for a binding of const memory (binding::bytes or binding::of of a const pointer or
    /// container): an input only.
    bool read_only() const noexcept { return read_only_; }
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
    bool read_only_ = false;
};

} // namespace dmls

#endif /* DIRECTML_SUBSET_BINDING_HPP */
