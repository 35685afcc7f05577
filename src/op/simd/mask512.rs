//! AVX-512 compare-to-bitmask for [`super::mask::Word::mask_blocks`]: one `vptestm` per vector
//! gives the nonzero lanes as a mask register directly. Each function reads whole 64-element
//! blocks of `data` (its length is 64 × `out.len()`, checked), writes one word per block into
//! `out` (bit i set when element i AND `mask` is not zero) and returns the number of set bits.

use core::arch::x86_64::*;

macro_rules! blocks {
    ($data:ident, $out:ident) => {{
        assert_eq!($data.len(), $out.len() * 64, "whole 64-element blocks");
        $data.chunks_exact(64).zip($out.iter_mut())
    }};
}

/// # Safety
/// The CPU has AVX-512 F and BW, and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub unsafe fn u8_avx512(data: &[u8], mask: u8, out: &mut [u64]) -> u64 {
    let m = _mm512_set1_epi8(mask as i8);
    let mut total = 0u64;
    for (b, o) in blocks!(data, out) {
        // SAFETY: `b` holds 64 bytes, one 64-byte vector; loadu needs no alignment.
        let v = unsafe { _mm512_loadu_si512(b.as_ptr().cast()) };
        let bits = _mm512_test_epi8_mask(v, m);
        *o = bits;
        total += u64::from(bits.count_ones());
    }
    total
}

/// # Safety
/// The CPU has AVX-512 F and BW, and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub unsafe fn u16_avx512(data: &[u16], mask: u16, out: &mut [u64]) -> u64 {
    let m = _mm512_set1_epi16(mask as i16);
    let mut total = 0u64;
    for (b, o) in blocks!(data, out) {
        let p = b.as_ptr();
        // SAFETY: `b` holds 64 u16, two 64-byte vectors; loadu needs no alignment.
        let (v0, v1) = unsafe {
            (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(32).cast()),
            )
        };
        let bits = u64::from(_mm512_test_epi16_mask(v0, m))
            | u64::from(_mm512_test_epi16_mask(v1, m)) << 32;
        *o = bits;
        total += u64::from(bits.count_ones());
    }
    total
}

/// # Safety
/// The CPU has AVX-512 F and POPCNT.
#[target_feature(enable = "avx512f,popcnt")]
pub unsafe fn u32_avx512(data: &[u32], mask: u32, out: &mut [u64]) -> u64 {
    let m = _mm512_set1_epi32(mask as i32);
    let mut total = 0u64;
    for (b, o) in blocks!(data, out) {
        let p = b.as_ptr();
        let mut bits = 0u64;
        for k in 0..4 {
            // SAFETY: `b` holds 64 u32, four 64-byte vectors; k < 4.
            let v = unsafe { _mm512_loadu_si512(p.add(16 * k).cast()) };
            bits |= u64::from(_mm512_test_epi32_mask(v, m)) << (16 * k);
        }
        *o = bits;
        total += u64::from(bits.count_ones());
    }
    total
}

/// # Safety
/// The CPU has AVX-512 F and POPCNT.
#[target_feature(enable = "avx512f,popcnt")]
pub unsafe fn u64_avx512(data: &[u64], mask: u64, out: &mut [u64]) -> u64 {
    let m = _mm512_set1_epi64(mask as i64);
    let mut total = 0u64;
    for (b, o) in blocks!(data, out) {
        let p = b.as_ptr();
        let mut bits = 0u64;
        for k in 0..8 {
            // SAFETY: `b` holds 64 u64, eight 64-byte vectors; k < 8.
            let v = unsafe { _mm512_loadu_si512(p.add(8 * k).cast()) };
            bits |= u64::from(_mm512_test_epi64_mask(v, m)) << (8 * k);
        }
        *o = bits;
        total += u64::from(bits.count_ones());
    }
    total
}
