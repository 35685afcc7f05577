//! The AVX-512 one pass: a packed 8-, 16- or 32-bit input (or a part of one) masked and written
//! as one or two UINT32 columns, packed or in ONNX Runtime's layout, and no bitmask kept:
//! into packed columns with plain stores of 16 rows where 15 more rows of the part follow and
//! masked stores of exactly its rows after that; into ONNX Runtime's layout with masked stores
//! only. Each 64 elements' bit positions are gathered by one byte compress
//! and widened 16 at a time, as in the walks of `super::compress`. An input too sparse for
//! that, if it fits a CPU's share of the L2, is written in one pass too, a row at a time.

use core::arch::x86_64::*;

use super::compress::{bit_positions, widen, PREFETCH_ROWS};
use crate::op::simd::dispatch::{compress_dense, SPARSE_MIN_WIDTH};

/// Input elements [`one_pass`] samples to judge the density: its cost per element is the same
/// whatever the density, the two-pass walks' falls with it. (A sample of 1024 cost a sparse
/// input of 2^10 elements 9% of its time.)
const SAMPLE: usize = 256;
/// A part written a row at a time (its sample sparse) is looked at again every this many
/// blocks of 64 elements: where those were dense enough for the compresses
/// ([`compress_dense`]), the rest of the part is written by them. (A sample is only the part's
/// first elements: with the row loop alone, a FLOAT32 input at density 0.5 whose first line of
/// 256 was zero took 4.3x the compresses' time on AMD Zen 4.)
const SPARSE_CHECK_BLOCKS: usize = 16;
/// The most elements [`plain_end`] counts back from a part's end to find 15 nonzero ones.
const TAIL_SCAN: usize = 1024;

/// Where plain stores of 16 rows may go on to: the largest multiple of 64 elements `e` from the
/// part's first such that the whole blocks of 64 from `e` (within [`TAIL_SCAN`] of the end) hold
/// at least 15 nonzero elements, or 0 (none). The rows of 64 elements before `e` with `c` set
/// bits, the last of them row `r - 1`, are stored 16 at a time up to row `r - c + 16 ⌈c/16⌉`,
/// at most `r + 15`; at least 15 rows of this part follow them, so those stores end within the
/// part's count: the rows past those the 64 elements have are written again later, and no row
/// from the count on is touched.
///
/// # Safety
/// The CPU has AVX-512 F and BW, and POPCNT.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
unsafe fn plain_end<B: Bits>(src: B) -> usize {
    let whole = src.len() / 64;
    let lowest = whole.saturating_sub(TAIL_SCAN / 64);
    let mut seen = 0;
    for b in (lowest..whole).rev() {
        // SAFETY: block b's 64 elements are in the part; the CPU has the features.
        seen += unsafe { src.bits(64 * b, u64::MAX) }.count_ones();
        if seen >= 15 {
            return 64 * b;
        }
    }
    0
}

/// Where [`one_pass`] takes the bits of each 64 elements of a part from: the input itself
/// ([`Elements`], masked as it goes), or the bitmask words a count of the part kept
/// ([`Words`], so that the part's input is read once, by its count).
pub(super) trait Bits: Copy {
    /// Whether a part too sparse for the compresses ([`Bits::dense`] false) is still written
    /// in one pass, a row at a time: from the input, whose compare of each 64 elements waits
    /// on the caches, so that the rows' branches cost little beside it (the two passes' walk of
    /// the bitmask, from the L1, paid for them in full), up to
    /// [`sparse_one_pass_max_bytes`](crate::op::simd::dispatch::sparse_one_pass_max_bytes);
    /// not from kept words, which the walks take as fast.
    fn sparse_one_pass(self) -> bool;

    /// The part's elements.
    fn len(self) -> usize;

    /// Bit i set when element `at + i` of the part is nonzero and bit i of `lanes` is set.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW; elements `at .. at + 64` are in the part.
    unsafe fn bits(self, at: usize, lanes: u64) -> u64;

    /// [`Bits::bits`] of the part's last elements, from `at` (fewer than 64 follow it; `lanes`
    /// covers only those).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW; `at` is an element of the part.
    unsafe fn last_bits(self, at: usize, lanes: u64) -> u64;

    /// True when the part has enough nonzero elements for the one pass: at least
    /// [`COMPRESS_BITS`](crate::op::simd::dispatch::COMPRESS_BITS) per 64, as for the walks
    /// (sparser parts are written faster by the walks of bitmask words).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW, and POPCNT.
    unsafe fn dense(self) -> bool;
}

/// A packed part of the input, masked as the one pass reads it.
#[derive(Clone, Copy)]
pub(super) struct Elements<'a, U> {
    pub data: &'a [U],
    pub mask: U,
}

impl<U: OnePassWord> Bits for Elements<'_, U> {
    #[inline(always)]
    fn sparse_one_pass(self) -> bool {
        core::mem::size_of_val(self.data) <= crate::op::simd::dispatch::sparse_one_pass_max_bytes()
    }

    #[inline(always)]
    fn len(self) -> usize {
        self.data.len()
    }

    #[inline(always)]
    unsafe fn bits(self, at: usize, lanes: u64) -> u64 {
        // SAFETY: the 64 elements from `at` are in the part; the CPU has the features (caller).
        unsafe { U::mask64(self.data.as_ptr().add(at), lanes, self.mask) }
    }

    #[inline(always)]
    unsafe fn last_bits(self, at: usize, lanes: u64) -> u64 {
        // The part's last elements, from a copy: a masked load whose lanes left out reach a
        // page the process may not touch (a buffer that ends at a page) took about 150 ns on
        // AMD Zen 5, as long as the whole pass on a thousand elements.
        let mut last = [U::default(); 64];
        let rest = &self.data[at..];
        last[..rest.len()].copy_from_slice(rest);
        // SAFETY: `last` holds 64 elements; the CPU has the features (caller).
        unsafe { U::mask64(last.as_ptr(), lanes, self.mask) }
    }

    /// Judged from the first [`SAMPLE`] elements: the one pass costs the same per element
    /// whatever the density, the two-pass walks' cost falls with it.
    #[inline(always)]
    unsafe fn dense(self) -> bool {
        let sample = self.data.len().min(SAMPLE) / 64 * 64;
        let mut set = 0u64;
        for v in self.data[..sample].chunks_exact(64) {
            // SAFETY: `v` is 64 elements; the CPU has the features (caller).
            set += u64::from(unsafe { U::mask64(v.as_ptr(), u64::MAX, self.mask) }.count_ones());
        }
        compress_dense(set as usize, sample)
    }
}

/// A part's bitmask as its count kept it: bit i of word w set when element `64 w + i` of the
/// part is nonzero (bits past the part's `len` elements clear), `count` bits set.
#[derive(Clone, Copy)]
pub(super) struct Words<'a> {
    pub words: &'a [u64],
    pub len: usize,
    pub count: u64,
}

impl Bits for Words<'_> {
    #[inline(always)]
    fn sparse_one_pass(self) -> bool {
        false
    }

    #[inline(always)]
    fn len(self) -> usize {
        self.len
    }

    #[inline(always)]
    unsafe fn bits(self, at: usize, lanes: u64) -> u64 {
        let (w, s) = (at / 64, at % 64);
        // SAFETY: element `at` is in the part (caller), so its word is among the words.
        let first = unsafe { *self.words.get_unchecked(w) };
        if s == 0 {
            // On a word (every 64 elements of lines whose width is a multiple of 64).
            return first & lanes;
        }
        // Off a word, the 64 bits reach into the next word, if the part has one.
        let next = self.words.get(w + 1).copied().unwrap_or(0);
        ((first >> s) | (next << (64 - s))) & lanes
    }

    #[inline(always)]
    unsafe fn last_bits(self, at: usize, lanes: u64) -> u64 {
        // SAFETY: the words hold every element of the part, and reads stay within them.
        unsafe { self.bits(at, lanes) }
    }

    /// From the part's exact count.
    #[inline(always)]
    unsafe fn dense(self) -> bool {
        compress_dense(self.count as usize, self.len)
    }
}

/// The whole of a part (`src`: a packed input of 8-, 16- or 32-bit elements, or a part's kept
/// bitmask; lines of `width` elements) into coordinates of UINT32 columns (the line's index,
/// then the position in the line) in one pass: per 64 elements a bitmask (a compare of the
/// input, or the kept words) and [`bit_positions`], then per 16 rows `rows(line, at, x, n,
/// plain)`, which writes rows `at .. at + n` from the line's index and the `n` positions in
/// `x`. Up to [`plain_end`] `plain` is true: `rows` may store all 16 rows, those past `n` being
/// written again later; after it, masked stores of exactly the rows. So nothing is written
/// from the count on. (With plain stores, packed outputs took 0.64-0.83x the time of masked
/// ones for UINT8 at density 0.1, 0.77-0.96x for FLOAT32 at 0.5, on one thread of AMD Zen 5
/// from 2^12 to 2^23 elements; ONNX Runtime's layout, whose odd elements are not the output's,
/// gained nothing from stores with every even lane. The two kinds of stores are two loops,
/// [`segment`]: choosing at each 64 elements took 1.5-2x the time of masked stores alone
/// there.) Returns the row count, or `None` (having written nothing) where the part is too
/// sparse ([`Bits::dense`]) and is not written a row at a time either
/// ([`Bits::sparse_one_pass`]); where it is, `one(line, row, position)` writes each row.
///
/// The two passes of the walks (a bitmask, then the rows from it) took 1.35-1.6x the time of
/// one pass, measured with bare loops on AMD Zen 5 (`cargo bench --bench kernels -- bare`,
/// with `vpcompressd`).
///
/// The part is elements `start ..` of lines of `width` elements, whose first and last lines
/// may be parts of lines; rows are counted from the part's first.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and VBMI2, BMI2 and POPCNT; `rows` and `one` write only the
/// rows they are given, which are below `src.len()` counted from the part's first, and each
/// such row is the output's.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,bmi2,popcnt")]
unsafe fn one_pass<B: Bits>(
    src: B,
    start: usize,
    width: usize,
    mut rows: impl FnMut(__m512i, usize, __m512i, u32, bool),
    mut one: impl FnMut(usize, usize, u32),
) -> Option<u64> {
    // Rows written so far, and the element from which the compresses write the rest.
    let (mut row, mut from) = (0, 0);
    // SAFETY: this function has the features.
    if !unsafe { src.dense() } {
        if !src.sparse_one_pass() || width < SPARSE_MIN_WIDTH {
            return None;
        }
        // SAFETY: this function has the features; `one` writes exactly the row it is given.
        let (sparse_row, end) = unsafe {
            segment::<B, false, true>(src, 0..src.len(), start, width, 0, &mut rows, &mut one)
        };
        if end == src.len() {
            return Some(sparse_row as u64);
        }
        // Dense from `end` on: the compresses write the rest.
        (row, from) = (sparse_row, end);
    }
    // SAFETY: this function has the features.
    let plain = unsafe { plain_end(src) }.max(from);
    // Plain stores from `from` up to `plain`, masked ones after it. Where the part starts at
    // the input's first element, the plain ones end at a line's end instead if that gives up
    // at most an eighth of them, so that they keep the fast form of whole lines. (Three loops,
    // whole lines, the rest of the plain stores and the masked ones, took 1.1-1.5x the time of
    // two on AMD Zen 5.)
    let split = if start == 0 && from == 0 && plain % width * 8 <= plain {
        plain / width * width
    } else {
        plain
    };
    // SAFETY: this function has the features; `row` rows come before `from`; the rows of the
    // elements before `split` are followed by 15 more of the part (`plain_end`); `rows` is
    // the caller's.
    let (row, _) = unsafe {
        segment::<B, true, false>(src, from..split, start, width, row, &mut rows, &mut one)
    };
    // SAFETY: as above, with masked stores.
    let (row, _) = unsafe {
        segment::<B, false, false>(
            src,
            split..src.len(),
            start,
            width,
            row,
            &mut rows,
            &mut one,
        )
    };
    Some(row as u64)
}

/// The rows of the elements `seg` of the part `src` (whose elements are `start ..` of lines
/// of `width`), from row `row` on, as [`one_pass`] writes them, each 16 by `rows(line, at, x,
/// n, PLAIN)`; returns the rows written so far and where the segment's rows end (`seg.end`, or
/// with `SPARSE` the element after a dense run of blocks: see below). (The whole part, not
/// only the segment: a line's last elements are read with the 64 after them wherever those
/// are in the part, and only the part's end is read apart ([`Bits::last_bits`]); copies at
/// the segment's end cost the smallest inputs up to a third of their time.)
///
/// # Safety
/// As for [`one_pass`]; `row` is the number of rows of the part's elements before `seg`; with
/// `PLAIN`, at least 15 rows of the part follow those of `seg`. With `SPARSE`, each row is
/// written alone by `one(line, row, position)`, and `rows` is not called; every
/// [`SPARSE_CHECK_BLOCKS`] blocks of 64 (counted across lines), if those were dense enough for
/// the compresses ([`compress_dense`]), the segment stops at the element after them: the rows
/// of the elements from there on are not written.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,bmi2,popcnt")]
unsafe fn segment<B: Bits, const PLAIN: bool, const SPARSE: bool>(
    src: B,
    seg: core::ops::Range<usize>,
    start: usize,
    width: usize,
    mut row: usize,
    rows: &mut impl FnMut(__m512i, usize, __m512i, u32, bool),
    one: &mut impl FnMut(usize, usize, u32),
) -> (usize, usize) {
    // A sparse part's sample says nothing of the 15 rows plain stores need after theirs.
    const { assert!(!(PLAIN && SPARSE), "a sparse segment's stores are masked") };
    let (from, len, start) = (seg.start, seg.len(), start + seg.start);
    if len == 0 {
        return (row, seg.end);
    }
    // With `SPARSE`: blocks since the last look, and the rows before them.
    let (mut looked_blocks, mut looked_row) = (0usize, row);
    let part_len = src.len();
    // The rows of `$n` lines of `$len` elements of the part from its element `from + $at`, the
    // first being line `$r` from position `$c0` (the others from `$r + 1` on, from position
    // 0): per 64 elements a bitmask, and per 16 of its set bits `rows(line, row, x, count,
    // PLAIN)`. (A macro: as a function, called for a part's three kinds of lines, it cost
    // 15-20% of the time.)
    macro_rules! lines {
        ($at:expr, $n:expr, $len:expr, $r:expr, $c0:expr) => {{
            let (blocks, tail) = ($len / 64, $len % 64);
            // The lines are in the part (the reads below are not checked one by one).
            assert!(
                from + $at + $n * $len <= part_len,
                "one pass: lines past the part"
            );
            for k in 0..$n {
                let t = _mm512_set1_epi32(($r + k) as i32);
                // The rows of the 64 elements from position `c` of the line: bit i of `bits` set
                // for each nonzero one; their positions gathered by one byte compress, 16 rows
                // at a time.
                // Returns true (`SPARSE` only) where the blocks since the last look were dense.
                let mut put = |bits: u64, c: usize| -> bool {
                    if SPARSE {
                        let mut b = bits;
                        while b != 0 {
                            one($r + k, row, (c as u32).wrapping_add(b.trailing_zeros()));
                            b &= b - 1;
                            row += 1;
                        }
                        looked_blocks += 1;
                        if looked_blocks < SPARSE_CHECK_BLOCKS {
                            return false;
                        }
                        let dense = compress_dense(row - looked_row, 64 * SPARSE_CHECK_BLOCKS);
                        (looked_blocks, looked_row) = (0, row);
                        return dense;
                    }
                    let count = bits.count_ones() as usize;
                    // SAFETY: the CPU has the features.
                    let pos = unsafe { bit_positions(bits) };
                    for g in 0..count.div_ceil(16) {
                        // SAFETY: as above; g < 4.
                        let x = unsafe { widen(pos, g, c as u32) };
                        let n = (count - 16 * g).min(16) as u32;
                        rows(t, row + 16 * g, x, n, PLAIN);
                    }
                    row += count;
                    false
                };
                // The line's first element in the part.
                let first = from + $at + k * $len;
                for b in 0..blocks {
                    // SAFETY: elements 64b .. 64b + 64 of the line are in the part.
                    let bits = unsafe { src.bits(first + 64 * b, u64::MAX) };
                    if put(bits, $c0 + 64 * b) {
                        return (row, first + 64 * (b + 1));
                    }
                }
                if tail > 0 {
                    let (at, lanes) = (first + 64 * blocks, (1u64 << tail) - 1);
                    // 64 elements from the line's tail still in the part (in every line but
                    // the last) are read whole, those past the line left out.
                    let bits = if at + 64 <= part_len {
                        // SAFETY: the 64 elements are in the part.
                        unsafe { src.bits(at, lanes) }
                    } else {
                        // SAFETY: `at` is in the part (the line's tail is).
                        unsafe { src.last_bits(at, lanes) }
                    };
                    if put(bits, $c0 + 64 * blocks) {
                        return (row, first + $len);
                    }
                }
            }
        }};
    }
    if start == 0 && len.is_multiple_of(width) {
        // Whole lines from the first (the whole input, on one thread), with the constants
        // spelled out: the general form below cost this case 3-6% (UINT8 from 2^12 to 2^16).
        lines!(0, len / width, width, 0, 0);
        return (row, seg.end);
    }
    // The part's first line from the position of its first element, if that is not 0; then
    // whole lines; then the start of its last line.
    let (mut r, c0) = (start / width, start % width);
    let mut at = 0;
    if c0 != 0 {
        at = (width - c0).min(len);
        lines!(0, 1, at, r, c0);
        r += 1;
    }
    let whole = (len - at) / width;
    lines!(at, whole, width, r, 0);
    at += whole * width;
    if at < len {
        lines!(at, 1, len - at, r + whole, 0);
    }
    (row, seg.end)
}

/// An input element type the one pass reads, a 64-byte vector (`PER` elements) at a time.
pub(super) trait OnePassWord: Copy + Default {
    const PER: usize;
    /// Bit i set when element i of the `PER` from `p` is one of `lanes` (bit i) and AND `mask`
    /// is not zero.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW; the `PER` elements from `p` are readable.
    unsafe fn test(p: *const Self, lanes: u64, mask: Self) -> u64;

    /// [`OnePassWord::test`] of the 64 elements from `p`, `PER` at a time.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW; the 64 elements from `p` are readable.
    #[inline(always)]
    unsafe fn mask64(p: *const Self, lanes: u64, mask: Self) -> u64 {
        let mut bits = 0u64;
        for v in 0..64 / Self::PER {
            // SAFETY: elements PER × v .. PER × (v + 1) are among the 64 (caller).
            bits |= unsafe { Self::test(p.add(Self::PER * v), lanes >> (Self::PER * v), mask) }
                << (Self::PER * v);
        }
        bits
    }
}

impl OnePassWord for u32 {
    const PER: usize = 16;
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn test(p: *const u32, lanes: u64, mask: u32) -> u64 {
        // SAFETY: the vector's elements are readable (caller).
        let v = unsafe { _mm512_loadu_si512(p.cast()) };
        u64::from(_mm512_mask_test_epi32_mask(
            lanes as u16,
            v,
            _mm512_set1_epi32(mask as i32),
        ))
    }
}

impl OnePassWord for u16 {
    const PER: usize = 32;
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn test(p: *const u16, lanes: u64, mask: u16) -> u64 {
        // SAFETY: the vector's elements are readable (caller).
        let v = unsafe { _mm512_loadu_si512(p.cast()) };
        u64::from(_mm512_mask_test_epi16_mask(
            lanes as u32,
            v,
            _mm512_set1_epi16(mask as i16),
        ))
    }
}

impl OnePassWord for u8 {
    const PER: usize = 64;
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn test(p: *const u8, lanes: u64, mask: u8) -> u64 {
        // SAFETY: the vector's elements are readable (caller).
        let v = unsafe { _mm512_loadu_si512(p.cast()) };
        _mm512_mask_test_epi8_mask(lanes, v, _mm512_set1_epi8(mask as i8))
    }
}

/// The masks of the first `n` of 16 rows of two 32-bit lanes each, as two vectors of eight
/// rows, with `lanes` of each row's two (0b11 both, 0b01 the first). A helper of the AVX-512
/// kernels (which the AVX-512 level, with BMI2, runs).
#[inline]
#[target_feature(enable = "avx512f,bmi2")]
fn row_masks(n: u32, lanes: u16) -> (u16, u16) {
    let each = lanes * 0x5555;
    let first = |k: u32| _bzhi_u32(0xFFFF, k) as u16;
    (
        first(2 * n) & each,
        first((2 * n).saturating_sub(16)) & each,
    )
}

/// [`one_pass`] into packed coordinates: two UINT32 columns, row r at element 2r.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and VBMI2, BMI2 and POPCNT. `out` is the first element of a
/// packed coordinates output of two columns with room for `src.len()` rows, of which no other
/// thread accesses the part's (its count from `out`) while this runs.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,bmi2,popcnt")]
pub(super) unsafe fn one_pass_packed<B: Bits>(
    out: *mut u32,
    src: B,
    start: usize,
    width: usize,
) -> Option<u64> {
    // Lane 2i takes the line's index (lane 0 of the first table), lane 2i + 1 position i
    // (+ 8 for the second vector) of the compressed ones.
    let lo = _mm512_set_epi32(23, 0, 22, 0, 21, 0, 20, 0, 19, 0, 18, 0, 17, 0, 16, 0);
    let hi = _mm512_set_epi32(31, 0, 30, 0, 29, 0, 28, 0, 27, 0, 26, 0, 25, 0, 24, 0);
    let rows = |t: __m512i, at: usize, x: __m512i, n: u32, plain: bool| {
        let (m0, m1) = row_masks(n, 0b11);
        // SAFETY: rows at .. at + n are rows of the output (one per nonzero element so far, at
        // most `src.len()`), ours; the masks cover only them (a masked store writes no other
        // byte and does not fault on the others); with `plain`, rows at .. at + 16 are all
        // rows of the part's count, ours (`one_pass`). A prefetch never faults.
        unsafe {
            let d = out.add(2 * at);
            let (v0, v1) = (
                _mm512_permutex2var_epi32(t, lo, x),
                _mm512_permutex2var_epi32(t, hi, x),
            );
            if plain || n == 16 {
                // All 16 rows: plain stores, which need no line asked for ahead (masked ones
                // cost more, and asking ahead for lines the plain stores write anyway cost
                // 10-30% where the output outgrows the L2: 2^21 and 2^22 elements).
                _mm512_storeu_si512(d.cast(), v0);
                _mm512_storeu_si512(d.add(16).cast(), v1);
            } else {
                _mm_prefetch::<_MM_HINT_ET0>(d.wrapping_add(PREFETCH_ROWS * 2).cast());
                _mm512_mask_storeu_epi32(d.cast(), m0, v0);
                // (`wrapping_add`: with 8 rows or fewer the second vector's rows may lie past
                // the output's end; its mask is then 0 and it writes nothing.)
                _mm512_mask_storeu_epi32(d.wrapping_add(16).cast(), m1, v1);
            }
        }
    };
    // One row: the line's index and the position, one 8-byte store.
    let one = |line: usize, at: usize, x: u32| {
        // SAFETY: row `at` is a row of the output (rows are one per nonzero element so far, so
        // `at` is below `src.len()`), ours; row r is the 8 bytes from element 2r.
        unsafe {
            out.add(2 * at)
                .cast::<u64>()
                .write_unaligned(u64::from(line as u32) | u64::from(x) << 32)
        };
    };
    // SAFETY: this function has the features; the rows are the output's (caller).
    unsafe { one_pass(src, start, width, rows, one) }
}

/// [`one_pass`] into ONNX Runtime's layout: row r's column c at element `2 r + cs × c` (the low
/// halves of an int64 `[2, M]` tensor); the odd elements, the high halves, are not touched.
///
/// # Safety
/// As for [`one_pass_packed`], with that layout: every element `2 r + cs × c` of `src.len()`
/// rows is in the output, no two of them are one, and no other thread accesses those of the
/// part's rows (its count from `out`) while this runs.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,bmi2,popcnt")]
pub(super) unsafe fn one_pass_pairs<B: Bits>(
    out: *mut u32,
    cs: usize,
    src: B,
    start: usize,
    width: usize,
) -> Option<u64> {
    // Lanes 2i and 2i + 1 of vector h take position 8h + i of the compressed ones.
    let spread = [
        _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0),
        _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8),
    ];
    // (The odd elements between the rows are not the output's: every store stays masked.)
    let rows = |t: __m512i, at: usize, x: __m512i, n: u32, _plain: bool| {
        let (m0, m1) = row_masks(n, 0b01);
        // SAFETY: rows at .. at + n are rows of the output (one per nonzero element so far, at
        // most `src.len()`), ours; the masks cover only their even elements 2r + cs × c (a
        // masked store writes no other byte and does not fault on the others). A prefetch
        // never faults.
        unsafe {
            let (c0, c1) = (out.add(2 * at), out.add(2 * at + cs));
            _mm_prefetch::<_MM_HINT_ET0>(c0.wrapping_add(PREFETCH_ROWS * 2).cast());
            _mm_prefetch::<_MM_HINT_ET0>(c1.wrapping_add(PREFETCH_ROWS * 2).cast());
            _mm512_mask_storeu_epi32(c0.cast(), m0, t);
            // (`wrapping_add`: the second vectors' rows may lie past the output's end, where
            // their masks are 0.)
            _mm512_mask_storeu_epi32(c0.wrapping_add(16).cast(), m1, t);
            _mm512_mask_storeu_epi32(c1.cast(), m0, _mm512_permutexvar_epi32(spread[0], x));
            _mm512_mask_storeu_epi32(
                c1.wrapping_add(16).cast(),
                m1,
                _mm512_permutexvar_epi32(spread[1], x),
            );
        }
    };
    let one = |line: usize, at: usize, x: u32| {
        // SAFETY: row `at` is a row of the output (rows are one per nonzero element so far, so
        // `at` is below `src.len()`), ours: its elements 2 at and 2 at + cs.
        unsafe {
            out.add(2 * at).write(line as u32);
            out.add(2 * at + cs).write(x);
        }
    };
    // SAFETY: this function has the features; the rows are the output's (caller).
    unsafe { one_pass(src, start, width, rows, one) }
}

/// [`one_pass`] into one UINT32 column (a 1-D input: the position is the coordinate), rows
/// `stride` elements apart: 1 packed, 2 in ONNX Runtime's layout (whose odd elements, the high
/// halves of int64 coordinates, are not touched).
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and VBMI2, BMI2 and POPCNT. `out` is the first element of the
/// coordinates output, whose elements `stride × r` for the first `src.len()` rows r are in it,
/// and no other thread accesses those of the part's rows (its count from `out`) while this
/// runs; `stride` is 1 or 2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,bmi2,popcnt")]
pub(super) unsafe fn one_pass_column<B: Bits>(
    out: *mut u32,
    stride: usize,
    src: B,
    start: usize,
) -> Option<u64> {
    let spread = [
        _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0),
        _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8),
    ];
    let rows = |_: __m512i, at: usize, x: __m512i, n: u32, plain: bool| {
        // SAFETY: rows at .. at + n are rows of the output (one per nonzero element so far, at
        // most `src.len()`), ours; the masks cover only their elements (a masked store writes
        // no other byte and does not fault on the others); with `plain`, rows at .. at + 16 are
        // all rows of the part's count, ours (`one_pass`). A prefetch never faults.
        unsafe {
            let d = out.add(stride * at);
            if stride == 1 && (plain || n == 16) {
                // All 16 rows: a plain store (see `one_pass_packed`).
                _mm512_storeu_si512(d.cast(), x);
                return;
            }
            _mm_prefetch::<_MM_HINT_ET0>(d.wrapping_add(PREFETCH_ROWS * stride).cast());
            if stride == 1 {
                _mm512_mask_storeu_epi32(d.cast(), _bzhi_u32(0xFFFF, n) as u16, x);
            } else {
                let (m0, m1) = row_masks(n, 0b01);
                _mm512_mask_storeu_epi32(d.cast(), m0, _mm512_permutexvar_epi32(spread[0], x));
                // (`wrapping_add`: see `one_pass_pairs`.)
                _mm512_mask_storeu_epi32(
                    d.wrapping_add(16).cast(),
                    m1,
                    _mm512_permutexvar_epi32(spread[1], x),
                );
            }
        }
    };
    let one = |_: usize, at: usize, x: u32| {
        // SAFETY: row `at` is a row of the output (rows are one per nonzero element so far, so
        // `at` is below `src.len()`), ours: its element `stride × at`.
        unsafe { out.add(stride * at).write(x) };
    };
    // SAFETY: this function has the features; the rows are the output's (caller); one line.
    unsafe { one_pass(src, start, usize::MAX, rows, one) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::simd::dispatch::COMPRESS_BITS;
    use crate::test_util::xorshift;

    fn has_features() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512vbmi2")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt")
    }

    const CANARY: u32 = 0xCDCD_CDCD;

    /// A part's bitmask as its count keeps it, and its set bits.
    fn kept(set: &[bool]) -> (Vec<u64>, u64) {
        let mut words = vec![0u64; set.len().div_ceil(64)];
        for (i, _) in set.iter().enumerate().filter(|(_, &x)| x) {
            words[i / 64] |= 1 << (i % 64);
        }
        (words, set.iter().filter(|&&x| x).count() as u64)
    }

    /// Runs the packed and the one-column pass over `data` (elements `start ..` of lines of
    /// `width`; `set` says which are nonzero under `mask`), each from the input and from the
    /// part's kept bitmask, whole and as two parts split at `cut` (a multiple of 64, the
    /// second part written first; 0: not cut), into outputs that start as canaries, and checks
    /// every row against a plain loop and that no row from the count on was written. (From the
    /// input the pass runs where its sample is dense enough, which the data is made to be; from
    /// the bitmask where the whole part is, which the check works out.) Returns whether the
    /// whole part was written from its bitmask.
    fn check<U: OnePassWord>(
        data: &[U],
        mask: U,
        set: impl Fn(&U) -> bool,
        start: usize,
        width: usize,
        cut: usize,
        what: &str,
    ) -> bool {
        let mut pairs = vec![];
        let mut column = vec![];
        let set: Vec<bool> = data.iter().map(&set).collect();
        for (i, _) in set.iter().enumerate().filter(|(_, &x)| x) {
            let e = start + i;
            pairs.extend([(e / width) as u32, (e % width) as u32]);
            column.push(e as u32);
        }
        let rows = column.len();
        let first = set[..cut].iter().filter(|&&x| x).count();
        // What the pass over elements `r` of the part returns from each source.
        let dense = |r: core::ops::Range<usize>| {
            let n = set[r.clone()].iter().filter(|&&x| x).count();
            (n * 64 >= COMPRESS_BITS * r.len()).then_some(n as u64)
        };
        // Each part as each source.
        let (whole_words, whole_count) = kept(&set);
        let (a_words, a_count) = kept(&set[..cut]);
        let (b_words, b_count) = kept(&set[cut..]);
        let whole_w = Words {
            words: &whole_words,
            len: data.len(),
            count: whole_count,
        };
        let (wa, wb) = (
            Words {
                words: &a_words,
                len: cut,
                count: a_count,
            },
            Words {
                words: &b_words,
                len: data.len() - cut,
                count: b_count,
            },
        );
        let elements = |data| Elements { data, mask };
        let (whole_e, ea, eb) = (
            elements(data),
            elements(&data[..cut]),
            elements(&data[cut..]),
        );
        let mut from_bitmask = false;
        for from_words in [false, true] {
            let what = format!("{what}, {}", if from_words { "words" } else { "input" });
            // `lines`: in lines of `width` (else one line, as one column): from the input,
            // a part whose sample is sparse is written a row at a time only in lines of at
            // least SPARSE_MIN_WIDTH elements.
            let expect = |r: core::ops::Range<usize>, lines: bool| {
                if from_words {
                    dense(r)
                } else {
                    // SAFETY: the CPU has the features (checked by the caller).
                    let sampled = unsafe { elements(&data[r.clone()]).dense() };
                    (sampled || !lines || width >= SPARSE_MIN_WIDTH)
                        .then(|| set[r].iter().filter(|&&x| x).count() as u64)
                }
            };
            let mut out = vec![CANARY; 2 * data.len() + 32];
            // SAFETY: the CPU has the features (checked by the caller); `out` has room for
            // `data.len()` rows of two columns; one thread.
            let got = unsafe {
                let p = out.as_mut_ptr();
                if from_words {
                    one_pass_packed(p, whole_w, start, width)
                } else {
                    one_pass_packed(p, whole_e, start, width)
                }
            };
            let expected = expect(0..data.len(), true);
            assert_eq!(got, expected, "{what}: packed count");
            from_bitmask |= from_words && got.is_some();
            let written = if got.is_some() { rows } else { 0 };
            assert_eq!(
                &out[..2 * written],
                &pairs[..2 * written],
                "{what}: packed rows"
            );
            assert!(
                out[2 * written..].iter().all(|&x| x == CANARY),
                "{what}: packed, a row from the count on was written"
            );
            // ONNX Runtime's layout: row r's columns at elements 2r and 2r + cs, cs = 2M.
            let cs = 2 * data.len();
            let mut out = vec![CANARY; 2 * cs + 32];
            // SAFETY: as above; elements 2r and 2r + cs of `data.len()` rows are in `out`.
            let got = unsafe {
                let p = out.as_mut_ptr();
                if from_words {
                    one_pass_pairs(p, cs, whole_w, start, width)
                } else {
                    one_pass_pairs(p, cs, whole_e, start, width)
                }
            };
            assert_eq!(got, expected, "{what}: pairs count");
            for (i, &x) in out.iter().enumerate() {
                let (column, r) = if i < cs {
                    (0, i / 2)
                } else {
                    (1, (i - cs) / 2)
                };
                let want = if i % 2 == 0 && r < written && i < 2 * cs {
                    pairs[2 * r + column]
                } else {
                    CANARY
                };
                assert_eq!(x, want, "{what}: pairs, element {i}");
            }
            if cut > 0 && expect(0..cut, true).is_some() && expect(cut..data.len(), true).is_some()
            {
                // Two parts, as the parallel path writes them: the second from row `first`.
                let mut out = vec![CANARY; 2 * data.len() + 32];
                // SAFETY: as above; the second part's rows start at row `first`.
                let (b, a) = unsafe {
                    let p = out.as_mut_ptr();
                    if from_words {
                        let b = one_pass_packed(p.add(2 * first), wb, start + cut, width);
                        (b, one_pass_packed(p, wa, start, width))
                    } else {
                        let b = one_pass_packed(p.add(2 * first), eb, start + cut, width);
                        (b, one_pass_packed(p, ea, start, width))
                    }
                };
                assert_eq!(
                    a.zip(b),
                    Some((first as u64, (rows - first) as u64)),
                    "{what}: parts"
                );
                assert_eq!(&out[..2 * rows], &pairs[..], "{what}: rows of two parts");
                assert!(
                    out[2 * rows..].iter().all(|&x| x == CANARY),
                    "{what}: two parts, a row from the count on was written"
                );
            }
            let mut out = vec![CANARY; data.len() + 16];
            // SAFETY: as above, one column.
            let got = unsafe {
                let p = out.as_mut_ptr();
                if from_words {
                    one_pass_column(p, 1, whole_w, start)
                } else {
                    one_pass_column(p, 1, whole_e, start)
                }
            };
            let expected = expect(0..data.len(), false);
            let written = if expected.is_some() { rows } else { 0 };
            assert_eq!(got, expected, "{what}: column count");
            assert_eq!(&out[..written], &column[..written], "{what}: column rows");
            assert!(
                out[written..].iter().all(|&x| x == CANARY),
                "{what}: column, a row from the count on was written"
            );
        }
        from_bitmask
    }

    /// [`check`] of the elements `set` says are nonzero as UINT8, UINT16 and FLOAT32 data (the
    /// nonzero ones random nonzero values of any sign, FLOAT32's zeros 0.0 or -0.0; `range(lo,
    /// hi)` draws from lo .. hi); returns how many of the three were written from their bitmask.
    fn check_types(
        set: &[bool],
        range: &mut dyn FnMut(usize, usize) -> usize,
        start: usize,
        width: usize,
        cut: usize,
        what: &str,
    ) -> usize {
        let u8s: Vec<u8> = set
            .iter()
            .map(|&x| u8::from(x) * range(1, 256) as u8)
            .collect();
        let mut from_bitmask = usize::from(check(
            &u8s,
            0xFF,
            |&x| x != 0,
            start,
            width,
            cut,
            &format!("{what}, u8"),
        ));
        let u16s: Vec<u16> = set
            .iter()
            .map(|&x| u16::from(x) * range(1, 65536) as u16)
            .collect();
        from_bitmask += usize::from(check(
            &u16s,
            0xFFFF,
            |&x| x != 0,
            start,
            width,
            cut,
            &format!("{what}, u16"),
        ));
        let f32s: Vec<u32> = set
            .iter()
            .map(|&x| {
                let sign = (range(0, 2) as u32) << 31;
                sign | if x { range(1, 1 << 31) as u32 } else { 0 }
            })
            .collect();
        let mask = 0x7FFF_FFFF;
        from_bitmask += usize::from(check(
            &f32s,
            mask,
            |&x| x & mask != 0,
            start,
            width,
            cut,
            &format!("{what}, f32"),
        ));
        from_bitmask
    }

    /// Parts whose 64 elements before the last ones have 1 to 64 nonzero elements (up to 15
    /// rows of a plain store past them), followed by 0 to 40 nonzero elements in the last
    /// blocks (or in the elements past the last whole 64, which `plain_end` does not count):
    /// the rows are right and none from the count on is written, whether plain stores reach
    /// the last row exactly or would pass it by one; UINT8, UINT16 and FLOAT32 (whose -0.0 is
    /// zero), in lines of 16 elements and more, from element 0 and from others; each from the
    /// input and from the part's bitmask (lines that start anywhere in a word).
    #[test]
    fn plain_stores_end_within_the_count() {
        if !has_features() {
            // Said, not silent: on a CPU without these features nothing here was tested.
            eprintln!(
                "plain_stores_end_within_the_count: skipped, this CPU lacks AVX-512 F, BW, VL, \
                 VBMI2 or BMI2"
            );
            return;
        }
        let seed = 0x5EED_0F0A;
        let mut state = seed;
        // A value in lo .. hi.
        let mut range =
            |lo: usize, hi: usize| lo + (xorshift(&mut state) % (hi - lo) as u64) as usize;
        let mut from_bitmask = 0;
        for case in 0..1500 {
            let len = range(SAMPLE + 128, 3000);
            // Which elements are nonzero: a dense sample (so that the one pass runs), then
            // `c` in one block of 64 before the tail, then `k` in the tail: its last whole
            // blocks, or only the elements past them.
            let mut set = vec![false; len];
            for x in &mut set[..SAMPLE] {
                *x = range(0, 2) == 1;
            }
            let tail = range(64, TAIL_SCAN.min(len - SAMPLE - 64) + 1);
            let block = range(SAMPLE, len - tail - 63);
            let c = [1, 17, 33, 49, 64, range(1, 65)][range(0, 6)];
            for _ in 0..c {
                set[range(block, block + 64)] = true;
            }
            // In every other case, elements between the sample and the block nonzero at a
            // density of 1/4, so that most such parts are dense enough for the pass from
            // their bitmask too.
            if range(0, 2) == 0 {
                for x in &mut set[SAMPLE..block] {
                    *x = range(0, 4) == 0;
                }
            }
            let k = [14, 15, 16, range(0, 41)][range(0, 4)];
            let from = if range(0, 8) == 0 && len % 64 != 0 {
                len / 64 * 64
            } else {
                len - tail
            };
            for _ in 0..k {
                set[range(from, len)] = true;
            }
            let start = if range(0, 3) == 0 { 0 } else { range(1, 200) };
            let width = match range(0, 4) {
                0 => range(16, 64),
                1 => len / range(1, 4),
                _ => range(64, 400),
            };
            // Where the input is cut in two parts (a multiple of 64, with a dense sample of
            // its own), if there is room before the block: 0, none.
            let cut = if block >= 2 * SAMPLE {
                range(SAMPLE / 64, (block - SAMPLE) / 64 + 1) * 64
            } else {
                0
            };
            if cut > 0 {
                for x in &mut set[cut..cut + SAMPLE] {
                    *x = range(0, 2) == 1;
                }
            }
            let what = format!(
                "seed {seed}, case {case}: {len} elements from {start}, lines of {width}, {c} \
                 in the block at {block}, {k} from {from}"
            );
            from_bitmask += check_types(&set, &mut range, start, width, cut, &what);
        }
        // Passes from the bitmask ran in a good share of the cases (each case runs three).
        assert!(
            from_bitmask >= 1500,
            "seed {seed}: only {from_bitmask} of 4500 parts written from their bitmask"
        );
    }

    /// Parts too sparse for the compresses: from the input they are written a row at a time,
    /// in one pass, and the rows are right, whole and as two parts, packed and in one column,
    /// with nothing written from the count on; from their bitmask the pass declines where the
    /// exact count is under the threshold (the walks write them; `check` knows which). UINT8,
    /// UINT16 and FLOAT32, densities from none to just under the compresses' threshold, lines
    /// of 1 to 400 elements, from element 0 and from others.
    #[test]
    fn sparse_parts_are_written_a_row_at_a_time_from_their_input() {
        if !has_features() {
            eprintln!(
                "sparse_parts_are_written_a_row_at_a_time_from_their_input: skipped, this CPU \
                 lacks AVX-512 F, BW, VL, VBMI2 or BMI2"
            );
            return;
        }
        let seed = 0x5EED_5A25;
        let mut state = seed;
        let mut range =
            |lo: usize, hi: usize| lo + (xorshift(&mut state) % (hi - lo) as u64) as usize;
        let mut sparse = 0;
        for case in 0..600 {
            let len = range(1, 3000);
            // Nonzero one element in `per` (0: none): from 1 in 1000 to 3 in 64, under the
            // compresses' 4 in 64.
            let per = [0, 1000, 200, 64, 32, 22][range(0, 6)];
            let mut set: Vec<bool> = (0..len).map(|_| per > 0 && range(0, per) == 0).collect();
            // In a third of the cases the input turns dense (one in two) after the sample, so
            // that the row-at-a-time pass hands the rest to the compresses where the dense
            // run is long enough (`SPARSE_CHECK_BLOCKS` blocks).
            let dense_from = if len > SAMPLE + 64 && range(0, 3) == 0 {
                range(SAMPLE, len)
            } else {
                len
            };
            for x in &mut set[dense_from..] {
                *x = range(0, 2) == 0;
            }
            let start = if range(0, 3) == 0 { 0 } else { range(1, 5000) };
            let width = match range(0, 4) {
                0 => range(1, 64),
                1 => len.max(1),
                _ => range(64, 400),
            };
            let cut = if len >= 128 {
                range(1, len / 64) * 64
            } else {
                0
            };
            let what = format!(
                "seed {seed}, case {case}: {len} elements from {start}, lines of {width}, one in \
                 {per}, one in two from {dense_from}, cut at {cut}"
            );
            let u8s: Vec<u8> = set.iter().map(|&x| u8::from(x)).collect();
            // SAFETY: the CPU has the features (checked above).
            sparse += usize::from(!unsafe {
                Elements {
                    data: &u8s[..],
                    mask: 0xFF,
                }
                .dense()
            });
            check_types(&set, &mut range, start, width, cut, &what);
        }
        // Most parts' samples were sparse (the few others took the compresses).
        assert!(
            sparse >= 500,
            "seed {seed}: only {sparse} of 600 samples sparse"
        );
    }

    /// A sparse input larger than a CPU's share of the L2 is left to the two passes: the pass
    /// declines it and writes nothing; one byte smaller, it writes it.
    #[test]
    fn sparse_inputs_past_the_l2_share_are_left_to_the_two_passes() {
        if !has_features() {
            eprintln!(
                "sparse_inputs_past_the_l2_share_are_left_to_the_two_passes: skipped, this CPU \
                 lacks AVX-512 F, BW, VL, VBMI2 or BMI2"
            );
            return;
        }
        let max = crate::op::simd::dispatch::sparse_one_pass_max_bytes();
        let mut data = vec![0u8; max + 1];
        data[max / 2] = 1;
        data[max] = 1;
        let mut out = vec![CANARY; 4];
        let p = out.as_mut_ptr();
        let src = |n| Elements {
            data: &data[..n],
            mask: 0xFF,
        };
        // SAFETY: the CPU has the features; `out` has room for the two rows any of these
        // passes may write (the inputs have at most two nonzero elements); one thread.
        assert_eq!(unsafe { one_pass_column(p, 1, src(max + 1), 0) }, None);
        assert!(out.iter().all(|&x| x == CANARY), "declined, yet wrote");
        // SAFETY: as above.
        assert_eq!(unsafe { one_pass_column(p, 1, src(max), 0) }, Some(1));
        assert_eq!(out[..2], [(max / 2) as u32, CANARY]);
    }
}
