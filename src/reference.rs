//! Plain reference implementations of each operator, written for obviousness, not speed: one
//! element at a time, coordinates from divisions, offsets from strides. The tests compare the
//! fast kernels (through the C API) with these on random cases.
//!
//! They take descs that an operator was successfully created from, and buffers at least
//! `TotalTensorSizeInBytes` long; they do no validation of their own.
//!
//! # Panics
//!
//! On other descs or shorter buffers (an unknown data type, a DIAGONAL_MATRIX output of fewer
//! than two dimensions, a slice shorter than its tensor): check them with
//! [`crate::Device::create_operator`] first, as the tests do.

use crate::tensor::{DataType, TensorDesc, MAX_DIMS};

fn data_type(t: &TensorDesc) -> DataType {
    DataType::from_raw(t.data_type).expect("a valid data type")
}

/// Element strides of a tensor: its own, or packed row-major.
fn strides_of(t: &TensorDesc) -> Vec<u64> {
    match t.strides() {
        Some(s) => s.iter().map(|&v| u64::from(v)).collect(),
        None => {
            let sizes = t.sizes();
            let mut out = vec![0u64; sizes.len()];
            let mut acc = 1u64;
            for i in (0..sizes.len()).rev() {
                out[i] = acc;
                acc *= u64::from(sizes[i]);
            }
            out
        }
    }
}

/// The row-major coordinates of element `flat`: the first `sizes.len()` entries. (An array, not
/// a `Vec`: one allocation per element made the reference slower than everything it checks.)
fn unravel(mut flat: u64, sizes: &[u32]) -> [u64; MAX_DIMS] {
    let mut idx = [0u64; MAX_DIMS];
    for i in (0..sizes.len()).rev() {
        idx[i] = flat % u64::from(sizes[i]);
        flat /= u64::from(sizes[i]);
    }
    idx
}

/// The byte offset of the element at `idx`.
fn byte_offset(idx: &[u64], strides: &[u64], element_size: usize) -> usize {
    let e: u64 = idx.iter().zip(strides).map(|(i, s)| i * s).sum();
    e as usize * element_size
}

/// Calls `f` for each element of `output` (two dimensions or more), in row-major order, with
/// its coordinates, its column x and row y (the last two coordinates) and its byte offset.
fn for_each_xy(output: &TensorDesc, mut f: impl FnMut(&[u64], i64, i64, usize)) {
    let size = data_type(output).size();
    let sizes = output.sizes();
    let d = sizes.len();
    let strides = strides_of(output);
    let elements: u64 = sizes.iter().map(|&s| u64::from(s)).product();
    for flat in 0..elements {
        let idx = unravel(flat, sizes);
        let idx = &idx[..d];
        let (x, y) = (idx[d - 1] as i64, idx[d - 2] as i64);
        f(idx, x, y, byte_offset(idx, &strides, size));
    }
}

/// True when the element's value is not zero: floats compare as numbers (so -0.0 is zero and
/// NaN is not), integers by their bytes.
fn is_nonzero(bytes: &[u8], t: DataType) -> bool {
    match t {
        DataType::Float32 => f32::from_ne_bytes(bytes.try_into().unwrap()) != 0.0,
        DataType::Float64 => f64::from_ne_bytes(bytes.try_into().unwrap()) != 0.0,
        DataType::Float16 => {
            half::f16::from_bits(u16::from_ne_bytes(bytes.try_into().unwrap())).to_f32() != 0.0
        }
        _ => bytes.iter().any(|&b| b != 0),
    }
}

/// NONZERO_COORDINATES. Writes the count into `count_out` and one row per nonzero element
/// into `coords_out`; returns the count.
pub fn nonzero_coordinates(
    input: &TensorDesc,
    input_bytes: &[u8],
    count: &TensorDesc,
    coords: &TensorDesc,
    count_out: &mut [u8],
    coords_out: &mut [u8],
) -> u64 {
    let it = data_type(input);
    let ot = data_type(coords);
    let ct = data_type(count);
    let sizes = input.sizes();
    let in_strides = strides_of(input);
    let k = coords.sizes().len();
    let n = coords.sizes()[k - 1] as usize;
    let c_strides = strides_of(coords);
    let (row_stride, col_stride) = (c_strides[k - 2], c_strides[k - 1]);
    let m: u64 = sizes.iter().map(|&s| u64::from(s)).product();
    let mut rows = 0u64;
    for flat in 0..m {
        let idx = unravel(flat, sizes);
        let idx = &idx[..sizes.len()];
        let off = byte_offset(idx, &in_strides, it.size());
        if !is_nonzero(&input_bytes[off..off + it.size()], it) {
            continue;
        }
        for c in 0..n {
            let v = idx[sizes.len() - n + c];
            let at = ((rows * row_stride + c as u64 * col_stride) as usize) * ot.size();
            put_uint(&mut coords_out[at..at + ot.size()], v);
        }
        rows += 1;
    }
    put_uint(&mut count_out[..ct.size()], rows);
    rows
}

fn put_uint(dst: &mut [u8], v: u64) {
    match dst.len() {
        4 => dst.copy_from_slice(&(v as u32).to_ne_bytes()),
        _ => dst.copy_from_slice(&v.to_ne_bytes()),
    }
}

/// DIAGONAL_MATRIX1, following DirectML's pseudocode literally. `value` holds the
/// `DML_SCALAR_UNION`'s bytes; `input` is the optional input tensor and its bytes.
pub fn diagonal_matrix1(
    input: Option<(&TensorDesc, &[u8])>,
    output: &TensorDesc,
    output_bytes: &mut [u8],
    value: [u8; 8],
    begin: i32,
    end: i32,
) {
    let size = data_type(output).size();
    let input = input.map(|(desc, bytes)| (strides_of(desc), bytes));
    for_each_xy(output, |idx, x, y, o| {
        let top_x = x - y;
        let (begin, end) = (i64::from(begin), i64::from(end));
        let use_value = (end >= begin) ^ (top_x >= begin) ^ (top_x < end);
        if use_value {
            output_bytes[o..o + size].copy_from_slice(&value[..size]);
        } else if let Some((strides, bytes)) = &input {
            let i = byte_offset(idx, strides, size);
            output_bytes[o..o + size].copy_from_slice(&bytes[i..i + size]);
        } else {
            output_bytes[o..o + size].fill(0);
        }
    });
}

/// DIAGONAL_MATRIX: `Out = (y + Offset == x) ? Value : 0`, with the FLOAT value converted to
/// the output type (integers truncate toward zero and saturate, NaN becomes 0; FLOAT16 rounds
/// to nearest even).
pub fn diagonal_matrix(output: &TensorDesc, output_bytes: &mut [u8], offset: i32, value: f32) {
    let t = data_type(output);
    let size = t.size();
    let converted: Vec<u8> = match t {
        DataType::Float32 => value.to_ne_bytes().to_vec(),
        DataType::Float16 => half::f16::from_f32(value).to_ne_bytes().to_vec(),
        DataType::Float64 => f64::from(value).to_ne_bytes().to_vec(),
        DataType::Int8 => (value as i8).to_ne_bytes().to_vec(),
        DataType::UInt8 => (value as u8).to_ne_bytes().to_vec(),
        DataType::Int16 => (value as i16).to_ne_bytes().to_vec(),
        DataType::UInt16 => (value as u16).to_ne_bytes().to_vec(),
        DataType::Int32 => (value as i32).to_ne_bytes().to_vec(),
        DataType::UInt32 => (value as u32).to_ne_bytes().to_vec(),
        DataType::Int64 => (value as i64).to_ne_bytes().to_vec(),
        DataType::UInt64 => (value as u64).to_ne_bytes().to_vec(),
    };
    for_each_xy(output, |_, x, y, o| {
        if y + i64::from(offset) == x {
            output_bytes[o..o + size].copy_from_slice(&converted);
        } else {
            output_bytes[o..o + size].fill(0);
        }
    });
}
