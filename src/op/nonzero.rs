//! NONZERO_COORDINATES: validation. The kernel, and a description of how it works, is in
//! `nonzero_kernel/` (its `mod.rs`).

use super::kind::OpKind;
use super::Config;
use crate::dml::*;
use crate::error::{invalid, Result};
use crate::level;
use crate::tensor::{raw_type_name, Ctx, DataType, Layout, TensorDesc, MAX_DIMS};

const OP: &str = OpKind::NonZeroCoordinates.name();

/// A validated NONZERO_COORDINATES operator.
#[derive(Clone, Debug)]
pub(crate) struct NonZeroPlan {
    pub input: Layout,
    pub coords: Layout,
    /// The input slot as the binding checks see it (always present).
    pub input_slot: Option<Layout>,
    /// OutputCountTensor and OutputCoordinatesTensor.
    pub outputs: [Layout; 2],
    /// N: how many of the input's last indices each coordinate row holds.
    pub columns: usize,
}

fn ctx(tensor: &'static str) -> Ctx {
    Ctx { op: OP, tensor }
}

pub(crate) fn plan(
    cfg: &Config,
    input: &TensorDesc,
    count: &TensorDesc,
    coords: &TensorDesc,
) -> Result<NonZeroPlan> {
    cfg.require(OP, DML_FEATURE_LEVEL_3_0)?;
    // Data types.
    let in_type = match DataType::from_raw(input.data_type) {
        Some(t @ (DataType::Float64 | DataType::Int64 | DataType::UInt64)) => {
            if !cfg.extensions {
                return invalid!(
                    "{OP}: InputTensor DataType is {}, which DirectML does not allow here (FLOAT32, \
                     FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8); 64-bit inputs need a device \
                     created with DMLS_DEVICE_FLAG_EXTENSIONS",
                    raw_type_name(input.data_type)
                );
            }
            t
        }
        Some(t) => t,
        None => {
            return invalid!(
                "{OP}: InputTensor DataType is {}, must be one of FLOAT32, FLOAT16, INT32, INT16, \
                 INT8, UINT32, UINT16, UINT8{}",
                raw_type_name(input.data_type),
                if cfg.extensions {
                    ", or (an extension) FLOAT64, INT64, UINT64"
                } else {
                    ""
                }
            )
        }
    };
    let out_type = output_type(cfg, "OutputCountTensor", count.data_type)?;
    let coords_type = output_type(cfg, "OutputCoordinatesTensor", coords.data_type)?;
    if out_type != coords_type {
        return invalid!(
            "{OP}: OutputCountTensor DataType is {} but OutputCoordinatesTensor DataType is {}; \
             both must be the same",
            out_type.name(),
            coords_type.name()
        );
    }
    // Dimension counts, by feature level.
    let (di, dc, dk) = (
        input.dimension_count,
        count.dimension_count,
        coords.dimension_count,
    );
    if cfg.level < DML_FEATURE_LEVEL_4_0 {
        for (name, d, later) in [
            ("InputTensor", di, 1),
            ("OutputCountTensor", dc, 1),
            ("OutputCoordinatesTensor", dk, 2),
        ] {
            if !(4..=5).contains(&d) {
                return invalid!(
                    "{OP}: {name} DimensionCount is {d}, must be 4 or 5 at DML_FEATURE_LEVEL_{} \
                     ({later} to {MAX_DIMS} from DML_FEATURE_LEVEL_4_0)",
                    level::name(cfg.level)
                );
            }
        }
        if di != dc || di != dk {
            return invalid!(
                "{OP}: DimensionCount is {di} (InputTensor), {dc} (OutputCountTensor) and {dk} \
                 (OutputCoordinatesTensor); all three must be the same at DML_FEATURE_LEVEL_{}",
                level::name(cfg.level)
            );
        }
    } else {
        for (name, d, lo) in [
            ("InputTensor", di, 1),
            ("OutputCountTensor", dc, 1),
            ("OutputCoordinatesTensor", dk, 2),
        ] {
            if !(lo..=MAX_DIMS as u32).contains(&d) {
                return invalid!("{OP}: {name} DimensionCount is {d}, must be {lo} to {MAX_DIMS}");
            }
        }
    }
    // Element limits: 64-bit outputs (an extension) lift the 2^32 - 1 limit.
    let wide = out_type.size() == 8;
    let max = if wide { u64::MAX } else { u64::from(u32::MAX) };
    let input_l = Layout::validate(input, in_type, ctx("InputTensor"), max)?;
    let mut count_l = Layout::validate(count, out_type, ctx("OutputCountTensor"), max)?;
    count_l.check_output_disjoint(ctx("OutputCountTensor"))?;
    let mut coords_l = Layout::validate(coords, out_type, ctx("OutputCoordinatesTensor"), max)?;
    coords_l.check_output_disjoint(ctx("OutputCoordinatesTensor"))?;
    for (i, &s) in count_l.sizes().iter().enumerate() {
        if s != 1 {
            return invalid!(
                "{OP}: OutputCountTensor Sizes[{i}] is {s}, must be 1 (the count is a scalar)"
            );
        }
    }
    let k = coords_l.dims;
    let n = coords_l.sizes[k - 1] as usize;
    let m = if wide {
        // Extension: with 64-bit outputs the rows may spread over every dimension before N
        // (so that more than 2^32 - 1 of them can be described), as long as they are evenly
        // spaced: each leading stride is the row stride times the rows below it.
        let row_stride = coords_l.strides[k - 2];
        let mut rows_below = u64::from(coords_l.sizes[k - 2]);
        for i in (0..k - 2).rev() {
            let s = coords_l.sizes[i];
            if s != 1 && Some(coords_l.strides[i]) != row_stride.checked_mul(rows_below) {
                return invalid!(
                    "{OP}: OutputCoordinatesTensor Strides[{i}] is {}, must be {} (Strides[{}] {row_stride} \
                     times the {rows_below} rows below it) so that the rows are evenly spaced",
                    coords_l.strides[i],
                    row_stride.saturating_mul(rows_below),
                    k - 2
                );
            }
            rows_below = rows_below.saturating_mul(u64::from(s));
        }
        if rows_below != input_l.elements {
            return invalid!(
                "{OP}: OutputCoordinatesTensor Sizes {:?} hold {rows_below} rows (M, the product of \
                 all sizes but N), must equal the input's element count {}",
                coords_l.sizes(),
                input_l.elements
            );
        }
        rows_below
    } else {
        for (i, &s) in coords_l.sizes()[..k - 2].iter().enumerate() {
            if s != 1 {
                return invalid!(
                    "{OP}: OutputCoordinatesTensor Sizes[{i}] is {s}, must be 1 (sizes are {{1,...,1,M,N}})"
                );
            }
        }
        let m = u64::from(coords_l.sizes[k - 2]);
        if m != input_l.elements {
            return invalid!(
                "{OP}: OutputCoordinatesTensor Sizes[{}] (M) is {m}, must equal the input's element count {}",
                k - 2,
                input_l.elements
            );
        }
        m
    };
    debug_assert_eq!(m, input_l.elements);
    let rank = effective_rank(&input_l);
    if n < rank || n > input_l.dims {
        return invalid!(
            "{OP}: OutputCoordinatesTensor Sizes[{}] (N) is {n}, must be from the input's effective \
             rank {rank} to its DimensionCount {}",
            k - 1,
            input_l.dims
        );
    }
    Ok(NonZeroPlan {
        input: input_l,
        coords: coords_l,
        input_slot: Some(input_l),
        outputs: [count_l, coords_l],
        columns: n,
    })
}

fn output_type(cfg: &Config, name: &str, raw: DML_TENSOR_DATA_TYPE) -> Result<DataType> {
    match DataType::from_raw(raw) {
        Some(DataType::UInt32) => Ok(DataType::UInt32),
        Some(t @ (DataType::UInt64 | DataType::Int64)) if cfg.extensions => Ok(t),
        Some(DataType::UInt64 | DataType::Int64) => invalid!(
            "{OP}: {name} DataType is {}, must be UINT32; 64-bit counts and coordinates need a \
             device created with DMLS_DEVICE_FLAG_EXTENSIONS",
            raw_type_name(raw)
        ),
        _ if cfg.extensions => invalid!(
            "{OP}: {name} DataType is {}, must be UINT32, or UINT64 or INT64 (extensions)",
            raw_type_name(raw)
        ),
        _ => invalid!(
            "{OP}: {name} DataType is {}, must be UINT32",
            raw_type_name(raw)
        ),
    }
}

/// The dimension count without leading dimensions of size 1.
fn effective_rank(l: &Layout) -> usize {
    let lead = l.sizes().iter().take_while(|&&s| s == 1).count();
    l.dims - lead
}
