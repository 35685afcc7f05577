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

/// The 32- and 64-bit forms: `$lanes` elements a vector, `64 / $lanes` vectors a block.
macro_rules! wide {
    ($name:ident, $t:ty, $signed:ty, $set1:ident, $test:ident, $lanes:literal) => {
        /// # Safety
        /// The CPU has AVX-512 F and POPCNT.
        #[target_feature(enable = "avx512f,popcnt")]
        pub unsafe fn $name(data: &[$t], mask: $t, out: &mut [u64]) -> u64 {
            let m = $set1(mask as $signed);
            let mut total = 0u64;
            for (b, o) in blocks!(data, out) {
                let p = b.as_ptr();
                let mut bits = 0u64;
                for k in 0..64 / $lanes {
                    // SAFETY: `b` holds 64 elements, 64 / $lanes vectors of $lanes; k is below
                    // that.
                    let v = unsafe { _mm512_loadu_si512(p.add($lanes * k).cast()) };
                    bits |= u64::from($test(v, m)) << ($lanes * k);
                }
                *o = bits;
                total += u64::from(bits.count_ones());
            }
            total
        }
    };
}

wide!(
    u32_avx512,
    u32,
    i32,
    _mm512_set1_epi32,
    _mm512_test_epi32_mask,
    16
);
wide!(
    u64_avx512,
    u64,
    i64,
    _mm512_set1_epi64,
    _mm512_test_epi64_mask,
    8
);
