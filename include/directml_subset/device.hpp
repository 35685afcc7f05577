/*
 * directml_subset/device.hpp: operators and devices, a part of directml_subset.hpp (include that).
 *
 * dmls::device and dmls::op own a dmls_device / dmls_operator and release it; both are move-only.
 * An operator keeps what it needs of its device alive. device::create_operator takes a raw
 * DML_OPERATOR_DESC or one of operator_desc.hpp's descs; op::execute() checks typed bindings
 * against the desc's tensor types (slot_types).
 */
#ifndef DIRECTML_SUBSET_DEVICE_HPP
#define DIRECTML_SUBSET_DEVICE_HPP

#include "../directml_subset.h"
#include "error.hpp"
#include "data_type.hpp"
#include "operator_desc.hpp"
#include "binding.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace dmls {

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
        for (std::size_t i = 0; i < n_out; ++i) {
            if (out[i].type() == DML_BINDING_TYPE_BUFFER && out[i].read_only()) {
                const bool named = slots_.op_name != nullptr && n_out == slots_.outputs.size();
                throw error(E_INVALIDARG,
                            std::string(slots_.op_name ? slots_.op_name : "dmls::op") + ": " +
                                (named ? slots_.outputs[i].first : "an output") + " (output " +
                                std::to_string(i) +
                                ") is bound to const memory; bind writable memory for an output");
            }
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

    /// `feature_level` 0 is the newest (6_4); `thread_count` 0 is one per logical core (or
    /// `RAYON_NUM_THREADS` when set); `flags` are DMLS_DEVICE_FLAG_* bits.
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
        // The desc's tensor types, read once the library has checked it (an allocation that
        // throws must not leak the operator).
        try {
            return op(handle, slot_types::of(desc));
        } catch (...) {
            dmls_operator_release(handle);
            throw;
        }
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

#endif /* DIRECTML_SUBSET_DEVICE_HPP */
