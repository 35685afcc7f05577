//! AVX-512 row writing. Each bitmask word (or 64 input elements, in the one pass) becomes up to
//! 64 rows: one `vpcompressb` packs the positions of its set bits to the front of 64 byte
//! lanes, and each 16 of them are widened to 32-bit lanes and spread into the template rows by
//! permutes. On AMD Zen 5 that costs less than a `vpcompressd` per 16 elements, the
//! instruction this module used before: its compresses were the slow part.
//!
//! Two ways to use it. The walks here ([`walk`], [`walk_pairs`], [`walk_lanes`]) write the rows
//! of bitmask words that the masking made (any packed layout, ONNX Runtime's pairs); each 16
//! rows are stored whole, rows past a word's own are rewritten by the next, so a walk stops
//! `SLACK` rows before the end of its range and leaves the rest to the scalar walk. The one pass
//! (`super::one_pass`) masks a packed 8-, 16- or 32-bit input itself and writes one or two
//! UINT32 columns, no bitmask kept: packed rows with plain stores of 16 rows wherever 15 more
//! rows of its range follow and masked stores of exactly the rows after that, ONNX Runtime's
//! pairs with masked stores only.
//!
//! Sixteen rows of R 32-bit lanes (R = N for UINT32 output, 2N for 64-bit output, whose high
//! halves are zero like every coordinate's) are R vectors of 16 lanes. Lane l of vector b
//! holds lane (16b + l) % R of row (16b + l) / R: the permute takes the template's lane where
//! the lane is not the line column's, and the position of row (16b + l) / R where it is.

use core::arch::x86_64::*;

use super::cursor::{Coord, Cursor, Geometry};

/// The words a walk writes the rows of: bit i of word w is element `start + 64 w + i`, and their
/// rows are `first .. end`, one per set bit.
#[derive(Clone, Copy)]
pub(super) struct Chunk<'a> {
    pub words: &'a [u64],
    pub start: u64,
    pub first: usize,
    pub end: usize,
}

/// Rows a word's stores may reach past its first row: 64 set bits, then 16 whole rows.
pub(super) const SLACK: usize = 80;

/// Rows a masked store asks for its line ahead of itself, for writing. Masked stores to lines
/// not in the cache were 2-5x slower than the scalar stores of the AVX2 walk once the output
/// outgrew the L3 (AMD Zen 5, ONNX Runtime's layout at 2^22 elements: 7.5 against 2.2 ms;
/// plain stores of the same lines 1.5 ms); with the lines asked for ahead, 1.4 ms.
pub(super) const PREFETCH_ROWS: usize = 128;

/// `[r][b][l]`: the row (for `ROW`) or lane of the row (for `LANE`) that lane l of output
/// vector b holds, for rows of r lanes.
static ROW: [[[u32; 16]; 16]; 17] = tables(true);
static LANE: [[[u32; 16]; 16]; 17] = tables(false);

const fn tables(row: bool) -> [[[u32; 16]; 16]; 17] {
    let mut t = [[[0u32; 16]; 16]; 17];
    let mut r = 1;
    while r <= 16 {
        let mut b = 0;
        while b < r {
            let mut l = 0;
            while l < 16 {
                let g = (16 * b + l) as u32;
                t[r][b][l] = if row { g / r as u32 } else { g % r as u32 };
                l += 1;
            }
            b += 1;
        }
        r += 1;
    }
    t
}

/// The positions of the set bits of `bits` (0 to 63), packed to the front of 64 byte lanes:
/// one `vpcompressb`. (On AMD Zen 5 one byte compress and a widening per 16 rows cost less than
/// a `vpcompressd` per 16 elements: bare loops, 0.99 against 1.33 µs at 2^14 elements and
/// density 0.5, 0.75 against 1.34 µs at density 0.1.)
///
/// # Safety
/// The CPU has AVX-512 F, BW and VBMI2 (the caller is compiled for them).
#[inline(always)]
pub(super) unsafe fn bit_positions(bits: u64) -> __m512i {
    const IOTA: [u8; 64] = {
        let mut t = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            t[i] = i as u8;
            i += 1;
        }
        t
    };
    // SAFETY: 64 readable bytes; the CPU has the features (caller).
    unsafe { _mm512_maskz_compress_epi8(bits, _mm512_loadu_si512(IOTA.as_ptr().cast())) }
}

/// Positions `16 g .. 16 g + 16` of `pos` (bytes, from [`bit_positions`]) as 32-bit lanes, plus
/// `off` (wrapping).
///
/// # Safety
/// The CPU has AVX-512 F and BW (the caller is compiled for them); `g` is 0 to 3.
#[inline(always)]
pub(super) unsafe fn widen(pos: __m512i, g: usize, off: u32) -> __m512i {
    // SAFETY: the CPU has the features (caller).
    unsafe {
        let b = match g {
            0 => _mm512_castsi512_si128(pos),
            1 => _mm512_extracti32x4_epi32::<1>(pos),
            2 => _mm512_extracti32x4_epi32::<2>(pos),
            _ => _mm512_extracti32x4_epi32::<3>(pos),
        };
        _mm512_add_epi32(_mm512_cvtepu8_epi32(b), _mm512_set1_epi32(off as i32))
    }
}

/// The walk the layouts share: for each word with set bits, while its rows stay `SLACK` rows
/// short of `end`, moves the cursor line by line (calling `line` on entering one) and, for
/// the word's bits in each line, gathers their line positions ([`bit_positions`]) and calls
/// `rows(at, x)` for each 16 of them (with the layout's `state`): `x` holds up to 16 line
/// positions in 32-bit lanes (lanes past the part's bits hold garbage: those rows are rewritten
/// by the next call or word) and `at` the row of the first. Returns how many words it wrote and
/// the row after their rows.
///
/// # Safety
/// The CPU has AVX-512 F, BW and VBMI2, BMI1 and POPCNT (the caller is compiled for them and
/// this is inlined into it).
#[inline(always)]
unsafe fn drive<O: Coord, const N: usize, T>(
    geo: &Geometry,
    chunk: Chunk<'_>,
    state: &mut T,
    line: impl Fn(&mut T, &Cursor<O, N>),
    rows: impl Fn(&T, usize, __m512i),
) -> (usize, usize) {
    let Chunk {
        words,
        start,
        first,
        end,
    } = chunk;
    let mut cur = Cursor::<O, N>::at(geo, start);
    line(state, &cur);
    let mut row = first;
    let mut wi = 0;
    while wi < words.len() {
        let w = words[wi];
        if w == 0 {
            wi += 1;
            continue;
        }
        if row + SLACK > end {
            break;
        }
        let base = start + 64 * wi as u64;
        let mut bits = w;
        while bits != 0 {
            let p = base + u64::from(bits.trailing_zeros());
            if p >= cur.line_end {
                cur.reach(geo, p);
                line(state, &cur);
            }
            // The bits of this word in the cursor's line, and the line position of bit 0
            // (wrapping: bits before the line are not set in `part`).
            let part = match cur.line_end - base {
                lim if lim >= 64 => bits,
                lim => bits & ((1u64 << lim) - 1),
            };
            bits &= !part;
            let off = base.wrapping_sub(cur.line_start) as u32;
            // SAFETY: the CPU has the features (caller).
            let pos = unsafe { bit_positions(part) };
            let n = part.count_ones() as usize;
            for g in 0..n.div_ceil(16) {
                // SAFETY: as above; g < 4.
                rows(state, row + 16 * g, unsafe { widen(pos, g, off) });
            }
            row += n;
        }
        wi += 1;
    }
    (wi, row)
}

/// Writes the rows of the chunk's words from its row `first` on, for as long as a word's rows stay `SLACK` rows short of `end`; returns how many words
/// it wrote and the row after their rows. The caller writes the rest.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and VBMI2, BMI1 and POPCNT. `out` is the first element of a
/// packed coordinates output of `N` columns (row r starts at element r × N) in which rows
/// `first .. end` are in bounds and accessed by no other thread; `end - first` is the number of
/// set bits in `words`; `N` is at most 8.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,popcnt")]
pub(super) unsafe fn walk<O: Coord, const N: usize>(
    out: *mut O,
    geo: &Geometry,
    chunk: Chunk<'_>,
) -> (usize, usize) {
    let r = if O::WIDE { 2 * N } else { N };
    let xlane = (geo.line - geo.first) * if O::WIDE { 2 } else { 1 };
    let load = |a: &[u32; 16]| {
        // SAFETY: 16 u32 are 64 readable bytes; loadu needs no alignment.
        unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
    };
    let zero = _mm512_setzero_si512();
    let mut rows = [zero; 16];
    let mut lanes = [zero; 16];
    let mut xmask = [0u16; 16];
    for b in 0..r {
        rows[b] = load(&ROW[r][b]);
        lanes[b] = load(&LANE[r][b]);
        xmask[b] = _mm512_cmpeq_epi32_mask(lanes[b], _mm512_set1_epi32(xlane as i32));
    }
    let out = out.cast::<u32>();
    // The template vectors of the current line: vector b's lanes that are not the line
    // column's.
    let mut tv = [zero; 16];
    let line = |tv: &mut [__m512i; 16], cur: &Cursor<O, N>| {
        // The row's lanes (a coordinate's high half is zero) one broadcast each: a vector load
        // of the row just stored element by element cannot take it from the store buffer.
        let mut t = zero;
        for (c, &v) in cur.row.iter().enumerate() {
            t = _mm512_mask_set1_epi32(t, 1 << (c * r / N), v.low32() as i32);
        }
        for b in 0..r {
            tv[b] = _mm512_permutexvar_epi32(lanes[b], t);
        }
    };
    let rows16 = |tv: &[__m512i; 16], at: usize, x: __m512i| {
        // SAFETY: at + 16 <= end (the rows grow by at most 64 over a word and row + SLACK <=
        // end at its start): the 16 rows from `at`, R lanes each, are in bounds and ours.
        let dst = unsafe { out.add(at * r) };
        for b in 0..r {
            let v = _mm512_mask_permutexvar_epi32(tv[b], xmask[b], rows[b], x);
            // SAFETY: as above; vector b is lanes 16b .. 16b + 16 of those rows.
            unsafe { _mm512_storeu_si512(dst.add(16 * b).cast(), v) };
        }
    };
    // SAFETY: this function has the features `drive` needs.
    unsafe { drive::<O, N, _>(geo, chunk, &mut tv, line, rows16) }
}

/// [`walk`] for UINT32 coordinates in ONNX Runtime's layout: row r's column c at element
/// `2 r + cs × c` (the low halves of an int64 `[N, M]` tensor). Each column of 16 rows is two
/// vectors whose even lanes are stored (masked stores: the odd lanes, the high halves, are not
/// touched): the line positions spread by a permute, or the template's value.
///
/// # Safety
/// As for [`walk`], with that layout instead of a packed one: rows `first .. end` (every
/// element `2 r + cs × c` of them) are in bounds and accessed by no other thread.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,popcnt")]
pub(super) unsafe fn walk_pairs<const N: usize>(
    out: *mut u32,
    cs: usize,
    geo: &Geometry,
    chunk: Chunk<'_>,
) -> (usize, usize) {
    let xcol = geo.line - geo.first;
    // Lanes 2i and 2i + 1 of half h take row 8h + i.
    let spread = [
        _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0),
        _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8),
    ];
    const EVEN: u16 = 0x5555;
    let mut tv = [_mm512_setzero_si512(); N];
    let line = |tv: &mut [__m512i; N], cur: &Cursor<u32, N>| {
        for (t, &v) in tv.iter_mut().zip(&cur.row) {
            *t = _mm512_set1_epi32(v as i32);
        }
    };
    let rows16 = |tv: &[__m512i; N], at: usize, x: __m512i| {
        for (c, &t) in tv.iter().enumerate() {
            for (h, &s) in spread.iter().enumerate() {
                let v = if c == xcol {
                    _mm512_permutexvar_epi32(s, x)
                } else {
                    t
                };
                let dst = out.wrapping_add(2 * (at + 8 * h) + cs * c);
                // SAFETY: at + 16 <= end (as in `walk`): rows at + 8h .. at + 8h + 8 are in
                // bounds and ours; their column c is the even elements of the 16 from
                // 2 (at + 8h) + cs × c, and only those are stored. A prefetch reads and writes
                // nothing and never faults, wherever it points.
                unsafe {
                    _mm_prefetch::<_MM_HINT_ET0>(dst.wrapping_add(PREFETCH_ROWS * 2).cast());
                    _mm512_mask_storeu_epi32(dst.cast(), EVEN, v)
                };
            }
        }
    };
    // SAFETY: this function has the features `drive` needs.
    unsafe { drive::<u32, N, _>(geo, chunk, &mut tv, line, rows16) }
}

/// [`walk`] for rows that are one 64-bit lane each: two UINT32 columns, or one UINT64 column.
/// Each 16 line positions take two `vpermt2d` that pair them with the template's other half,
/// eight rows a vector. (Two `vpcompressq` of whole rows, one per eight elements, cost 1.6x as
/// much as a `vpcompressd` and two permutes per 16 on AMD Zen 5: its compresses are the slow
/// instructions.)
///
/// # Safety
/// As for [`walk`], with `O` `u32` and N = 2 or `O` `u64` and N = 1.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,popcnt")]
pub(super) unsafe fn walk_lanes<O: Coord, const N: usize>(
    out: *mut O,
    geo: &Geometry,
    chunk: Chunk<'_>,
) -> (usize, usize) {
    debug_assert!(if O::WIDE { N == 1 } else { N == 2 });
    // The half of each 64-bit row that holds the line position: the high one for the second
    // UINT32 column. Lane 2i + half of the first vector takes position i of the compressed
    // ones (lane 16 + i of the two tables), the other half of the row the template's value
    // (lane 0); the second vector takes positions 8 to 15.
    let half = if O::WIDE { 0 } else { geo.line - geo.first };
    // Constants, not a table built on the stack: a vector load of lanes just stored one by one
    // would wait for the stores (a failed store-to-load forwarding on every call).
    let (lo, hi) = if half == 0 {
        (
            _mm512_set_epi32(0, 23, 0, 22, 0, 21, 0, 20, 0, 19, 0, 18, 0, 17, 0, 16),
            _mm512_set_epi32(0, 31, 0, 30, 0, 29, 0, 28, 0, 27, 0, 26, 0, 25, 0, 24),
        )
    } else {
        (
            _mm512_set_epi32(23, 0, 22, 0, 21, 0, 20, 0, 19, 0, 18, 0, 17, 0, 16, 0),
            _mm512_set_epi32(31, 0, 30, 0, 29, 0, 28, 0, 27, 0, 26, 0, 25, 0, 24, 0),
        )
    };
    let out = out.cast::<u32>();
    let first = geo.first;
    // The template's value in the other half (zero for one UINT64 column), in every lane.
    let mut t = _mm512_setzero_si512();
    let line = |t: &mut __m512i, cur: &Cursor<O, N>| {
        // From the 64-bit index, not from the row just stored element by element (see `walk`).
        let v = if O::WIDE {
            0
        } else {
            cur.idx[first + 1 - half]
        };
        *t = _mm512_set1_epi32(v as i32);
    };
    let rows16 = |t: &__m512i, at: usize, x: __m512i| {
        // SAFETY: at + 16 <= end (as in `walk`): the 16 rows from `at`, two 32-bit lanes each,
        // are in bounds and ours.
        unsafe {
            let dst = out.add(2 * at);
            _mm512_storeu_si512(dst.cast(), _mm512_permutex2var_epi32(*t, lo, x));
            _mm512_storeu_si512(dst.add(16).cast(), _mm512_permutex2var_epi32(*t, hi, x));
        }
    };
    // SAFETY: this function has the features `drive` needs.
    unsafe { drive::<O, N, _>(geo, chunk, &mut t, line, rows16) }
}
