//! [`TensorDesc`]: a buffer tensor desc as the caller gave it, not yet validated.

use super::size::calc_size_bits;
use crate::dml::{DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAGS, DML_TENSOR_FLAG_NONE};

/// The most dimensions any tensor may have.
pub(crate) const MAX_DIMS: usize = 8;

/// A buffer tensor desc as the caller gave it, owned. Built from a C `DML_BUFFER_TENSOR_DESC` by
/// the C layer, or directly by Rust callers with [`TensorDesc::new`]. Nothing is validated until
/// an operator is created from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// `TotalTensorSizeInBytes`.
    pub total_size: u64,
    /// `GuaranteedBaseOffsetAlignment` (0 = none).
    pub guaranteed_base_offset_alignment: u32,
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
    pub fn with_strides(
        data_type: impl Into<DML_TENSOR_DATA_TYPE>,
        sizes: &[u32],
        strides: &[u32],
    ) -> TensorDesc {
        let mut desc = TensorDesc::raw(data_type.into(), sizes, Some(strides), 0);
        desc.total_size = desc.implied_size();
        desc
    }

    /// Every field as given. `strides`, when given, must be as long as `sizes` (extra entries
    /// are ignored; missing ones count as 0).
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

    /// The strides, when given.
    pub fn strides(&self) -> Option<&[u32]> {
        self.has_strides
            .then(|| &self.strides[..(self.dimension_count as usize).min(MAX_DIMS)])
    }

    /// `dmls_calc_buffer_tensor_size` of this desc (DirectMLX's `DMLCalcBufferTensorSize`,
    /// in 64 bits): UINT4 and INT4 at half a byte per element; 0 for an unknown type, for 0 or
    /// more than 8 dimensions, and on overflow.
    pub fn implied_size(&self) -> u64 {
        if self.dimension_count == 0 || self.dimension_count as usize > MAX_DIMS {
            return 0;
        }
        calc_size_bits(self.data_type, self.sizes(), self.strides()).unwrap_or(0)
    }
}
