//! Random inputs of every type, layouts and 32- or 64-bit outputs, against the model. Prints its
//! seed on failure; replay with DMLS_TEST_SEED=<seed>.

use crate::common::{execute_nonzero_as, last_error, run_seeded, Device as CDevice};
use crate::{model, nonzero, FLAG};
use directml_subset::dml::*;
use directml_subset::{DataType, DMLS_DEVICE_FLAG_EXTENSIONS};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

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
            nz.rejected(strict.0, &[FLAG]);
        }
        let op = nz.create(ext.0).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        // Input bytes: mostly zeros; floats get -0.0 (zero) and NaN (nonzero); 64-bit words get
        // bits only in their high half.
        let words = (nz.input.total_size as usize).div_ceil(8);
        let mut input = vec![0u64; words];
        {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut input);
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
        let coords = vec![canary; (nz.coords.total_size as usize).div_ceil(8)];
        let (hr, count, coords) = execute_nonzero_as(op.0, &input, &[canary; 2], &coords);
        assert_eq!(hr, S_OK, "{what}: {}", last_error());

        let want = model(in_type, bytemuck::cast_slice(&input), &sizes, &strides, n);
        let os = out_type.size();
        let count_bytes: &[u8] = bytemuck::cast_slice(&count);
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
        let cb: &[u8] = bytemuck::cast_slice(&coords);
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
