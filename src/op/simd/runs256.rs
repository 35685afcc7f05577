//! AVX2 runs of output bytes for DIAGONAL_MATRIX1: fills with a repeating 32-byte pattern and
//! copies, 32 bytes a store, the last store ending at the run's end (overlapping the one
//! before with the same bytes: AVX2 has no byte-masked store), inlined into the caller (which
//! is compiled for AVX2) instead of a `memset` / `memcpy` call per run. Also [`keep_loop`],
//! which keeps such loops from becoming those calls again.

use core::arch::x86_64::*;

/// Keeps a run's loop a loop: the compiler may turn a loop of plain vector stores or copies
/// back into a `memset` or `memcpy` call (it did in some builds, which made short rows 1.6-2.5x
/// slower), what these modules are there to avoid. An empty instruction sequence that the
/// compiler must assume may touch memory.
#[inline(always)]
pub fn keep_loop() {
    // SAFETY: no instructions: it reads, writes and clobbers nothing.
    unsafe { core::arch::asm!("", options(nostack, preserves_flags)) };
}

/// Stores `v` over bytes `a .. b` of `dst` (`b - a >= 32`).
///
/// # Safety
/// The CPU has AVX2 (the caller is compiled for it); bytes `a .. b` of `dst` are writable by
/// this thread.
#[inline(always)]
pub unsafe fn fill(dst: *mut u8, a: usize, b: usize, v: __m256i) {
    let mut p = a;
    while p + 32 < b {
        // SAFETY: p + 32 < b: within the bytes the caller lets us write.
        unsafe { _mm256_storeu_si256(dst.add(p).cast(), v) };
        keep_loop();
        p += 32;
    }
    // SAFETY: b - 32 >= a.
    unsafe { _mm256_storeu_si256(dst.add(b - 32).cast(), v) };
}

/// Copies bytes `a .. b` of `src` to `dst` (`b - a >= 32`).
///
/// # Safety
/// The CPU has AVX2 (the caller is compiled for it); bytes `a .. b` of `src` are readable and
/// of `dst` writable by this thread, and the two do not overlap.
#[inline(always)]
pub unsafe fn copy(dst: *mut u8, src: *const u8, a: usize, b: usize) {
    let mut p = a;
    // Four loads before their four stores, as `memcpy` does: a load from an address 4 KiB
    // (or a multiple) from a store still in flight is held until the store is done, so
    // alternating loads and stores ran at a third of the speed for some distances between
    // the input and the output.
    while p + 128 < b {
        // SAFETY: p + 128 < b: within the bytes the caller lets us read and write.
        unsafe {
            let s = src.add(p).cast::<__m256i>();
            let d = dst.add(p).cast::<__m256i>();
            let (v0, v1) = (_mm256_loadu_si256(s), _mm256_loadu_si256(s.add(1)));
            let (v2, v3) = (_mm256_loadu_si256(s.add(2)), _mm256_loadu_si256(s.add(3)));
            _mm256_storeu_si256(d, v0);
            _mm256_storeu_si256(d.add(1), v1);
            _mm256_storeu_si256(d.add(2), v2);
            _mm256_storeu_si256(d.add(3), v3);
        }
        keep_loop();
        p += 128;
    }
    while p + 32 < b {
        // SAFETY: p + 32 < b: within the bytes the caller lets us read and write.
        unsafe { _mm256_storeu_si256(dst.add(p).cast(), _mm256_loadu_si256(src.add(p).cast())) };
        keep_loop();
        p += 32;
    }
    // SAFETY: b - 32 >= a.
    unsafe {
        _mm256_storeu_si256(
            dst.add(b - 32).cast(),
            _mm256_loadu_si256(src.add(b - 32).cast()),
        )
    };
}
