//! DMLS_DEVICE_FLAG_EXTENSIONS through the C functions (as a C program calls them) and the safe
//! API: 64-bit NONZERO_COORDINATES inputs (FLOAT64, INT64, UINT64), UINT64 / INT64 counts and
//! coordinates (both the same type), element limits, and a strict device rejecting each with
//! E_INVALIDARG and a message naming the flag. Unknown flag bits are rejected. One module per
//! subject; this file holds the descs, runners and the model they share.
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

use core::ffi::c_void;

use common::{bind, calc_size, create_nonzero, execute_raw, Device as CDevice, Operator};
use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::{DataType, TensorDesc};

const FLAG: &str = "DMLS_DEVICE_FLAG_EXTENSIONS";

/// A NONZERO_COORDINATES desc over three tensors.
struct NonZero {
    input: TensorDesc,
    count: TensorDesc,
    coords: TensorDesc,
}

impl NonZero {
    /// Creates the operator through the C API.
    fn create(&self, device: &CDevice) -> Result<Operator, (HRESULT, String)> {
        create_nonzero(device.0, &self.input, &self.count, &self.coords).map(Operator)
    }

    /// Asserts that `device` refuses the desc with E_INVALIDARG and a message holding every one
    /// of `parts`; returns the message.
    fn rejected(&self, device: &CDevice, parts: &[&str]) -> String {
        let Err((hr, msg)) = self.create(device) else {
            panic!("created, but should be refused with {parts:?}");
        };
        assert_eq!(hr, E_INVALIDARG, "{msg}");
        for p in parts {
            assert!(msg.contains(p), "{msg:?} lacks {p:?}");
        }
        msg
    }
}

/// A tensor of `t` with the total a C program gets from dmls_calc_buffer_tensor_size.
fn tensor(t: DataType, sizes: &[u32], strides: Option<&[u32]>) -> TensorDesc {
    let total = calc_size(t.raw().0, sizes, strides);
    TensorDesc::raw(t.raw(), sizes, strides, total)
}

/// A tensor's type, sizes and strides (`None`: packed).
type Spec<'a> = (DataType, &'a [u32], Option<&'a [u32]>);

/// NONZERO_COORDINATES over `input`, a `{1}` count of `count_type`, and `coords`.
fn nonzero(
    (in_type, in_sizes, in_strides): Spec<'_>,
    count_type: DataType,
    (coords_type, coords_sizes, coords_strides): Spec<'_>,
) -> NonZero {
    NonZero {
        input: tensor(in_type, in_sizes, in_strides),
        count: tensor(count_type, &[1], None),
        coords: tensor(coords_type, coords_sizes, coords_strides),
    }
}

/// Runs an operator on 8-byte-aligned buffers.
fn execute(
    op: *mut dmls_operator,
    input: &[u64],
    count: &mut [u64],
    coords: &mut [u64],
) -> HRESULT {
    let buffer = |p: *mut c_void, len: usize| DML_BUFFER_BINDING {
        Buffer: p,
        Offset: 0,
        SizeInBytes: len as u64,
    };
    let b_in = buffer(input.as_ptr() as *mut c_void, input.len() * 8);
    let b_count = buffer(count.as_mut_ptr().cast(), count.len() * 8);
    let b_coords = buffer(coords.as_mut_ptr().cast(), coords.len() * 8);
    execute_raw(op, &[bind(&b_in)], &[bind(&b_count), bind(&b_coords)])
}

const WIDE_INPUTS: [DataType; 3] = [DataType::Float64, DataType::Int64, DataType::UInt64];
const WIDE_OUTPUTS: [DataType; 2] = [DataType::UInt64, DataType::Int64];

/// The naive model: (count, rows of the last `n` indices) of the nonzero elements.
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

fn bytemuck_bytes(v: &[u64]) -> &[u8] {
    // SAFETY: u64 has no padding; any byte pattern of the slice is a valid [u8].
    unsafe { core::slice::from_raw_parts(v.as_ptr().cast(), v.len() * 8) }
}

fn bytemuck_bytes_mut(v: &mut [u64]) -> &mut [u8] {
    // SAFETY: as above; the borrow is exclusive.
    unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), v.len() * 8) }
}
