//! Element words and compare-to-bitmask (NONZERO_COORDINATES): [`Word::mask_blocks`]
//! dispatches on the [`Isa`] token to SSE2, AVX2, AVX-512 (`mask512.rs`) or portable code.

use super::isa::Isa;
#[cfg(target_arch = "x86_64")]
use super::isa::Level;

/// Element words: the unsigned integer of each element width. Kernels move bits, never values.
pub(crate) trait Word: Copy + Send + Sync + PartialEq + bytemuck::Pod + 'static {
    const ZERO: Self;
    const SIZE: usize;
    fn and(self, other: Self) -> Self;
    /// Reads a value from the first `SIZE` bytes (native endian).
    fn from_bytes(b: &[u8; 8]) -> Self;
    /// The nonzero bitmasks of whole 64-element blocks: bit i of `out[w]` is set when
    /// `data[64 w + i] & mask != 0`. `data` holds exactly `64 * out.len()` elements. Returns the
    /// number of set bits. SIMD when `isa` allows it.
    fn mask_blocks(data: &[Self], mask: Self, out: &mut [u64], isa: Isa) -> u64;
}

macro_rules! word {
    ($t:ty, $sse2:ident, $avx2:ident, $avx512:ident) => {
        impl Word for $t {
            const ZERO: Self = 0;
            const SIZE: usize = core::mem::size_of::<$t>();
            #[inline(always)]
            fn and(self, other: Self) -> Self {
                self & other
            }
            #[inline(always)]
            fn from_bytes(b: &[u8; 8]) -> Self {
                let mut a = [0u8; core::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..core::mem::size_of::<$t>()]);
                <$t>::from_ne_bytes(a)
            }
            #[inline]
            fn mask_blocks(data: &[Self], mask: Self, out: &mut [u64], isa: Isa) -> u64 {
                match isa.level() {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: only detection makes an `Isa`, and at Avx512 only when the CPU
                    // has AVX-512 F, BW, VL, VBMI2, AVX2, BMI1 and POPCNT.
                    Level::Avx512 => unsafe { super::mask512::$avx512(data, mask, out) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: only detection makes an `Isa`, and at Avx2 only when the CPU has
                    // AVX2, BMI1 and POPCNT.
                    Level::Avx2 => unsafe { x86::$avx2(data, mask, out) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: SSE2 is part of every x86_64.
                    Level::Sse2 => unsafe { x86::$sse2(data, mask, out) },
                    _ => mask_blocks_portable(data, mask, out),
                }
            }
        }
    };
}
word!(u8, u8_sse2, u8_avx2, u8_avx512);
word!(u16, u16_sse2, u16_avx2, u16_avx512);
word!(u32, u32_sse2, u32_avx2, u32_avx512);
word!(u64, u64_sse2, u64_avx2, u64_avx512);

/// Bit `i` of the result is set when `block[i] & mask != 0` (portable).
#[inline(always)]
fn mask64_portable<U: Word>(block: &[U], mask: U) -> u64 {
    let mut flags = [0u8; 64];
    for (f, &x) in flags.iter_mut().zip(block.iter()) {
        *f = u8::from(x.and(mask) != U::ZERO);
    }
    let mut m = 0u64;
    for (j, eight) in flags.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(eight);
        // Each byte is 0 or 1; the multiply gathers byte i's low bit into bit 56 + i with no
        // carries (all partial products land on distinct bits).
        let packed = u64::from_le_bytes(b).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        m |= packed << (8 * j);
    }
    m
}

/// Portable [`Word::mask_blocks`].
pub(crate) fn mask_blocks_portable<U: Word>(data: &[U], mask: U, out: &mut [u64]) -> u64 {
    let mut total = 0;
    for (block, o) in data.chunks_exact(64).zip(out.iter_mut()) {
        let m = mask64_portable(block, mask);
        total += u64::from(m.count_ones());
        *o = m;
    }
    total
}

/// The bitmask of a partial block (fewer than 64 elements), scalar.
#[inline]
pub(crate) fn mask_tail<U: Word>(rest: &[U], mask: U) -> u64 {
    let mut m = 0u64;
    for (i, &x) in rest.iter().enumerate() {
        m |= u64::from(x.and(mask) != U::ZERO) << i;
    }
    m
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    //! x86_64 compare-to-bitmask. Each function reads whole 64-element blocks of `data` (its
    //! length is 64 × `out.len()`, checked), writes one word per block into `out` (bit i set
    //! when element i AND `mask` is not zero) and returns the number of set bits.
    use core::arch::x86_64::*;

    macro_rules! blocks {
        ($data:ident, $out:ident, $ty:ty) => {{
            assert_eq!($data.len(), $out.len() * 64, "whole 64-element blocks");
            $data.chunks_exact(64).zip($out.iter_mut())
        }};
    }

    /// # Safety
    /// None beyond SSE2, which every x86_64 has.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub unsafe fn u8_sse2(data: &[u8], mask: u8, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        for (b, o) in blocks!(data, out, u8) {
            let p = b.as_ptr().cast::<__m128i>();
            let m = _mm_set1_epi8(mask as i8);
            let z = _mm_setzero_si128();
            let mut eq = 0u64;
            for k in 0..4 {
                // SAFETY: `b` holds 64 bytes, four 16-byte vectors; loadu needs no alignment.
                let v = unsafe { _mm_loadu_si128(p.add(k)) };
                let e = _mm_cmpeq_epi8(_mm_and_si128(v, m), z);
                eq |= u64::from(_mm_movemask_epi8(e) as u16) << (16 * k);
            }
            *o = !eq;
            total += u64::from((!eq).count_ones());
        }
        total
    }

    /// # Safety
    /// The CPU has AVX2, BMI1 and POPCNT.
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub unsafe fn u8_avx2(data: &[u8], mask: u8, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        let m = _mm256_set1_epi8(mask as i8);
        let z = _mm256_setzero_si256();
        for (b, o) in blocks!(data, out, u8) {
            let p = b.as_ptr().cast::<__m256i>();
            // SAFETY: `b` holds 64 bytes, two 32-byte vectors; loadu needs no alignment.
            let (v0, v1) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
            let e0 = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(v0, m), z)) as u32;
            let e1 = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(v1, m), z)) as u32;
            let bits = !(u64::from(e0) | u64::from(e1) << 32);
            *o = bits;
            total += u64::from(bits.count_ones());
        }
        total
    }

    /// # Safety
    /// None beyond SSE2.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub unsafe fn u16_sse2(data: &[u16], mask: u16, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        let m = _mm_set1_epi16(mask as i16);
        let z = _mm_setzero_si128();
        for (b, o) in blocks!(data, out, u16) {
            let p = b.as_ptr().cast::<__m128i>();
            let mut eq = 0u64;
            for k in 0..4 {
                // SAFETY: `b` holds 64 u16, eight 16-byte vectors; k < 4 reads vectors 2k, 2k+1.
                let (v0, v1) = unsafe {
                    (
                        _mm_loadu_si128(p.add(2 * k)),
                        _mm_loadu_si128(p.add(2 * k + 1)),
                    )
                };
                let e0 = _mm_cmpeq_epi16(_mm_and_si128(v0, m), z);
                let e1 = _mm_cmpeq_epi16(_mm_and_si128(v1, m), z);
                // Saturating packs keep 0 and -1; the bytes stay in element order.
                eq |= u64::from(_mm_movemask_epi8(_mm_packs_epi16(e0, e1)) as u16) << (16 * k);
            }
            *o = !eq;
            total += u64::from((!eq).count_ones());
        }
        total
    }

    /// # Safety
    /// The CPU has AVX2, BMI1 and POPCNT.
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub unsafe fn u16_avx2(data: &[u16], mask: u16, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        let m = _mm256_set1_epi16(mask as i16);
        let z = _mm256_setzero_si256();
        for (b, o) in blocks!(data, out, u16) {
            let p = b.as_ptr().cast::<__m256i>();
            let mut eq = 0u64;
            for k in 0..2 {
                // SAFETY: `b` holds 64 u16, four 32-byte vectors; k < 2 reads vectors 2k, 2k+1.
                let (v0, v1) = unsafe {
                    (
                        _mm256_loadu_si256(p.add(2 * k)),
                        _mm256_loadu_si256(p.add(2 * k + 1)),
                    )
                };
                let e0 = _mm256_cmpeq_epi16(_mm256_and_si256(v0, m), z);
                let e1 = _mm256_cmpeq_epi16(_mm256_and_si256(v1, m), z);
                // packs works per 128-bit lane: [e0 lo, e1 lo, e0 hi, e1 hi]; the permute puts
                // the quarters back in element order.
                let packed = _mm256_permute4x64_epi64(_mm256_packs_epi16(e0, e1), 0b11_01_10_00);
                eq |= u64::from(_mm256_movemask_epi8(packed) as u32) << (32 * k);
            }
            *o = !eq;
            total += u64::from((!eq).count_ones());
        }
        total
    }

    /// # Safety
    /// None beyond SSE2.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub unsafe fn u32_sse2(data: &[u32], mask: u32, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        let m = _mm_set1_epi32(mask as i32);
        let z = _mm_setzero_si128();
        for (b, o) in blocks!(data, out, u32) {
            let p = b.as_ptr().cast::<__m128i>();
            let mut eq = 0u64;
            for k in 0..4 {
                let mut e = [z; 4];
                for (j, e) in e.iter_mut().enumerate() {
                    // SAFETY: `b` holds 64 u32, sixteen 16-byte vectors; 4k + j < 16.
                    let v = unsafe { _mm_loadu_si128(p.add(4 * k + j)) };
                    *e = _mm_cmpeq_epi32(_mm_and_si128(v, m), z);
                }
                // Two saturating packs turn 16 lanes of 0 / -1 into 16 bytes in element order.
                let lo = _mm_packs_epi32(e[0], e[1]);
                let hi = _mm_packs_epi32(e[2], e[3]);
                eq |= u64::from(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)) as u16) << (16 * k);
            }
            *o = !eq;
            total += u64::from((!eq).count_ones());
        }
        total
    }

    /// # Safety
    /// The CPU has AVX2, BMI1 and POPCNT.
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub unsafe fn u32_avx2(data: &[u32], mask: u32, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        let m = _mm256_set1_epi32(mask as i32);
        let z = _mm256_setzero_si256();
        for (b, o) in blocks!(data, out, u32) {
            let p = b.as_ptr().cast::<__m256i>();
            let mut eq = 0u64;
            for k in 0..8 {
                // SAFETY: `b` holds 64 u32, eight 32-byte vectors; k < 8.
                let v = unsafe { _mm256_loadu_si256(p.add(k)) };
                let e = _mm256_cmpeq_epi32(_mm256_and_si256(v, m), z);
                eq |= u64::from(_mm256_movemask_ps(_mm256_castsi256_ps(e)) as u8) << (8 * k);
            }
            *o = !eq;
            total += u64::from((!eq).count_ones());
        }
        total
    }

    /// # Safety
    /// None beyond SSE2.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub unsafe fn u64_sse2(data: &[u64], mask: u64, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        let m = _mm_set1_epi64x(mask as i64);
        let z = _mm_setzero_si128();
        for (b, o) in blocks!(data, out, u64) {
            let p = b.as_ptr().cast::<__m128i>();
            let mut eq = 0u64;
            for k in 0..32 {
                // SAFETY: `b` holds 64 u64, thirty-two 16-byte vectors; k < 32.
                let v = unsafe { _mm_loadu_si128(p.add(k)) };
                let e = _mm_cmpeq_epi32(_mm_and_si128(v, m), z);
                // A 64-bit lane is zero when both of its 32-bit halves are.
                let both = _mm_and_si128(e, _mm_shuffle_epi32(e, 0b10_11_00_01));
                eq |= u64::from(_mm_movemask_pd(_mm_castsi128_pd(both)) as u8) << (2 * k);
            }
            *o = !eq;
            total += u64::from((!eq).count_ones());
        }
        total
    }

    /// # Safety
    /// The CPU has AVX2, BMI1 and POPCNT.
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub unsafe fn u64_avx2(data: &[u64], mask: u64, out: &mut [u64]) -> u64 {
        let mut total = 0u64;
        let m = _mm256_set1_epi64x(mask as i64);
        let z = _mm256_setzero_si256();
        for (b, o) in blocks!(data, out, u64) {
            let p = b.as_ptr().cast::<__m256i>();
            let mut eq = 0u64;
            for k in 0..16 {
                // SAFETY: `b` holds 64 u64, sixteen 32-byte vectors; k < 16.
                let v = unsafe { _mm256_loadu_si256(p.add(k)) };
                let e = _mm256_cmpeq_epi64(_mm256_and_si256(v, m), z);
                eq |= u64::from(_mm256_movemask_pd(_mm256_castsi256_pd(e)) as u8) << (4 * k);
            }
            *o = !eq;
            total += u64::from((!eq).count_ones());
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::xorshift;

    /// `U::mask_blocks` at every level this CPU has against the scalar [`mask_tail`].
    fn check<U: Word + From<u8>>(make: impl Fn(u64) -> U, masks: &[U]) {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || xorshift(&mut seed);
        let isas = Isa::all();
        #[cfg(target_arch = "x86_64")]
        assert!(isas.len() >= 2, "x86_64 has SSE2: {isas:?}");
        for &mask in masks {
            for blocks in 0..4usize {
                let data: Vec<U> = (0..blocks * 64)
                    .map(|_| {
                        let r = next();
                        if r % 3 == 0 {
                            U::ZERO
                        } else {
                            make(r)
                        }
                    })
                    .collect();
                let mut want = vec![0u64; blocks];
                let mut total = 0;
                for (b, w) in want.iter_mut().enumerate() {
                    *w = mask_tail(&data[b * 64..b * 64 + 64], mask);
                    total += u64::from(w.count_ones());
                }
                for &isa in &isas {
                    let mut got = vec![0u64; blocks];
                    assert_eq!(
                        U::mask_blocks(&data, mask, &mut got, isa),
                        total,
                        "{isa:?} count"
                    );
                    assert_eq!(got, want, "{isa:?} masks");
                }
            }
        }
    }

    #[test]
    fn every_isa_matches_scalar() {
        check::<u8>(|r| r as u8 | 1, &[0xFF]);
        // Values with only the sign bit set must count as zero under the float mask.
        check::<u16>(
            |r| if r % 5 == 0 { 0x8000 } else { r as u16 | 1 },
            &[0xFFFF, 0x7FFF],
        );
        check::<u32>(
            |r| {
                if r % 5 == 0 {
                    0x8000_0000
                } else {
                    (r >> 3) as u32 | 1 << (r % 32)
                }
            },
            &[u32::MAX, 0x7FFF_FFFF],
        );
        check::<u64>(
            |r| if r % 5 == 0 { 1 << 63 } else { 1 << (r % 64) },
            &[u64::MAX, 0x7FFF_FFFF_FFFF_FFFF],
        );
    }
}
