/*
 * directml_subset/operator_desc.hpp: operator descs, a part of directml_subset.hpp (include that).
 *
 * dmls::nonzero_coordinates, dmls::diagonal_matrix1 and dmls::diagonal_matrix build operator descs
 * that own their tensor descs; nonzero_coordinates derives the output tensors from the input, as
 * DirectMLX does. device::create_operator (device.hpp) takes them.
 */
#ifndef DIRECTML_SUBSET_OPERATOR_DESC_HPP
#define DIRECTML_SUBSET_OPERATOR_DESC_HPP

#include "../directml_subset.h"
#include "data_type.hpp"
#include "tensor_desc.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace dmls {

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
/// with DMLS_DEVICE_FLAG_EXTENSIONS, UINT64 or INT64). More than 2^32 - 1 rows (64-bit outputs
/// only) do not fit one UINT size: they spread over the sizes before N, {..., A, B, N} with
/// A × B = M, packed (the extension's evenly spaced rows), the coordinates then having more
/// dimensions than the input where it has too few.
inline nonzero_coordinates_desc nonzero_coordinates(
    const tensor_desc &input, DML_TENSOR_DATA_TYPE output_type = DML_TENSOR_DATA_TYPE_UINT32) {
    const std::size_t dims = input.sizes().size();
    std::vector<std::uint32_t> count_sizes(dims == 0 ? 1 : dims, 1u);
    // The rows' sizes, outermost first: M, or past 2^32 - 1 the input's sizes grouped from the
    // innermost while a group's product fits a UINT.
    std::vector<std::uint32_t> rows;
    const std::uint64_t m = input.element_count();
    if (m <= 0xFFFFFFFFu) {
        rows.push_back(static_cast<std::uint32_t>(m));
    } else {
        std::uint64_t group = 1;
        for (auto s = input.sizes().rbegin(); s != input.sizes().rend(); ++s) {
            if (group * *s > 0xFFFFFFFFu) {
                rows.insert(rows.begin(), static_cast<std::uint32_t>(group));
                group = 1;
            }
            group *= *s;
        }
        rows.insert(rows.begin(), static_cast<std::uint32_t>(group));
    }
    std::vector<std::uint32_t> coord_sizes(std::max({dims, std::size_t{2}, rows.size() + 1}), 1u);
    std::copy(rows.begin(), rows.end(), coord_sizes.end() - 1 - static_cast<std::ptrdiff_t>(rows.size()));
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

} // namespace dmls

#endif /* DIRECTML_SUBSET_OPERATOR_DESC_HPP */
