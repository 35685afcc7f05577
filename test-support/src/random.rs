//! Randomised tests: seeds that are printed on failure, the one random layout generator and the
//! one random element generator.

use directml_subset::{DataType, TensorDesc};
use rand::rngs::SmallRng;
use rand::Rng;

use crate::guarded::Buffer;

/// The seed of a randomised test: the environment variable `var` when it is set (to replay a
/// failure), else the clock.
pub fn seed_from_env(var: &str) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Runs `f` with a seed from `seed_from_env(var)`; when `f` panics, prints the seed and how to
/// replay it, then goes on panicking.
pub fn run_seeded(name: &str, var: &str, f: impl FnOnce(u64)) {
    let seed = seed_from_env(var);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(seed)));
    if let Err(e) = result {
        eprintln!("{name} failed with seed {seed}; replay with {var}={seed}");
        std::panic::resume_unwind(e);
    }
}

/// Padded strides for `sizes`: each dimension's pitch 0 to 2 elements more than it needs.
pub fn padded_strides(rng: &mut SmallRng, sizes: &[u32]) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for i in (0..sizes.len()).rev() {
        strides[i] = acc;
        acc = acc * sizes[i] + rng.random_range(0..3);
    }
    strides
}

/// Packed strides for `sizes` in a random order of the dimensions.
pub fn permuted_strides(rng: &mut SmallRng, sizes: &[u32]) -> Vec<u32> {
    let d = sizes.len();
    let mut order: Vec<usize> = (0..d).collect();
    for i in (1..d).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let mut strides = vec![0u32; d];
    let mut acc = 1u32;
    for &i in &order {
        strides[i] = acc;
        acc *= sizes[i];
    }
    strides
}

/// Strides of a packed tensor.
pub fn packed(sizes: &[u32]) -> Vec<u32> {
    let mut s = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for i in (0..sizes.len()).rev() {
        s[i] = acc;
        acc *= sizes[i];
    }
    s
}

/// Random strides for `sizes`: packed (`None`), padded, permuted, or (when `broadcast`)
/// with some strides 0. The one random layout generator of the tests.
pub fn random_strides(rng: &mut SmallRng, sizes: &[u32], broadcast: bool) -> Option<Vec<u32>> {
    match rng.random_range(0..6) {
        0 | 1 => None,
        2 => Some(padded_strides(rng, sizes)),
        3 | 4 => Some(permuted_strides(rng, sizes)),
        _ => {
            let mut s = packed(sizes);
            for x in s.iter_mut() {
                if broadcast && rng.random_bool(0.4) {
                    *x = 0;
                }
            }
            Some(s)
        }
    }
}

/// One element's bytes: zero (for floats sometimes -0.0) or nonzero (for floats sometimes NaN,
/// infinities, the smallest subnormal or a value whose only set bit is high).
pub fn element(rng: &mut SmallRng, t: DataType, nonzero: bool, out: &mut [u8]) {
    let size = t.size();
    let sign: u64 = 1 << (size * 8 - 1);
    let bits: u64 = if !nonzero {
        if t.is_float() && rng.random_bool(0.3) {
            sign
        } else {
            0
        }
    } else if t.is_float() {
        let (exp_mask, quiet): (u64, u64) = match size {
            2 => (0x7C00, 0x0200),
            4 => (0x7F80_0000, 0x0040_0000),
            _ => (0x7FF0_0000_0000_0000, 0x0008_0000_0000_0000),
        };
        let v = match rng.random_range(0..8) {
            0 => exp_mask | quiet,
            1 => exp_mask | 1,
            2 => exp_mask,
            3 => 1,
            4 => sign >> 1,
            _ => loop {
                let v = rng.random::<u64>() & (sign - 1);
                if v != 0 {
                    break v;
                }
            },
        };
        if rng.random_bool(0.5) {
            v | sign
        } else {
            v
        }
    } else {
        match rng.random_range(0..4) {
            0 => 1,
            1 => sign,
            _ => loop {
                let v = rng.random::<u64>() & (sign | (sign - 1));
                if v != 0 {
                    break v;
                }
            },
        }
    };
    out.copy_from_slice(&bits.to_ne_bytes()[..size]);
}

/// A buffer for `d` with random elements at the given density (see [`random_elements`]).
pub fn random_input(rng: &mut SmallRng, d: &TensorDesc, density: f64) -> Buffer {
    let t = DataType::from_raw(d.data_type).expect("type");
    random_elements(rng, t, d.total_size as usize, density)
}

/// `bytes` bytes of random elements of `t`, each nonzero with probability `density`; some
/// buffers use runs, so whole 64-element words are all zero or all nonzero. The one way the
/// tests make random inputs.
pub fn random_elements(rng: &mut SmallRng, t: DataType, bytes: usize, density: f64) -> Buffer {
    let mut buf = Buffer::filled(bytes, 0);
    let size = t.size();
    let runs = rng.random_bool(0.3);
    let mut state = rng.random_bool(density);
    for e in buf.bytes_mut().chunks_exact_mut(size) {
        let nonzero = if runs {
            if rng.random_bool(0.02) {
                state = rng.random_bool(density);
            }
            state
        } else {
            rng.random_bool(density)
        };
        element(rng, t, nonzero, e);
    }
    buf
}
