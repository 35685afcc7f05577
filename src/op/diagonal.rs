//! DIAGONAL_MATRIX1 and DIAGONAL_MATRIX: validation (one kernel for both is in
//! `diagonal_kernel/`).
//!
//! Each output row is at most three segments (value / input-or-zero / value, or the other way
//! round), found from DiagonalFillBegin and DiagonalFillEnd in 64-bit arithmetic. How the kernel
//! writes them (fills and copies, vector runs, streaming stores; strided layouts element by
//! element) is described in `diagonal_kernel/`.

use super::kind::OpKind;
use super::Config;
use crate::dml::*;
use crate::error::{invalid, Result};
use crate::level;
use crate::tensor::{raw_type_name, Ctx, DataType, Layout, TensorDesc};

/// A validated DIAGONAL_MATRIX1 or DIAGONAL_MATRIX operator.
#[derive(Clone, Debug)]
pub(crate) struct DiagonalPlan {
    /// DIAGONAL_MATRIX1 or DIAGONAL_MATRIX.
    pub kind: OpKind,
    pub input_slots: [Option<Layout>; 1],
    pub output: Layout,
    /// The fill value's bits in the output type (native endian, first `size` bytes).
    pub value: [u8; 8],
    pub begin: i64,
    pub end: i64,
}

impl DiagonalPlan {
    pub fn input_slots(&self) -> &[Option<Layout>] {
        &self.input_slots[..self.kind.input_names().len()]
    }
}

const OP1: &str = OpKind::DiagonalMatrix1.name();
const OP0: &str = OpKind::DiagonalMatrix.name();

pub(crate) fn plan1(
    cfg: &Config,
    input: Option<&TensorDesc>,
    output: &TensorDesc,
    value_data_type: DML_TENSOR_DATA_TYPE,
    value: [u8; 8],
    begin: i32,
    end: i32,
) -> Result<DiagonalPlan> {
    cfg.require(OP1, DML_FEATURE_LEVEL_5_1)?;
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
    let mut out_l = Layout::validate(output, dtype, ctx(OP1, "OutputTensor"), max)?;
    out_l.check_output_disjoint(ctx(OP1, "OutputTensor"))?;
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
        kind: OpKind::DiagonalMatrix1,
        input_slots: [in_l],
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
    cfg.require(OP0, DML_FEATURE_LEVEL_2_0)?;
    let lvl = cfg.level;
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
                 emulates DML_FEATURE_LEVEL_{}; create the device with feature level {needs} or \
                 newer",
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
    let mut out_l = Layout::validate(output, dtype, ctx(OP0, "OutputTensor"), u64::from(u32::MAX))?;
    out_l.check_output_disjoint(ctx(OP0, "OutputTensor"))?;
    Ok(DiagonalPlan {
        kind: OpKind::DiagonalMatrix,
        input_slots: [None],
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
