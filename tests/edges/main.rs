//! Edge values through the C API: NaN payloads and -0.0 pass through DIAGONAL_MATRIX1 bit for
//! bit; FLOAT16 subnormals and infinities; INT32_MIN / INT32_MAX fill bounds and offsets; the
//! largest valid tensors (validation only); strides near 2^32. One module per kind of edge;
//! this file holds the runners they share.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[path = "../common/mod.rs"]
mod common;

mod int32_bounds;
mod large_strides;
mod largest_tensors;
mod special_floats;

use common::*;
use directml_subset::{DataType, TensorDesc};

// ------------------------------------------------------------------------------------------------
// Running operators through the C API (the shared harness: test-support/, through tests/common)

/// A DIAGONAL_MATRIX1 operator on a device of the newest level (which the operator keeps
/// alive).
fn diagonal1(
    input: Option<&TensorDesc>,
    output: &TensorDesc,
    fill: ([u8; 8], i32, i32),
) -> Operator {
    let (value, begin, end) = fill;
    Device::newest()
        .diagonal1(input, output, value, begin, end)
        .unwrap_or_else(|e| panic!("create: {e:?}"))
}

/// DIAGONAL_MATRIX1 through the C API; asserts that the whole output (starting from `0xCD`s)
/// equals the reference's, and returns it.
fn run_diagonal1(
    input: Option<(&TensorDesc, &[u8])>,
    output: &TensorDesc,
    value: [u8; 8],
    begin: i32,
    end: i32,
) -> Vec<u8> {
    let fill = (value, begin, end);
    let op = diagonal1(input.map(|(t, _)| t), output, fill);
    run_diag1_checked(op.0, input, output, fill, 0xCD)
        .bytes()
        .to_vec()
}

/// DIAGONAL_MATRIX1 in place (`t` for input and output): the output buffer starts as `data`.
fn run_diagonal1_in_place(t: &TensorDesc, data: &[u8], fill: ([u8; 8], i32, i32)) -> Vec<u8> {
    let op = diagonal1(Some(t), t, fill);
    let mut b = Buffer::with_bytes(data);
    let bb = b.binding();
    execute(&op, &[bind(&bb)], &[bind(&bb)]).expect("execute");
    b.bytes().to_vec()
}

fn run_nonzero(input: &TensorDesc, data: &[u8], n: u32) -> (u32, Vec<u32>) {
    let dev = Device::newest();
    let m = input.sizes().iter().product::<u32>();
    let count = TensorDesc::new(DataType::UInt32, &[1]);
    let coords = TensorDesc::new(DataType::UInt32, &[m, n]);
    let op = dev
        .nonzero(input, &count, &coords)
        .unwrap_or_else(|e| panic!("create: {e:?}"));
    let (cb, kb) = run_nonzero_checked(op.0, input, data, &count, &coords, 0xCD);
    let count = u32::from_ne_bytes(cb.bytes()[..4].try_into().unwrap());
    let coords: Vec<u32> = bytemuck::cast_slice(kb.bytes()).to_vec();
    (count, coords)
}

fn value_of(bytes: &[u8]) -> [u8; 8] {
    let mut v = [0u8; 8];
    v[..bytes.len()].copy_from_slice(bytes);
    v
}

fn words<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// `t` with its TotalTensorSizeInBytes replaced.
fn with_total(t: TensorDesc, total: u64) -> TensorDesc {
    t.total_size(total)
}
