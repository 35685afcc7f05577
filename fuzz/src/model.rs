//! An independent model of the rules (directml-reference.md and api.md), written from the
//! documents rather than from the library's code: it predicts whether a call succeeds and, when
//! it fails, which codes the documents allow. Where the documents leave the order of checks
//! open (a NULL pointer and a broken rule in one call), every code that could come first is
//! allowed.

use directml_subset::dml::*;
use directml_subset::ffi::dmls_device_desc;
use directml_subset::TensorDesc;

/// Every DirectML feature level, oldest first.
pub const KNOWN_LEVELS: [u32; 15] = [
    0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200, 0x6000, 0x6100,
    0x6200, 0x6300, 0x6400,
];

/// The codes a failing call may return.
pub type Codes = Vec<HRESULT>;

fn codes(pointer: bool, invalid: bool, unsupported: bool) -> Codes {
    let mut c = Vec::new();
    if pointer {
        c.push(E_POINTER);
    }
    if invalid {
        c.push(E_INVALIDARG);
    }
    if unsupported {
        c.push(DXGI_ERROR_UNSUPPORTED);
    }
    c
}

/// `dmls_device_create`.
pub fn device(d: &dmls_device_desc) -> Result<(), Codes> {
    let l = d.feature_level.0;
    let unsupported = l > 0x6400 && l <= 0xFFFF && l & 0xFF == 0;
    let bad_level = !(l == 0 || KNOWN_LEVELS.contains(&l) || unsupported);
    let invalid = bad_level || d.flags & !1 != 0 || d.thread_count > 1024;
    if !invalid && !unsupported {
        return Ok(());
    }
    let mut c = codes(false, invalid, unsupported);
    // Not enough threads or memory is always possible.
    c.push(E_OUTOFMEMORY);
    Err(c)
}

/// `dmls_device_check_feature_support`; the answer's 32 bits on success.
#[allow(clippy::too_many_arguments)]
pub fn query(
    device_level: DML_FEATURE_LEVEL,
    feature: DML_FEATURE,
    query_null: bool,
    support_null: bool,
    query_size: u32,
    support_size: u32,
    data_type: u32,
    levels: &[u32],
    levels_null: bool,
) -> Result<u32, Codes> {
    let unknown = feature.0 > 1;
    let pointer = query_null || support_null;
    let (want_q, want_s) = if feature.0 == 1 { (16, 4) } else { (4, 4) };
    let sizes = !unknown && (query_size != want_q || support_size != want_s);
    if unknown || pointer || sizes {
        return Err(codes(pointer, sizes, unknown));
    }
    if feature.0 == 0 {
        return Ok(u32::from((1..=11).contains(&data_type)));
    }
    if levels.is_empty() {
        return Err(codes(false, true, false));
    }
    if levels_null {
        return Err(codes(true, false, false));
    }
    if levels.iter().any(|l| !KNOWN_LEVELS.contains(l)) {
        return Err(codes(false, true, false));
    }
    levels
        .iter()
        .copied()
        .filter(|&l| l <= device_level.0)
        .max()
        .ok_or_else(|| codes(false, false, true))
}

/// `dmls_calc_buffer_tensor_size` for 1 to 8 dimensions: DirectMLX's formula without wrapping;
/// 0 for an unknown type, a size of 0, or more than 2^64 − 1 bytes.
pub fn calc_size(data_type: u32, sizes: &[u32], strides: Option<&[u32]>) -> u64 {
    let bits: u128 = match data_type {
        12 | 13 => 4,
        5 | 8 => 8,
        2 | 4 | 7 => 16,
        1 | 3 | 6 => 32,
        9..=11 => 64,
        _ => return 0,
    };
    if sizes.contains(&0) {
        return 0;
    }
    let elements: u128 = match strides {
        None => sizes
            .iter()
            .try_fold(1u128, |a, &s| a.checked_mul(u128::from(s)))
            .unwrap_or(u128::MAX),
        Some(st) => {
            1 + sizes
                .iter()
                .zip(st)
                .map(|(&s, &t)| u128::from(s - 1) * u128::from(t))
                .sum::<u128>()
        }
    };
    let bytes = elements
        .checked_mul(bits)
        .map(|b| b.div_ceil(8).div_ceil(4) * 4);
    match bytes {
        Some(b) if b <= u128::from(u64::MAX) => b as u64,
        _ => 0,
    }
}

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

fn element_size(data_type: u32) -> Option<u64> {
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
    fn strides_wide(&self) -> Vec<u128> {
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
    fn valid_layout(&self, max_elements: u128) -> bool {
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

    /// Resolved strides (for "same layout").
    fn layout_key(&self) -> (Vec<u128>, u64, u32) {
        (self.strides_wide(), self.total, self.alignment)
    }
}

/// Which operator a valid desc made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// NONZERO_COORDINATES.
    NonZero,
    /// DIAGONAL_MATRIX1, with or without an input tensor.
    Diagonal1 {
        /// The desc's InputTensor was given.
        has_input: bool,
    },
    /// DIAGONAL_MATRIX.
    Diagonal,
}

/// A valid operator.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// The operator.
    pub op: Op,
}

const U32_MAX: u128 = u32::MAX as u128;

/// `dmls_device_create_operator`. `tensors` are NONZERO's input, count and coordinates, or
/// DIAGONAL_MATRIX1's input and output, or (-, DIAGONAL_MATRIX's output).
pub fn create(
    level: DML_FEATURE_LEVEL,
    ext: bool,
    op_type: DML_OPERATOR_TYPE,
    desc_null: u8,
    t: &[Tensor; 3],
    value_type: u32,
) -> Result<Plan, Codes> {
    if (2..=4).contains(&desc_null) {
        return Err(codes(true, false, false));
    }
    let ty = op_type.0;
    if ty == 0 || ty > 177 {
        return Err(codes(false, true, false));
    }
    if ![93, 133, 163].contains(&ty) {
        return Err(vec![E_NOTIMPL]);
    }
    if desc_null == 1 {
        return Err(codes(true, false, false));
    }
    // Which tensors the desc points to, and which of them must be there.
    let slots: &[(usize, bool)] = match ty {
        133 => &[(0, true), (1, true), (2, true)],
        163 => &[(0, false), (1, true)],
        _ => &[(1, true)],
    };
    let mut pointer = false;
    let mut bad_type = false;
    for &(i, required) in slots {
        let x = &t[i];
        if x.null {
            pointer |= required;
            continue;
        }
        if x.ty != 1 {
            bad_type = true;
            continue;
        }
        if x.desc_null || ((1..=8).contains(&x.dims) && x.sizes_null) {
            pointer = true;
        }
    }
    if pointer || bad_type {
        return Err(codes(pointer, bad_type, false));
    }
    let l = level.0;
    let ok = match ty {
        133 => nonzero(l, ext, t),
        163 => diagonal1(l, t, value_type),
        _ => diagonal(l, &t[1]),
    };
    if !ok {
        return Err(codes(false, true, false));
    }
    Ok(Plan {
        op: match ty {
            133 => Op::NonZero,
            163 => Op::Diagonal1 {
                has_input: !t[0].null,
            },
            _ => Op::Diagonal,
        },
    })
}

fn nonzero(l: u32, ext: bool, t: &[Tensor; 3]) -> bool {
    let (input, count, coords) = (&t[0], &t[1], &t[2]);
    if l < 0x3000 {
        return false;
    }
    let input_ok =
        (1..=8).contains(&input.data_type) || (ext && (9..=11).contains(&input.data_type));
    let out_ok = |d: u32| d == 3 || (ext && (d == 10 || d == 11));
    if !input_ok || !out_ok(count.data_type) || count.data_type != coords.data_type {
        return false;
    }
    let (di, dc, dk) = (input.dims, count.dims, coords.dims);
    if l < 0x4000 {
        if ![di, dc, dk].iter().all(|d| (4..=5).contains(d)) || di != dc || di != dk {
            return false;
        }
    } else if !(1..=8).contains(&di) || !(1..=8).contains(&dc) || !(2..=8).contains(&dk) {
        return false;
    }
    let max = if count.data_type == 3 {
        U32_MAX
    } else {
        u128::from(u64::MAX)
    };
    if !input.valid_layout(max) || !count.valid_layout(max) || !coords.valid_layout(max) {
        return false;
    }
    if count.sizes.iter().any(|&s| s != 1) {
        return false;
    }
    let k = coords.sizes.len();
    let n = coords.sizes[k - 1] as usize;
    let m: u128 = if count.data_type == 3 {
        // {1, ..., 1, M, N}.
        if coords.sizes[..k - 2].iter().any(|&s| s != 1) {
            return false;
        }
        u128::from(coords.sizes[k - 2])
    } else {
        // Extension (64-bit outputs): the rows may spread over every dimension before N when
        // they stay evenly spaced (each leading stride is the row stride times the rows below).
        let strides = coords.strides_wide();
        let row_stride = strides[k - 2];
        let mut rows: u128 = u128::from(coords.sizes[k - 2]);
        for i in (0..k - 2).rev() {
            let s = coords.sizes[i];
            if s != 1 && Some(strides[i]) != row_stride.checked_mul(rows) {
                return false;
            }
            rows = rows.saturating_mul(u128::from(s));
        }
        rows
    };
    let lead = input.sizes.iter().take_while(|&&s| s == 1).count();
    let rank = input.sizes.len() - lead;
    input.elements().map(u128::from) == Some(m)
        && n >= rank
        && n <= input.sizes.len()
        && count.distinct()
        && coords.distinct()
}

fn diagonal1(l: u32, t: &[Tensor; 3], value_type: u32) -> bool {
    let (input, output) = (&t[0], &t[1]);
    if l < 0x5100 || !(1..=11).contains(&output.data_type) || value_type != output.data_type {
        return false;
    }
    if !(2..=4).contains(&output.dims) || !output.valid_layout(U32_MAX) || !output.distinct() {
        return false;
    }
    if input.null {
        return true;
    }
    input.data_type == output.data_type
        && input.dims == output.dims
        && input.valid_layout(U32_MAX)
        && input.sizes == output.sizes
}

fn diagonal(l: u32, output: &Tensor) -> bool {
    let needs = match output.data_type {
        1 | 2 => 0x2000,
        3..=8 => 0x2100,
        9..=11 => 0x5100,
        _ => return false,
    };
    if l < needs {
        return false;
    }
    let dims_ok = if l < 0x4000 {
        output.dims == 4
    } else {
        (2..=4).contains(&output.dims)
    };
    dims_ok && output.valid_layout(U32_MAX) && output.distinct()
}

/// One binding as the library is given it.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// `DML_BINDING_DESC.Type`.
    pub ty: u32,
    /// `DML_BINDING_DESC.Desc` is NULL.
    pub desc_null: bool,
    /// `DML_BUFFER_BINDING.Buffer` (0 for NULL).
    pub buffer: u64,
    /// `Offset`.
    pub offset: u64,
    /// `SizeInBytes`.
    pub size: u64,
}

/// `dmls_operator_execute` on a valid operator. `bindings` are input slot 0, output slots 0
/// and 1; `array_nulls` bit 0: `inputs` NULL, bit 1: `outputs` NULL, bit 2: `op` NULL.
pub fn execute(
    plan: &Plan,
    t: &[Tensor; 3],
    input_count: u32,
    output_count: u32,
    array_nulls: u8,
    bindings: &[Binding],
) -> Result<(), Codes> {
    if array_nulls & 4 != 0 {
        return Err(codes(true, false, false));
    }
    // (tensor of each input slot (None: optional and absent)), tensors of output slots.
    let (ins, outs): (Vec<Option<usize>>, Vec<usize>) = match plan.op {
        Op::NonZero => (vec![Some(0)], vec![1, 2]),
        Op::Diagonal1 { has_input } => (vec![has_input.then_some(0)], vec![1]),
        Op::Diagonal => (vec![], vec![1]),
    };
    if input_count as usize != ins.len() || output_count as usize != outs.len() {
        return Err(codes(false, true, false));
    }
    if (!ins.is_empty() && array_nulls & 1 != 0) || array_nulls & 2 != 0 {
        return Err(codes(true, false, false));
    }
    let mut pointer = false;
    let mut invalid = false;
    // (start, length, tensor) of each bound range, inputs first.
    let mut in_ranges: Vec<(u128, u128, usize)> = Vec::new();
    let mut out_ranges: Vec<(u128, u128, usize)> = Vec::new();
    let slots = ins.iter().map(|&s| (0usize, s, true)).chain(
        outs.iter()
            .enumerate()
            .map(|(i, &s)| (i + 1, Some(s), false)),
    );
    for (b, tensor, is_input) in slots {
        let x = bindings[b];
        match x.ty {
            0 => {
                // NONE: only for an input the desc left out.
                if !is_input || tensor.is_some() {
                    invalid = true;
                }
                continue;
            }
            1 => {}
            _ => {
                invalid = true;
                continue;
            }
        }
        if x.desc_null || x.buffer == 0 {
            pointer = true;
            continue;
        }
        let Some(ti) = tensor else {
            // A buffer for an input the desc left out.
            invalid = true;
            continue;
        };
        let tensor = &t[ti];
        let size = element_size(tensor.data_type).expect("valid tensor");
        let align = u64::from(tensor.alignment);
        let need = if align != 0 { align } else { 16 };
        let start = u128::from(x.buffer) + u128::from(x.offset);
        let end = start + u128::from(x.size);
        if !x.offset.is_multiple_of(need)
            || x.size < tensor.total
            || end > i64::MAX as u128
            || start % u128::from(align.max(size)) != 0
        {
            invalid = true;
            continue;
        }
        let r = (start, u128::from(tensor.total), ti);
        if is_input {
            in_ranges.push(r);
        } else {
            out_ranges.push(r);
        }
    }
    let overlap =
        |a: (u128, u128, usize), b: (u128, u128, usize)| a.0 < b.0 + b.1 && b.0 < a.0 + a.1;
    for (i, &o) in out_ranges.iter().enumerate() {
        for &p in &out_ranges[i + 1..] {
            if overlap(o, p) {
                invalid = true;
            }
        }
        for &r in &in_ranges {
            if !overlap(o, r) {
                continue;
            }
            let in_place = matches!(plan.op, Op::Diagonal1 { .. })
                && o.0 == r.0
                && t[o.2].layout_key() == t[r.2].layout_key();
            if !in_place {
                invalid = true;
            }
        }
    }
    if pointer || invalid {
        return Err(codes(pointer, invalid, false));
    }
    Ok(())
}
