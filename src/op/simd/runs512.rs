//! AVX-512 runs of output bytes for DIAGONAL_MATRIX1: fills with a repeating 64-byte pattern
//! and copies, 64 bytes a store with a masked store for the tail, inlined into the caller
//! (which is compiled for AVX-512) instead of a `memset` / `memcpy` call per run. Short rows
//! have two or three runs each, so the calls, not the bytes, were their cost.

use core::arch::x86_64::*;

use super::runs256::keep_loop;

/// The mask of the first `n` bytes of a vector (`n` < 64).
#[inline(always)]
fn head(n: usize) -> u64 {
    (1u64 << n) - 1
}

/// Writes `pattern` over the `n` bytes from `dst` (the pattern's byte 0 at `dst`).
///
/// # Safety
/// The CPU has AVX-512 F and BW; the `n` bytes from `dst` are writable and unshared.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn fill(dst: *mut u8, n: usize, pattern: __m512i) {
    let mut i = 0;
    while i + 64 <= n {
        // SAFETY: bytes i .. i + 64 are within the n (caller).
        unsafe { _mm512_storeu_si512(dst.add(i).cast(), pattern) };
        keep_loop();
        i += 64;
    }
    if i < n {
        // SAFETY: the mask covers bytes i .. n only; masked-off bytes are not touched.
        unsafe { _mm512_mask_storeu_epi8(dst.add(i).cast(), head(n - i), pattern) };
    }
}

/// Copies `n` bytes from `src` to `dst`.
///
/// # Safety
/// The CPU has AVX-512 F and BW; the `n` bytes from `src` are readable, those from `dst`
/// writable and unshared, and the two do not overlap.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    let mut i = 0;
    while i + 64 <= n {
        // SAFETY: bytes i .. i + 64 are within the n of both (caller).
        unsafe {
            let v = _mm512_loadu_si512(src.add(i).cast());
            _mm512_storeu_si512(dst.add(i).cast(), v);
        }
        keep_loop();
        i += 64;
    }
    if i < n {
        let m = head(n - i);
        // SAFETY: the mask covers bytes i .. n only; masked-off bytes are neither read (a
        // masked load does not fault on them) nor written.
        unsafe {
            let v = _mm512_maskz_loadu_epi8(m, src.add(i).cast());
            _mm512_mask_storeu_epi8(dst.add(i).cast(), m, v);
        }
    }
}
