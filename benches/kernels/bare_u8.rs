//! Bare AVX-512 loops for a 2-D UINT8 NonZero into two UINT32 columns (filter `bare`, after
//! the FLOAT32 table of `super::bare`), the library's UINT8 series: the same rows four ways,
//! with no library around them, against a one-thread `memcpy` of the same bytes and against the
//! library on one thread. A packed UINT8 input's compare of 64 elements is one instruction, so
//! what is left is writing the rows; on Intel the compare, the compresses and the permutes
//! all use one port, on AMD they spread over several, so the best of these may differ by CPU.
//!
//! - `bytes`: per 64 elements, a byte test, one `vpcompressb` of the positions of the set
//!   bits, widened 16 at a time only as many times as there are rows, two `vpermt2d` to pair
//!   them with the row, two stores: the library's one pass.
//! - `dwords`: per 64 elements, a byte test, then for each 16 a `vpcompressd` of the column
//!   indices, two `vpermt2d`, two stores (four every 64 elements, whatever the rows).
//! - `scalar`: per 64 elements, a byte test, then one 64-bit store per set bit (`tzcnt`,
//!   `blsr`): no vector instruction per row.
//! - `words`: `bytes` after a first pass that turns the input into bitmask words, as a part
//!   written from its count's words goes.

use std::arch::x86_64::*;
use std::hint::black_box;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::bare::time;
use crate::curve::fmt_time;
use crate::operators::{make_data, prepare};
use crate::workloads::{Coords, Kind};
use directml_subset::dml::DML_TENSOR_DATA_TYPE;
use test_support::{env_or, Device};

/// The rows of the pairing permutes: lanes 2i take the row (from the first table), lanes
/// 2i + 1 position i (`LO`) or i + 8 (`HI`) of the second.
const LO: [i32; 16] = [0, 16, 0, 17, 0, 18, 0, 19, 0, 20, 0, 21, 0, 22, 0, 23];
const HI: [i32; 16] = [0, 24, 0, 25, 0, 26, 0, 27, 0, 28, 0, 29, 0, 30, 0, 31];

/// Which loop [`rows`] runs.
#[derive(Clone, Copy, PartialEq)]
enum Loop {
    Bytes,
    Dwords,
    Scalar,
    Words,
}

/// Stores the up to 16 rows of column positions `x` (32-bit lanes) in line `row` from row `k`:
/// 32 UINT32, two stores.
///
/// # Safety
/// The CPU has AVX-512 F; the 32 u32 from `2 k` are in `out`.
#[inline(always)]
unsafe fn store16(out: &mut [u32], k: usize, row: __m512i, x: __m512i) {
    assert!(2 * k + 32 <= out.len());
    // SAFETY: 16 i32 each; the 32 u32 from 2k are in `out` (asserted).
    unsafe {
        let lo = _mm512_loadu_si512(LO.as_ptr().cast());
        let hi = _mm512_loadu_si512(HI.as_ptr().cast());
        let d = out.as_mut_ptr().add(2 * k);
        _mm512_storeu_si512(d.cast(), _mm512_permutex2var_epi32(row, lo, x));
        _mm512_storeu_si512(d.add(16).cast(), _mm512_permutex2var_epi32(row, hi, x));
    }
}

/// The rows (row, column) of the nonzero elements of `input` (`input.len() / w` lines of `w`,
/// `w` a multiple of 64) into `out` (room for the rows plus 16), by loop `how`; `words` is the
/// scratch of [`Loop::Words`]. Returns the count.
///
/// # Safety
/// The CPU has AVX-512 F, BW and VBMI2, BMI1 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi1,popcnt")]
unsafe fn rows(input: &[u8], w: usize, out: &mut [u32], how: Loop, words: &mut Vec<u64>) -> usize {
    assert!(w.is_multiple_of(64) && input.len().is_multiple_of(w));
    let h = input.len() / w;
    let mut iota = [0u8; 64];
    for (i, b) in iota.iter_mut().enumerate() {
        *b = i as u8;
    }
    // SAFETY: 64 bytes.
    let iota8 = unsafe { _mm512_loadu_si512(iota.as_ptr().cast()) };
    let iota32 = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    if how == Loop::Words {
        words.clear();
        for b in input.chunks_exact(64) {
            // SAFETY: `b` holds 64 bytes.
            let v = unsafe { _mm512_loadu_si512(b.as_ptr().cast()) };
            words.push(_mm512_test_epi8_mask(v, v));
        }
    }
    let per_line = w / 64;
    let mut k = 0usize;
    for r in 0..h {
        let row = _mm512_set1_epi32(r as i32);
        for j in 0..per_line {
            let c = 64 * j;
            let bits = if how == Loop::Words {
                words[r * per_line + j]
            } else {
                // SAFETY: the 64 bytes from r × w + c are in the input (w is a multiple of 64).
                let v = unsafe { _mm512_loadu_si512(input.as_ptr().add(r * w + c).cast()) };
                _mm512_test_epi8_mask(v, v)
            };
            let n = bits.count_ones() as usize;
            match how {
                Loop::Bytes | Loop::Words => {
                    let pos = _mm512_maskz_compress_epi8(bits, iota8);
                    let base = _mm512_set1_epi32(c as i32);
                    let mut g = 0;
                    while g < n {
                        let b16 = match g / 16 {
                            0 => _mm512_castsi512_si128(pos),
                            1 => _mm512_extracti32x4_epi32::<1>(pos),
                            2 => _mm512_extracti32x4_epi32::<2>(pos),
                            _ => _mm512_extracti32x4_epi32::<3>(pos),
                        };
                        let x = _mm512_add_epi32(_mm512_cvtepu8_epi32(b16), base);
                        // SAFETY: room for the rows plus 16 (caller).
                        unsafe { store16(out, k + g, row, x) };
                        g += 16;
                    }
                }
                Loop::Dwords => {
                    let mut at = k;
                    for s in 0..4 {
                        let m = (bits >> (16 * s)) as u16;
                        let cols = _mm512_add_epi32(iota32, _mm512_set1_epi32((c + 16 * s) as i32));
                        // SAFETY: as above.
                        unsafe { store16(out, at, row, _mm512_maskz_compress_epi32(m, cols)) };
                        at += m.count_ones() as usize;
                    }
                }
                Loop::Scalar => {
                    assert!(2 * (k + n) <= out.len());
                    let d = out.as_mut_ptr().cast::<u64>();
                    let mut b = bits;
                    let mut at = k;
                    while b != 0 {
                        let col = (c as u64) + u64::from(b.trailing_zeros());
                        // SAFETY: row `at` < k + n is in `out` (asserted); unaligned store.
                        unsafe { d.add(at).write_unaligned(r as u64 | col << 32) };
                        b &= b - 1;
                        at += 1;
                    }
                }
            }
            k += n;
        }
    }
    k
}

/// Measures and prints the UINT8 table (called by `super::bare::run`, on a CPU with AVX-512 F,
/// BW and VBMI2): density `DMLS_BARE_DENSITY_U8` (0.1, the curve's UINT8 series), 2^12 to
/// 2^22 elements.
pub fn run(reps: usize) {
    let density: f64 = env_or("DMLS_BARE_DENSITY_U8", 0.1);
    println!(
        "\nbare AVX-512 loops on {} (one thread, UINT8 2-D, density {density}; median of {reps} \
         batches; ratios over a one-thread memcpy of the same bytes):",
        crate::isa::cpu_name()
    );
    let names = ["bytes", "dwords", "scalar", "words", "library"];
    let mut head = format!("{:>9} {:>11}", "elements", "memcpy");
    for n in names {
        head += &format!(" {n:>11}");
    }
    for n in names {
        head += &format!(" {n:>8}");
    }
    println!("{head}");
    let mut rng = SmallRng::seed_from_u64(5);
    let dev = Device::with_threads(1);
    let loops = [Loop::Bytes, Loop::Dwords, Loop::Scalar, Loop::Words];
    for k in (12..=22).step_by(2) {
        let w = 1usize << (k - k / 2);
        let h = 1usize << (k / 2);
        let n = w * h;
        let input: Vec<u8> = (0..n)
            .map(|_| {
                if rng.random_bool(density) {
                    rng.random_range(1..=255)
                } else {
                    0
                }
            })
            .collect();
        let count = input.iter().filter(|&&v| v != 0).count();
        let mut want = Vec::with_capacity(2 * count);
        for (i, &v) in input.iter().enumerate() {
            if v != 0 {
                want.extend([(i / w) as u32, (i % w) as u32]);
            }
        }
        let mut out = vec![0u32; 2 * count + 32];
        let mut words = Vec::with_capacity(n / 64);
        for how in loops {
            out.fill(0);
            // SAFETY: the CPU has the features (the caller checked).
            assert_eq!(unsafe { rows(&input, w, &mut out, how, &mut words) }, count);
            assert_eq!(
                out[..2 * count],
                want[..],
                "a bare UINT8 loop's rows are the reference's"
            );
        }
        let bytes = n + 8 * count;
        let src = vec![1u8; bytes / 2];
        let mut dst = vec![0u8; bytes / 2];
        let kind = Kind::NonZero {
            dt: DML_TENSOR_DATA_TYPE::UINT8,
            sizes: vec![h as u32, w as u32],
            strides: None,
            density,
            coords: Coords::Packed,
        };
        let (mut data, _t) = make_data(&kind, &mut rng);
        let p = prepare(&dev, &kind, &mut data);
        let mut t = vec![vec![]; 2 + loops.len()];
        for _ in 0..3 {
            t[0].push(time(reps, || {
                dst.copy_from_slice(&src);
                black_box(&dst);
            }));
            for (i, how) in loops.iter().enumerate() {
                t[1 + i].push(time(reps, || {
                    // SAFETY: as above.
                    black_box(unsafe { rows(&input, w, &mut out, *how, &mut words) });
                }));
            }
            t[1 + loops.len()].push(time(reps, || p.run()));
        }
        let best: Vec<f64> = t
            .into_iter()
            .map(|v| v.into_iter().min().unwrap().as_secs_f64())
            .collect();
        let mut line = format!("{:>9}", format!("2^{k}"));
        for x in &best {
            line += &format!(" {:>11}", fmt_time(*x));
        }
        for x in &best[1..] {
            line += &format!(" {:>8.2}", x / best[0]);
        }
        println!("{line}");
    }
}
