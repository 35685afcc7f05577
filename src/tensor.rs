//! Tensor descs (owned, as a caller gave them) and validated tensor layouts.

use crate::dml::{
    DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAGS, DML_TENSOR_FLAG_NONE, DML_TENSOR_FLAG_OWNED_BY_DML,
};
use crate::error::{invalid, Result};

/// The most dimensions any tensor may have.
pub(crate) const MAX_DIMS: usize = 8;

/// The element types this library supports (DirectML's 11 types of 8 to 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// IEEE binary32.
    Float32,
    /// IEEE binary16.
    Float16,
    /// `uint32_t`.
    UInt32,
    /// `uint16_t`.
    UInt16,
    /// `uint8_t`.
    UInt8,
    /// `int32_t`.
    Int32,
    /// `int16_t`.
    Int16,
    /// `int8_t`.
    Int8,
    /// IEEE binary64.
    Float64,
    /// `uint64_t`.
    UInt64,
    /// `int64_t`.
    Int64,
}

impl DataType {
    /// All supported types, in DirectML's numeric order.
    pub const ALL: [DataType; 11] = [
        DataType::Float32,
        DataType::Float16,
        DataType::UInt32,
        DataType::UInt16,
        DataType::UInt8,
        DataType::Int32,
        DataType::Int16,
        DataType::Int8,
        DataType::Float64,
        DataType::UInt64,
        DataType::Int64,
    ];

    /// The supported type with this DirectML value, if any.
    pub fn from_raw(raw: DML_TENSOR_DATA_TYPE) -> Option<DataType> {
        match raw.0 {
            1..=11 => Some(Self::ALL[raw.0 as usize - 1]),
            _ => None,
        }
    }

    /// DirectML's value for this type.
    pub fn raw(self) -> DML_TENSOR_DATA_TYPE {
        DML_TENSOR_DATA_TYPE(Self::ALL.iter().position(|&t| t == self).unwrap_or(0) as u32 + 1)
    }

    /// The element size in bytes.
    pub fn size(self) -> usize {
        match self {
            DataType::UInt8 | DataType::Int8 => 1,
            DataType::Float16 | DataType::UInt16 | DataType::Int16 => 2,
            DataType::Float32 | DataType::UInt32 | DataType::Int32 => 4,
            DataType::Float64 | DataType::UInt64 | DataType::Int64 => 8,
        }
    }

    /// True for FLOAT16, FLOAT32 and FLOAT64.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        )
    }

    /// DirectML's name without the `DML_TENSOR_DATA_TYPE_` prefix.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Float32 => "FLOAT32",
            DataType::Float16 => "FLOAT16",
            DataType::UInt32 => "UINT32",
            DataType::UInt16 => "UINT16",
            DataType::UInt8 => "UINT8",
            DataType::Int32 => "INT32",
            DataType::Int16 => "INT16",
            DataType::Int8 => "INT8",
            DataType::Float64 => "FLOAT64",
            DataType::UInt64 => "UINT64",
            DataType::Int64 => "INT64",
        }
    }
}

impl From<DataType> for DML_TENSOR_DATA_TYPE {
    fn from(t: DataType) -> Self {
        t.raw()
    }
}

/// A name for a raw data-type value, for messages: `FLOAT32 (1)`, `UINT4 (12)`, `99`.
pub(crate) fn raw_type_name(raw: DML_TENSOR_DATA_TYPE) -> String {
    match DataType::from_raw(raw) {
        Some(t) => format!("{} ({})", t.name(), raw.0),
        None => match raw.0 {
            0 => "UNKNOWN (0)".to_string(),
            12 => "UINT4 (12)".to_string(),
            13 => "INT4 (13)".to_string(),
            v => format!("{v}"),
        },
    }
}

/// DirectMLX's `DMLCalcBufferTensorSize`, computed in 64 bits with overflow checks: the bytes a
/// tensor of this type, sizes and (optional) strides spans, rounded up to a multiple of 4.
/// `None` when the computation overflows 64 bits.
pub fn calc_buffer_tensor_size(
    data_type: DataType,
    sizes: &[u32],
    strides: Option<&[u32]>,
) -> Option<u64> {
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
fn buffer_bytes(elements: u128, bits: u128) -> Option<u64> {
    let bytes = elements.checked_mul(bits)?.div_ceil(8).checked_add(3)? & !3;
    u64::try_from(bytes).ok()
}

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

    /// `dmls_calc_buffer_tensor_size` of this desc: 0 for an unsupported type or on overflow.
    pub fn implied_size(&self) -> u64 {
        match DataType::from_raw(self.data_type) {
            Some(t) if self.dimension_count > 0 => {
                calc_buffer_tensor_size(t, self.sizes(), self.strides()).unwrap_or(0)
            }
            _ => 0,
        }
    }
}

/// A validated tensor: what kernels and binding checks use. Strides are resolved (packed when
/// the desc had none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
            return invalid!(
                "{op}: {tensor} TotalTensorSizeInBytes is {total}, must be a multiple of 4; round it \
                 up to {}",
                total.div_ceil(4) * 4
            );
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

    /// The proof that no two elements share an address, when the layout check found it.
    pub fn disjoint(&self) -> Option<Disjoint<'_>> {
        self.distinct.then_some(Disjoint { layout: self })
    }

    /// The rule for output tensors: no two elements share a byte (see [`find_collision`]).
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

/// Two index vectors of one tensor whose elements sit at the same element offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Collision {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub offset: u64,
}

/// Decides exactly whether two elements of a strided tensor share an address, and returns two
/// such elements when they do.
///
/// Strides count elements, so for element types of at least one byte two elements share a byte
/// exactly when their element offsets `Σ i_k · stride_k` are equal. (Sub-byte types, UINT4 and
/// INT4, are never output types here.)
///
/// The algorithm, on the dimensions of size above 1:
/// 1. A zero stride: elements 0 and 1 of that dimension collide.
/// 2. Sort by stride, ascending. Walking down from the largest stride, drop each dimension whose
///    stride exceeds the reach `R = Σ (size − 1) · stride` of all smaller-stride dimensions: if
///    two elements differed in such a dimension (the largest one where they differ), that
///    difference moves the offset by at least its stride, more than the smaller ones can take
///    back, so they cannot collide; they therefore agree there and the question is the same for
///    the remaining dimensions. When nothing remains (the usual packed, permuted, padded or
///    ONNX Runtime `{2, 2·M}` layouts), the elements are distinct: this is the fast path.
/// 3. Otherwise two elements collide exactly when some nonzero difference vector `d`, with
///    `|d_k| ≤ size_k − 1`, has `Σ d_k · stride_k = 0` (then `a_k = max(d_k, 0)` and
///    `b_k = max(−d_k, 0)` are the two elements). A depth-first search picks `d_k` from the
///    largest stride down, keeping only values from which the remaining smaller dimensions can
///    still reach zero (`|target| ≤ R` of the dimensions below), fixes the sign of the first
///    nonzero `d_k` (d and −d are the same pair), and remembers targets already found
///    hopeless at each level, so it visits each (level, target) state at most once. Its work is
///    therefore bounded by `Σ_k min(Π_{j ≥ k} (2·size_j − 1), 2·R_k + 1)`; in practice (what
///    survives step 2 has strides smaller than the reach below them, which makes a collision
///    easy to find) it ends after a handful of steps. This problem (bounded linear
///    Diophantine equations) is NP-hard in general, so no method is polynomial in the bits of
///    the strides for every input; at most 8 dimensions keep the search small, and
///    [`SEARCH_BUDGET`] bounds it for layouts built to defeat it.
#[cfg(test)]
pub(crate) fn find_collision(sizes: &[u32], strides: &[u64]) -> Option<Collision> {
    match overlap(sizes, strides, u64::MAX) {
        Overlap::Collides(c) => Some(c),
        Overlap::Disjoint => None,
        Overlap::Unsettled => unreachable!("no budget"),
    }
}

/// The steps step 3 of [`find_collision`] may take at operator creation (a few milliseconds, a
/// few tens of MB at most). No layout a real program uses comes near it: what survives step 2
/// collides after a handful of steps or is small. A layout the search cannot settle within it
/// is accepted and written by one thread, in element order, rather than have a crafted desc
/// hang or exhaust memory at creation.
pub(crate) const SEARCH_BUDGET: u64 = 1 << 20;

/// What [`overlap`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Overlap {
    /// No two elements share an address.
    Disjoint,
    /// These two do.
    Collides(Collision),
    /// The search ran out of its budget before it could tell.
    Unsettled,
}

/// [`find_collision`] with at most `budget` search steps.
pub(crate) fn overlap(sizes: &[u32], strides: &[u64], budget: u64) -> Overlap {
    let dims = sizes.len();
    // (stride, size, original dimension) of each dimension larger than 1.
    let mut live: Vec<(u64, u64, usize)> = Vec::with_capacity(dims);
    for k in 0..dims {
        if sizes[k] > 1 {
            if strides[k] == 0 {
                let mut b = vec![0; dims];
                b[k] = 1;
                return Overlap::Collides(Collision {
                    a: vec![0; dims],
                    b,
                    offset: 0,
                });
            }
            live.push((strides[k], u64::from(sizes[k]), k));
        }
    }
    live.sort_unstable();
    // reach[j]: the largest offset the dimensions before j (smaller strides) reach.
    let mut reach = vec![0u128; live.len() + 1];
    for (j, &(s, n, _)) in live.iter().enumerate() {
        reach[j + 1] = reach[j] + u128::from(s) * u128::from(n - 1);
    }
    let mut keep = live.len();
    while keep > 0 && u128::from(live[keep - 1].0) > reach[keep - 1] {
        keep -= 1;
    }
    if keep == 0 {
        return Overlap::Disjoint;
    }
    let live = &live[..keep];
    let d = match search_difference(live, &reach, budget) {
        Ok(Some(d)) => d,
        Ok(None) => return Overlap::Disjoint,
        Err(OutOfBudget) => return Overlap::Unsettled,
    };
    let mut a = vec![0u32; dims];
    let mut b = vec![0u32; dims];
    let mut offset = 0u64;
    for (j, &(s, _, k)) in live.iter().enumerate() {
        if d[j] > 0 {
            a[k] = d[j] as u32;
            offset += s * d[j] as u64;
        } else {
            b[k] = (-d[j]) as u32;
        }
    }
    Overlap::Collides(Collision { a, b, offset })
}

/// The search took more steps than its budget.
struct OutOfBudget;

/// Step 3 of [`find_collision`]: a nonzero `d` with `|d_j| < size_j` and `Σ d_j · stride_j = 0`.
fn search_difference(
    live: &[(u64, u64, usize)],
    reach: &[u128],
    budget: u64,
) -> core::result::Result<Option<Vec<i64>>, OutOfBudget> {
    use std::collections::HashSet;
    struct Search<'a> {
        live: &'a [(u64, u64, usize)],
        reach: &'a [u128],
        d: Vec<i64>,
        hopeless: HashSet<(usize, i128, bool)>,
        steps_left: u64,
    }
    impl Search<'_> {
        // Chooses d[j] (dimension j and those below must sum to `target`); `started` says a
        // higher dimension already has a nonzero d.
        fn go(&mut self, j: usize, target: i128, started: bool) -> bool {
            if j == 0 {
                return target == 0 && started;
            }
            let j = j - 1;
            if self.steps_left == 0 || self.hopeless.contains(&(j, target, started)) {
                return false;
            }
            self.steps_left -= 1;
            let (s, n, _) = self.live[j];
            let s = s as i128;
            let r = self.reach[j] as i128;
            let n1 = (n - 1) as i128;
            // |target - d·s| ≤ r  <=>  (target - r) / s ≤ d ≤ (target + r) / s.
            let mut lo = (target - r).div_euclid(s) + i128::from((target - r).rem_euclid(s) != 0);
            let mut hi = (target + r).div_euclid(s);
            lo = lo.max(-n1);
            hi = hi.min(n1);
            if !started {
                lo = lo.max(0);
            }
            let mut d = lo;
            while d <= hi {
                self.d[j] = d as i64;
                if self.go(j, target - d * s, started || d != 0) {
                    return true;
                }
                if self.steps_left == 0 {
                    // Out of budget: nothing below was settled, so nothing is remembered.
                    return false;
                }
                d += 1;
            }
            self.d[j] = 0;
            self.hopeless.insert((j, target, started));
            false
        }
    }
    let mut search = Search {
        live,
        reach,
        d: vec![0; live.len()],
        hopeless: HashSet::new(),
        steps_left: budget,
    };
    if search.go(live.len(), 0, false) {
        Ok(Some(search.d))
    } else if search.steps_left == 0 {
        Err(OutOfBudget)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod overlap_tests {
    use super::find_collision;

    fn brute(sizes: &[u32], strides: &[u64]) -> bool {
        let mut seen = std::collections::HashSet::new();
        let total: u64 = sizes.iter().map(|&s| u64::from(s)).product();
        for mut e in 0..total {
            let mut off = 0;
            for k in (0..sizes.len()).rev() {
                off += (e % u64::from(sizes[k])) * strides[k];
                e /= u64::from(sizes[k]);
            }
            if !seen.insert(off) {
                return true;
            }
        }
        false
    }

    fn offset(idx: &[u32], strides: &[u64]) -> u64 {
        idx.iter()
            .zip(strides)
            .map(|(&i, &s)| u64::from(i) * s)
            .sum()
    }

    fn check(sizes: &[u32], strides: &[u64], ctx: &str) {
        let found = find_collision(sizes, strides);
        assert_eq!(
            found.is_some(),
            brute(sizes, strides),
            "{ctx}: sizes {sizes:?} strides {strides:?}"
        );
        if let Some(c) = found {
            assert_ne!(c.a, c.b, "{ctx}");
            for (k, &n) in sizes.iter().enumerate() {
                assert!(c.a[k] < n && c.b[k] < n, "{ctx}: {c:?}");
            }
            assert_eq!(offset(&c.a, strides), c.offset, "{ctx}: {c:?}");
            assert_eq!(offset(&c.b, strides), c.offset, "{ctx}: {c:?}");
        }
    }

    #[test]
    fn a_search_out_of_budget_is_unsettled() {
        use super::{overlap, Overlap};
        // Interleaved and disjoint: step 2 cannot drop a dimension, so the search runs.
        assert_eq!(overlap(&[2, 3], &[3, 2], u64::MAX), Overlap::Disjoint);
        assert_eq!(overlap(&[2, 3], &[3, 2], 1), Overlap::Unsettled);
        assert!(matches!(
            overlap(&[3, 3], &[1, 2], u64::MAX),
            Overlap::Collides(_)
        ));
        // Separable layouts and zero strides need no search at all.
        assert_eq!(overlap(&[4, 4], &[4, 1], 0), Overlap::Disjoint);
        assert!(matches!(overlap(&[2, 2], &[0, 1], 0), Overlap::Collides(_)));
    }

    #[test]
    fn known_layouts() {
        check(&[2, 3], &[3, 2], "interleaved {3, 2}");
        assert!(find_collision(&[2, 3], &[3, 2]).is_none());
        assert!(find_collision(&[6, 3], &[2, 12]).is_none(), "ORT {{2, 2M}}");
        assert!(find_collision(&[1, 6, 3], &[0, 2, 12]).is_none());
        assert!(find_collision(&[2, 2], &[0, 1]).is_some());
        assert!(find_collision(&[3, 3], &[1, 2]).is_some());
        assert!(find_collision(&[4, 4], &[4, 1]).is_none());
        assert!(find_collision(&[5, 4], &[3, 1]).is_some());
        assert!(find_collision(&[65536, 65536], &[1, 1]).is_some());
        assert!(find_collision(&[65536, 65536], &[65536, 1]).is_none());
        assert!(find_collision(&[65536, 65536], &[65535, 1]).is_some());
        check(&[3, 3, 2], &[5, 7, 3], "mixed");
    }

    #[test]
    fn random_small_layouts_match_brute_force() {
        let seed = std::env::var("DMLS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            });
        println!("find_collision vs brute force: seed {seed} (rerun with DMLS_SEED={seed})");
        let mut x = seed | 1;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut overlapping = 0;
        for case in 0..20000 {
            let dims = 1 + next(4) as usize;
            let sizes: Vec<u32> = (0..dims).map(|_| 1 + next(5) as u32).collect();
            let strides: Vec<u64> = (0..dims).map(|_| next(14)).collect();
            check(&sizes, &strides, &format!("seed {seed} case {case}"));
            overlapping += usize::from(find_collision(&sizes, &strides).is_some());
        }
        // Both answers occur often enough for the comparison to mean something.
        assert!(
            overlapping > 2000 && overlapping < 18000,
            "seed {seed}: {overlapping}"
        );
    }
}
