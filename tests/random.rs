//! Randomised comparison of the C API against the reference implementations, over shapes,
//! types, strides (padded, permuted, broadcast), output strides, densities, fill ranges and
//! thread counts. Set DMLS_SEED to replay a run; the seed is printed when a case fails. One
//! case in ten is large enough for the parallel paths, which the tests take from their floors
//! on whatever this machine measures.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use common::*;
use directml_subset::dml::*;
use directml_subset::{reference, DataType};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The seed (printed, so that a failing run can be replayed) and a generator seeded with it.
fn start(name: &str) -> (u64, SmallRng) {
    force_parallel_paths();
    let seed = seed_from_env("DMLS_SEED");
    eprintln!("{name}: DMLS_SEED={seed}");
    (seed, SmallRng::seed_from_u64(seed))
}

/// Panics with the first byte at which `got` differs from `want`, if any.
fn assert_same(got: &[u8], want: &[u8], what: &str, ctx: &str) {
    if let Some(at) = first_difference(got, want) {
        panic!("{ctx}: {what} differs first at byte {at}");
    }
}

/// A random output tensor: packed, or half the time with random strides (no broadcast).
fn random_output(rng: &mut SmallRng, ty: u32, sizes: &[u32]) -> Tensor {
    let strides = random_strides(rng, sizes, false).filter(|_| rng.random_bool(0.5));
    Tensor::with_strides(ty, sizes, strides.as_deref())
}

/// Random sizes with `dims` dimensions and at most about `max` elements.
fn random_sizes(rng: &mut SmallRng, dims: usize, max: u64) -> Vec<u32> {
    loop {
        let sizes: Vec<u32> = (0..dims)
            .map(|_| match rng.random_range(0..6) {
                0 => 1,
                1 => rng.random_range(1..4),
                2 => rng.random_range(60..70),
                _ => rng.random_range(1..12),
            })
            .collect();
        let n: u64 = sizes.iter().map(|&s| u64::from(s)).product();
        if n <= max {
            return sizes;
        }
    }
}

fn data_type(ty: u32) -> DataType {
    DataType::from_raw(DML_TENSOR_DATA_TYPE(ty)).expect("a supported type")
}

#[test]
fn nonzero_matches_reference() {
    let (seed, mut rng) = start("nonzero_matches_reference");
    let serial = Device::new(0, 1, 0);
    let parallel = Device::new(0, 2, 0);
    let extended = Device::new(0, 2, DMLS_EXT);
    for case in 0..400 {
        let large = case % 10 == 0;
        let ext = case % 7 == 0;
        let in_ty = if ext {
            [1u32, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11][rng.random_range(0..11)]
        } else {
            [1u32, 2, 3, 4, 5, 6, 7, 8][rng.random_range(0..8)]
        };
        let out_ty = if ext {
            [3u32, 10, 11][rng.random_range(0..3)]
        } else {
            3
        };
        let dims = rng.random_range(1..=8);
        let sizes = if large {
            let mut s = vec![1u32; dims];
            s[dims - 1] = rng.random_range(100_000..300_000);
            if dims > 1 {
                s[dims - 1] /= 3;
                s[dims - 2] = 3;
            }
            s
        } else {
            random_sizes(&mut rng, dims, 5000)
        };
        let m: u32 = sizes.iter().product();
        let strides = random_strides(&mut rng, &sizes, true);
        let mut input = Tensor::with_strides(in_ty, &sizes, strides.as_deref());
        let n = rng.random_range(min_columns(&sizes)..=dims) as u32;
        let kdims = rng.random_range(2..=8usize);
        let mut csizes = vec![1u32; kdims];
        csizes[kdims - 2] = m;
        csizes[kdims - 1] = n;
        let mut coords = match rng.random_range(0..4) {
            0 => {
                // ONNX Runtime's transposed layout.
                let mut st = vec![0u32; kdims];
                st[kdims - 2] = 2;
                st[kdims - 1] = 2 * m;
                Tensor::strided(out_ty, &csizes, &st)
            }
            1 => {
                let mut st = vec![0u32; kdims];
                st[kdims - 2] = n + rng.random_range(0..3);
                st[kdims - 1] = 1;
                Tensor::strided(out_ty, &csizes, &st)
            }
            _ => Tensor::new(out_ty, &csizes),
        };
        let cdims = rng.random_range(1..=8usize);
        let mut count = Tensor::new(out_ty, &vec![1; cdims]);
        let density = [0.0, 0.01, 0.3, 0.5, 0.9, 1.0][rng.random_range(0..6)];
        let data = random_elements(&mut rng, data_type(in_ty), input.total as usize, density)
            .bytes()
            .to_vec();
        let dev = if ext {
            &extended
        } else if rng.random_bool(0.5) {
            &serial
        } else {
            &parallel
        };
        let ctx = format!(
            "case {case} (DMLS_SEED={seed}): type {in_ty}->{out_ty} sizes {sizes:?} strides {:?} coords {csizes:?} {:?} density {density}",
            input.strides, coords.strides
        );
        let desc = nonzero_desc(&mut input, &mut count, &mut coords);
        let op = dev
            .create_op(&*desc)
            .unwrap_or_else(|e| panic!("{ctx}: create failed {e:?}"));
        let mut inb = Buffer::with_bytes(&data);
        let mut cb = Buffer::new(count.total as usize);
        let mut kb = Buffer::new(coords.total as usize);
        let (ib, cbb, kbb) = (inb.binding(), cb.binding(), kb.binding());
        execute(&op, &[bind(&ib)], &[bind(&cbb), bind(&kbb)])
            .unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
        let mut want_count = vec![CANARY; count.total as usize];
        let mut want_coords = vec![CANARY; coords.total as usize];
        reference::nonzero_coordinates(
            &input.rust(),
            &data,
            &count.rust(),
            &coords.rust(),
            &mut want_count,
            &mut want_coords,
        );
        assert_same(cb.bytes(), &want_count, "count", &ctx);
        assert_same(kb.bytes(), &want_coords, "coordinates", &ctx);
        assert!(
            cb.guards_intact() && kb.guards_intact(),
            "{ctx}: guard bytes"
        );
    }
}

const DMLS_EXT: u32 = directml_subset::DMLS_DEVICE_FLAG_EXTENSIONS;

#[test]
fn diagonal_matrix1_matches_reference() {
    let (seed, mut rng) = start("diagonal_matrix1_matches_reference");
    let serial = Device::new(0, 1, 0);
    let parallel = Device::new(0, 2, 0);
    let bounds = [
        i32::MIN,
        i32::MIN + 1,
        -70,
        -5,
        -2,
        -1,
        0,
        1,
        2,
        5,
        70,
        i32::MAX - 1,
        i32::MAX,
    ];
    for case in 0..400 {
        let ty = rng.random_range(1..=11u32);
        let dims = rng.random_range(2..=4);
        let sizes = if case % 10 == 0 {
            let mut s = vec![1u32; dims];
            s[dims - 1] = rng.random_range(500..800);
            s[dims - 2] = rng.random_range(500..800);
            s
        } else {
            random_sizes(&mut rng, dims, 4000)
        };
        let mut output = random_output(&mut rng, ty, &sizes);
        let mode = rng.random_range(0..3); // 0: no input, 1: separate input, 2: in place
        let mut input = match mode {
            1 => {
                let strides = random_strides(&mut rng, &sizes, true);
                Some(Tensor::with_strides(ty, &sizes, strides.as_deref()))
            }
            2 => Some(Tensor::with_strides(ty, &sizes, output.strides.as_deref())),
            _ => None,
        };
        let begin = if rng.random_bool(0.5) {
            bounds[rng.random_range(0..bounds.len())]
        } else {
            rng.random_range(-10..10)
        };
        let end = if rng.random_bool(0.5) {
            bounds[rng.random_range(0..bounds.len())]
        } else {
            rng.random_range(-10..10)
        };
        let mut value = [0u8; 8];
        rng.fill(&mut value[..]);
        let dev = if rng.random_bool(0.5) {
            &serial
        } else {
            &parallel
        };
        let ctx = format!(
            "case {case} (DMLS_SEED={seed}): type {ty} sizes {sizes:?} out strides {:?} mode {mode} in strides {:?} begin {begin} end {end}",
            output.strides,
            input.as_ref().map(|i| i.strides.clone())
        );
        let desc = diag1_desc(input.as_mut(), &mut output, value, begin, end);
        let op = dev
            .create_op(&*desc)
            .unwrap_or_else(|e| panic!("{ctx}: create failed {e:?}"));
        let out_len = output.total as usize;
        let in_data = input.as_ref().map(|i| {
            random_elements(&mut rng, data_type(ty), i.total as usize, 0.8)
                .bytes()
                .to_vec()
        });
        let mut want = vec![CANARY; out_len];
        let mut ob = Buffer::new(out_len);
        if mode == 2 {
            // In place: the output starts as the input.
            let d = in_data.as_ref().unwrap();
            ob.bytes_mut().copy_from_slice(d);
            want.copy_from_slice(d);
        }
        let in_rust = input.as_ref().map(Tensor::rust);
        let ref_input = in_rust.as_ref().zip(in_data.as_deref());
        reference::diagonal_matrix1(ref_input, &output.rust(), &mut want, value, begin, end);
        let obb = ob.binding();
        let result = match mode {
            2 => execute(&op, &[bind(&obb)], &[bind(&obb)]),
            1 => {
                let mut inb = Buffer::with_bytes(in_data.as_ref().unwrap());
                execute(&op, &[bind(&inb.binding())], &[bind(&obb)])
            }
            _ => execute(&op, &[none_binding()], &[bind(&obb)]),
        };
        result.unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
        assert_same(ob.bytes(), &want, "output", &ctx);
        assert!(ob.guards_intact(), "{ctx}: guard bytes");
    }
}

#[test]
fn diagonal_matrix_matches_reference() {
    let (seed, mut rng) = start("diagonal_matrix_matches_reference");
    let dev = Device::new(0, 2, 0);
    for case in 0..200 {
        let ty = rng.random_range(1..=11u32);
        let dims = rng.random_range(2..=4);
        let sizes = random_sizes(&mut rng, dims, 3000);
        let mut output = random_output(&mut rng, ty, &sizes);
        let offset = [i32::MIN, -3, -1, 0, 1, 4, i32::MAX][rng.random_range(0..7)];
        let value = [
            0.0f32,
            1.0,
            -1.5,
            10.6,
            300.0,
            -1e10,
            f32::NAN,
            65519.0,
            1e-8,
        ][rng.random_range(0..9)];
        let ctx = format!("case {case} (DMLS_SEED={seed}): type {ty} sizes {sizes:?} strides {:?} offset {offset} value {value}", output.strides);
        let op = dev
            .create_op(&diag_desc(&mut output, offset, value))
            .unwrap_or_else(|e| panic!("{ctx}: create failed {e:?}"));
        let mut ob = Buffer::new(output.total as usize);
        let obb = ob.binding();
        execute(&op, &[], &[bind(&obb)]).unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
        let mut want = vec![CANARY; output.total as usize];
        reference::diagonal_matrix(&output.rust(), &mut want, offset, value);
        assert!(ob.bytes() == &want[..], "{ctx}: output differs");
        assert!(ob.guards_intact(), "{ctx}: guard bytes");
    }
}
