//! [`TensorDesc`]: a buffer tensor desc as the caller gave it, not yet validated.

use super::size::calc_size_bits;
pub(crate) use super::size::MAX_DIMS;
use crate::dml::{DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAGS, DML_TENSOR_FLAG_NONE};

/// A buffer tensor desc as the caller gave it, owned. Built from a C `DML_BUFFER_TENSOR_DESC` by
/// the C layer, or directly by Rust callers with [`TensorDesc::new`]. Nothing is validated until
/// an operator is created from it.
#[derive(Clone, Copy, Debug, Eq)]
pub struct TensorDesc {
    /// The element type (any value; validated at operator creation).
    pub data_type: DML_TENSOR_DATA_TYPE,
    /// `DML_TENSOR_FLAGS` bits (must be 0).
    pub flags: DML_TENSOR_FLAGS,
    /// The dimension count the caller gave (may exceed 8; then only the first 8 sizes are kept
    /// and validation rejects the desc).
    pub dimension_count: u32,
    sizes: [u32; MAX_DIMS],
    strides: [u32; MAX_DIMS],
    has_strides: bool,
    /// The strides given (validation rejects a count other than `dimension_count`).
    stride_count: u32,
    /// `TotalTensorSizeInBytes`.
    pub total_size: u64,
    /// `GuaranteedBaseOffsetAlignment` (0 = none).
    pub guaranteed_base_offset_alignment: u32,
}

/// Equal when every field a caller sees is: the sizes and strides up to `dimension_count`, not
/// what lies past it.
impl PartialEq for TensorDesc {
    fn eq(&self, other: &TensorDesc) -> bool {
        self.data_type == other.data_type
            && self.flags == other.flags
            && self.dimension_count == other.dimension_count
            && self.sizes() == other.sizes()
            && self.strides() == other.strides()
            && self.stride_count_mismatch() == other.stride_count_mismatch()
            && self.total_size == other.total_size
            && self.guaranteed_base_offset_alignment == other.guaranteed_base_offset_alignment
    }
}

impl TensorDesc {
    /// A packed tensor of this type and sizes, with `TotalTensorSizeInBytes` computed as DirectMLX
    /// does (0 when it overflows, which validation then rejects).
    pub fn new(data_type: impl Into<DML_TENSOR_DATA_TYPE>, sizes: &[u32]) -> TensorDesc {
        let mut desc = TensorDesc::raw(data_type.into(), sizes, None, 0);
        desc.total_size = desc.implied_size();
        desc
    }

    /// A tensor with explicit strides (in elements; 0 broadcasts) and a computed total size.
    /// Creating an operator from it fails with [`Error::InvalidArg`](crate::Error::InvalidArg)
    /// unless there is one stride per size.
    pub fn with_strides(
        data_type: impl Into<DML_TENSOR_DATA_TYPE>,
        sizes: &[u32],
        strides: &[u32],
    ) -> TensorDesc {
        let mut desc = TensorDesc::raw(data_type.into(), sizes, Some(strides), 0);
        desc.total_size = desc.implied_size();
        desc
    }

    /// Every field as given. `strides`, when given, must be as long as `sizes`: creating an
    /// operator from a desc with another count fails with
    /// [`Error::InvalidArg`](crate::Error::InvalidArg).
    pub fn raw(
        data_type: DML_TENSOR_DATA_TYPE,
        sizes: &[u32],
        strides: Option<&[u32]>,
        total_size: u64,
    ) -> TensorDesc {
        let mut s = [0u32; MAX_DIMS];
        let n = sizes.len().min(MAX_DIMS);
        s[..n].copy_from_slice(&sizes[..n]);
        let mut st = [0u32; MAX_DIMS];
        if let Some(strides) = strides {
            let m = strides.len().min(n);
            st[..m].copy_from_slice(&strides[..m]);
        }
        TensorDesc {
            data_type,
            flags: DML_TENSOR_FLAG_NONE,
            dimension_count: u32::try_from(sizes.len()).unwrap_or(u32::MAX),
            sizes: s,
            strides: st,
            has_strides: strides.is_some(),
            stride_count: strides.map_or(0, |s| u32::try_from(s.len()).unwrap_or(u32::MAX)),
            total_size,
            guaranteed_base_offset_alignment: 0,
        }
    }

    /// Sets `TotalTensorSizeInBytes`.
    pub fn total_size(mut self, bytes: u64) -> TensorDesc {
        self.total_size = bytes;
        self
    }

    /// Sets `GuaranteedBaseOffsetAlignment`.
    pub fn alignment(mut self, alignment: u32) -> TensorDesc {
        self.guaranteed_base_offset_alignment = alignment;
        self
    }

    /// The sizes kept (at most 8).
    pub fn sizes(&self) -> &[u32] {
        &self.sizes[..(self.dimension_count as usize).min(MAX_DIMS)]
    }

    /// The number of strides given, when they were given and are not one per size.
    pub(crate) fn stride_count_mismatch(&self) -> Option<u32> {
        (self.has_strides && self.stride_count != self.dimension_count).then_some(self.stride_count)
    }

    /// The strides, when given.
    pub fn strides(&self) -> Option<&[u32]> {
        self.has_strides
            .then(|| &self.strides[..(self.dimension_count as usize).min(MAX_DIMS)])
    }

    /// `dmls_calc_buffer_tensor_size` of this desc (DirectMLX's `DMLCalcBufferTensorSize`,
    /// in 64 bits): UINT4 and INT4 at half a byte per element; 0 for an unknown type, for 0 or
    /// more than 8 dimensions, for strides that are not one per size, and on overflow.
    pub fn implied_size(&self) -> u64 {
        if self.dimension_count == 0
            || self.dimension_count as usize > MAX_DIMS
            || self.stride_count_mismatch().is_some()
        {
            return 0;
        }
        calc_size_bits(self.data_type, self.sizes(), self.strides()).unwrap_or(0)
    }
}
