//! Non-temporal stores: whole aligned units written past the cache, for outputs too large to
//! stay in it. A unit is 32 bytes with AVX2 (16-byte streaming stores are slower than plain
//! ones on some CPUs, such as AMD Zen 4), else 16 bytes. Call [`fence`] before another thread
//! may read what was written. [`StreamWriter`] appends runs of elements with them
//! (DIAGONAL_MATRIX1).
//!
//! The functions are `#[inline(always)]` so that callers compiled for AVX2 (see
//! `diagonal_kernel`) get the 32-byte stores inlined.

use super::isa::Isa;
#[cfg(target_arch = "x86_64")]
use super::isa::Level;
use super::mask::Word;

/// `$avx2` (an unsafe call of an AVX2 function) where `$isa` allows AVX2, `$sse2` at SSE2 on
/// x86_64, else `$portable`. The x86 arms are compiled only on x86_64.
macro_rules! by_level {
    ($isa:expr, $avx2:expr, $sse2:expr, $portable:expr) => {
        match $isa.level() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: only detection makes an `Isa` at Avx2 or above, on a CPU with AVX2 (and
            // so AVX).
            Level::Avx2 | Level::Avx512 => unsafe { $avx2 },
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => $sse2,
            _ => $portable,
        }
    };
}

/// The unit size in bytes for this instruction set.
#[inline(always)]
pub fn unit_bytes(isa: Isa) -> usize {
    if isa.has_avx2() {
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
    by_level!(
        isa,
        x86::fill32(dst, pattern),
        x86::fill16(dst, pattern),
        for (d, s) in dst.iter_mut().zip(pattern.iter().cycle()) {
            *d = *s;
        }
    )
}

/// Copies `src` into `dst` (same length), which starts on a unit boundary and holds whole
/// units; `src` may have any alignment.
#[inline(always)]
pub fn copy<U: Word>(dst: &mut [U], src: &[U], isa: Isa) {
    let src: &[u8] = bytemuck::cast_slice(&src[..dst.len()]);
    let dst: &mut [u8] = bytemuck::cast_slice_mut(dst);
    by_level!(
        isa,
        x86::copy32(dst, src),
        x86::copy16(dst, src),
        dst.copy_from_slice(src)
    )
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
        assert!(
            (dst.as_ptr() as usize).is_multiple_of(16)
                && dst.len().is_multiple_of(16)
                && pattern.len() >= 16
        );
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
        assert!((dst.as_ptr() as usize).is_multiple_of(16) && dst.len().is_multiple_of(16));
        assert_eq!(dst.len(), src.len());
        for (d, s) in dst.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
            // SAFETY: `s` is 16 readable bytes (loadu needs no alignment); `d` is 16
            // writable bytes, 16-byte aligned (asserted above).
            unsafe { _mm_stream_si128(d.as_mut_ptr().cast(), _mm_loadu_si128(s.as_ptr().cast())) };
        }
    }

    /// Streams the first 32 bytes of `pattern` over `dst` (32-byte aligned, whole units).
    ///
    /// # Safety
    /// The CPU has AVX.
    #[inline(always)]
    pub unsafe fn fill32(dst: &mut [u8], pattern: &[u8]) {
        assert!(
            (dst.as_ptr() as usize).is_multiple_of(32)
                && dst.len().is_multiple_of(32)
                && pattern.len() >= 32
        );
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
        assert!((dst.as_ptr() as usize).is_multiple_of(32) && dst.len().is_multiple_of(32));
        assert_eq!(dst.len(), src.len());
        for (d, s) in dst.chunks_exact_mut(32).zip(src.chunks_exact(32)) {
            // SAFETY: `s` is 32 readable bytes (loadu needs no alignment); `d` is 32
            // writable bytes, 32-byte aligned (asserted above); the CPU has AVX (caller).
            unsafe {
                _mm256_stream_si256(d.as_mut_ptr().cast(), _mm256_loadu_si256(s.as_ptr().cast()))
            };
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

impl<'a, U: Word> StreamWriter<'a, U> {
    #[inline(always)]
    pub fn new(out: &'a mut [U], isa: Isa) -> Self {
        StreamWriter {
            out,
            pos: 0,
            upe: unit_bytes(isa) / U::SIZE,
            unit: [U::ZERO; 32],
            pending: 0,
            isa,
        }
    }

    /// True when element `i` starts a unit.
    #[inline(always)]
    fn aligned(&self, i: usize) -> bool {
        (self.out.as_ptr() as usize + i * U::SIZE).is_multiple_of(self.upe * U::SIZE)
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
                (Some(v), _) => self::fill(&mut self.out[a..b], v, self.isa),
                (None, Some(s)) => copy(&mut self.out[a..b], &s[k..k + whole], self.isa),
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
            copy(&mut self.out[a..b], &self.unit[..self.upe], self.isa);
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
        fence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::xorshift;

    /// Random runs of fills, copies and keeps through a StreamWriter over a subslice at every
    /// offset, against plain slice writes; the elements around the subslice must not change.
    fn writer_case<U: Word + From<u8>>(isa: Isa, seed: &mut u64) {
        let mut next = || xorshift(seed);
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
        for isa in Isa::all() {
            for _ in 0..20 {
                writer_case::<u8>(isa, &mut seed);
                writer_case::<u16>(isa, &mut seed);
                writer_case::<u32>(isa, &mut seed);
                writer_case::<u64>(isa, &mut seed);
            }
        }
    }
}
