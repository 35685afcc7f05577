//! DIAGONAL_MATRIX1 and DIAGONAL_MATRIX: validation and one kernel for both.
//!
//! Each output row is at most three segments (value / input-or-zero / value, or the other way
//! round), found from DiagonalFillBegin and DiagonalFillEnd in 64-bit arithmetic. A packed row's
//! segments are slice fills and copies (memset and memcpy speed); strided layouts go element by
//! element.

use rayon::prelude::*;

use super::{Config, Input, Word, Workers};
use crate::dml::*;
use crate::error::{invalid, Result};
use crate::level;
use crate::tensor::{raw_type_name, Ctx, DataType, Layout, TensorDesc};

/// A validated DIAGONAL_MATRIX1 or DIAGONAL_MATRIX operator.
#[derive(Clone, Debug)]
pub(crate) struct DiagonalPlan {
    pub name: &'static str,
    pub input_slots: [Option<Layout>; 1],
    pub n_inputs: usize,
    pub output: Layout,
    /// The fill value's bits in the output type (native endian, first `size` bytes).
    pub value: [u8; 8],
    pub begin: i64,
    pub end: i64,
}

impl DiagonalPlan {
    pub fn input_slots(&self) -> &[Option<Layout>] {
        &self.input_slots[..self.n_inputs]
    }
}

const OP1: &str = "DIAGONAL_MATRIX1";
const OP0: &str = "DIAGONAL_MATRIX";

pub(crate) fn plan1(
    cfg: &Config,
    input: Option<&TensorDesc>,
    output: &TensorDesc,
    value_data_type: DML_TENSOR_DATA_TYPE,
    value: [u8; 8],
    begin: i32,
    end: i32,
) -> Result<DiagonalPlan> {
    if cfg.level < DML_FEATURE_LEVEL_5_1 {
        return invalid!(
            "{OP1} was introduced in DML_FEATURE_LEVEL_5_1; this device emulates DML_FEATURE_LEVEL_{}",
            level::name(cfg.level)
        );
    }
    let Some(dtype) = DataType::from_raw(output.data_type) else {
        return invalid!(
            "{OP1}: OutputTensor DataType is {}, must be one of FLOAT64, FLOAT32, FLOAT16, INT64, \
             INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8",
            raw_type_name(output.data_type)
        );
    };
    if value_data_type != output.data_type {
        return invalid!(
            "{OP1}: ValueDataType is {}, must equal OutputTensor's DataType {}",
            raw_type_name(value_data_type),
            dtype.name()
        );
    }
    if !(2..=4).contains(&output.dimension_count) {
        return invalid!(
            "{OP1}: OutputTensor DimensionCount is {}, must be 2 to 4",
            output.dimension_count
        );
    }
    if let Some(input) = input {
        if input.data_type != output.data_type {
            return invalid!(
                "{OP1}: InputTensor DataType is {}, must equal OutputTensor's DataType {}",
                raw_type_name(input.data_type),
                dtype.name()
            );
        }
        if input.dimension_count != output.dimension_count {
            return invalid!(
                "{OP1}: InputTensor DimensionCount is {}, must equal OutputTensor's {}",
                input.dimension_count,
                output.dimension_count
            );
        }
    }
    let max = u64::from(u32::MAX);
    let out_l = Layout::validate(output, dtype, ctx(OP1, "OutputTensor"), max)?;
    let in_l = match input {
        Some(input) => {
            let l = Layout::validate(input, dtype, ctx(OP1, "InputTensor"), max)?;
            if l.sizes() != out_l.sizes() {
                return invalid!(
                    "{OP1}: InputTensor Sizes {:?} must equal OutputTensor Sizes {:?}",
                    l.sizes(),
                    out_l.sizes()
                );
            }
            Some(l)
        }
        None => None,
    };
    let mut bits = [0u8; 8];
    bits[..dtype.size()].copy_from_slice(&value[..dtype.size()]);
    Ok(DiagonalPlan {
        name: OP1,
        input_slots: [in_l],
        n_inputs: 1,
        output: out_l,
        value: bits,
        begin: i64::from(begin),
        end: i64::from(end),
    })
}

pub(crate) fn plan0(
    cfg: &Config,
    output: &TensorDesc,
    offset: i32,
    value: f32,
) -> Result<DiagonalPlan> {
    let lvl = cfg.level;
    if lvl < DML_FEATURE_LEVEL_2_0 {
        return invalid!(
            "{OP0} was introduced in DML_FEATURE_LEVEL_2_0; this device emulates DML_FEATURE_LEVEL_{}",
            level::name(lvl)
        );
    }
    let dtype = DataType::from_raw(output.data_type);
    let (allowed, needs) = match dtype {
        Some(DataType::Float32 | DataType::Float16) => (true, ""),
        Some(
            DataType::Int32
            | DataType::Int16
            | DataType::Int8
            | DataType::UInt32
            | DataType::UInt16
            | DataType::UInt8,
        ) => (lvl >= DML_FEATURE_LEVEL_2_1, "2_1"),
        Some(DataType::Float64 | DataType::Int64 | DataType::UInt64) => {
            (lvl >= DML_FEATURE_LEVEL_5_1, "5_1")
        }
        None => (false, ""),
    };
    let Some(dtype) = dtype.filter(|_| allowed) else {
        if dtype.is_some() {
            return invalid!(
                "{OP0}: OutputTensor DataType {} needs DML_FEATURE_LEVEL_{needs}; this device \
                 emulates DML_FEATURE_LEVEL_{}",
                raw_type_name(output.data_type),
                level::name(lvl)
            );
        }
        return invalid!(
            "{OP0}: OutputTensor DataType is {}, must be one of FLOAT32, FLOAT16, INT32, INT16, \
             INT8, UINT32, UINT16, UINT8 (FLOAT64, INT64, UINT64 from DML_FEATURE_LEVEL_5_1)",
            raw_type_name(output.data_type)
        );
    };
    let d = output.dimension_count;
    if lvl < DML_FEATURE_LEVEL_4_0 {
        if d != 4 {
            return invalid!(
                "{OP0}: OutputTensor DimensionCount is {d}, must be 4 at DML_FEATURE_LEVEL_{} (2 to \
                 4 from DML_FEATURE_LEVEL_4_0)",
                level::name(lvl)
            );
        }
    } else if !(2..=4).contains(&d) {
        return invalid!("{OP0}: OutputTensor DimensionCount is {d}, must be 2 to 4");
    }
    let out_l = Layout::validate(output, dtype, ctx(OP0, "OutputTensor"), u64::from(u32::MAX))?;
    Ok(DiagonalPlan {
        name: OP0,
        input_slots: [None],
        n_inputs: 0,
        output: out_l,
        value: convert_float(value, dtype),
        begin: i64::from(offset),
        end: i64::from(offset) + 1,
    })
}

fn ctx(op: &'static str, tensor: &'static str) -> Ctx {
    Ctx { op, tensor }
}

/// DIAGONAL_MATRIX's FLOAT value in the output type: integers truncate toward zero and saturate
/// at the type's range (NaN becomes 0); FLOAT16 rounds to nearest even.
pub(crate) fn convert_float(v: f32, t: DataType) -> [u8; 8] {
    let mut out = [0u8; 8];
    let mut put = |b: &[u8]| out[..b.len()].copy_from_slice(b);
    match t {
        DataType::Float32 => put(&v.to_ne_bytes()),
        DataType::Float16 => put(&half::f16::from_f32(v).to_bits().to_ne_bytes()),
        DataType::Float64 => put(&f64::from(v).to_ne_bytes()),
        DataType::UInt8 => put(&(v as u8).to_ne_bytes()),
        DataType::Int8 => put(&(v as i8).to_ne_bytes()),
        DataType::UInt16 => put(&(v as u16).to_ne_bytes()),
        DataType::Int16 => put(&(v as i16).to_ne_bytes()),
        DataType::UInt32 => put(&(v as u32).to_ne_bytes()),
        DataType::Int32 => put(&(v as i32).to_ne_bytes()),
        DataType::UInt64 => put(&(v as u64).to_ne_bytes()),
        DataType::Int64 => put(&(v as i64).to_ne_bytes()),
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The kernel.

/// Outputs of at least this many bytes are split across workers.
const PARALLEL_MIN_BYTES: u64 = 1 << 20;

/// One row's segments: `value_outside` false means Value on `[lo, hi)` and the other source
/// elsewhere; true means the other source on `[lo, hi)` and Value elsewhere.
#[derive(Clone, Copy)]
struct Segments {
    lo: usize,
    hi: usize,
    value_outside: bool,
}

#[inline(always)]
fn segments(y: u64, width: u64, begin: i64, end: i64) -> Segments {
    let y = y as i64;
    let w = width as i64;
    let clip = |v: i64| v.clamp(0, w) as usize;
    if end >= begin {
        Segments {
            lo: clip(y + begin),
            hi: clip(y + end),
            value_outside: false,
        }
    } else {
        Segments {
            lo: clip(y + end),
            hi: clip(y + begin),
            value_outside: true,
        }
    }
}

/// Where elements that are not Value come from.
#[derive(Clone, Copy)]
enum Other<'a, U> {
    Zero,
    Keep,
    From(&'a [U]),
}

pub(crate) fn execute(
    plan: &DiagonalPlan,
    input: Input<'_>,
    out: &mut [u8],
    workers: Workers<'_>,
) -> Result<()> {
    match plan.output.dtype.size() {
        1 => run::<u8>(plan, input, out, workers),
        2 => run::<u16>(plan, input, out, workers),
        4 => run::<u32>(plan, input, out, workers),
        _ => run::<u64>(plan, input, out, workers),
    }
    Ok(())
}

fn run<U: Word>(plan: &DiagonalPlan, input: Input<'_>, out: &mut [u8], workers: Workers<'_>) {
    let value = U::from_bytes(&plan.value);
    let whole = out.len() / U::SIZE * U::SIZE;
    let out: &mut [U] = bytemuck::cast_slice_mut(&mut out[..whole]);
    let other: Other<'_, U> = match input {
        Input::Bytes(b) => Other::From(bytemuck::cast_slice(&b[..b.len() / U::SIZE * U::SIZE])),
        Input::InPlace => Other::Keep,
        Input::None => Other::Zero,
    };
    let l = &plan.output;
    let input_packed = plan
        .input_slots()
        .first()
        .copied()
        .flatten()
        .is_none_or(|i| i.packed);
    if l.packed && input_packed {
        run_packed(plan, value, out, other, workers);
    } else {
        run_strided(plan, value, out, other);
    }
}

fn fill_row<U: Word>(row: &mut [U], seg: Segments, value: U, other: Other<'_, U>, src: usize) {
    let w = row.len();
    let (lo, hi) = (seg.lo, seg.hi.max(seg.lo));
    let put_other = |r: &mut [U], a: usize, b: usize| match other {
        Other::Zero => r[a..b].fill(U::ZERO),
        Other::Keep => {}
        Other::From(s) => r[a..b].copy_from_slice(&s[src + a..src + b]),
    };
    if seg.value_outside {
        row[..lo].fill(value);
        put_other(row, lo, hi);
        row[hi..].fill(value);
    } else {
        put_other(row, 0, lo);
        row[lo..hi].fill(value);
        put_other(row, hi, w);
    }
}

fn run_packed<U: Word>(
    plan: &DiagonalPlan,
    value: U,
    out: &mut [U],
    other: Other<'_, U>,
    workers: Workers<'_>,
) {
    let l = &plan.output;
    let d = l.dims;
    let w = l.sizes[d - 1] as usize;
    let h = u64::from(l.sizes[d - 2]);
    let rows = (l.elements / w as u64) as usize;
    let out = &mut out[..rows * w];
    let (begin, end) = (plan.begin, plan.end);
    let do_rows = |first_row: usize, chunk: &mut [U]| {
        let mut y = first_row as u64 % h;
        for (r, row) in chunk.chunks_exact_mut(w).enumerate() {
            let seg = segments(y, w as u64, begin, end);
            fill_row(row, seg, value, other, (first_row + r) * w);
            y += 1;
            if y == h {
                y = 0;
            }
        }
    };
    let bytes = l.elements * U::SIZE as u64;
    if workers.threads > 1 && bytes >= PARALLEL_MIN_BYTES {
        let rows_per_task = rows.div_ceil(workers.threads * 8).max(1);
        workers.run(|| {
            out.par_chunks_mut(rows_per_task * w)
                .enumerate()
                .for_each(|(t, chunk)| do_rows(t * rows_per_task, chunk))
        });
    } else {
        do_rows(0, out);
    }
}

fn run_strided<U: Word>(plan: &DiagonalPlan, value: U, out: &mut [U], other: Other<'_, U>) {
    let l = &plan.output;
    let d = l.dims;
    let (w, h) = (u64::from(l.sizes[d - 1]), u64::from(l.sizes[d - 2]));
    let (sx, sy) = (l.strides[d - 1] as usize, l.strides[d - 2] as usize);
    let il = plan.input_slots().first().copied().flatten().unwrap_or(*l);
    let (ix, iy) = (il.strides[d - 1] as usize, il.strides[d - 2] as usize);
    let batches = l.elements / (w * h);
    for b in 0..batches {
        // Offsets of this matrix in the output and the input.
        let (mut ob, mut ib, mut rest) = (0usize, 0usize, b);
        for k in (0..d - 2).rev() {
            let s = u64::from(l.sizes[k]);
            let i = (rest % s) as usize;
            rest /= s;
            ob += i * l.strides[k] as usize;
            ib += i * il.strides[k] as usize;
        }
        for y in 0..h {
            let seg = segments(y, w, plan.begin, plan.end);
            let (lo, hi) = (seg.lo, seg.hi.max(seg.lo));
            let orow = ob + y as usize * sy;
            let irow = ib + y as usize * iy;
            for x in 0..w as usize {
                let in_range = x >= lo && x < hi;
                let o = orow + x * sx;
                if in_range != seg.value_outside {
                    out[o] = value;
                } else {
                    match other {
                        Other::Zero => out[o] = U::ZERO,
                        Other::Keep => {}
                        Other::From(s) => out[o] = s[irow + x * ix],
                    }
                }
            }
        }
    }
}
