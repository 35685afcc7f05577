//! SIMD helpers for the kernels: compare-to-bitmask (NONZERO_COORDINATES) and non-temporal
//! fills and copies (DIAGONAL_MATRIX1).
//!
//! On x86_64, SSE2 is always there and AVX2 is chosen at run time; other targets use portable
//! code. `DMLS_SIMD=portable|sse2|avx2` in the environment (read once per process) forces a
//! lower level, so the tests can run every path on one machine.

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Isa {
    /// Plain Rust.
    Portable = 1,
    /// x86_64 baseline.
    Sse2 = 2,
    /// x86_64 with AVX2, BMI1 and POPCNT.
    Avx2 = 3,
}

static ISA: AtomicU8 = AtomicU8::new(0);

/// The best level this machine has, lowered by `DMLS_SIMD` when set. One relaxed atomic load
/// after the first call.
#[inline]
pub(crate) fn isa() -> Isa {
    match ISA.load(Ordering::Relaxed) {
        1 => Isa::Portable,
        2 => Isa::Sse2,
        3 => Isa::Avx2,
        _ => detect(),
    }
}

#[cold]
fn detect() -> Isa {
    let best = best_isa();
    let isa = match std::env::var("DMLS_SIMD").as_deref() {
        Ok("portable") => Isa::Portable,
        Ok("sse2") => best.min(Isa::Sse2),
        _ => best,
    };
    ISA.store(isa as u8, Ordering::Relaxed);
    isa
}

fn best_isa() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("popcnt")
        {
            Isa::Avx2
        } else {
            Isa::Sse2
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Isa::Portable
    }
}

/// Bit `i` of the result is set when `block[i] & mask != 0` (portable).
#[inline(always)]
fn mask64_portable<U: super::Word>(block: &[U], mask: U) -> u64 {
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

/// Portable [`super::Word::mask_blocks`].
pub(crate) fn mask_blocks_portable<U: super::Word>(data: &[U], mask: U, out: &mut [u64]) -> u64 {
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
pub(crate) fn mask_tail<U: super::Word>(rest: &[U], mask: U) -> u64 {
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

/// Non-temporal stores: fills and copies that bypass the cache, for outputs too large to stay
/// in it. Unaligned heads and tails use ordinary stores. Call [`fence`] before other threads
/// may read what was written.
pub(crate) mod stream {
    use super::super::Word;

    /// Fills `dst` with `v`.
    #[inline]
    pub fn fill<U: Word>(dst: &mut [U], v: U) {
        #[cfg(target_arch = "x86_64")]
        {
            let (head, body, tail) = split16(dst);
            head.fill(v);
            tail.fill(v);
            if !body.is_empty() {
                // Sixteen bytes of `v` repeated (U::SIZE divides 16).
                let mut pattern = [0u8; 16];
                for c in pattern.chunks_exact_mut(U::SIZE) {
                    c.copy_from_slice(bytemuck::bytes_of(&v));
                }
                x86::fill(body, pattern);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        dst.fill(v);
    }

    /// Copies `src` into `dst` (same length).
    #[inline]
    pub fn copy<U: Word>(dst: &mut [U], src: &[U]) {
        #[cfg(target_arch = "x86_64")]
        {
            let n = dst.len();
            let src = &src[..n];
            let (head, body, tail) = split16(dst);
            let (h, b) = (head.len(), body.len());
            head.copy_from_slice(&src[..h]);
            tail.copy_from_slice(&src[h + b * 16 / U::SIZE..]);
            if !body.is_empty() {
                x86::copy(body, bytemuck::cast_slice(&src[h..h + b * 16 / U::SIZE]));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        dst.copy_from_slice(src);
    }

    /// Orders the non-temporal stores before later stores (and so before another thread sees
    /// this one's work as done).
    #[inline]
    pub fn fence() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE (sfence) is part of every x86_64.
        unsafe {
            core::arch::x86_64::_mm_sfence()
        };
    }

    /// Splits a slice into an unaligned head, a 16-byte aligned body of whole 16-byte units,
    /// and a tail.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn split16<U: Word>(dst: &mut [U]) -> (&mut [U], &mut [[u8; 16]], &mut [U]) {
        let addr = dst.as_ptr() as usize;
        let skip = ((16 - addr % 16) % 16 / U::SIZE).min(dst.len());
        let (head, rest) = dst.split_at_mut(skip);
        let body_len = rest.len() * U::SIZE / 16 * 16 / U::SIZE;
        let (body, tail) = rest.split_at_mut(body_len);
        let body: &mut [u8] = bytemuck::cast_slice_mut(body);
        // The body starts 16-byte aligned and holds whole 16-byte units, so this cast cannot
        // fail.
        let body: &mut [[u8; 16]] = bytemuck::cast_slice_mut(body);
        (head, body, tail)
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use core::arch::x86_64::*;

        /// Streams `pattern` into every 16-byte unit of `dst` (16-byte aligned).
        #[inline]
        pub fn fill(dst: &mut [[u8; 16]], pattern: [u8; 16]) {
            assert_eq!(
                dst.as_ptr() as usize % 16,
                0,
                "streaming stores need 16-byte alignment"
            );
            // SAFETY: SSE2 is part of every x86_64; the pattern is 16 readable bytes.
            let v = unsafe { _mm_loadu_si128(pattern.as_ptr().cast()) };
            for d in dst.iter_mut() {
                // SAFETY: `d` is a 16-byte unit inside `dst`, 16-byte aligned because `dst` is
                // (asserted above) and units are 16 bytes long.
                unsafe { _mm_stream_si128((d as *mut [u8; 16]).cast(), v) };
            }
        }

        /// Streams `src` into `dst` (16-byte aligned; `src` may be unaligned), same length.
        #[inline]
        pub fn copy(dst: &mut [[u8; 16]], src: &[[u8; 16]]) {
            assert_eq!(
                dst.as_ptr() as usize % 16,
                0,
                "streaming stores need 16-byte alignment"
            );
            for (d, s) in dst.iter_mut().zip(src) {
                // SAFETY: `s` is 16 readable bytes (loadu needs no alignment); `d` is a 16-byte
                // unit inside `dst`, aligned as in `fill`.
                unsafe {
                    let v = _mm_loadu_si128((s as *const [u8; 16]).cast());
                    _mm_stream_si128((d as *mut [u8; 16]).cast(), v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Word;

    /// A named mask function under test.
    type MaskFn<'a, U> = (&'a str, &'a dyn Fn(&[U], U, &mut [u64]) -> u64);

    fn check<U: Word + From<u8>>(make: impl Fn(u64) -> U, masks: &[U], fns: &[MaskFn<'_, U>]) {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
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
                for (name, f) in fns {
                    let mut got = vec![0u64; blocks];
                    assert_eq!(f(&data, mask, &mut got), total, "{name} count");
                    assert_eq!(got, want, "{name} masks");
                }
            }
        }
    }

    #[test]
    fn every_isa_matches_scalar() {
        let have_avx2 = best_isa() == Isa::Avx2;
        macro_rules! fns {
            ($t:ty, $sse:ident, $avx:ident) => {{
                let mut v: Vec<MaskFn<'_, $t>> =
                    vec![("portable", &|d, m, o| mask_blocks_portable(d, m, o))];
                #[cfg(target_arch = "x86_64")]
                {
                    // SAFETY: SSE2 is baseline; AVX2 only when detected.
                    v.push(("sse2", &|d, m, o| unsafe { x86::$sse(d, m, o) }));
                    if have_avx2 {
                        v.push(("avx2", &|d, m, o| unsafe { x86::$avx(d, m, o) }));
                    }
                }
                v
            }};
        }
        let _ = have_avx2;
        check::<u8>(|r| r as u8 | 1, &[0xFF], &fns!(u8, u8_sse2, u8_avx2));
        // Values with only the sign bit set must count as zero under the float mask.
        check::<u16>(
            |r| if r % 5 == 0 { 0x8000 } else { r as u16 | 1 },
            &[0xFFFF, 0x7FFF],
            &fns!(u16, u16_sse2, u16_avx2),
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
            &fns!(u32, u32_sse2, u32_avx2),
        );
        check::<u64>(
            |r| if r % 5 == 0 { 1 << 63 } else { 1 << (r % 64) },
            &[u64::MAX, 0x7FFF_FFFF_FFFF_FFFF],
            &fns!(u64, u64_sse2, u64_avx2),
        );
    }

    #[test]
    fn streaming_fill_and_copy_match_plain() {
        for len in 0..100usize {
            for off in 0..4usize {
                let mut a = vec![7u32; len + 8];
                let src: Vec<u32> = (0..len as u32 + 8).collect();
                stream::fill(&mut a[off..off + len], 5);
                stream::fence();
                for (i, &x) in a.iter().enumerate() {
                    let inside = i >= off && i < off + len;
                    assert_eq!(
                        x,
                        if inside { 5 } else { 7 },
                        "fill len {len} off {off} at {i}"
                    );
                }
                let mut b = vec![9u16; len + 8];
                let s16: Vec<u16> = src.iter().map(|&v| v as u16).collect();
                stream::copy(&mut b[off..off + len], &s16[1..1 + len]);
                stream::fence();
                for (i, &x) in b.iter().enumerate() {
                    let inside = i >= off && i < off + len;
                    let want = if inside { s16[1 + i - off] } else { 9 };
                    assert_eq!(x, want, "copy len {len} off {off} at {i}");
                }
            }
        }
    }
}
