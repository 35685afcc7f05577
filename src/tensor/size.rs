//! Buffer sizes: the bytes a tensor of some type, sizes and strides spans
//! (DirectMLX's `DMLCalcBufferTensorSize`), with overflow checks.

use super::dtype::DataType;
use crate::dml::DML_TENSOR_DATA_TYPE;

/// The most dimensions any tensor may have.
pub(crate) const MAX_DIMS: usize = 8;

/// DirectMLX's `DMLCalcBufferTensorSize`, computed in 64 bits with overflow checks: the bytes a
/// tensor of this type, sizes and (optional) strides spans, rounded up to a multiple of 4.
/// `None` when the computation overflows 64 bits, for 0 or more than 8 sizes, and for strides
/// that are not one per size (as `dmls_calc_buffer_tensor_size` answers 0).
pub fn calc_buffer_tensor_size(
    data_type: DataType,
    sizes: &[u32],
    strides: Option<&[u32]>,
) -> Option<u64> {
    if sizes.is_empty() || sizes.len() > MAX_DIMS || strides.is_some_and(|s| s.len() != sizes.len())
    {
        return None;
    }
    calc_size_bits(data_type.raw(), sizes, strides)
}

/// [`calc_buffer_tensor_size`] for any raw type, including the 4-bit ones (half a byte per
/// element). `None` for an unknown type or on overflow.
pub(crate) fn calc_size_bits(
    data_type: DML_TENSOR_DATA_TYPE,
    sizes: &[u32],
    strides: Option<&[u32]>,
) -> Option<u64> {
    let bits: u128 = match data_type.0 {
        12 | 13 => 4,
        _ => DataType::from_raw(data_type)?.size() as u128 * 8,
    };
    // 128-bit arithmetic: the element count of a 4-bit tensor can pass 2^64 while its byte
    // count does not. Eight 32-bit sizes or strides fit in 2^256 only, so keep checking.
    let elements: u128 = match strides {
        None => sizes
            .iter()
            .try_fold(1u128, |acc, &s| acc.checked_mul(u128::from(s)))?,
        Some(strides) => span_elements(sizes, strides.iter().map(|&s| u64::from(s))),
    };
    buffer_bytes(elements, bits)
}

/// The elements a tensor of these sizes and strides spans: one past the offset of its furthest
/// element, 0 when a size is 0. Eight 32-bit sizes times 64-bit strides stay below 2^99, so the
/// sum cannot overflow.
pub(crate) fn span_elements(sizes: &[u32], strides: impl IntoIterator<Item = u64>) -> u128 {
    if sizes.contains(&0) {
        return 0;
    }
    let last: u128 = sizes
        .iter()
        .zip(strides)
        .map(|(&s, st)| u128::from(s - 1) * u128::from(st))
        .sum();
    last + 1
}

/// The bytes `elements` elements of `bits` bits take, rounded up to a multiple of 4; `None`
/// past 2^64 − 1.
pub(super) fn buffer_bytes(elements: u128, bits: u128) -> Option<u64> {
    let bytes = elements.checked_mul(bits)?.div_ceil(8).checked_add(3)? & !3;
    u64::try_from(bytes).ok()
}
