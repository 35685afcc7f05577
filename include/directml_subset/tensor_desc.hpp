/*
 * directml_subset/tensor_desc.hpp: tensor descs, a part of directml_subset.hpp (include that).
 *
 * dmls::tensor_desc builds a DML_BUFFER_TENSOR_DESC in the spirit of DirectMLX: sizes in (and
 * optionally strides), the packed strides, element count and TotalTensorSizeInBytes
 * (DMLCalcBufferTensorSize) computed. It owns its arrays.
 */
#ifndef DIRECTML_SUBSET_TENSOR_DESC_HPP
#define DIRECTML_SUBSET_TENSOR_DESC_HPP

#include "../directml_subset.h"
#include "data_type.hpp"
#include "error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dmls {

/// DMLCalcBufferTensorSize (64-bit): bytes a buffer tensor needs; 0 for an unknown type. Throws
/// dmls::error (E_INVALIDARG) when `strides` is given without one stride per size.
inline std::uint64_t calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type,
                                             const std::vector<std::uint32_t> &sizes,
                                             const std::vector<std::uint32_t> *strides = nullptr) {
    if (strides && strides->size() != sizes.size()) {
        throw error(E_INVALIDARG, "dmls::calc_buffer_tensor_size: " + std::to_string(sizes.size()) +
                                      " sizes but " + std::to_string(strides->size()) +
                                      " strides; one stride per size is needed");
    }
    return dmls_calc_buffer_tensor_size(type, static_cast<std::uint32_t>(sizes.size()), sizes.data(),
                                        strides ? strides->data() : nullptr);
}

/// A buffer tensor desc that owns its sizes and strides. Sizes in; packed strides, element
/// count and TotalTensorSizeInBytes computed (the latter can be raised, as ONNX Runtime does
/// for an oversized buffer). get() gives the DML_TENSOR_DESC, valid while this object lives
/// and is not modified. Its const members only read, so several threads may use one desc at
/// once (create operators from it, for example).
class tensor_desc {
public:
    /// A packed (row-major) tensor.
    tensor_desc(DML_TENSOR_DATA_TYPE type, std::vector<std::uint32_t> sizes)
        : type_(type), sizes_(std::move(sizes)) {
        total_ = calc_buffer_tensor_size(type_, sizes_);
        sync();
    }

    /// A strided tensor (strides in elements; 0 broadcasts). Throws dmls::error (E_INVALIDARG)
    /// when there is not one stride per size.
    tensor_desc(DML_TENSOR_DATA_TYPE type, std::vector<std::uint32_t> sizes,
                std::vector<std::uint32_t> strides)
        : type_(type), sizes_(std::move(sizes)), strides_(std::move(strides)), has_strides_(true) {
        if (strides_.size() != sizes_.size()) {
            throw error(E_INVALIDARG, "dmls::tensor_desc: " + std::to_string(sizes_.size()) +
                                          " sizes but " + std::to_string(strides_.size()) +
                                          " strides; one stride per size is needed");
        }
        total_ = calc_buffer_tensor_size(type_, sizes_, &strides_);
        sync();
    }

    // Copies and moves point into themselves, never into the original.
    tensor_desc(const tensor_desc &o)
        : type_(o.type_), sizes_(o.sizes_), strides_(o.strides_), has_strides_(o.has_strides_),
          total_(o.total_), alignment_(o.alignment_), flags_(o.flags_) {
        sync();
    }
    tensor_desc(tensor_desc &&o) noexcept : type_(o.type_) { take(o); }
    tensor_desc &operator=(const tensor_desc &o) { return *this = tensor_desc(o); }
    tensor_desc &operator=(tensor_desc &&o) noexcept {
        if (this != &o) {
            take(o);
        }
        return *this;
    }

    /// The packed (row-major) strides of `sizes`: the last is 1. Throws dmls::error
    /// (E_INVALIDARG) where one does not fit DirectML's 32-bit strides (a packed tensor that
    /// large has no strides to give: its desc leaves Strides NULL).
    static std::vector<std::uint32_t> packed_strides(const std::vector<std::uint32_t> &sizes) {
        std::vector<std::uint32_t> strides(sizes.size());
        std::uint64_t stride = 1;
        for (std::size_t i = sizes.size(); i-- > 0;) {
            if (stride > UINT32_MAX) {
                throw error(E_INVALIDARG, "dmls::tensor_desc: the packed stride of dimension " +
                                              std::to_string(i) + " is " + std::to_string(stride) +
                                              ", more than DirectML's 32-bit strides hold");
            }
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
    /// The strides given, or the packed strides (which throw where one does not fit 32 bits).
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
        sync();
        return *this;
    }
    /// Sets GuaranteedBaseOffsetAlignment (0, or a power of two of at least the element size).
    tensor_desc &set_guaranteed_base_offset_alignment(std::uint32_t alignment) noexcept {
        alignment_ = alignment;
        sync();
        return *this;
    }
    /// Sets DML_BUFFER_TENSOR_DESC.Flags (this library accepts only DML_TENSOR_FLAG_NONE).
    tensor_desc &set_flags(DML_TENSOR_FLAGS flags) noexcept {
        flags_ = flags;
        sync();
        return *this;
    }

    /// The DML_BUFFER_TENSOR_DESC, pointing into this object.
    const DML_BUFFER_TENSOR_DESC *buffer_desc() const noexcept { return &buffer_; }

    /// The DML_TENSOR_DESC (DML_TENSOR_TYPE_BUFFER), pointing into this object.
    const DML_TENSOR_DESC *get() const noexcept { return &tensor_; }

private:
    // Moves `o`'s fields here; both then point into themselves.
    void take(tensor_desc &o) noexcept {
        type_ = o.type_;
        sizes_ = std::move(o.sizes_);
        strides_ = std::move(o.strides_);
        has_strides_ = o.has_strides_;
        total_ = o.total_;
        alignment_ = o.alignment_;
        flags_ = o.flags_;
        sync();
        o.sync();
    }

    // Fills the DirectML structs from the fields: every constructor, copy, move and setter
    // calls it, so that get() and buffer_desc() only read.
    void sync() noexcept {
        buffer_.DataType = type_;
        buffer_.Flags = flags_;
        buffer_.DimensionCount = dimension_count();
        buffer_.Sizes = sizes_.data();
        buffer_.Strides = has_strides_ ? strides_.data() : nullptr;
        buffer_.TotalTensorSizeInBytes = total_;
        buffer_.GuaranteedBaseOffsetAlignment = alignment_;
        tensor_.Type = DML_TENSOR_TYPE_BUFFER;
        tensor_.Desc = &buffer_;
    }

    DML_TENSOR_DATA_TYPE type_;
    std::vector<std::uint32_t> sizes_;
    std::vector<std::uint32_t> strides_;
    bool has_strides_ = false;
    std::uint64_t total_ = 0;
    std::uint32_t alignment_ = 0;
    DML_TENSOR_FLAGS flags_ = DML_TENSOR_FLAG_NONE;
    DML_BUFFER_TENSOR_DESC buffer_{};
    DML_TENSOR_DESC tensor_{};
};

} // namespace dmls

#endif /* DIRECTML_SUBSET_TENSOR_DESC_HPP */
