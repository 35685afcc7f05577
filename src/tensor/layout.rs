//! [`Layout`]: a validated tensor (the rules every buffer tensor obeys), whether it is packed,
//! and the [`Disjoint`] proof that no two of its elements share an address.

use super::desc::{TensorDesc, MAX_DIMS};
use super::dtype::DataType;
use super::overlap::{overlap, Overlap, SEARCH_BUDGET};
use super::size::{buffer_bytes, span_elements};
use crate::dml::DML_TENSOR_FLAG_OWNED_BY_DML;
use crate::error::{invalid, Result};

/// A validated tensor: what kernels and binding checks use. Strides are resolved (packed when
/// the desc had none). Not `PartialEq`: two descs of the same elements may differ in what was
/// proven of them (an output's layout has passed the exact overlap search, an input's only the
/// quick test) and in bytes that place no element; [`Layout::same_elements`] is the comparison
/// that matters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub dtype: DataType,
    pub dims: usize,
    pub sizes: [u32; MAX_DIMS],
    pub strides: [u64; MAX_DIMS],
    /// The product of the sizes.
    pub elements: u64,
    /// `TotalTensorSizeInBytes`: the bytes a binding must provide.
    pub total_bytes: u64,
    /// `GuaranteedBaseOffsetAlignment` (0 = none).
    pub alignment: u32,
    /// Elements sit in row-major order with no gaps (ignoring dimensions of size 1).
    pub packed: bool,
    /// No two elements share an address (proved by a sufficient condition; false means
    /// "maybe shared", e.g. a stride of 0 on a dimension larger than 1). Private: a
    /// [`Disjoint`] proof rests on it.
    distinct: bool,
}

/// Proof that no two elements of a layout share an address, so that threads writing different
/// elements never write the same memory. Only [`Layout::disjoint`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Disjoint<'a> {
    layout: &'a Layout,
}

impl<'a> Disjoint<'a> {
    /// The layout proven disjoint.
    pub fn layout(&self) -> &'a Layout {
        self.layout
    }
}

/// Who a tensor belongs to, for messages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    pub op: &'static str,
    pub tensor: &'static str,
}

impl Layout {
    /// Checks the rules every buffer tensor obeys, except for its data type, which the operator
    /// has already checked and passes in. `max_elements` is 2^32 − 1 unless an extension lifts it.
    pub fn validate(
        desc: &TensorDesc,
        dtype: DataType,
        ctx: Ctx,
        max_elements: u64,
    ) -> Result<Layout> {
        let Ctx { op, tensor } = ctx;
        if desc.flags.0 != 0 {
            if desc.flags == DML_TENSOR_FLAG_OWNED_BY_DML {
                return invalid!(
                    "{op}: {tensor} Flags is DML_TENSOR_FLAG_OWNED_BY_DML (0x1), which applies only \
                     to inputs bound at operator initialization; this library has none, so Flags \
                     must be DML_TENSOR_FLAG_NONE"
                );
            }
            return invalid!(
                "{op}: {tensor} Flags is {:#x}, which has unknown bits; Flags must be \
                 DML_TENSOR_FLAG_NONE (0)",
                desc.flags.0
            );
        }
        let dims = desc.dimension_count as usize;
        if dims == 0 || dims > MAX_DIMS {
            return invalid!(
                "{op}: {tensor} DimensionCount is {dims}, must be 1 to {MAX_DIMS}",
                dims = desc.dimension_count
            );
        }
        if let Some(given) = desc.stride_count_mismatch() {
            return invalid!(
                "{op}: {tensor} has {given} Strides for DimensionCount {dims}; one stride per \
                 size is needed"
            );
        }
        let sizes = desc.sizes();
        let mut elements: u64 = 1;
        for (i, &s) in sizes.iter().enumerate() {
            if s == 0 {
                return invalid!("{op}: {tensor} Sizes[{i}] is 0, every size must be at least 1");
            }
            elements = elements.saturating_mul(u64::from(s));
        }
        if elements > max_elements {
            return invalid!(
                "{op}: {tensor} has {elements} elements (Sizes {sizes:?}), more than the {max_elements} a tensor may hold"
            );
        }
        let mut strides = [0u64; MAX_DIMS];
        match desc.strides() {
            Some(given) => {
                for (d, &g) in strides.iter_mut().zip(given) {
                    *d = u64::from(g);
                }
            }
            None => {
                // Fits: the product of all sizes fits in 64 bits (checked above or below 2^64).
                let mut acc: u64 = 1;
                for i in (0..dims).rev() {
                    strides[i] = acc;
                    acc = acc.saturating_mul(u64::from(sizes[i]));
                }
            }
        }
        let span = span_elements(sizes, strides[..dims].iter().copied());
        let min = buffer_bytes(span, 8 * dtype.size() as u128);
        let Some(min) = min else {
            return invalid!(
                "{op}: {tensor} Sizes {sizes:?} with Strides {:?} span more than 2^64 bytes",
                &strides[..dims]
            );
        };
        let total = desc.total_size;
        if total < min {
            return invalid!(
                "{op}: {tensor} TotalTensorSizeInBytes is {total}, less than the {min} bytes its \
                 sizes and strides need; set it to at least {min} (DMLCalcBufferTensorSize)"
            );
        }
        if !total.is_multiple_of(4) {
            return match total.checked_next_multiple_of(4) {
                Some(up) => invalid!(
                    "{op}: {tensor} TotalTensorSizeInBytes is {total}, must be a multiple of 4; \
                     round it up to {up}"
                ),
                None => invalid!(
                    "{op}: {tensor} TotalTensorSizeInBytes is {total}, must be a multiple of 4 \
                     (and at most {})",
                    isize::MAX
                ),
            };
        }
        if usize::try_from(total).is_err() || total > isize::MAX as u64 {
            return invalid!(
                "{op}: {tensor} TotalTensorSizeInBytes is {total}, more than this machine can address"
            );
        }
        let alignment = desc.guaranteed_base_offset_alignment;
        if alignment != 0 && (!alignment.is_power_of_two() || (alignment as usize) < dtype.size()) {
            return invalid!(
                "{op}: {tensor} GuaranteedBaseOffsetAlignment is {alignment}, must be 0 or a power \
                 of two of at least the element size {}",
                dtype.size()
            );
        }
        let mut layout = Layout {
            dtype,
            dims,
            sizes: [1; MAX_DIMS],
            strides,
            elements,
            total_bytes: total,
            alignment,
            packed: false,
            distinct: false,
        };
        layout.sizes[..dims].copy_from_slice(sizes);
        layout.packed = layout.compute_packed();
        layout.distinct = layout.packed || layout.compute_distinct();
        Ok(layout)
    }

    pub fn sizes(&self) -> &[u32] {
        &self.sizes[..self.dims]
    }

    pub fn strides(&self) -> &[u64] {
        &self.strides[..self.dims]
    }

    /// True when every element of `self` is at the same byte offset as the same element of
    /// `other`, with the same data type: the same type and sizes, and the same strides where a
    /// dimension has more than one element (the stride of a dimension of size 1 moves to no
    /// element). (What running in place needs; `TotalTensorSizeInBytes` and
    /// `GuaranteedBaseOffsetAlignment` place no element.)
    pub fn same_elements(&self, other: &Layout) -> bool {
        self.dtype == other.dtype
            && self.sizes() == other.sizes()
            && self
                .sizes()
                .iter()
                .zip(self.strides().iter().zip(other.strides()))
                .all(|(&size, (a, b))| size <= 1 || a == b)
    }

    /// The proof that no two elements share an address, when the layout check found it.
    pub fn disjoint(&self) -> Option<Disjoint<'_>> {
        self.distinct.then_some(Disjoint { layout: self })
    }

    /// The rule for output tensors: no two elements share a byte (see [`overlap`]).
    /// An output that passes is marked `distinct`, so kernels may write it from several threads.
    pub fn check_output_disjoint(&mut self, ctx: Ctx) -> Result<()> {
        if !self.distinct {
            let dims = self.dims;
            let overlap = overlap(&self.sizes[..dims], &self.strides[..dims], SEARCH_BUDGET);
            if let Overlap::Collides(c) = overlap {
                let Ctx { op, tensor } = ctx;
                return invalid!(
                    "{op}: {tensor} Strides {:?} with Sizes {:?} make elements share memory \
                     (elements {:?} and {:?} are both at element offset {}); no two elements \
                     of an output tensor may overlap",
                    &self.strides[..dims],
                    self.sizes(),
                    c.a,
                    c.b,
                    c.offset
                );
            }
            // Unsettled (see SEARCH_BUDGET): accepted, and not marked distinct, so the kernels
            // write it from one thread.
            self.distinct = overlap == Overlap::Disjoint;
        }
        Ok(())
    }

    fn compute_packed(&self) -> bool {
        let mut expect: u64 = 1;
        for i in (0..self.dims).rev() {
            if self.sizes[i] != 1 && self.strides[i] != expect {
                return false;
            }
            expect *= u64::from(self.sizes[i]);
        }
        true
    }

    /// A sufficient condition for distinct addresses: sorted by stride, each dimension's stride
    /// exceeds the furthest offset reachable through the smaller ones.
    fn compute_distinct(&self) -> bool {
        let mut dims: [(u64, u64); MAX_DIMS] = [(0, 0); MAX_DIMS];
        let mut n = 0;
        for i in 0..self.dims {
            if self.sizes[i] > 1 {
                dims[n] = (self.strides[i], u64::from(self.sizes[i]));
                n += 1;
            }
        }
        let dims = &mut dims[..n];
        dims.sort_unstable();
        let mut reach = 0u64;
        for &(stride, size) in dims.iter() {
            if stride <= reach {
                return false;
            }
            reach += stride * (size - 1);
        }
        true
    }
}

#[cfg(test)]
mod tests;
