//! DMLS_DEVICE_FLAG_EXTENSIONS through the C functions (as a C program calls them) and the safe
//! API: 64-bit NONZERO_COORDINATES inputs (FLOAT64, INT64, UINT64), UINT64 / INT64 counts and
//! coordinates (both the same type), element limits, and a strict device rejecting each with
//! E_INVALIDARG and a message naming the flag. Unknown flag bits are rejected. One module per
//! subject; this file holds the descs and the model they share.
//!
//! The randomised test prints its seed on failure; replay with DMLS_TEST_SEED=<seed>.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[path = "../common/mod.rs"]
mod common;

mod element_limits;
mod flag;
mod random;
mod wide_types;

use common::{calc_desc, NonZeroTensors};
use directml_subset::DataType;

const FLAG: &str = "DMLS_DEVICE_FLAG_EXTENSIONS";

/// A tensor's type, sizes and strides (`None`: packed).
type Spec<'a> = (DataType, &'a [u32], Option<&'a [u32]>);

/// NONZERO_COORDINATES over `input`, a `{1}` count of `count_type`, and `coords`, each with the
/// total a C program gets from dmls_calc_buffer_tensor_size.
fn nonzero(
    (in_type, in_sizes, in_strides): Spec<'_>,
    count_type: DataType,
    (coords_type, coords_sizes, coords_strides): Spec<'_>,
) -> NonZeroTensors {
    NonZeroTensors {
        input: calc_desc(in_type, in_sizes, in_strides),
        count: calc_desc(count_type, &[1], None),
        coords: calc_desc(coords_type, coords_sizes, coords_strides),
    }
}

const WIDE_INPUTS: [DataType; 3] = [DataType::Float64, DataType::Int64, DataType::UInt64];
const WIDE_OUTPUTS: [DataType; 2] = [DataType::UInt64, DataType::Int64];

/// The naive model: (count, rows of the last `n` indices) of the nonzero elements. These tests'
/// own, apart from `directml_subset::reference` (which the other tests compare with), with
/// 64-bit strides and rows.
fn model(t: DataType, bytes: &[u8], sizes: &[u32], strides: &[u64], n: usize) -> Vec<Vec<u64>> {
    let m: u64 = sizes.iter().map(|&s| u64::from(s)).product();
    let mut rows = Vec::new();
    for flat in 0..m {
        let mut idx = vec![0u64; sizes.len()];
        let mut rest = flat;
        for d in (0..sizes.len()).rev() {
            idx[d] = rest % u64::from(sizes[d]);
            rest /= u64::from(sizes[d]);
        }
        let off = idx.iter().zip(strides).map(|(i, s)| i * s).sum::<u64>() as usize * t.size();
        let e = &bytes[off..off + t.size()];
        let nz = match t {
            DataType::Float64 => f64::from_ne_bytes(e.try_into().unwrap()) != 0.0,
            DataType::Float32 => f32::from_ne_bytes(e.try_into().unwrap()) != 0.0,
            DataType::Float16 => u16::from_ne_bytes(e.try_into().unwrap()) & 0x7FFF != 0,
            _ => e.iter().any(|&b| b != 0),
        };
        if nz {
            rows.push(idx[sizes.len() - n..].to_vec());
        }
    }
    rows
}
