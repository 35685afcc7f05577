//! The layout rules every buffer tensor obeys, and what the check needs to know of a tensor's
//! memory (its element offsets, whether two elements share bytes).

use directml_subset::dml::*;
use directml_subset::TensorDesc;

/// A tensor desc as the library is given it.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// The `DML_TENSOR_DESC *` is NULL.
    pub null: bool,
    /// `DML_TENSOR_DESC.Type`.
    pub ty: u32,
    /// `DML_TENSOR_DESC.Desc` is NULL.
    pub desc_null: bool,
    /// `DataType`.
    pub data_type: u32,
    /// `Flags`.
    pub flags: u32,
    /// `DimensionCount`.
    pub dims: u32,
    /// The `Sizes` array's entries.
    pub sizes: Vec<u32>,
    /// `Sizes` is NULL.
    pub sizes_null: bool,
    /// The `Strides` array's entries, when given.
    pub strides: Option<Vec<u32>>,
    /// `TotalTensorSizeInBytes`.
    pub total: u64,
    /// `GuaranteedBaseOffsetAlignment`.
    pub alignment: u32,
}

pub(crate) fn element_size(data_type: u32) -> Option<u64> {
    match data_type {
        5 | 8 => Some(1),
        2 | 4 | 7 => Some(2),
        1 | 3 | 6 => Some(4),
        9..=11 => Some(8),
        _ => None,
    }
}

impl Tensor {
    /// The element count, when the dimension count is 1 to 8 and it fits in 64 bits.
    pub fn elements(&self) -> Option<u64> {
        if !(1..=8).contains(&self.dims) {
            return None;
        }
        self.sizes
            .iter()
            .try_fold(1u64, |a, &s| a.checked_mul(u64::from(s)))
    }

    /// Strides in elements: given, or packed row-major (u128: packed strides of a huge tensor
    /// do not fit in 64 bits).
    pub(crate) fn strides_wide(&self) -> Vec<u128> {
        match &self.strides {
            Some(s) => s.iter().map(|&v| u128::from(v)).collect(),
            None => {
                let mut out = vec![0u128; self.sizes.len()];
                let mut acc = 1u128;
                for i in (0..self.sizes.len()).rev() {
                    out[i] = acc;
                    acc = acc.saturating_mul(u128::from(self.sizes[i]));
                }
                out
            }
        }
    }

    /// The element offsets, for a valid tensor.
    fn offsets(&self) -> Vec<u64> {
        let strides: Vec<u64> = self.strides_wide().iter().map(|&s| s as u64).collect();
        let n = self.elements().unwrap_or(0);
        let mut out = Vec::with_capacity(n as usize);
        for flat in 0..n {
            let mut rest = flat;
            let mut off = 0u64;
            for i in (0..self.sizes.len()).rev() {
                let s = u64::from(self.sizes[i]);
                off += (rest % s) * strides[i];
                rest /= s;
            }
            out.push(off);
        }
        out
    }

    /// True when no two elements share memory. Output tensors must be so: the library rejects
    /// one whose elements overlap at operator creation. A zero stride on a dimension above 1
    /// overlaps. Otherwise, sorted by stride, the largest dimensions whose stride exceeds the
    /// span of all smaller ones cannot make two elements meet (they must agree there), so only
    /// the rest counts: more elements than offsets in its span overlap (pigeonhole); at most
    /// 2^22 elements are decided by enumerating every offset; anything larger is taken as
    /// overlapping here, and [`Tensor::overlap_known`] says the model cannot tell.
    pub fn distinct(&self) -> bool {
        self.distinct_if_known().unwrap_or(false)
    }

    /// False when the model cannot tell whether the tensor's elements overlap (more than 2^22
    /// elements left to enumerate), so a case that hinges on it is not judged.
    pub fn overlap_known(&self) -> bool {
        self.distinct_if_known().is_some()
    }

    fn distinct_if_known(&self) -> Option<bool> {
        let strides = self.strides_wide();
        let mut dims: Vec<(u128, u128)> = self
            .sizes
            .iter()
            .zip(&strides)
            .filter(|(&n, _)| n > 1)
            .map(|(&n, &s)| (s, u128::from(n)))
            .collect();
        if dims.iter().any(|&(s, _)| s == 0) {
            return Some(false);
        }
        dims.sort_unstable();
        let span_below = |k: usize| -> u128 {
            dims[..k].iter().fold(0u128, |a, &(s, n)| {
                a.saturating_add(s.saturating_mul(n - 1))
            })
        };
        let mut keep = dims.len();
        while keep > 0 && dims[keep - 1].0 > span_below(keep - 1) {
            keep -= 1;
        }
        let rest = &dims[..keep];
        let elements = rest.iter().fold(1u128, |a, &(_, n)| a.saturating_mul(n));
        if elements > span_below(keep).saturating_add(1) {
            return Some(false);
        }
        if elements > 1 << 22 {
            return None;
        }
        let mut offsets = vec![0u128];
        for &(s, n) in rest {
            let mut next = Vec::with_capacity(offsets.len() * n as usize);
            for &o in &offsets {
                for i in 0..n {
                    next.push(o + i * s);
                }
            }
            offsets = next;
        }
        offsets.sort_unstable();
        Some(offsets.windows(2).all(|w| w[0] != w[1]))
    }

    /// For each byte of the tensor's total size: does it belong to an element?
    pub fn element_bytes(&self) -> Vec<bool> {
        let size = element_size(self.data_type).unwrap_or(1);
        let mut map = vec![false; self.total as usize];
        for o in self.offsets() {
            for b in 0..size {
                if let Some(m) = map.get_mut((o * size + b) as usize) {
                    *m = true;
                }
            }
        }
        map
    }

    /// The desc as the reference implementations take it.
    pub fn rust_desc(&self) -> TensorDesc {
        TensorDesc::raw(
            DML_TENSOR_DATA_TYPE(self.data_type),
            &self.sizes,
            self.strides.as_deref(),
            self.total,
        )
    }

    /// The rules every buffer tensor obeys (its data type was checked by the operator).
    pub(crate) fn valid_layout(&self, max_elements: u128) -> bool {
        let Some(size) = element_size(self.data_type) else {
            return false;
        };
        if self.flags != 0 || !(1..=8).contains(&self.dims) || self.sizes.contains(&0) {
            return false;
        }
        let elements = self
            .sizes
            .iter()
            .fold(1u128, |a, &s| a.saturating_mul(u128::from(s)));
        if elements > max_elements {
            return false;
        }
        let last: u128 = self
            .sizes
            .iter()
            .zip(self.strides_wide())
            .map(|(&s, t)| u128::from(s - 1).saturating_mul(t))
            .fold(0u128, |a, b| a.saturating_add(b));
        let min = (last + 1).saturating_mul(u128::from(size)).div_ceil(4) * 4;
        if min > u128::from(u64::MAX) {
            return false;
        }
        let a = self.alignment;
        u128::from(self.total) >= min
            && self.total.is_multiple_of(4)
            && self.total <= i64::MAX as u64
            && (a == 0 || (a.is_power_of_two() && u64::from(a) >= size))
    }

    /// What places the elements: the data type, the sizes and the resolved strides (in place
    /// needs the same; `TotalTensorSizeInBytes` and the alignment place no element).
    pub(crate) fn layout_key(&self) -> (u32, Vec<u32>, Vec<u128>) {
        (self.data_type, self.sizes.clone(), self.strides_wide())
    }
}
