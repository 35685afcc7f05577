//! SIMD helpers for the kernels: compare-to-bitmask (NONZERO_COORDINATES) and non-temporal
//! fills and copies (DIAGONAL_MATRIX1).
//!
//! On x86_64, SSE2 is always there and AVX2 is chosen at run time; other targets use portable
//! code. `DMLS_SIMD=portable|sse2|avx2` in the environment (read once per process) forces a
//! lower level, so the tests can run every path on one machine.

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
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

/// Non-temporal stores: whole aligned units written past the cache, for outputs too large to
/// stay in it. A unit is 32 bytes with AVX2 (16-byte streaming stores are slower than plain
/// ones on some CPUs, such as AMD Zen 4), else 16 bytes. Call [`stream::fence`] before another
/// thread may read what was written.
///
/// The functions are `#[inline(always)]` so that callers compiled for AVX2 (see
/// `diagonal_kernel`) get the 32-byte stores inlined.
pub(crate) mod stream {
    use super::super::Word;
    use super::Isa;

    /// The unit size in bytes for this instruction set.
    #[inline(always)]
    pub fn unit_bytes(isa: Isa) -> usize {
        if isa == Isa::Avx2 {
            32
        } else {
            16
        }
    }

    /// Fills `dst`, which starts on a unit boundary and holds whole units, with `v`.
    #[inline(always)]
    pub fn fill<U: Word>(dst: &mut [U], v: U, isa: Isa) {
        let mut pattern = [U::ZERO; 32];
        pattern.fill(v);
        let pattern: &[u8] = bytemuck::cast_slice(&pattern[..]);
        let dst: &mut [u8] = bytemuck::cast_slice_mut(dst);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: Avx2 means the CPU has AVX2 (and so AVX).
            Isa::Avx2 => unsafe { x86::fill32(dst, pattern) },
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 => x86::fill16(dst, pattern),
            _ => {
                for (d, s) in dst.iter_mut().zip(pattern.iter().cycle()) {
                    *d = *s;
                }
            }
        }
    }

    /// Copies `src` into `dst` (same length), which starts on a unit boundary and holds whole
    /// units; `src` may have any alignment.
    #[inline(always)]
    pub fn copy<U: Word>(dst: &mut [U], src: &[U], isa: Isa) {
        let src: &[u8] = bytemuck::cast_slice(&src[..dst.len()]);
        let dst: &mut [u8] = bytemuck::cast_slice_mut(dst);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: Avx2 means the CPU has AVX2 (and so AVX).
            Isa::Avx2 => unsafe { x86::copy32(dst, src) },
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 => x86::copy16(dst, src),
            _ => dst.copy_from_slice(src),
        }
    }

    /// Orders this thread's streaming stores before its later stores (and so before another
    /// thread sees its work as done).
    #[inline(always)]
    pub fn fence() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE (sfence) is part of every x86_64.
        unsafe {
            core::arch::x86_64::_mm_sfence()
        };
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use core::arch::x86_64::*;

        /// Streams the first 16 bytes of `pattern` over `dst` (16-byte aligned, whole units).
        #[inline(always)]
        pub fn fill16(dst: &mut [u8], pattern: &[u8]) {
            assert!(dst.as_ptr() as usize % 16 == 0 && dst.len() % 16 == 0 && pattern.len() >= 16);
            // SAFETY: SSE2 is part of every x86_64; the pattern has 16 readable bytes.
            let v = unsafe { _mm_loadu_si128(pattern.as_ptr().cast()) };
            for d in dst.chunks_exact_mut(16) {
                // SAFETY: `d` is 16 writable bytes, 16-byte aligned (asserted above).
                unsafe { _mm_stream_si128(d.as_mut_ptr().cast(), v) };
            }
        }

        /// Streams `src` into `dst` (16-byte aligned, whole units; same length).
        #[inline(always)]
        pub fn copy16(dst: &mut [u8], src: &[u8]) {
            assert!(dst.as_ptr() as usize % 16 == 0 && dst.len() % 16 == 0);
            assert_eq!(dst.len(), src.len());
            for (d, s) in dst.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
                // SAFETY: `s` is 16 readable bytes (loadu needs no alignment); `d` is 16
                // writable bytes, 16-byte aligned (asserted above).
                unsafe {
                    _mm_stream_si128(d.as_mut_ptr().cast(), _mm_loadu_si128(s.as_ptr().cast()))
                };
            }
        }

        /// Streams the first 32 bytes of `pattern` over `dst` (32-byte aligned, whole units).
        ///
        /// # Safety
        /// The CPU has AVX.
        #[inline(always)]
        pub unsafe fn fill32(dst: &mut [u8], pattern: &[u8]) {
            assert!(dst.as_ptr() as usize % 32 == 0 && dst.len() % 32 == 0 && pattern.len() >= 32);
            // SAFETY: the pattern has 32 readable bytes; the CPU has AVX (caller).
            let v = unsafe { _mm256_loadu_si256(pattern.as_ptr().cast()) };
            // Four stores (two cache lines) per iteration: the loop, not the memory, would
            // otherwise limit a zero fill on fast machines.
            let mut lines = dst.chunks_exact_mut(128);
            for d in &mut lines {
                let p = d.as_mut_ptr().cast::<__m256i>();
                // SAFETY: `d` is 128 writable bytes, 32-byte aligned (asserted above).
                unsafe {
                    _mm256_stream_si256(p, v);
                    _mm256_stream_si256(p.add(1), v);
                    _mm256_stream_si256(p.add(2), v);
                    _mm256_stream_si256(p.add(3), v);
                }
            }
            for d in lines.into_remainder().chunks_exact_mut(32) {
                // SAFETY: `d` is 32 writable bytes, 32-byte aligned (asserted above).
                unsafe { _mm256_stream_si256(d.as_mut_ptr().cast(), v) };
            }
        }

        /// Streams `src` into `dst` (32-byte aligned, whole units; same length).
        ///
        /// # Safety
        /// The CPU has AVX.
        #[inline(always)]
        pub unsafe fn copy32(dst: &mut [u8], src: &[u8]) {
            assert!(dst.as_ptr() as usize % 32 == 0 && dst.len() % 32 == 0);
            assert_eq!(dst.len(), src.len());
            for (d, s) in dst.chunks_exact_mut(32).zip(src.chunks_exact(32)) {
                // SAFETY: `s` is 32 readable bytes (loadu needs no alignment); `d` is 32
                // writable bytes, 32-byte aligned (asserted above); the CPU has AVX (caller).
                unsafe {
                    _mm256_stream_si256(
                        d.as_mut_ptr().cast(),
                        _mm256_loadu_si256(s.as_ptr().cast()),
                    )
                };
            }
        }
    }
}

/// Appends runs of elements to an output slice with streaming stores: whole aligned units go
/// straight out; a unit that several runs share is gathered first and then stored whole, so
/// no cache line gets both kinds of store. The slice's first and last partial units (which it
/// may share with another thread's slice) are written element by element.
pub(crate) struct StreamWriter<'a, U> {
    out: &'a mut [U],
    /// Elements written so far.
    pos: usize,
    /// Elements per unit.
    upe: usize,
    /// The unit being gathered: elements `pos - pending .. pos`.
    unit: [U; 32],
    pending: usize,
    isa: Isa,
}

impl<'a, U: super::Word> StreamWriter<'a, U> {
    #[inline(always)]
    pub fn new(out: &'a mut [U], isa: Isa) -> Self {
        StreamWriter {
            out,
            pos: 0,
            upe: stream::unit_bytes(isa) / U::SIZE,
            unit: [U::ZERO; 32],
            pending: 0,
            isa,
        }
    }

    /// True when element `i` starts a unit.
    #[inline(always)]
    fn aligned(&self, i: usize) -> bool {
        (self.out.as_ptr() as usize + i * U::SIZE) % (self.upe * U::SIZE) == 0
    }

    /// Appends `n` elements: `v` repeated (`Some(v)`), copies of `src[..n]` (`None`, with a
    /// source), or the output's own values (`None` without a source: nothing is stored).
    #[inline(always)]
    pub fn put(&mut self, n: usize, fill: Option<U>, src: Option<&[U]>) {
        let elem = |k: usize, out: &[U], at: usize| match (fill, src) {
            (Some(v), _) => v,
            (None, Some(s)) => s[k],
            (None, None) => out[at],
        };
        let mut k = 0;
        // Gather up to a unit boundary (at the slice's start too, where the unit is partial).
        while k < n && (self.pending > 0 || !self.aligned(self.pos)) {
            let at = self.pos;
            self.unit[self.pending] = elem(k, self.out, at);
            self.pending += 1;
            self.pos += 1;
            k += 1;
            if self.aligned(self.pos) {
                self.flush_unit();
            }
        }
        // Whole units.
        let whole = (n - k) / self.upe * self.upe;
        if whole > 0 {
            let (a, b) = (self.pos, self.pos + whole);
            match (fill, src) {
                (Some(v), _) => stream::fill(&mut self.out[a..b], v, self.isa),
                (None, Some(s)) => stream::copy(&mut self.out[a..b], &s[k..k + whole], self.isa),
                (None, None) => {}
            }
            self.pos = b;
            k += whole;
        }
        // The start of the next unit.
        while k < n {
            let at = self.pos;
            self.unit[self.pending] = elem(k, self.out, at);
            self.pending += 1;
            self.pos += 1;
            k += 1;
        }
    }

    /// Stores the gathered unit, which ends at `pos` on a unit boundary: whole, or element by
    /// element when it is the slice's partial first unit.
    #[inline(always)]
    fn flush_unit(&mut self) {
        let (a, b) = (self.pos - self.pending, self.pos);
        if self.pending == self.upe {
            stream::copy(&mut self.out[a..b], &self.unit[..self.upe], self.isa);
        } else {
            // A partial unit at the slice's start: element by element.
            self.out[a..b].copy_from_slice(&self.unit[..self.pending]);
        }
        self.pending = 0;
    }

    /// Writes what is still gathered (the slice's last partial unit, element by element) and
    /// fences the streaming stores.
    #[inline(always)]
    pub fn finish(mut self) {
        let (a, b) = (self.pos - self.pending, self.pos);
        self.out[a..b].copy_from_slice(&self.unit[..self.pending]);
        self.pending = 0;
        stream::fence();
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

    /// Random runs of fills, copies and keeps through a StreamWriter over a subslice at every
    /// offset, against plain slice writes; the elements around the subslice must not change.
    fn writer_case<U: Word + From<u8>>(isa: Isa, seed: &mut u64) {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        for off in 0..(64 / U::SIZE) {
            for len in [0usize, 1, 5, 31, 32, 33, 100, 257] {
                let total = off + len + 40;
                let init: Vec<U> = (0..total).map(|i| U::from((i % 251) as u8)).collect();
                let src: Vec<U> = (0..len + 3).map(|i| U::from((i % 7 + 100) as u8)).collect();
                let mut got = init.clone();
                let mut want = init.clone();
                {
                    let mut w = StreamWriter::new(&mut got[off..off + len], isa);
                    let mut at = 0;
                    while at < len {
                        let n = ((next() % 70) as usize).min(len - at);
                        match next() % 3 {
                            0 => {
                                let v = U::from((next() % 200) as u8 + 1);
                                w.put(n, Some(v), None);
                                want[off + at..off + at + n].fill(v);
                            }
                            1 => {
                                w.put(n, None, Some(&src[at..at + n]));
                                want[off + at..off + at + n].copy_from_slice(&src[at..at + n]);
                            }
                            _ => w.put(n, None, None),
                        }
                        at += n;
                    }
                    w.finish();
                }
                assert!(got == want, "{isa:?} size {} off {off} len {len}", U::SIZE);
            }
        }
    }

    #[test]
    fn stream_writer_matches_plain_writes() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut isas = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        isas.push(Isa::Sse2);
        if best_isa() == Isa::Avx2 {
            isas.push(Isa::Avx2);
        }
        for isa in isas {
            for _ in 0..20 {
                writer_case::<u8>(isa, &mut seed);
                writer_case::<u16>(isa, &mut seed);
                writer_case::<u32>(isa, &mut seed);
                writer_case::<u64>(isa, &mut seed);
            }
        }
    }
}
