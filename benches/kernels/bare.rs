//! What the AVX-512 instructions alone cost (filter `bare`): bare loops that write the
//! NONZERO_COORDINATES rows of a packed 2-D FLOAT32 input (UINT32 coordinates, two columns),
//! with no library around them, against a one-thread `memcpy` of the same bytes and against the
//! library on one thread, in one run. A floor for the library's AVX-512 walk: the loops know
//! the shape (lines a multiple of 16 long), check nothing and may write up to 16 rows past the
//! last one.
//!
//! - `permute`: per 16 elements, a compare to a mask, `vpcompressd` of the column indices,
//!   two `vpermt2d` to pair them with the row index, two 64-byte stores, advance by the popcount.
//! - `two pass`: `permute` after a first pass that turns every element into a bit of a
//!   bitmask word, as the library's walks go.
//! - `bytes`: `two pass` with one `vpcompressb` of each word's bit positions, widened 16 at a
//!   time as many times as the word has rows, as the library goes now.
//! - `qwords`: per 8 elements, `vpcompressq` of the eight (row, column) rows and one store.

use std::arch::x86_64::*;
use std::hint::black_box;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::curve::{batch, calibrate, fmt_time, median};
use crate::operators::{make_data, prepare};
use crate::workloads::{Coords, Kind};
use directml_subset::dml::DML_TENSOR_DATA_TYPE;
use test_support::{env_or, Device};

/// Rows of (row, column) for the nonzero elements of `input` (`h` lines of `w`, `w` a multiple
/// of 16), into `out` (room for the rows plus 16); returns the count.
///
/// # Safety
/// The CPU has AVX-512 F and VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512vbmi2,popcnt")]
unsafe fn permute(input: &[f32], w: usize, out: &mut [u32]) -> usize {
    assert!(w.is_multiple_of(16) && input.len().is_multiple_of(w));
    let h = input.len() / w;
    let iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    // Lanes 2i take the row (from the first table), lanes 2i + 1 position i (+ 8 for `hi`).
    let lo = _mm512_set_epi32(23, 0, 22, 0, 21, 0, 20, 0, 19, 0, 18, 0, 17, 0, 16, 0);
    let hi = _mm512_set_epi32(31, 0, 30, 0, 29, 0, 28, 0, 27, 0, 26, 0, 25, 0, 24, 0);
    let sign = _mm512_set1_epi32(0x7FFF_FFFF);
    let mut k = 0usize;
    for r in 0..h {
        let row = _mm512_set1_epi32(r as i32);
        for c in (0..w).step_by(16) {
            assert!(2 * k + 32 <= out.len());
            // SAFETY: 16 floats from r × w + c are in the input (w is a multiple of 16); the
            // 32 u32 from 2k are in `out` (asserted).
            unsafe {
                let v = _mm512_loadu_si512(input.as_ptr().add(r * w + c).cast());
                let m = _mm512_test_epi32_mask(v, sign);
                let x = _mm512_maskz_compress_epi32(
                    m,
                    _mm512_add_epi32(iota, _mm512_set1_epi32(c as i32)),
                );
                let d = out.as_mut_ptr().add(2 * k);
                _mm512_storeu_si512(d.cast(), _mm512_permutex2var_epi32(row, lo, x));
                _mm512_storeu_si512(d.add(16).cast(), _mm512_permutex2var_epi32(row, hi, x));
                k += m.count_ones() as usize;
            }
        }
    }
    k
}

/// The first pass of [`two_pass`] and [`byte_compress`]: one bit per element of `input` (whose
/// length is a multiple of 64), set when it is not ±0.0, 64 to a word.
///
/// # Safety
/// The CPU has AVX-512 F.
#[target_feature(enable = "avx512f")]
unsafe fn mask_words(input: &[f32], words: &mut Vec<u64>) {
    let sign = _mm512_set1_epi32(0x7FFF_FFFF);
    words.clear();
    for b in input.chunks_exact(64) {
        let mut bits = 0u64;
        for k in 0..4 {
            // SAFETY: `b` holds 64 floats, four vectors.
            let v = unsafe { _mm512_loadu_si512(b.as_ptr().add(16 * k).cast()) };
            bits |= u64::from(_mm512_test_epi32_mask(v, sign)) << (16 * k);
        }
        words.push(bits);
    }
}

/// As [`permute`] in two passes, as the library goes: first every element to one bit of a
/// bitmask word (64 elements a word), then the rows from the words.
///
/// # Safety
/// The CPU has AVX-512 F and VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512vbmi2,popcnt")]
unsafe fn two_pass(input: &[f32], w: usize, out: &mut [u32], words: &mut Vec<u64>) -> usize {
    assert!(w.is_multiple_of(64) && input.len().is_multiple_of(w));
    let h = input.len() / w;
    // SAFETY: the CPU has the features (caller).
    unsafe { mask_words(input, words) };
    let iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    let lo = _mm512_set_epi32(23, 0, 22, 0, 21, 0, 20, 0, 19, 0, 18, 0, 17, 0, 16, 0);
    let hi = _mm512_set_epi32(31, 0, 30, 0, 29, 0, 28, 0, 27, 0, 26, 0, 25, 0, 24, 0);
    let per_line = w / 64;
    let mut k = 0usize;
    for r in 0..h {
        let row = _mm512_set1_epi32(r as i32);
        for (j, &bits) in words[r * per_line..(r + 1) * per_line].iter().enumerate() {
            for s in 0..4 {
                let m = (bits >> (16 * s)) as u16;
                assert!(2 * k + 32 <= out.len());
                let c = (64 * j + 16 * s) as i32;
                // SAFETY: the 32 u32 from 2k are in `out` (asserted).
                unsafe {
                    let x = _mm512_maskz_compress_epi32(
                        m,
                        _mm512_add_epi32(iota, _mm512_set1_epi32(c)),
                    );
                    let d = out.as_mut_ptr().add(2 * k);
                    _mm512_storeu_si512(d.cast(), _mm512_permutex2var_epi32(row, lo, x));
                    _mm512_storeu_si512(d.add(16).cast(), _mm512_permutex2var_epi32(row, hi, x));
                }
                k += m.count_ones() as usize;
            }
        }
    }
    k
}

/// As [`two_pass`], the positions of a word's set bits gathered by one `vpcompressb` (64 byte
/// lanes) and widened 16 at a time, only as many times as the word has rows.
///
/// # Safety
/// The CPU has AVX-512 F, BW and VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
unsafe fn byte_compress(input: &[f32], w: usize, out: &mut [u32], words: &mut Vec<u64>) -> usize {
    assert!(w.is_multiple_of(64) && input.len().is_multiple_of(w));
    let h = input.len() / w;
    // SAFETY: the CPU has the features (caller).
    unsafe { mask_words(input, words) };
    let mut iota = [0u8; 64];
    for (i, b) in iota.iter_mut().enumerate() {
        *b = i as u8;
    }
    // SAFETY: 64 bytes.
    let iota = unsafe { _mm512_loadu_si512(iota.as_ptr().cast()) };
    let lo = _mm512_set_epi32(23, 0, 22, 0, 21, 0, 20, 0, 19, 0, 18, 0, 17, 0, 16, 0);
    let hi = _mm512_set_epi32(31, 0, 30, 0, 29, 0, 28, 0, 27, 0, 26, 0, 25, 0, 24, 0);
    let per_line = w / 64;
    let mut k = 0usize;
    for r in 0..h {
        let row = _mm512_set1_epi32(r as i32);
        for (j, &bits) in words[r * per_line..(r + 1) * per_line].iter().enumerate() {
            let pos = _mm512_maskz_compress_epi8(bits, iota);
            let n = bits.count_ones() as usize;
            let base = _mm512_set1_epi32((64 * j) as i32);
            let mut g = 0;
            while g < n {
                assert!(2 * k + 2 * g + 32 <= out.len());
                let b16 = match g / 16 {
                    0 => _mm512_castsi512_si128(pos),
                    1 => _mm512_extracti32x4_epi32::<1>(pos),
                    2 => _mm512_extracti32x4_epi32::<2>(pos),
                    _ => _mm512_extracti32x4_epi32::<3>(pos),
                };
                let x = _mm512_add_epi32(_mm512_cvtepu8_epi32(b16), base);
                // SAFETY: the 32 u32 from 2 (k + g) are in `out` (asserted).
                unsafe {
                    let d = out.as_mut_ptr().add(2 * (k + g));
                    _mm512_storeu_si512(d.cast(), _mm512_permutex2var_epi32(row, lo, x));
                    _mm512_storeu_si512(d.add(16).cast(), _mm512_permutex2var_epi32(row, hi, x));
                }
                g += 16;
            }
            k += n;
        }
    }
    k
}

/// As [`permute`], eight elements at a time with `vpcompressq` of whole rows.
///
/// # Safety
/// The CPU has AVX-512 F and VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512vbmi2,popcnt")]
unsafe fn qwords(input: &[f32], w: usize, out: &mut [u32]) -> usize {
    assert!(w.is_multiple_of(16) && input.len().is_multiple_of(w));
    let h = input.len() / w;
    let step = |b: i64| {
        _mm512_set_epi64(
            (b + 7) << 32,
            (b + 6) << 32,
            (b + 5) << 32,
            (b + 4) << 32,
            (b + 3) << 32,
            (b + 2) << 32,
            (b + 1) << 32,
            b << 32,
        )
    };
    let (s0, s1) = (step(0), step(8));
    let sign = _mm512_set1_epi32(0x7FFF_FFFF);
    let mut k = 0usize;
    for r in 0..h {
        let row = _mm512_set1_epi64(r as i64);
        for c in (0..w).step_by(16) {
            assert!(2 * k + 32 <= out.len());
            // SAFETY: as in `permute`.
            unsafe {
                let v = _mm512_loadu_si512(input.as_ptr().add(r * w + c).cast());
                let m = _mm512_test_epi32_mask(v, sign);
                let b = _mm512_add_epi64(row, _mm512_set1_epi64((c as i64) << 32));
                let (m0, m1) = (m as u8, (m >> 8) as u8);
                let d = out.as_mut_ptr().add(2 * k);
                _mm512_storeu_si512(
                    d.cast(),
                    _mm512_maskz_compress_epi64(m0, _mm512_add_epi64(b, s0)),
                );
                let d = d.add(2 * m0.count_ones() as usize);
                _mm512_storeu_si512(
                    d.cast(),
                    _mm512_maskz_compress_epi64(m1, _mm512_add_epi64(b, s1)),
                );
                k += m.count_ones() as usize;
            }
        }
    }
    k
}

/// The median of `reps` batches of about 0.2 ms of `f`, per call.
pub fn time(reps: usize, mut f: impl FnMut()) -> Duration {
    let n = calibrate(&mut f);
    median((0..reps).map(|_| batch(n, &mut f)).collect())
}

/// Measures and prints the bare loops (filter `bare`); needs AVX-512 F and VBMI2.
pub fn run(filter: &Option<String>) {
    if filter.as_deref() != Some("bare") {
        return;
    }
    if !(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vbmi2")) {
        println!("\nbare AVX-512 loops: this CPU has no AVX-512 F and VBMI2");
        return;
    }
    let reps: usize = env_or("DMLS_ISA_REPS", 7);
    let density: f64 = env_or("DMLS_BARE_DENSITY", 0.5);
    println!(
        "\nbare AVX-512 loops on {} (one thread, FLOAT32 2-D, density {density}; median of {reps} \
         batches; ratios over a one-thread memcpy of the same bytes):",
        crate::isa::cpu_name()
    );
    println!(
        "{:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "elements",
        "memcpy",
        "permute",
        "two pass",
        "bytes",
        "qwords",
        "library",
        "permute",
        "two pass",
        "bytes",
        "qwords",
        "library"
    );
    let mut rng = SmallRng::seed_from_u64(3);
    let dev = Device::with_threads(1);
    for k in (12..=22).step_by(2) {
        let w = 1usize << (k - k / 2);
        let h = 1usize << (k / 2);
        let n = w * h;
        let input: Vec<f32> = (0..n)
            .map(|_| if rng.random_bool(density) { 1.0 } else { 0.0 })
            .collect();
        let count = input.iter().filter(|&&v| v != 0.0).count();
        let mut out = vec![0u32; 2 * count + 32];
        let mut want = vec![0u32; 2 * count + 32];
        // SAFETY: the CPU has the features (checked above).
        assert_eq!(unsafe { permute(&input, w, &mut want) }, count);
        // SAFETY: as above.
        assert_eq!(unsafe { qwords(&input, w, &mut out) }, count);
        assert_eq!(
            out[..2 * count],
            want[..2 * count],
            "qwords and permute agree"
        );
        let mut words = Vec::with_capacity(n / 64);
        // SAFETY: as above.
        let got = unsafe { byte_compress(&input, w, &mut out, &mut words) };
        assert_eq!(got, count);
        assert_eq!(
            out[..2 * count],
            want[..2 * count],
            "bytes and permute agree"
        );
        // SAFETY: as above.
        assert_eq!(unsafe { two_pass(&input, w, &mut out, &mut words) }, count);
        assert_eq!(
            out[..2 * count],
            want[..2 * count],
            "two passes and permute agree"
        );
        let bytes = 4 * n + 8 * count;
        let src = vec![1u8; bytes / 2];
        let mut dst = vec![0u8; bytes / 2];
        let kind = Kind::NonZero {
            dt: DML_TENSOR_DATA_TYPE::FLOAT32,
            sizes: vec![h as u32, w as u32],
            strides: None,
            density,
            coords: Coords::Packed,
        };
        let (mut data, _t) = make_data(&kind, &mut rng);
        let p = prepare(&dev, &kind, &mut data);
        let (mut tm, mut tp, mut tq, mut tl, mut t2) = (vec![], vec![], vec![], vec![], vec![]);
        let mut tb = vec![];
        for _ in 0..3 {
            tm.push(time(reps, || {
                dst.copy_from_slice(&src);
                black_box(&dst);
            }));
            tp.push(time(reps, || {
                // SAFETY: as above.
                black_box(unsafe { permute(&input, w, &mut out) });
            }));
            tq.push(time(reps, || {
                // SAFETY: as above.
                black_box(unsafe { qwords(&input, w, &mut out) });
            }));
            tl.push(time(reps, || p.run()));
            tb.push(time(reps, || {
                // SAFETY: as above.
                black_box(unsafe { byte_compress(&input, w, &mut out, &mut words) });
            }));
            t2.push(time(reps, || {
                // SAFETY: as above.
                black_box(unsafe { two_pass(&input, w, &mut out, &mut words) });
            }));
        }
        let best = |v: &mut Vec<Duration>| {
            v.sort();
            v[0].as_secs_f64()
        };
        let (m, pe, q, l) = (best(&mut tm), best(&mut tp), best(&mut tq), best(&mut tl));
        let two = best(&mut t2);
        let by = best(&mut tb);
        println!(
            "{:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            format!("2^{k}"),
            fmt_time(m),
            fmt_time(pe),
            fmt_time(two),
            fmt_time(by),
            fmt_time(q),
            fmt_time(l),
            pe / m,
            two / m,
            by / m,
            q / m,
            l / m
        );
    }
    crate::bare_u8::run(reps);
}
