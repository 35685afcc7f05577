//! Edge values through the C API: NaN payloads and -0.0 pass through DIAGONAL_MATRIX1 bit for
//! bit; FLOAT16 subnormals and infinities; INT32_MIN / INT32_MAX fill bounds and offsets; the
//! largest valid tensors (validation only); strides near 2^32.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use common::*;
use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::reference;
use directml_subset::{DataType, TensorDesc, DMLS_DEVICE_FLAG_EXTENSIONS};

// ------------------------------------------------------------------------------------------------
// Running operators through the C API (harness in tests/common)

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

// ------------------------------------------------------------------------------------------------
// NaN payloads, -0.0

const F32_SPECIALS: [u32; 10] = [
    0x7F80_0001, // signalling NaN, smallest payload
    0x7FBF_FFFF, // signalling NaN, largest payload
    0xFFBA_DBAD, // negative signalling NaN
    0x7FC0_0000, // the canonical quiet NaN
    0xFFC1_2345, // negative quiet NaN with a payload
    0x8000_0000, // -0.0
    0x0000_0001, // smallest subnormal
    0x807F_FFFF, // largest negative subnormal
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
];

const F64_SPECIALS: [u64; 8] = [
    0x7FF0_0000_0000_0001,
    0x7FF7_FFFF_FFFF_FFFF,
    0xFFF8_0000_DEAD_BEEF,
    0x7FF8_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0xFFF0_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
];

const F16_SPECIALS: [u16; 10] = [
    0x7C01, // signalling NaN
    0x7DFF, // signalling NaN, largest payload
    0xFE55, // negative quiet NaN with a payload
    0x7E00, // quiet NaN
    0x8000, // -0.0
    0x0001, // smallest subnormal
    0x83FF, // largest negative subnormal
    0x7C00, // +inf
    0xFC00, // -inf
    0x7BFF, // largest finite
];

/// Off the fill range, DIAGONAL_MATRIX1 copies the input: every NaN payload, -0.0, subnormal
/// and infinity arrives bit for bit (FLOAT32, FLOAT64, FLOAT16; separate buffers and in place;
/// packed and strided).
#[test]
fn nan_payloads_and_negative_zero_pass_through_diagonal_matrix1() {
    let cases: Vec<(DataType, Vec<u8>, usize)> = vec![
        (DataType::Float32, words(&F32_SPECIALS), 4),
        (DataType::Float64, words(&F64_SPECIALS), 8),
        (DataType::Float16, words(&F16_SPECIALS), 2),
    ];
    for (t, specials, size) in cases {
        let n = specials.len() / size;
        // A {n, n} matrix whose rows are the specials, rotated; fill only x - y in [5, 6).
        let mut data = Vec::new();
        for r in 0..n {
            for c in 0..n {
                let k = (r + c) % n;
                data.extend_from_slice(&specials[k * size..(k + 1) * size]);
            }
        }
        let sizes = [n as u32, n as u32];
        let packed = TensorDesc::new(t, &sizes);
        let value = value_of(&specials[..size]); // a NaN payload as the fill value too
        for (begin, end) in [(5, 6), (i32::MAX, i32::MIN), (n as i32, n as i32)] {
            let got = run_diagonal1(Some((&packed, &data)), &packed, value, begin, end);
            // Every element outside the fill keeps the input's exact bits.
            for y in 0..n {
                for x in 0..n {
                    let top = x as i64 - y as i64;
                    let (b, e) = (i64::from(begin), i64::from(end));
                    let fill = (e >= b) ^ (top >= b) ^ (top < e);
                    let at = (y * n + x) * size;
                    let expect = if fill {
                        &value[..size]
                    } else {
                        &data[at..at + size]
                    };
                    assert_eq!(&got[at..at + size], expect, "{t:?} element ({y},{x})");
                }
            }
            let in_place = run_diagonal1_in_place(&packed, &data, (value, begin, end));
            assert_eq!(in_place, got, "{t:?} in place");
        }
        // Strided: transposed input into a padded output.
        let transposed = TensorDesc::with_strides(t, &sizes, &[1, n as u32]);
        let padded = TensorDesc::with_strides(t, &sizes, &[n as u32 + 3, 1]);
        // Compared with the reference inside.
        run_diagonal1(Some((&transposed, &data)), &padded, value, -2, 3);
    }
}

/// The fill value itself is stored bit for bit, whatever its payload, in every float type.
#[test]
fn nan_fill_values_are_stored_bit_for_bit() {
    for &bits in &F32_SPECIALS {
        let out = TensorDesc::new(DataType::Float32, &[3, 4]);
        let got = run_diagonal1(None, &out, value_of(&bits.to_ne_bytes()), 0, 1);
        for (i, e) in got.chunks(4).enumerate() {
            let (y, x) = (i / 4, i % 4);
            let want = if x == y { bits } else { 0 };
            assert_eq!(
                u32::from_ne_bytes(e.try_into().unwrap()),
                want,
                "{bits:#x} at {i}"
            );
        }
    }
    for &bits in &F64_SPECIALS {
        let out = TensorDesc::new(DataType::Float64, &[2, 2, 3]);
        let got = run_diagonal1(None, &out, bits.to_ne_bytes(), 0, 1);
        assert_eq!(u64::from_ne_bytes(got[..8].try_into().unwrap()), bits);
    }
    for &bits in &F16_SPECIALS {
        let out = TensorDesc::new(DataType::Float16, &[5, 3]);
        let got = run_diagonal1(None, &out, value_of(&bits.to_ne_bytes()), -1, 1);
        assert_eq!(u16::from_ne_bytes(got[..2].try_into().unwrap()), bits);
    }
}

/// NONZERO_COORDINATES: ±0.0 is zero; NaN of any payload, subnormals and infinities are not.
#[test]
fn nonzero_sees_nan_subnormals_and_infinities_but_not_negative_zero() {
    let f32s: Vec<u32> = vec![
        0,
        0x8000_0000,
        0x7F80_0001,
        0xFFC0_0000,
        0x0000_0001,
        0x8000_0001,
        0x7F80_0000,
        0xFF80_0000,
    ];
    let t = TensorDesc::new(DataType::Float32, &[2, 4]);
    let (count, coords) = run_nonzero(&t, &words(&f32s), 2);
    assert_eq!(count, 6);
    assert_eq!(&coords[..12], &[0, 2, 0, 3, 1, 0, 1, 1, 1, 2, 1, 3]);

    let f16s: Vec<u16> = vec![
        0x8000, 0x0001, 0x0000, 0x83FF, 0x7C00, 0xFC00, 0x7E00, 0x8000,
    ];
    let t = TensorDesc::new(DataType::Float16, &[8]);
    let (count, coords) = run_nonzero(&t, &words(&f16s), 1);
    assert_eq!(count, 5);
    assert_eq!(&coords[..5], &[1, 3, 4, 5, 6]);

    let f64s: Vec<u64> = vec![0x8000_0000_0000_0000, 1, 0, 0x7FF8_0000_0000_0001];
    let dev = Device::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS); // FLOAT64 input needs the extensions
    let input = TensorDesc::new(DataType::Float64, &[4]);
    let count = TensorDesc::new(DataType::UInt64, &[1]);
    let coords = TensorDesc::new(DataType::UInt64, &[4, 1]);
    let op = dev.nonzero(&input, &count, &coords).expect("create");
    let mut ib = Buffer::with_bytes(&words(&f64s));
    let mut cb = Buffer::filled(8, 0);
    let mut kb = Buffer::filled(32, 0xCD);
    let (bi, bc, bk) = (ib.binding(), cb.binding(), kb.binding());
    execute(&op, &[bind(&bi)], &[bind(&bc), bind(&bk)]).expect("execute");
    let got: &[u64] = bytemuck::cast_slice(kb.bytes());
    assert_eq!(u64::from_ne_bytes(cb.bytes().try_into().unwrap()), 2);
    assert_eq!(&got[..2], &[1, 3]);
    assert_eq!(
        got[2], 0xCDCD_CDCD_CDCD_CDCD,
        "rows from the count on are untouched"
    );
}

// ------------------------------------------------------------------------------------------------
// FLOAT16

/// DIAGONAL_MATRIX converts its FLOAT value to FLOAT16 with round to nearest even: subnormals,
/// underflow to ±0, overflow to ±infinity, infinities and NaN.
#[test]
fn diagonal_matrix_float16_subnormals_and_infinities() {
    let dev = Device::newest();
    let out = TensorDesc::new(DataType::Float16, &[1, 1, 3, 3]);
    const TINY: f32 = 5.960_464_5e-8; // 2^-24, the smallest FLOAT16 subnormal
    let cases: [(f32, u16); 14] = [
        (5.960_464_5e-8, 0x0001),  // the smallest subnormal
        (2.980_232_2e-8, 0x0000),  // exactly half of it: ties to even (0)
        (4.0e-8, 0x0001),          // 0.67 x: rounds to the subnormal
        (1.5 * TINY, 0x0002),      // 1.5 x: a tie, to even (2 x)
        (2.5 * TINY, 0x0002),      // 2.5 x: a tie, to even (2 x)
        (-5.960_464_5e-8, 0x8001), // negative subnormal
        (6.097_555e-5, 0x03FF),    // the largest subnormal
        (1e-9, 0x0000),            // underflow to +0
        (-1e-9, 0x8000),           // underflow to -0
        (65504.0, 0x7BFF),         // the largest finite
        (65520.0, 0x7C00),         // rounds up to +inf
        (-70000.0, 0xFC00),        // -inf
        (f32::INFINITY, 0x7C00),
        (f32::NEG_INFINITY, 0xFC00),
    ];
    for (v, bits) in cases {
        let op = dev.diagonal(&out, 0, v).expect("create");
        let mut ob = Buffer::filled(out.total_size, 0xCD);
        let bo = ob.binding();
        execute(&op, &[], &[bind(&bo)]).expect("execute");
        let got: Vec<u16> = bytemuck::cast_slice(&ob.bytes()[..18]).to_vec();
        let mut want = vec![0u16; 9];
        want[0] = bits;
        want[4] = bits;
        want[8] = bits;
        assert_eq!(got, want, "value {v:e}");
        let mut refb = vec![0xCDu8; out.total_size as usize];
        reference::diagonal_matrix(&out, &mut refb, 0, v);
        assert_eq!(ob.bytes(), &refb[..], "reference, value {v:e}");
    }
    // NaN stays NaN.
    let op = dev.diagonal(&out, 0, f32::NAN).expect("create");
    let mut ob = Buffer::filled(out.total_size, 0xCD);
    let bo = ob.binding();
    execute(&op, &[], &[bind(&bo)]).expect("execute");
    let first = u16::from_ne_bytes(ob.bytes()[..2].try_into().unwrap());
    assert!(half::f16::from_bits(first).is_nan(), "{first:#x}");
    // Integer outputs: NaN becomes 0, infinities saturate.
    for (t, v, want) in [
        (DataType::Int32, f32::NAN, 0i64),
        (DataType::Int32, f32::INFINITY, i64::from(i32::MAX)),
        (DataType::Int8, f32::NEG_INFINITY, i64::from(i8::MIN)),
        (DataType::UInt16, -1.0e9, 0),
    ] {
        let out = TensorDesc::new(t, &[2, 2]);
        let op = dev.diagonal(&out, 0, v).expect("create");
        let mut ob = Buffer::filled(out.total_size, 0xCD);
        let bo = ob.binding();
        execute(&op, &[], &[bind(&bo)]).expect("execute");
        let mut refb = vec![0xCDu8; out.total_size as usize];
        reference::diagonal_matrix(&out, &mut refb, 0, v);
        assert_eq!(ob.bytes(), &refb[..], "{t:?} {v}");
        let size = t.size();
        let mut first = [0u8; 8];
        first[..size].copy_from_slice(&ob.bytes()[..size]);
        let got = match t {
            DataType::Int32 => i64::from(i32::from_ne_bytes(first[..4].try_into().unwrap())),
            DataType::Int8 => i64::from(first[0] as i8),
            _ => i64::from(u16::from_ne_bytes(first[..2].try_into().unwrap())),
        };
        assert_eq!(got, want, "{t:?} {v}");
    }
}

// ------------------------------------------------------------------------------------------------
// INT32_MIN / INT32_MAX

const BOUNDS: [i32; 11] = [
    i32::MIN,
    i32::MIN + 1,
    -5,
    -1,
    0,
    1,
    2,
    5,
    i32::MAX - 1,
    i32::MAX,
    -3,
];

/// DiagonalFillBegin and DiagonalFillEnd at and near INT32_MIN and INT32_MAX (ONNX Trilu's
/// mapping among them), every pair, against the reference and the rule computed here.
#[test]
fn fill_bounds_at_int32_min_and_max() {
    let out = TensorDesc::new(DataType::Int32, &[2, 5, 7]);
    let input = TensorDesc::new(DataType::Int32, &[2, 5, 7]);
    let data: Vec<i32> = (0..70).map(|i| 1000 + i).collect();
    let data = words(&data);
    let value = value_of(&(-9i32).to_ne_bytes());
    for &begin in &BOUNDS {
        for &end in &BOUNDS {
            let got = run_diagonal1(Some((&input, &data)), &out, value, begin, end);
            let got: &[i32] = bytemuck::cast_slice(&got);
            for (i, &v) in got.iter().enumerate() {
                let (y, x) = ((i / 7) % 5, i % 7);
                let top = x as i64 - y as i64;
                let (b, e) = (i64::from(begin), i64::from(end));
                let fill = (e >= b) ^ (top >= b) ^ (top < e);
                assert_eq!(
                    v,
                    if fill { -9 } else { 1000 + i as i32 },
                    "[{begin}, {end}) {i}"
                );
            }
        }
    }
    // Begin = INT32_MIN, End = INT32_MAX fills everything; the reverse fills nothing.
    let all = run_diagonal1(None, &out, value, i32::MIN, i32::MAX);
    assert!(bytemuck::cast_slice::<u8, i32>(&all)
        .iter()
        .all(|&v| v == -9));
    let none = run_diagonal1(Some((&input, &data)), &out, value, i32::MAX, i32::MIN);
    assert_eq!(none, data);
}

/// DIAGONAL_MATRIX's Offset at INT32_MIN and INT32_MAX: `y + Offset` must not wrap.
#[test]
fn diagonal_matrix_offsets_at_int32_bounds() {
    let dev = Device::newest();
    let out = TensorDesc::new(DataType::Float32, &[4, 6]);
    for offset in [
        i32::MIN,
        i32::MIN + 1,
        -6,
        -3,
        0,
        5,
        6,
        i32::MAX - 1,
        i32::MAX,
    ] {
        let op = dev.diagonal(&out, offset, 3.0).expect("create");
        let mut ob = Buffer::filled(out.total_size, 0xCD);
        let bo = ob.binding();
        execute(&op, &[], &[bind(&bo)]).expect("execute");
        let mut want = vec![0xCDu8; out.total_size as usize];
        reference::diagonal_matrix(&out, &mut want, offset, 3.0);
        assert_eq!(ob.bytes(), &want[..], "offset {offset}");
        let ones = bytemuck::cast_slice::<u8, f32>(ob.bytes())
            .iter()
            .filter(|&&v| v == 3.0)
            .count();
        let expect = (0..4i64)
            .filter(|&y| (0..6).contains(&(y + i64::from(offset))))
            .count();
        assert_eq!(ones, expect, "offset {offset}");
    }
}

// ------------------------------------------------------------------------------------------------
// The largest valid tensors (validation only)

fn with_total(t: TensorDesc, total: u64) -> TensorDesc {
    t.total_size(total)
}

/// Tensors of exactly 2^32 − 1 elements are valid (created, never executed: they would need
/// 4 to 32 GiB); one element more is not.
#[test]
fn largest_valid_tensors_are_created() {
    let dev = Device::newest();
    let max = u32::MAX; // 2^32 - 1 = 3 x 5 x 17 x 257 x 65537
    let count = TensorDesc::new(DataType::UInt32, &[1]);
    // With UINT32 outputs every tensor holds at most 2^32 - 1 elements, the coordinates {M, N}
    // included: M = 2^32 - 1 for a 1-D input, M = 2^31 - 2^15 - 1 (< 2^31) for N = 2.
    for (sizes, n) in [
        (vec![max], 1u32),
        (vec![32767u32, 65537], 2),
        (vec![1, 1, 1, 1, 1, 1, 32767, 65537], 2),
    ] {
        let input = TensorDesc::new(DataType::UInt8, &sizes);
        let m: u32 = sizes.iter().product();
        let coords = TensorDesc::new(DataType::UInt32, &[m, n]);
        let op = dev.nonzero(&input, &count, &coords);
        assert!(op.is_ok(), "{sizes:?}: {op:?}", op = op.err());
    }
    let input = TensorDesc::new(DataType::UInt8, &[65535, 65537]);
    assert_eq!(input.total_size, 1 << 32);
    let coords = TensorDesc::new(DataType::UInt32, &[max, 2]);
    let (hr, msg) = dev
        .nonzero(&input, &count, &coords)
        .err()
        .expect("rejected");
    assert_eq!(hr, E_INVALIDARG);
    assert!(
        msg.contains("OutputCoordinatesTensor has 8589934590 elements"),
        "{msg}"
    );
    // At feature level 3.0 (4 or 5 dimensions).
    let dev30 = Device::new(DML_FEATURE_LEVEL_3_0.0, 1, 0);
    let input = TensorDesc::new(DataType::Int16, &[1, 1, 1, 32767, 65537]);
    let count5 = TensorDesc::new(DataType::UInt32, &[1, 1, 1, 1, 1]);
    let coords5 = TensorDesc::new(DataType::UInt32, &[1, 1, 1, 32767 * 65537, 2]);
    assert!(dev30.nonzero(&input, &count5, &coords5).is_ok());
    // 64-bit coordinates with the extensions lift the limit for the coordinates; the input
    // (M) still holds at most 2^32 - 1 elements.
    let ext = Device::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let count64 = TensorDesc::new(DataType::Int64, &[1]);
    for (t, sizes) in [
        (DataType::Float64, vec![65535u32, 65537]),
        (DataType::UInt8, vec![1, 1, 1, 3, 5, 17, 257, 65537]),
    ] {
        let input = TensorDesc::new(t, &sizes);
        let coords64 = TensorDesc::new(DataType::Int64, &[max, sizes.len() as u32]);
        let op = ext.nonzero(&input, &count64, &coords64);
        assert!(op.is_ok(), "{sizes:?}: {op:?}", op = op.err());
    }

    // DIAGONAL_MATRIX1 and DIAGONAL_MATRIX outputs of 2^32 - 1 FLOAT64 elements (32 GiB).
    let out = TensorDesc::new(DataType::Float64, &[65535, 65537]);
    assert_eq!(out.total_size, 8 * u64::from(max));
    assert!(dev.diagonal1(Some(&out), &out, [0; 8], i32::MIN, 0).is_ok());
    let out4 = TensorDesc::new(DataType::Int64, &[1, 1, 65535, 65537]);
    assert!(dev.diagonal(&out4, 0, 1.0).is_ok());

    // One element more: E_INVALIDARG with a message naming the count.
    for (sizes, what) in [
        (vec![65536u32, 65536], "4294967296 elements"),
        (vec![2, 65535, 65537], "8589934590 elements"),
    ] {
        let input = TensorDesc::new(DataType::UInt8, &sizes);
        let coords = TensorDesc::new(DataType::UInt32, &[max, sizes.len() as u32]);
        let (hr, msg) = dev
            .nonzero(&input, &count, &coords)
            .err()
            .expect("rejected");
        assert_eq!(hr, E_INVALIDARG);
        assert!(msg.contains(what), "{msg}");
        let out = TensorDesc::new(DataType::UInt8, &sizes[sizes.len() - 2..]);
        if sizes.len() == 2 {
            let (hr, msg) = dev
                .diagonal1(None, &out, [0; 8], 0, 1)
                .err()
                .expect("rejected");
            assert_eq!(hr, E_INVALIDARG);
            assert!(msg.contains(what), "{msg}");
        }
    }

    // TotalTensorSizeInBytes: the largest the address space allows is valid; past it is not.
    let small = TensorDesc::new(DataType::Float32, &[2, 2]);
    let largest = with_total(small, (i64::MAX as u64) & !3);
    assert!(dev.diagonal1(None, &largest, [0; 8], 0, 1).is_ok());
    let (hr, msg) = dev
        .diagonal1(None, &with_total(small, 1 << 63), [0; 8], 0, 1)
        .err()
        .expect("rejected");
    assert_eq!(hr, E_INVALIDARG);
    assert!(msg.contains("TotalTensorSizeInBytes"), "{msg}");
}

// ------------------------------------------------------------------------------------------------
// Strides near 2^32

/// Strides near 2^32 validate with 64-bit extents (DirectMLX's 32-bit sum would wrap), and
/// `dmls_calc_buffer_tensor_size` agrees.
#[test]
fn strides_near_2_pow_32_validate_in_64_bits() {
    let dev = Device::newest();
    let calc = |t: DataType, sizes: &[u32], strides: &[u32]| {
        // SAFETY: both arrays hold sizes.len() entries.
        unsafe {
            dmls_calc_buffer_tensor_size(
                t.raw(),
                sizes.len() as u32,
                sizes.as_ptr(),
                strides.as_ptr(),
            )
        }
    };
    let cases: [(DataType, &[u32], &[u32]); 4] = [
        (DataType::Float32, &[3, 2], &[u32::MAX, 1]),
        (DataType::Float64, &[2, 2], &[u32::MAX, u32::MAX - 1]),
        (DataType::UInt8, &[2, 3, 4], &[1 << 31, 0xFFFF_FFF0, 1]),
        (DataType::Int16, &[4, 5], &[0x8000_0001, 1]),
    ];
    for (t, sizes, strides) in cases {
        let last: u128 = sizes
            .iter()
            .zip(strides)
            .map(|(&s, &st)| u128::from(s - 1) * u128::from(st))
            .sum();
        let want = ((last + 1) * t.size() as u128).div_ceil(4) * 4;
        assert!(want > u128::from(u32::MAX), "a case past 32 bits");
        assert_eq!(
            u128::from(calc(t, sizes, strides)),
            want,
            "{t:?} {sizes:?} {strides:?}"
        );
        let out = TensorDesc::with_strides(t, sizes, strides);
        assert_eq!(u128::from(out.total_size), want);
        if sizes.len() <= 4 {
            assert!(
                dev.diagonal1(None, &out, [0; 8], 0, 1).is_ok(),
                "{t:?} {sizes:?} {strides:?}"
            );
            let short = with_total(out, out.total_size - 4);
            let (hr, _) = dev
                .diagonal1(None, &short, [0; 8], 0, 1)
                .err()
                .expect("too small");
            assert_eq!(hr, E_INVALIDARG);
        }
    }
}

/// A stride near 2^32 on a dimension of size 1 never moves an address: such tensors execute
/// exactly like packed ones (all three operators, against the reference).
#[test]
fn strides_near_2_pow_32_on_size_1_dimensions_execute() {
    let sizes = [1u32, 3, 1, 4];
    let strides = [u32::MAX, 4, 0xFFFF_FFFE, 1];
    let data: Vec<f32> = vec![
        0.0,
        1.5,
        -0.0,
        2.0,
        f32::NAN,
        0.0,
        7.0,
        0.0,
        0.0,
        3.0,
        0.0,
        -1.0,
    ];
    let data = words(&data);
    let strided = TensorDesc::with_strides(DataType::Float32, &sizes, &strides);
    let packed = TensorDesc::new(DataType::Float32, &sizes);
    assert_eq!(strided.total_size, packed.total_size);

    let (count_s, coords_s) = run_nonzero(&strided, &data, 4);
    let (count_p, coords_p) = run_nonzero(&packed, &data, 4);
    assert_eq!((count_s, &coords_s), (count_p, &coords_p));
    assert_eq!(count_s, 6);

    let value = value_of(&9.0f32.to_ne_bytes());
    let got = run_diagonal1(Some((&strided, &data)), &strided, value, 0, 2);
    let want = run_diagonal1(Some((&packed, &data)), &packed, value, 0, 2);
    assert_eq!(got, want);

    let dev = Device::newest();
    let op = dev.diagonal(&strided, 1, 4.0).expect("create");
    let mut ob = Buffer::filled(strided.total_size, 0xCD);
    let bo = ob.binding();
    execute(&op, &[], &[bind(&bo)]).expect("execute");
    let mut want = vec![0xCDu8; strided.total_size as usize];
    reference::diagonal_matrix(&strided, &mut want, 1, 4.0);
    assert_eq!(ob.bytes(), &want[..]);
}
