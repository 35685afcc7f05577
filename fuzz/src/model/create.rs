//! `dmls_device_create_operator`: which descs make an operator, per DirectML's operator rules.

use directml_subset::dml::*;

use super::codes::{codes, Codes};
use super::tensor::Tensor;

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
