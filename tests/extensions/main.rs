//! DMLS_DEVICE_FLAG_EXTENSIONS through the C functions (as a C program calls them) and the safe
//! API: 64-bit NONZERO_COORDINATES inputs (FLOAT64, INT64, UINT64), UINT64 / INT64 counts and
//! coordinates (both the same type), element limits, and a strict device rejecting each with
//! E_INVALIDARG and a message naming the flag. Unknown flag bits are rejected.
//!
//! The randomised test prints its seed on failure; replay with DMLS_TEST_SEED=<seed>.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use core::ffi::c_void;

use common::{
    bind, calc_size, create_nonzero, execute_raw, last_error, run_seeded, Device as CDevice,
    Operator,
};
use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::{
    DataType, Device, DeviceOptions, Error, Input, OperatorDesc, TensorDesc,
    DMLS_DEVICE_FLAG_EXTENSIONS,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

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

#[test]
fn unknown_flag_bits_are_rejected() {
    for flags in [0x2u32, 0x3, 0x10, 0x8000_0000, u32::MAX] {
        let desc = dmls_device_desc {
            feature_level: DML_FEATURE_LEVEL(0),
            thread_count: 0,
            flags,
        };
        let sentinel = 0x1000 as *mut dmls_device;
        let mut device = sentinel;
        // SAFETY: the desc and the out-pointer are NULL or locals that outlive the call.
        let hr = unsafe { dmls_device_create(&desc, &mut device) };
        assert_eq!(hr, E_INVALIDARG, "flags {flags:#x}");
        assert_eq!(device, sentinel, "a failed create wrote the device");
        let msg = last_error();
        assert!(
            msg.contains(FLAG) && msg.contains(&format!("{flags:#x}")),
            "{msg}"
        );

        let err = Device::new(&DeviceOptions {
            flags,
            ..Default::default()
        })
        .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArg(m) if m.contains(FLAG)),
            "{err:?}"
        );
        assert_eq!(err.hresult(), E_INVALIDARG);
    }
    for flags in [0, DMLS_DEVICE_FLAG_EXTENSIONS] {
        let d = Device::new(&DeviceOptions {
            flags,
            ..Default::default()
        })
        .expect("device");
        assert_eq!(d.extensions(), flags != 0);
        drop(CDevice::new(0, 1, flags));
    }
    assert_eq!(DMLS_DEVICE_FLAG_EXTENSIONS, 1);
}

#[test]
fn strict_device_rejects_wide_inputs_naming_the_flag() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    for t in WIDE_INPUTS {
        let nz = nonzero(
            (t, &[2, 3], None),
            DataType::UInt32,
            (DataType::UInt32, &[6, 2], None),
        );
        let msg = nz.rejected(&strict, &[FLAG]);
        assert!(
            msg.contains(&format!(
                "InputTensor DataType is {} ({})",
                t.name(),
                t.raw().0
            )),
            "{msg}"
        );
        nz.create(&ext).expect("extensions allow 64-bit inputs");

        // The safe API says the same.
        let device = Device::new(&DeviceOptions::default()).unwrap();
        let desc = OperatorDesc::NonZeroCoordinates {
            input: TensorDesc::new(t, &[2, 3]),
            output_count: TensorDesc::new(DataType::UInt32, &[1]),
            output_coordinates: TensorDesc::new(DataType::UInt32, &[6, 2]),
        };
        match device.create_operator(&desc) {
            Err(Error::InvalidArg(m)) => assert!(m.contains(FLAG), "{m}"),
            other => panic!("expected InvalidArg, got {other:?}"),
        }
    }
}

#[test]
fn strict_device_rejects_wide_outputs_naming_the_flag() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    for t in WIDE_OUTPUTS {
        let nz = nonzero((DataType::Float32, &[2, 3], None), t, (t, &[6, 2], None));
        let msg = nz.rejected(&strict, &[FLAG]);
        assert!(msg.contains("OutputCountTensor DataType is"), "{msg}");
        nz.create(&ext).expect("extensions allow 64-bit outputs");

        // Only the coordinates wide: the strict device names them and the flag.
        let nz = nonzero(
            (DataType::Float32, &[2, 3], None),
            DataType::UInt32,
            (t, &[6, 2], None),
        );
        let msg = nz.rejected(&strict, &[]);
        assert!(
            msg.contains("OutputCoordinatesTensor") && msg.contains(FLAG),
            "{msg}"
        );
    }
}

#[test]
fn counts_and_coordinates_must_have_the_same_type() {
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    use DataType::*;
    for (count, coords) in [
        (UInt64, Int64),
        (Int64, UInt64),
        (UInt32, UInt64),
        (Int64, UInt32),
    ] {
        let nz = nonzero((Float32, &[4], None), count, (coords, &[4, 1], None));
        nz.rejected(&ext, &["both must be the same"]);
    }
    for other in [Int32, UInt16, Float64, Int8] {
        let nz = nonzero((Float32, &[4], None), other, (other, &[4, 1], None));
        nz.rejected(&ext, &["must be UINT32, or UINT64 or INT64"]);
    }
}

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

#[test]
fn random_wide_types_match_the_model() {
    run_seeded(
        "random_wide_types_match_the_model",
        "DMLS_TEST_SEED",
        random_cases,
    );
}

fn random_cases(seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let strict = CDevice::new(0, 1, 0);
    for case in 0..300 {
        let in_type = DataType::ALL[rng.random_range(0..11)];
        let out_type =
            [DataType::UInt32, DataType::UInt64, DataType::Int64][rng.random_range(0..3)];
        let dims = rng.random_range(1..=8usize);
        let sizes: Vec<u32> = (0..dims).map(|_| rng.random_range(1..=4)).collect();
        let strided = rng.random_bool(0.5);
        let strides: Vec<u64> = if strided {
            // Random strides, some broadcast (0), some with gaps.
            let mut acc = 1u64;
            let mut s = vec![0u64; dims];
            for d in (0..dims).rev() {
                s[d] = if rng.random_bool(0.2) {
                    0
                } else {
                    acc * rng.random_range(1..=2)
                };
                acc = acc.max(s[d]) * u64::from(sizes[d]);
            }
            s
        } else {
            let mut acc = 1u64;
            let mut s = vec![0u64; dims];
            for d in (0..dims).rev() {
                s[d] = acc;
                acc *= u64::from(sizes[d]);
            }
            s
        };
        let lead = sizes.iter().take_while(|&&s| s == 1).count();
        let n = rng.random_range((dims - lead).max(1)..=dims);
        let m: u32 = sizes.iter().product();
        // The coordinates: packed {M, N}, or transposed (strides {1, M}) as ONNX Runtime lays
        // them out.
        let transposed = rng.random_bool(0.5);
        let coords_strides = [1u32, m];
        let strides32: Vec<u32> = strides.iter().map(|&s| s as u32).collect();
        let nz = nonzero(
            (in_type, &sizes, strided.then_some(&strides32[..])),
            out_type,
            (
                out_type,
                &[m, n as u32],
                transposed.then_some(&coords_strides[..]),
            ),
        );
        let what = format!(
            "seed {seed} case {case}: {} {sizes:?} strides {strides:?} -> {} N={n} transposed={transposed}",
            in_type.name(),
            out_type.name()
        );
        let wide = in_type.size() == 8 || out_type.size() == 8;
        if wide {
            nz.rejected(&strict, &[FLAG]);
        }
        let op = nz.create(&ext).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        // Input bytes: mostly zeros; floats get -0.0 (zero) and NaN (nonzero); 64-bit words get
        // bits only in their high half.
        let words = (nz.input.total_size as usize).div_ceil(8);
        let mut input = vec![0u64; words];
        {
            let bytes: &mut [u8] = bytemuck_bytes_mut(&mut input);
            let es = in_type.size();
            for chunk in bytes.chunks_exact_mut(es) {
                let r: u32 = rng.random_range(0..10);
                let v: u64 = match (r, in_type) {
                    (0..=4, _) => 0,
                    (5, DataType::Float64) => (-0.0f64).to_bits(),
                    (5, DataType::Float32) => u64::from((-0.0f32).to_bits()),
                    (5, DataType::Float16) => 0x8000,
                    (6, DataType::Float64) => f64::NAN.to_bits(),
                    (6, _) if es == 8 => 1 << rng.random_range(32..64),
                    _ => rng.random::<u64>() | 1,
                };
                chunk.copy_from_slice(&v.to_ne_bytes()[..es]);
            }
        }
        let canary = 0xA5A5_A5A5_A5A5_A5A5u64;
        let mut count = vec![canary; 2];
        let mut coords = vec![canary; (nz.coords.total_size as usize).div_ceil(8)];
        let hr = execute(op.0, &input, &mut count, &mut coords);
        assert_eq!(hr, S_OK, "{what}: {}", last_error());

        let want = model(in_type, bytemuck_bytes(&input), &sizes, &strides, n);
        let os = out_type.size();
        let count_bytes = bytemuck_bytes(&count);
        let got_count = if os == 8 {
            u64::from_ne_bytes(count_bytes[..8].try_into().unwrap())
        } else {
            u64::from(u32::from_ne_bytes(count_bytes[..4].try_into().unwrap()))
        };
        assert_eq!(got_count, want.len() as u64, "{what}: count");
        assert!(
            count_bytes[os..].iter().all(|&b| b == 0xA5),
            "{what}: past the count"
        );
        let cb = bytemuck_bytes(&coords);
        let (rs, cs) = if transposed {
            (1usize, m as usize)
        } else {
            (n, 1)
        };
        let mut written = vec![false; cb.len() / os];
        for (r, row) in want.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                let at = r * rs + c * cs;
                written[at] = true;
                let e = &cb[at * os..at * os + os];
                let got = if os == 8 {
                    u64::from_ne_bytes(e.try_into().unwrap())
                } else {
                    u64::from(u32::from_ne_bytes(e.try_into().unwrap()))
                };
                assert_eq!(got, v, "{what}: row {r} column {c}");
            }
        }
        // Rows from the count on, and the gaps, are untouched.
        for (i, w) in written.iter().enumerate() {
            if !w {
                assert!(
                    cb[i * os..i * os + os].iter().all(|&b| b == 0xA5),
                    "{what}: element {i} written"
                );
            }
        }
    }
}

fn bytemuck_bytes(v: &[u64]) -> &[u8] {
    // SAFETY: u64 has no padding; any byte pattern of the slice is a valid [u8].
    unsafe { core::slice::from_raw_parts(v.as_ptr().cast(), v.len() * 8) }
}

fn bytemuck_bytes_mut(v: &mut [u64]) -> &mut [u8] {
    // SAFETY: as above; the borrow is exclusive.
    unsafe { core::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), v.len() * 8) }
}

#[test]
fn safe_api_runs_wide_types() {
    let device = Device::new(&DeviceOptions {
        flags: DMLS_DEVICE_FLAG_EXTENSIONS,
        ..Default::default()
    })
    .unwrap();
    let op = device
        .create_operator(&OperatorDesc::NonZeroCoordinates {
            input: TensorDesc::new(DataType::Float64, &[2, 3]),
            output_count: TensorDesc::new(DataType::Int64, &[1]),
            output_coordinates: TensorDesc::new(DataType::Int64, &[6, 2]),
        })
        .unwrap();
    let input: [f64; 6] = [0.0, -0.0, f64::NAN, 2.5, 0.0, f64::MIN_POSITIVE / 4.0];
    let in_bytes: Vec<u8> = input.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut in_words = vec![0u64; 6];
    bytemuck_bytes_mut(&mut in_words).copy_from_slice(&in_bytes);
    let mut count = [-1i64; 1];
    let mut coords = [-1i64; 12];
    // SAFETY: i64 has no padding.
    let count_b = unsafe { core::slice::from_raw_parts_mut(count.as_mut_ptr().cast::<u8>(), 8) };
    // SAFETY: i64 has no padding; `coords` is 12 × 8 = 96 bytes.
    let coords_b = unsafe { core::slice::from_raw_parts_mut(coords.as_mut_ptr().cast::<u8>(), 96) };
    op.execute(
        &[Input::Bytes(bytemuck_bytes(&in_words))],
        &mut [count_b, coords_b],
    )
    .unwrap();
    assert_eq!(count[0], 3);
    assert_eq!(&coords[..6], &[0, 2, 1, 0, 1, 2]);
    assert!(coords[6..].iter().all(|&v| v == -1));
}

#[test]
fn extensions_work_at_every_nonzero_feature_level() {
    // DirectML's 3.x rule (4 or 5 dimensions, the same for all three tensors) still holds.
    for level in [0x3000u32, 0x3100, 0x4000, 0x5100, 0x6400] {
        let ext = CDevice::new(level, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
        let nz = NonZero {
            input: tensor(DataType::Int64, &[1, 1, 2, 2], None),
            count: tensor(DataType::UInt64, &[1, 1, 1, 1], None),
            coords: tensor(DataType::UInt64, &[1, 1, 4, 4], None),
        };
        let op = nz
            .create(&ext)
            .unwrap_or_else(|e| panic!("level {level:#x}: {e:?}"));
        let input = [0u64, 1 << 40, 0, 3];
        let mut count = [0u64; 1];
        let mut coords = [u64::MAX; 16];
        assert_eq!(execute(op.0, &input, &mut count, &mut coords), S_OK);
        assert_eq!(count[0], 2);
        assert_eq!(&coords[..8], &[0, 0, 0, 1, 0, 0, 1, 1]);
    }
}

/// Coordinates tensors of more than 2^32 - 1 elements need 64-bit outputs. The input is
/// broadcast (stride 0); outputs may not overlap themselves, so the coordinates are packed.
/// Only creation is checked here (no memory is bound).
#[test]
fn wide_outputs_lift_the_element_limit_of_the_coordinates() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    // 65535 * 65537 = 2^32 - 1 input elements; coordinates {2^32 - 1, 2}: 2^33 - 2 elements.
    let make = |t: DataType| {
        nonzero(
            (DataType::UInt8, &[65535, 65537], Some(&[0, 0])),
            t,
            (t, &[u32::MAX, 2], Some(&[2, 1])),
        )
    };
    for device in [&strict, &ext] {
        make(DataType::UInt32)
            .rejected(device, &["OutputCoordinatesTensor has 8589934590 elements"]);
    }
    for t in WIDE_OUTPUTS {
        make(t).rejected(&strict, &[FLAG]);
        make(t)
            .create(&ext)
            .expect("64-bit coordinates may hold 2^33 - 2 elements");
    }
}

/// api.md, "Extensions": with UINT64 or INT64 counts and coordinates "the input's element
/// count may exceed 2^32 - 1". Such an input (broadcast, so it takes 1 byte) is refused by a
/// strict device and, with 32-bit outputs, by an extensions device. With 64-bit outputs its
/// coordinates' rows spread over the dimensions before N: {65536, 65537, 2}.
#[test]
fn wide_outputs_allow_inputs_above_the_element_limit() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let narrow = nonzero(
        (DataType::UInt8, &[65536, 65537], Some(&[0, 0])),
        DataType::UInt32,
        (DataType::UInt32, &[65536, 2], None),
    );
    for device in [&strict, &ext] {
        narrow.rejected(device, &["InputTensor has 4295032832 elements"]);
    }
    for t in WIDE_OUTPUTS {
        let wide = nonzero(
            (DataType::UInt8, &[65536, 65537], Some(&[0, 0])),
            t,
            (t, &[65536, 65537, 2], Some(&[131074, 2, 1])),
        );
        wide.rejected(&strict, &[FLAG]);
        wide.create(&ext)
            .unwrap_or_else(|e| panic!("{}: {e:?}", t.name()));
    }
    // The rows must add up to the element count.
    let short = nonzero(
        (DataType::UInt8, &[65536, 65537], Some(&[0, 0])),
        DataType::UInt64,
        (DataType::UInt64, &[65536, 65536, 2], Some(&[131072, 2, 1])),
    );
    let msg = short.rejected(&ext, &[]);
    assert!(
        msg.contains("must equal the input's element count 4295032832"),
        "{msg}"
    );
}

/// Spread rows on small inputs, run against the model: {..., M_i, ..., N} coordinates hold the
/// same rows as {M, N}, packed or evenly spaced; uneven spacing is refused, and 32-bit outputs
/// keep DirectML's {1, ..., 1, M, N}.
#[test]
fn spread_rows_run_like_packed_rows() {
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let strict = CDevice::new(0, 1, 0);
    let sizes = [2u32, 3, 2];
    let m = 12u32;
    let mut input = [0u64; 2];
    bytemuck_bytes_mut(&mut input)[..12].copy_from_slice(&[0, 1, 0, 0, 7, 0, 0, 0, 0, 3, 3, 0]);
    let strides: Vec<u64> = vec![6, 2, 1];
    let want = model(DataType::UInt8, bytemuck_bytes(&input), &sizes, &strides, 3);
    assert_eq!(want.len(), 4);
    for (coords_sizes, coords_strides, row_stride) in [
        (vec![2u32, 3, 2, 3], None, 3usize),
        (vec![2, 3, 2, 3], Some(vec![24u32, 8, 4, 1]), 4),
        (vec![4, 3, 3], Some(vec![15, 5, 1]), 5),
        (vec![1, 12, 3], Some(vec![0, 3, 1]), 3),
    ] {
        for t in WIDE_OUTPUTS {
            let nz = nonzero(
                (DataType::UInt8, &sizes, None),
                t,
                (t, &coords_sizes, coords_strides.as_deref()),
            );
            let what = format!("{coords_sizes:?} {coords_strides:?} {}", t.name());
            let op = nz.create(&ext).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            let mut count = [u64::MAX; 1];
            let mut coords = vec![0xEEu64; (nz.coords.total_size as usize).div_ceil(8)];
            assert_eq!(
                execute(op.0, &input, &mut count, &mut coords),
                S_OK,
                "{what}"
            );
            assert_eq!(count[0], 4, "{what}");
            for r in 0..m as usize {
                for c in 0..3 {
                    let v = coords[r * row_stride + c];
                    let expect = want.get(r).map_or(0xEE, |row| row[c]);
                    assert_eq!(v, expect, "{what}: row {r} column {c}");
                }
            }
            if coords_sizes[0] != 1 {
                let narrow = nonzero(
                    (DataType::UInt8, &sizes, None),
                    DataType::UInt32,
                    (DataType::UInt32, &coords_sizes, coords_strides.as_deref()),
                );
                for device in [&ext, &strict] {
                    let msg = narrow.rejected(device, &[]);
                    assert!(msg.contains("must be 1"), "{what}: {msg}");
                }
            }
        }
    }
    // Unevenly spaced rows.
    let nz = nonzero(
        (DataType::UInt8, &sizes, None),
        DataType::Int64,
        (DataType::Int64, &[2, 6, 3], Some(&[19, 3, 1])),
    );
    nz.rejected(&ext, &["evenly spaced"]);
}

/// Runs an operator whose coordinates tensor has 2^33 - 2 elements (2^32 - 1 input elements,
/// all zero): 64-bit outputs end to end. Slow (it scans 2^32 elements): run with
/// `cargo test --release --test extensions -- --ignored`.
#[test]
#[ignore]
fn wide_outputs_run_on_2_pow_32_elements() {
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let nz = nonzero(
        (DataType::UInt8, &[65535, 65537], Some(&[0, 0])),
        DataType::UInt64,
        (DataType::UInt64, &[u32::MAX, 2], Some(&[0, 1])),
    );
    let op = nz.create(&ext).expect("create");
    let input = [0u64; 1];
    let mut count = [u64::MAX; 1];
    let mut coords = [7u64; 2];
    assert_eq!(
        execute(op.0, &input, &mut count, &mut coords),
        S_OK,
        "{}",
        last_error()
    );
    assert_eq!(count[0], 0);
    assert_eq!(coords, [7, 7]);
}
