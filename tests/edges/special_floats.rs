//! Special float values: NaN payloads, -0.0, subnormals and infinities through
//! DIAGONAL_MATRIX1 and NONZERO_COORDINATES, and DIAGONAL_MATRIX's FLOAT to FLOAT16 conversion.

use crate::common::*;
use crate::{run_diagonal1, run_diagonal1_in_place, run_nonzero, value_of, words};
use directml_subset::reference;
use directml_subset::{DataType, TensorDesc, DMLS_DEVICE_FLAG_EXTENSIONS};

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
