//! Randomised tests of the kernels' fast paths against `directml_subset::reference`: every SIMD
//! tail length (sizes around 64-lane boundaries), every data type (floats with ±0.0 and NaN),
//! strided and broadcast inputs, strided outputs, densities from 0 to 1, in-place
//! DIAGONAL_MATRIX1, and inputs large enough for the parallel paths (devices with 2 and 4
//! threads).
//!
//! Outputs start filled with a canary byte and are compared whole with the reference's, so a
//! kernel that writes padding or coordinate rows from the count on fails too.
//!
//! The seed comes from DMLS_SEED (or the clock) and is printed with every failure. The test
//! `other_simd_levels` runs the fast cases again in child processes with `DMLS_SIMD=avx2`,
//! `sse2` and `portable`, so every instruction set path runs on one machine.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use common::{
    diagonal1_op, element, first_difference, min_columns, packed, random_input, random_strides,
    run_seeded, rust_device as device, seed_from_env, tensor_desc as desc, Buffer, CANARY,
};
use directml_subset::{reference, DataType, Device, Input, OperatorDesc, TensorDesc};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn seed() -> u64 {
    seed_from_env("DMLS_SEED")
}

/// Runs `f` with a seeded generator; a failure names the seed.
fn with_seed(name: &str, f: impl FnOnce(&mut SmallRng)) {
    // Rerun at a lower DMLS_SIMD (other_simd_levels): at that level, not the best one.
    common::assert_simd_level_honoured();
    run_seeded(name, "DMLS_SEED", |seed| {
        f(&mut SmallRng::seed_from_u64(seed))
    });
}

const ALL_TYPES: [DataType; 11] = DataType::ALL;

/// A coordinates layout for M rows and N columns: packed, padded rows, column-major, or ONNX
/// Runtime's int64-as-pairs {2, 2M}; sometimes with leading dimensions of size 1.
fn coords_desc(rng: &mut SmallRng, out: DataType, m: u32, n: u32) -> TensorDesc {
    let lead = rng.random_range(0..3usize);
    let mut sizes = vec![1u32; lead];
    sizes.extend([m, n]);
    let strides: Option<(u32, u32)> = match rng.random_range(0..6) {
        0 => Some((n + rng.random_range(1..3), 1)),
        1 => Some((1, m)),
        2 => Some((2, 2 * m)),
        _ => None,
    };
    match strides {
        None => TensorDesc::new(out, &sizes),
        Some((rs, cs)) => {
            let mut st = vec![0u32; lead];
            st.extend([rs, cs]);
            TensorDesc::with_strides(out, &sizes, &st)
        }
    }
}

/// Runs NONZERO_COORDINATES on random elements of `input` (nonzero with probability
/// `density`), with a random output type, through `dev` and the reference; compares both
/// outputs whole.
fn check_nonzero(rng: &mut SmallRng, dev: &Device, input: TensorDesc, density: f64, what: &str) {
    check_nonzero_on(rng, std::slice::from_ref(dev), input, density, what)
}

/// [`check_nonzero`] on each of `devs`, with the same input and output (made and run through
/// the reference once: on the largest inputs that is most of the time).
fn check_nonzero_on(
    rng: &mut SmallRng,
    devs: &[Device],
    input: TensorDesc,
    density: f64,
    what: &str,
) {
    let out_type = out_types(rng);
    let sizes = input.sizes();
    let n = rng.random_range(min_columns(sizes)..=sizes.len()) as u32;
    check_nonzero_into(rng, devs, input, density, out_type, n, what)
}

/// [`check_nonzero`] into `n` columns of `out_type`, on each of `devs`.
fn check_nonzero_into(
    rng: &mut SmallRng,
    devs: &[Device],
    input: TensorDesc,
    density: f64,
    out_type: DataType,
    n: u32,
    what: &str,
) {
    let m: u32 = input.sizes().iter().product();
    let coords = coords_desc(rng, out_type, m, n);
    check_nonzero_devices(rng, devs, input, density, coords, what)
}

/// [`check_nonzero`] into the coordinates tensor `coords`.
fn check_nonzero_with(
    rng: &mut SmallRng,
    dev: &Device,
    input: TensorDesc,
    density: f64,
    coords: TensorDesc,
    what: &str,
) {
    check_nonzero_devices(rng, std::slice::from_ref(dev), input, density, coords, what)
}

/// [`check_nonzero_with`] on each of `devs`: one random input and one reference run, then each
/// device's run compared with it.
fn check_nonzero_devices(
    rng: &mut SmallRng,
    devs: &[Device],
    input: TensorDesc,
    density: f64,
    coords: TensorDesc,
    what: &str,
) {
    let data = &random_input(rng, &input, density);
    let sizes = input.sizes().to_vec();
    let m: u32 = sizes.iter().product();
    let out_type = DataType::from_raw(coords.data_type).expect("a coordinates type");
    let count = TensorDesc::new(out_type, &[1]);
    let mut want_count = Buffer::filled(count.total_size as usize, CANARY);
    let mut want = Buffer::filled(coords.total_size as usize, CANARY);
    let rows = reference::nonzero_coordinates(
        &input,
        data.bytes(),
        &count,
        &coords,
        want_count.bytes_mut(),
        want.bytes_mut(),
    );
    let ctx = format!(
        "{what}: input {:?} sizes {sizes:?} strides {:?}, output {:?} sizes {:?} strides {:?}, \
         {rows} of {m} nonzero",
        DataType::from_raw(input.data_type),
        input.strides(),
        out_type,
        coords.sizes(),
        coords.strides(),
    );
    for dev in devs {
        let ctx = format!("{ctx}, {} threads", dev.threads());
        let op = dev
            .create_operator(&OperatorDesc::NonZeroCoordinates {
                input,
                output_count: count,
                output_coordinates: coords,
            })
            .unwrap_or_else(|e| panic!("create: {ctx}: {e}"));
        let mut got_count = Buffer::filled(count.total_size as usize, CANARY);
        let mut got = Buffer::filled(coords.total_size as usize, CANARY);
        op.execute(
            &[Input::Bytes(data.bytes())],
            &mut [got_count.bytes_mut(), got.bytes_mut()],
        )
        .unwrap_or_else(|e| panic!("execute: {ctx}: {e}"));
        assert_eq!(got_count.bytes(), want_count.bytes(), "count: {ctx}");
        assert!(
            got.guards_intact() && got_count.guards_intact(),
            "bytes around the outputs written: {ctx}"
        );
        if let Some(i) = first_difference(got.bytes(), want.bytes()) {
            let e = out_type.size();
            panic!(
                "coordinates differ at byte {i} (element {}): got {:?}, want {:?}: {ctx}",
                i / e,
                &got.bytes()[i / e * e..i / e * e + e],
                &want.bytes()[i / e * e..i / e * e + e],
            );
        }
    }
}

fn out_types(rng: &mut SmallRng) -> DataType {
    match rng.random_range(0..4) {
        0 => DataType::UInt64,
        1 => DataType::Int64,
        _ => DataType::UInt32,
    }
}

/// Runs `f(rng, device, t, len)` for every type `t` and every length from 1 to 200 on a serial
/// device, with a seeded generator (a failure names the seed).
fn every_type_and_length(name: &str, mut f: impl FnMut(&mut SmallRng, &Device, DataType, u32)) {
    with_seed(name, |rng| {
        let dev = device(1);
        for t in ALL_TYPES {
            for len in 1..=200u32 {
                f(rng, &dev, t, len);
            }
        }
    });
}

/// Every type and every length from 1 to 200 (each SIMD tail), 1-D and 2-D, serial.
#[test]
fn nonzero_every_tail_and_type() {
    every_type_and_length("nonzero_every_tail_and_type", |rng, dev, t, len| {
        let density = [0.0, 1.0, 0.5, 0.05, 0.95][len as usize % 5];
        let sizes = match len % 3 {
            0 => vec![len],
            1 => vec![1, len],
            _ => vec![len.div_ceil(7), 7],
        };
        check_nonzero(rng, dev, TensorDesc::new(t, &sizes), density, "tail");
    });
}

/// Random shapes (lines shorter and longer than 64, up to 8 dimensions), strided and
/// broadcast inputs, strided outputs.
#[test]
fn nonzero_shapes_and_strides() {
    with_seed("nonzero_shapes_and_strides", |rng| {
        let dev = device(1);
        // Child runs (`other_simd_levels`) take fewer cases.
        let cases = if std::env::var_os("DMLS_SIMD").is_some() {
            150
        } else {
            600
        };
        for case in 0..cases {
            let dims = rng.random_range(1..=8usize);
            let sizes: Vec<u32> = loop {
                let s: Vec<u32> = (0..dims)
                    .map(|_| match rng.random_range(0..6) {
                        0 => 1,
                        1 => rng.random_range(60..=130),
                        2 => 64,
                        _ => rng.random_range(1..6),
                    })
                    .collect();
                if s.iter().map(|&x| u64::from(x)).product::<u64>() <= 20_000 {
                    break s;
                }
            };
            let t = ALL_TYPES[rng.random_range(0..ALL_TYPES.len())];
            let strides = random_strides(rng, &sizes, true);
            let input = desc(t, &sizes, strides.as_deref());
            let density = [0.0, 1.0, rng.random::<f64>(), 0.02, 0.98][case % 5];
            check_nonzero(rng, &dev, input, density, "shapes");
        }
    });
}

/// Rows that are one 64-bit lane each (two UINT32 columns, one UINT64 column), which the
/// AVX-512 walk writes eight at a time, and rows of more columns: the line in either column,
/// lines shorter and longer than a word (from 16 elements, the shortest the AVX-512 walks
/// take), dense and half-dense, with 8-, 16- and 32-bit inputs (the output type, the number of
/// columns and the layout are drawn at random).
#[test]
fn nonzero_one_lane_rows() {
    with_seed("nonzero_one_lane_rows", |rng| {
        let dev = device(1);
        let shapes: [&[u32]; 11] = [
            &[3000, 1],
            &[1, 3000],
            &[4099],
            &[300, 9],
            &[9, 300],
            &[70, 65],
            &[1, 2, 1, 1500],
            &[200, 16],
            &[100, 33],
            &[9, 20, 17],
            &[3, 5, 7, 40],
        ];
        let types = [
            DataType::Float32,
            DataType::Float16,
            DataType::UInt8,
            DataType::Int8,
            DataType::UInt16,
            DataType::Int32,
        ];
        for sizes in shapes {
            for density in [0.3, 0.5, 0.9, 1.0] {
                for t in types {
                    let input = TensorDesc::new(t, sizes);
                    check_nonzero(rng, &dev, input, density, "one-lane rows");
                }
            }
        }
    });
}

/// Inputs large enough for the parallel rounds, on 2 and 4 threads, at every density, in four
/// types.
#[test]
fn nonzero_parallel() {
    common::force_parallel_paths();
    with_seed("nonzero_parallel", |rng| {
        let devs = [device(2), device(4)];
        let shapes: [&[u32]; 6] = [
            &[64, 48, 48],
            &[517, 301],
            &[30_000, 5],
            &[140_001],
            &[2, 3, 128, 256],
            &[1, 400, 400],
        ];
        for (i, sizes) in shapes.iter().enumerate() {
            for (j, density) in [0.0, 0.001, 0.3, 0.5, 0.99, 1.0].into_iter().enumerate() {
                let t = [
                    DataType::Float32,
                    DataType::UInt8,
                    DataType::Float16,
                    DataType::Int64,
                ][(i + j) % 4];
                let strides = if (i + j) % 3 == 0 {
                    random_strides(rng, sizes, true)
                } else {
                    None
                };
                let input = desc(t, sizes, strides.as_deref());
                check_nonzero(rng, &devs[j % 2], input, density, "parallel");
            }
        }
    });
}

/// The parallel one pass (AVX-512: packed 8-, 16- and 32-bit inputs into one or two UINT32
/// columns, packed or in ONNX Runtime's layout): parts that start and end inside lines, on
/// more threads than cores (2, 16 and 64), at densities where the one pass runs.
#[test]
fn nonzero_parallel_one_pass() {
    common::force_parallel_paths();
    with_seed("nonzero_parallel_one_pass", |rng| {
        let devs = [device(2), device(16), device(64)];
        let shapes: [&[u32]; 7] = [
            &[140_001],
            &[517, 301],
            &[3, 70_001],
            &[1000, 129],
            &[1, 65_536],
            &[64, 4096],
            &[200_000],
        ];
        for (i, sizes) in shapes.iter().enumerate() {
            for (j, density) in [0.2, 0.5, 0.9, 1.0].into_iter().enumerate() {
                let t = [DataType::Float32, DataType::UInt8, DataType::Float16][(i + j) % 3];
                let input = desc(t, sizes, None);
                let n = sizes.len() as u32;
                check_nonzero_into(rng, &devs, input, density, DataType::UInt32, n, "one pass");
            }
        }
        // Parts claimed in order (more than 512 KiB per thread on 2 threads), into two UINT32
        // columns packed and in ONNX Runtime's {2, 2M} pairs.
        for (t, density) in [(DataType::Float32, 0.5), (DataType::UInt16, 0.9)] {
            let input = desc(t, &[2, 300_000], None);
            let m = 600_000;
            let packed = TensorDesc::new(DataType::UInt32, &[m, 2]);
            let pairs = TensorDesc::with_strides(DataType::UInt32, &[m, 2], &[2, 2 * m]);
            for coords in [packed, pairs] {
                check_nonzero_with(rng, &devs[0], input, density, coords, "one pass in order");
            }
        }
    });
}

/// Both parallel paths of NONZERO_COORDINATES on 2, 16 and 64 threads (more than the cores):
/// in slots (up to 512 KiB of input per thread; the other tests' inputs) and with parts
/// claimed in order (larger inputs: 8 MiB and more, 32 MiB and more on 64 threads).
#[test]
fn nonzero_parallel_in_slots_and_in_order() {
    common::force_parallel_paths();
    with_seed("nonzero_parallel_in_slots_and_in_order", |rng| {
        let devs = [device(2), device(16), device(64)];
        let cases: [(DataType, &[u32]); 3] = [
            (DataType::Float32, &[2_100_001]),
            (DataType::UInt8, &[3, 1000, 3001]),
            (DataType::Int64, &[64, 65_537]),
        ];
        for (t, sizes) in cases {
            for density in [0.01, 0.5] {
                let input = desc(t, sizes, None);
                check_nonzero_on(rng, &devs, input, density, "in slots and in order");
            }
        }
    });
}

/// Transposed inputs (line elements far apart, neighbouring lines adjacent), which are read in
/// tiles: lines a multiple of 64 long, chunks that start and end inside a line, several types,
/// serial and parallel (a tiled chunk holds at least 1024 lines, so only inputs of more lines
/// than that have two chunks to run in parallel: 1500 × 192 (parts claimed in order on 2
/// threads), 1100 × 128, 1100 × 64 and 2100 × 64 (in slots)), each on every device.
#[test]
fn nonzero_transposed() {
    common::force_parallel_paths();
    with_seed("nonzero_transposed", |rng| {
        let devs = [device(1), device(2), device(4)];
        let cases: [(&[u32], &[u32], DataType); 9] = [
            (&[40, 128], &[1, 40], DataType::Float32),
            (&[70, 128], &[1, 70], DataType::UInt8),
            (&[3, 100, 192], &[19_200, 1, 100], DataType::Int16),
            (&[33, 64], &[1, 40], DataType::Float64),
            (&[1500, 192], &[1, 1500], DataType::Float32),
            (&[2, 300, 256], &[76_800, 1, 300], DataType::Float16),
            (&[1100, 128], &[1, 1100], DataType::UInt8),
            (&[1100, 64], &[1, 1100], DataType::Float32),
            (&[2100, 64], &[1, 2100], DataType::UInt16),
        ];
        for (i, (sizes, strides, t)) in cases.into_iter().enumerate() {
            let input = TensorDesc::with_strides(t, sizes, strides);
            let density = [0.5, 0.02, 0.97, 0.3][i % 4];
            check_nonzero_on(rng, &devs, input, density, "transposed");
        }
    });
}

/// Runs DIAGONAL_MATRIX1 (or DIAGONAL_MATRIX with `matrix0`) and the reference; compares the
/// whole output.
#[allow(clippy::too_many_arguments)]
fn check_diagonal(
    rng: &mut SmallRng,
    dev: &Device,
    t: DataType,
    sizes: &[u32],
    out_strides: Option<&[u32]>,
    input: Option<Option<Vec<u32>>>,
    in_place: bool,
    begin: i32,
    end: i32,
    what: &str,
) {
    let out = desc(t, sizes, out_strides);
    let in_desc = input.map(|s| desc(t, sizes, s.as_deref()));
    let in_desc = if in_place { Some(out) } else { in_desc };
    let mut value = [0u8; 8];
    let nonzero_value = rng.random_bool(0.8);
    element(rng, t, nonzero_value, &mut value[..t.size()]);
    let in_data = in_desc.map(|d| random_input(rng, &d, 0.7));
    // Before: random bytes (in place) or the canary.
    let mut before = Buffer::filled(out.total_size as usize, CANARY);
    if in_place {
        before = random_input(rng, &out, 0.7);
    }
    let op = dev
        .create_operator(&diagonal1_op(in_desc, out, value, begin, end))
        .unwrap_or_else(|e| panic!("{what}: create: {e}"));
    let mut got = before.clone();
    let input = match (&in_data, in_place) {
        (_, true) => Input::InPlace,
        (Some(b), false) => Input::Bytes(b.bytes()),
        (None, false) => Input::None,
    };
    op.execute(&[input], &mut [got.bytes_mut()])
        .unwrap_or_else(|e| panic!("{what}: execute: {e}"));
    let mut want = before.clone();
    let ref_in = match (&in_data, in_place) {
        (_, true) => Some((&out, before.bytes())),
        (Some(b), false) => in_desc.as_ref().map(|d| (d, b.bytes())),
        (None, false) => None,
    };
    reference::diagonal_matrix1(ref_in, &out, want.bytes_mut(), value, begin, end);
    let ctx = format!(
        "{what}: {t:?} sizes {sizes:?} out strides {out_strides:?} input {:?} in place \
         {in_place} begin {begin} end {end}",
        in_desc.map(|d| d.strides().map(|s| s.to_vec()))
    );
    assert!(
        got.guards_intact(),
        "bytes around the output written: {ctx}"
    );
    if let Some(i) = first_difference(got.bytes(), want.bytes()) {
        panic!(
            "output differs at byte {i} (element {}): {ctx}",
            i / t.size()
        );
    }
}

fn random_fill(rng: &mut SmallRng, w: u32, h: u32) -> (i32, i32) {
    let (w, h) = (w as i32, h as i32);
    let pick = |rng: &mut SmallRng| match rng.random_range(0..6) {
        0 => i32::MIN,
        1 => i32::MAX,
        2 => 0,
        3 => 1,
        _ => rng.random_range(-h - 2..=w + 2),
    };
    (pick(rng), pick(rng))
}

/// Every type; widths and heights 1 to 200 around 16-byte and 64-element boundaries; with,
/// without and in place; strided and broadcast inputs; strided outputs.
#[test]
fn diagonal_every_width_and_type() {
    every_type_and_length("diagonal_every_width_and_type", |rng, dev, t, w| {
        let h = [1, 2, 3, 5, 17, 64, 65][w as usize % 7];
        let sizes: Vec<u32> = if w % 4 == 0 {
            vec![2, h, w]
        } else {
            vec![h, w]
        };
        let (begin, end) = random_fill(rng, w, h);
        let in_place = w % 11 == 0;
        let input = match w % 3 {
            0 => None,
            _ => Some(random_strides(rng, &sizes, true)),
        };
        let out_strides = match w % 5 {
            0 => {
                let mut s = packed(&sizes);
                let d = s.len();
                s[d - 2] = w + rng.random_range(1..4);
                if d == 3 {
                    s[0] = s[1] * h;
                }
                Some(s)
            }
            1 => random_strides(rng, &sizes, false),
            _ => None,
        };
        let out_strides = if in_place { None } else { out_strides };
        check_diagonal(
            rng,
            dev,
            t,
            &sizes,
            out_strides.as_deref(),
            input,
            in_place,
            begin,
            end,
            "widths",
        );
    });
}

/// DIAGONAL_MATRIX (the older operator) over types and offsets.
#[test]
fn diagonal_matrix0() {
    with_seed("diagonal_matrix0", |rng| {
        let dev = device(1);
        for case in 0..200 {
            let t = ALL_TYPES[case % ALL_TYPES.len()];
            let (h, w) = (rng.random_range(1..70u32), rng.random_range(1..140u32));
            let sizes = [1, rng.random_range(1..3), h, w];
            let offset = rng.random_range(-(h as i32) - 2..(w as i32) + 2);
            let value = [0.0f32, 1.0, -2.5, f32::NAN, 300.7, -1e10][case % 6];
            let out = TensorDesc::new(t, &sizes);
            let op = dev
                .create_operator(&OperatorDesc::DiagonalMatrix {
                    output: out,
                    offset,
                    value,
                })
                .expect("create");
            let mut got = Buffer::filled(out.total_size as usize, CANARY);
            op.execute(&[], &mut [got.bytes_mut()]).expect("execute");
            let mut want = Buffer::filled(out.total_size as usize, CANARY);
            reference::diagonal_matrix(&out, want.bytes_mut(), offset, value);
            assert_eq!(
                got.bytes(),
                want.bytes(),
                "{t:?} {sizes:?} offset {offset} value {value}"
            );
        }
    });
}

/// Outputs large enough for the parallel path (1 MiB) and the streaming stores (8 MiB), on 2
/// and 4 threads: with an input (packed or strided), without one, and in place.
#[test]
fn diagonal_parallel() {
    common::force_parallel_paths();
    with_seed("diagonal_parallel", |rng| {
        let devs = [device(2), device(4)];
        // (sizes, type, input: 0 packed, 1 none, 2 strided, 3 in place)
        let cases: [(&[u32], DataType, u32); 7] = [
            (&[1100, 1100], DataType::Float32, 0),
            (&[3, 301, 517], DataType::Float16, 1),
            (&[2, 2, 700, 300], DataType::UInt8, 2),
            (&[500, 999], DataType::Int64, 3),
            (&[2100, 1001], DataType::Float32, 0),
            (&[2, 1050, 1000], DataType::Float32, 1),
            (&[1000, 1051], DataType::Int64, 3),
        ];
        for (i, (sizes, t, mode)) in cases.into_iter().enumerate() {
            let d = sizes.len();
            let (begin, end) = random_fill(rng, sizes[d - 1], sizes[d - 2]);
            let input = match mode {
                0 | 3 => Some(None),
                1 => None,
                _ => Some(random_strides(rng, sizes, true)),
            };
            check_diagonal(
                rng,
                &devs[i % 2],
                t,
                sizes,
                None,
                input,
                mode == 3,
                begin,
                end,
                "parallel",
            );
        }
    });
}

/// In place on outputs whose rows interleave without sharing an address (element (i, j) of
/// sizes {4, 5} at 5i + 3j; of {2, n} at si + 2j with s odd): such a layout passes only the
/// exact overlap search, not the quick test, and in place must still take it as the same
/// layout as the input's identical desc (it was refused). On one thread, on two and four
/// (parallel from the floor: two 20,000-element rows of FLOAT32 are 156 KiB).
#[test]
fn diagonal_in_place_with_interleaved_strides() {
    common::force_parallel_paths();
    with_seed("diagonal_in_place_with_interleaved_strides", |rng| {
        let devs = [device(1), device(2), device(4)];
        let cases: [(&[u32], &[u32], DataType); 5] = [
            (&[4, 5], &[5, 3], DataType::Float32),
            (&[2, 3], &[3, 2], DataType::UInt8),
            (&[2, 301], &[101, 2], DataType::Int64),
            (&[2, 20_000], &[10_001, 2], DataType::Float32),
            (&[3, 2, 20_000], &[40_002, 10_001, 2], DataType::Float16),
        ];
        for dev in &devs {
            for (sizes, strides, t) in cases {
                let d = sizes.len();
                let (begin, end) = random_fill(rng, sizes[d - 1], sizes[d - 2]);
                check_diagonal(
                    rng,
                    dev,
                    t,
                    sizes,
                    Some(strides),
                    Some(Some(strides.to_vec())),
                    true,
                    begin,
                    end,
                    "in place, interleaved",
                );
            }
        }
    });
}

/// Runs the NONZERO_COORDINATES cases and the large DIAGONAL_MATRIX1 ones (streaming stores)
/// again with `DMLS_SIMD=avx2`, `sse2` and `portable` in child processes (the level is read
/// once per process; the parent runs at the best level the CPU has, AVX-512 where it can).
/// Off x86-64 every level is `portable`, the parent's own, so there is nothing to run again.
#[test]
fn other_simd_levels() {
    if std::env::var_os("DMLS_SIMD").is_some() || !cfg!(target_arch = "x86_64") {
        return;
    }
    let exe = std::env::current_exe().expect("test executable");
    let seed = seed();
    let tests = [
        "nonzero_every_tail_and_type",
        "nonzero_one_lane_rows",
        "nonzero_shapes_and_strides",
        "nonzero_parallel",
        "nonzero_transposed",
        "diagonal_every_width_and_type",
        "diagonal_parallel",
    ];
    for level in ["avx2", "sse2", "portable"] {
        let out = std::process::Command::new(&exe)
            .arg("--exact")
            .args(tests)
            .env("DMLS_SIMD", level)
            .env("DMLS_SEED", seed.to_string())
            .output()
            .expect("run the tests again");
        assert!(
            out.status.success(),
            "DMLS_SIMD={level} DMLS_SEED={seed}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // A renamed test would otherwise leave the child nothing to run, and pass.
        let stdout = String::from_utf8_lossy(&out.stdout);
        let want = format!("test result: ok. {} passed;", tests.len());
        assert!(
            stdout.contains(&want),
            "DMLS_SIMD={level}: the child should run all {} tests:\n{stdout}",
            tests.len()
        );
    }
}
