//! Packed rows with AVX2. Without an input, in two passes over each row: first the whole row
//! as the source of its majority (zeros, or Value when the band is outside), then the band's
//! part. With an input, in three parts (before, in and after the band), so that no byte is
//! written twice.
//! A part of 32 bytes or more is a run of vector stores, its last one ending at the part's end
//! (overlapping the one before, with the same bytes); a shorter part is one vector blended
//! with what the row holds, under a mask made of two table loads. The runs are
//! `simd::runs256`'s (no library call per run, which for runs of a few dozen bytes costs more
//! than the bytes). The helpers are inlined into `rows_avx2`, which is compiled for AVX2 (a
//! call to each would pass its vectors through memory).

use core::arch::x86_64::*;

use super::band::{Band, Other};
use crate::op::simd::runs256::{copy as copy_run, fill as fill_run};
use crate::op::simd::Word;

/// 64 bytes, all ones from `from` to `to`, zero elsewhere.
const fn ones(from: usize, to: usize) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut i = from;
    while i < to {
        t[i] = 0xFF;
        i += 1;
    }
    t
}

/// Loaded from byte `32 - a` (a in 0..=32): lane j is all ones when j >= a.
static FROM: [u8; 64] = ones(32, 64);

/// Loaded from byte `32 - b` (b in 0..=32): lane j is all ones when j < b.
static BELOW: [u8; 64] = ones(0, 32);

/// The lanes of the vector at byte `at` of a row that lie in bytes `lo .. hi` of the row.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn inside(at: usize, lo: usize, hi: usize) -> __m256i {
    let a = lo.saturating_sub(at).min(32);
    let b = hi.saturating_sub(at).min(32);
    // SAFETY: 32 - a and 32 - b are in 0..=32, so each load reads bytes within the 64 of its
    // table.
    unsafe {
        _mm256_and_si256(
            _mm256_loadu_si256(FROM.as_ptr().add(32 - a).cast()),
            _mm256_loadu_si256(BELOW.as_ptr().add(32 - b).cast()),
        )
    }
}

/// Writes bytes `a .. b` (`b` at most `n`, the row's length, at least 32) of the row at `dst`
/// from `v`, or from `src` when it is given: a run, or for fewer than 32 bytes one vector
/// blended with what the row holds.
///
/// # Safety
/// The CPU has AVX2; the row's `n` bytes are writable by this thread and `src`'s `n` bytes
/// readable (not overlapping the row).
#[inline(always)]
unsafe fn put(dst: *mut u8, n: usize, a: usize, b: usize, v: __m256i, src: Option<*const u8>) {
    if b <= a {
        return;
    }
    // SAFETY: forwarded contract; every vector below lies within the row's n bytes.
    unsafe {
        if b - a >= 32 {
            match src {
                Some(s) => copy_run(dst, s, a, b),
                None => fill_run(dst, a, b, v),
            }
            return;
        }
        let p = a.min(n - 32);
        let x = match src {
            Some(s) => _mm256_loadu_si256(s.add(p).cast()),
            None => v,
        };
        let cur = _mm256_loadu_si256(dst.add(p).cast());
        _mm256_storeu_si256(
            dst.add(p).cast(),
            _mm256_blendv_epi8(cur, x, inside(p, a, b)),
        );
    }
}

/// Writes packed rows `first_row ..` (as many as `chunk` holds): each row as its majority and
/// then its band part, or with an input, part by part.
///
/// # Safety
/// The CPU has AVX2; a row (`band.w` elements) is at least 32 bytes long.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn rows_avx2<U: Word>(chunk: &mut [U], first_row: usize, band: Band<'_, U>) {
    let (w, h, other) = (band.w, band.h, band.other);
    let s = U::SIZE;
    let n = w * s;
    assert!(n >= 32, "rows of {n} bytes are too short for rows_avx2");
    let lanes = [band.value; 32];
    // SAFETY: `lanes` is 32 elements, at least 32 bytes; loadu needs no alignment.
    let pattern = unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) };
    let mut y = first_row as u64 % h;
    for (r, row) in chunk.chunks_exact_mut(w).enumerate() {
        let seg = band.segments(y);
        let (lo, hi) = (seg.lo * s, seg.hi.max(seg.lo) * s);
        let dst = row.as_mut_ptr().cast::<u8>();
        let src = match other {
            Other::From(i) => Some(i[(first_row + r) * w..][..w].as_ptr().cast::<u8>()),
            Other::Keep | Other::Zero => None,
        };
        let zero = _mm256_setzero_si256();
        // SAFETY: the row is n >= 32 bytes of this thread's chunk; the input row is as long
        // (bounds-checked by the slice above) and never overlaps the output (in place is
        // `Keep`, which reads nothing).
        unsafe {
            match (seg.value_outside, other) {
                (false, Other::Keep) => put(dst, n, lo, hi, pattern, None),
                (false, Other::Zero) => {
                    fill_run(dst, 0, n, zero);
                    put(dst, n, lo, hi, pattern, None);
                }
                (false, Other::From(_)) => {
                    put(dst, n, 0, lo, zero, src);
                    put(dst, n, lo, hi, pattern, None);
                    put(dst, n, hi, n, zero, src);
                }
                (true, Other::Keep) => {
                    put(dst, n, 0, lo, pattern, None);
                    put(dst, n, hi, n, pattern, None);
                }
                (true, Other::Zero) => {
                    fill_run(dst, 0, n, pattern);
                    put(dst, n, lo, hi, zero, None);
                }
                (true, Other::From(_)) => {
                    put(dst, n, 0, lo, pattern, None);
                    put(dst, n, lo, hi, zero, src);
                    put(dst, n, hi, n, pattern, None);
                }
            }
        }
        y += 1;
        if y == h {
            y = 0;
        }
    }
}
