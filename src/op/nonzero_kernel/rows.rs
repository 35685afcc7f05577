//! Row writers: [`Rows`] walks the set bits of bitmask words and writes one coordinate row per
//! bit, bit by bit, eight rows at a time, by a summary word for sparse chunks, or by the AVX2
//! expansion for dense ones.

use super::cursor::{Coord, Cursor, Geometry};
use super::out_view::{Exclusive, OutView, Shared};
#[cfg(target_arch = "x86_64")]
use super::{compress, expand};
use crate::op::kind::OpKind;
use crate::op::simd::Isa;

const OP: &str = OpKind::NonZeroCoordinates.name();

/// Writes coordinate rows.
pub(super) trait Emit {
    /// Writes one row per set bit of `words` (bit i of word w is element `start + 64 w + i`),
    /// from row `first_row` on; returns the number of rows written.
    ///
    /// # Safety
    /// No other thread may write the rows `first_row ..` that this call writes while it runs.
    unsafe fn emit(&self, words: &[u64], start: u64, first_row: u64) -> u64;
}

/// A row writer as the scheduler gets it: one that only this thread may use, or one that the
/// workers may share (its view is shared, so the output layout is proven disjoint).
#[derive(Clone, Copy)]
pub(super) enum Writer<'r> {
    Serial(&'r dyn Emit),
    Parallel(&'r (dyn Emit + Sync)),
}

impl<'r> Writer<'r> {
    /// The writer, for use on this thread.
    pub fn on_this_thread(self) -> &'r dyn Emit {
        match self {
            Writer::Serial(e) => e,
            Writer::Parallel(e) => e,
        }
    }
}

/// The coordinates output: N columns, packed (`rs == N`, `cs == 1`) or strided, over a view
/// shared by the workers or not (`S`).
pub(super) struct Rows<'a, O, const N: usize, const PACKED: bool, S> {
    out: OutView<'a, O, S>,
    rs: usize,
    cs: usize,
    geo: Geometry,
    isa: Isa,
}

impl<'a, O, const N: usize, const PACKED: bool, S> Rows<'a, O, N, PACKED, S> {
    pub fn new(out: OutView<'a, O, S>, rs: usize, cs: usize, geo: Geometry, isa: Isa) -> Self {
        Rows {
            out,
            rs,
            cs,
            geo,
            isa,
        }
    }
}

/// How rows written through a view of kind `Self` may be scheduled.
pub(super) trait Sharing: Sized {
    /// True when the view was built from a layout proven disjoint (no two elements share
    /// memory), so rows written ahead and rewritten later cannot clobber another row.
    const DISJOINT: bool;
    /// The writer for rows over a view of this kind.
    fn writer<'r, O: Coord, const N: usize, const P: bool>(
        rows: &'r Rows<'_, O, N, P, Self>,
    ) -> Writer<'r>;
}

impl Sharing for Exclusive {
    const DISJOINT: bool = false;
    fn writer<'r, O: Coord, const N: usize, const P: bool>(
        rows: &'r Rows<'_, O, N, P, Self>,
    ) -> Writer<'r> {
        Writer::Serial(rows)
    }
}

impl Sharing for Shared {
    const DISJOINT: bool = true;
    fn writer<'r, O: Coord, const N: usize, const P: bool>(
        rows: &'r Rows<'_, O, N, P, Self>,
    ) -> Writer<'r> {
        // A shared view is Sync, and so are these rows.
        Writer::Parallel(rows)
    }
}

/// Chunks with at least this many set bits per word on average are expanded eight elements at
/// a time (AVX2) rather than bit by bit. Deciding per chunk keeps the branch predictable.
const DENSE_BITS: usize = 12;
/// Chunks with fewer set bits per word than this on average take the sparse walk.
const SPARSE_BITS: usize = 2;
/// Rows written unconditionally per word by the bit walk, before it loops over any others:
/// a fixed trip count, so sparse words cost no mispredicted loop exit.
const UNROLL: usize = 8;
/// Rows one expanded word may store past its first row: 64 set bits, then eight whole rows.
const SLACK: usize = 72;
/// The AVX-512 walk ([`compress`]) takes chunks with at least this many set bits per word on
/// average: it costs the same for every 16 elements whatever their bits, the bit walk costs per
/// set bit, and they meet near here (measured on AVX-512 machines: at density 0.1 the bit walk
/// was 30% faster).
#[cfg(target_arch = "x86_64")]
const COMPRESS_BITS: usize = 12;
/// The AVX-512 walk takes lines at least this long; shorter ones change the template too often
/// for it to pay.
#[cfg(target_arch = "x86_64")]
const COMPRESS_MIN_WIDTH: u64 = 8;

impl<O: Coord, const N: usize, const PACKED: bool, S> Rows<'_, O, N, PACKED, S> {
    /// Writes row `row`: the template with column `xcol` (`N - 1` when `LAST`) set to `x`.
    ///
    /// # Safety
    /// Every index of the row is below `out.len()`, and no other thread accesses the row.
    #[inline(always)]
    unsafe fn put<const LAST: bool>(&self, row: usize, tmpl: &[O; N], xcol: usize, x: u64) {
        let (rs, cs) = self.strides();
        // SAFETY: forwarded contract (`as_ptr` is the view's first element).
        unsafe { put_at::<O, N, LAST>(self.out.as_ptr(), row * rs, cs, tmpl, xcol, x) }
    }

    /// The row and column strides (constants when packed).
    #[inline(always)]
    fn strides(&self) -> (usize, usize) {
        if PACKED {
            (N, 1)
        } else {
            (self.rs, self.cs)
        }
    }

    /// Writes the rows of one word that lies in the cursor's line (`off` is the word's
    /// position in the line) from row `row` on, and returns the row after them.
    ///
    /// # Safety
    /// Rows `row .. row + (set bits)` are in bounds and no other thread accesses them; when
    /// `row + UNROLL <= end`, rows up to `end` are too (and rows past the word's own are
    /// rewritten by later words of this walk).
    #[inline(always)]
    unsafe fn word<const LAST: bool>(
        &self,
        mut bits: u64,
        off: u64,
        tmpl: &[O; N],
        mut row: usize,
        end: usize,
    ) -> usize {
        let xcol = self.geo.line - self.geo.first;
        // Locals, so the stores below cannot make the compiler reload them.
        let (dst, tmpl, (rs, cs)) = (self.out.as_ptr(), *tmpl, self.strides());
        #[cfg(target_endian = "little")]
        if PACKED && LAST && N == 2 && !O::WIDE && row + UNROLL <= end {
            // Two UINT32 columns: each row is one 8-byte store (the template's first column in
            // the low half).
            let dst = dst.cast::<u64>().cast::<u8>();
            let hi = u64::from(tmpl[0].low32());
            let ones = bits.count_ones() as usize;
            for i in 0..UNROLL {
                let x = off + u64::from(bits.trailing_zeros());
                bits &= bits.wrapping_sub(1);
                // SAFETY: row + i < row + UNROLL <= `end`: in bounds and ours; the packed
                // row r is the 8 bytes from byte 8r.
                unsafe {
                    dst.add((row + i) * 8)
                        .cast::<u64>()
                        .write_unaligned(hi | x << 32)
                };
            }
            row += ones.min(UNROLL);
            while bits != 0 {
                let x = off + u64::from(bits.trailing_zeros());
                bits &= bits - 1;
                // SAFETY: one row per set bit from `row`: in bounds and ours.
                unsafe { dst.add(row * 8).cast::<u64>().write_unaligned(hi | x << 32) };
                row += 1;
            }
            return row;
        }
        if row + UNROLL <= end {
            // The first UNROLL set bits (or, past the last one, position off + 64) go to rows
            // row .. row + UNROLL.
            let ones = bits.count_ones() as usize;
            for i in 0..UNROLL {
                let x = off + u64::from(bits.trailing_zeros());
                bits &= bits.wrapping_sub(1);
                // SAFETY: row + i < row + UNROLL <= `end`: in bounds and ours.
                unsafe { put_at::<O, N, LAST>(dst, (row + i) * rs, cs, &tmpl, xcol, x) };
            }
            row += ones.min(UNROLL);
        }
        while bits != 0 {
            let x = off + u64::from(bits.trailing_zeros());
            bits &= bits - 1;
            // SAFETY: one row per set bit from `row`: in bounds and ours.
            unsafe { put_at::<O, N, LAST>(dst, row * rs, cs, &tmpl, xcol, x) };
            row += 1;
        }
        row
    }

    /// Writes the rows of a word that may cross lines (bit i is element `base + i`) bit by bit,
    /// moving the cursor along, from row `row` on; returns the row after them.
    ///
    /// # Safety
    /// Rows `row .. row + (set bits)` are in bounds and no other thread accesses them.
    #[inline(always)]
    unsafe fn word_across_lines<const LAST: bool>(
        &self,
        cur: &mut Cursor<O, N>,
        mut bits: u64,
        base: u64,
        xcol: usize,
        mut row: usize,
    ) -> usize {
        while bits != 0 {
            let pos = base + u64::from(bits.trailing_zeros());
            bits &= bits - 1;
            cur.reach(&self.geo, pos);
            // SAFETY: one row per set bit from `row`: in bounds and ours (caller).
            unsafe { self.put::<LAST>(row, &cur.row, xcol, pos - cur.line_start) };
            row += 1;
        }
        row
    }

    /// Writes the rows of `words` from row `first` on; `end` is one past the last of them.
    ///
    /// # Safety
    /// `end - first` is the number of set bits in `words`; rows `first .. end` are in bounds
    /// and no other thread accesses them.
    #[inline(always)]
    unsafe fn walk<const LAST: bool>(&self, words: &[u64], start: u64, first: usize, end: usize) {
        let g = &self.geo;
        let span = 64 * words.len() as u64;
        if end - first < SPARSE_BITS * words.len() && g.width >= 2 && g.width + span <= 1 << 32 {
            // SAFETY: forwarded contract.
            unsafe { self.walk_sparse::<LAST>(words, start, first) };
            return;
        }
        let xcol = g.line - g.first;
        let mut cur = Cursor::<O, N>::at(g, start);
        let mut row = first;
        for (wi, &w) in words.iter().enumerate() {
            let base = start + 64 * wi as u64;
            if w == 0 {
                continue;
            }
            if base + 64 <= cur.line_end {
                // SAFETY: this word's rows follow `row`, below `end`: in bounds and ours.
                row = unsafe { self.word::<LAST>(w, base - cur.line_start, &cur.row, row, end) };
            } else {
                // SAFETY: one row per set bit, so `row` stays below `end`.
                row = unsafe { self.word_across_lines::<LAST>(&mut cur, w, base, xcol, row) };
            }
        }
        debug_assert_eq!(row, end);
    }
}

impl<O: Coord, const N: usize, const PACKED: bool, S> Rows<'_, O, N, PACKED, S> {
    /// [`Rows::walk`] for a sparse chunk (fewer than [`SPARSE_BITS`] set bits per word on
    /// average): the nonzero words are found 64 at a time from a summary word, so zero words
    /// cost no branch, and each element's line comes from a multiply (Lemire's division by
    /// the line width) rather than from stepping line by line, so changing lines costs no
    /// branch either.
    ///
    /// # Safety
    /// As for [`Rows::walk`]; the line width is at least 2 and the width plus the chunk's span
    /// is at most 2^32 (so every offset into a line fits in 32 bits).
    #[inline(always)]
    unsafe fn walk_sparse<const LAST: bool>(&self, words: &[u64], start: u64, first: usize) {
        let g = &self.geo;
        let xcol = g.line - g.first;
        let width = g.width;
        // floor(x / width) == (x × magic) >> 64 for every x below 2^32.
        let magic = u64::MAX / width + 1;
        let outer = (g.line > g.first).then(|| g.line - 1);
        let (dst, (rs, cs)) = (self.out.as_ptr(), self.strides());
        let mut cur = Cursor::<O, N>::at(g, start);
        let mut row = first;
        for (gi, group) in words.chunks(64).enumerate() {
            let mut summary = 0u64;
            for (i, &w) in group.iter().enumerate() {
                summary |= u64::from(w != 0) << i;
            }
            while summary != 0 {
                let wi = gi * 64 + summary.trailing_zeros() as usize;
                summary &= summary - 1;
                let base = start + 64 * wi as u64;
                let mut bits = words[wi];
                loop {
                    let pos = base + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    let x = pos - cur.line_start;
                    let lines = ((u128::from(x) * u128::from(magic)) >> 64) as u64;
                    cur.line_start += lines * width;
                    if let Some(o) = outer {
                        cur.idx[o] += lines;
                        cur.row[o - g.first] = O::from_u64(cur.idx[o]);
                        if cur.idx[o] >= g.sizes[o] {
                            cur.carry(g, o);
                        }
                    }
                    // SAFETY: one row per set bit from `first`: in bounds and ours.
                    unsafe {
                        put_at::<O, N, LAST>(dst, row * rs, cs, &cur.row, xcol, x - lines * width)
                    };
                    row += 1;
                    if bits == 0 {
                        break;
                    }
                }
            }
        }
    }
}

/// Writes one row at element `base` of `dst` (columns `cs` apart): the template with column
/// `xcol` (`N - 1` when `LAST`) set to `x`.
///
/// # Safety
/// `dst` is an [`OutView`]'s first element, and the row's elements are within the view and
/// accessed by no other thread.
#[inline(always)]
unsafe fn put_at<O: Coord, const N: usize, const LAST: bool>(
    dst: *mut O,
    base: usize,
    cs: usize,
    tmpl: &[O; N],
    xcol: usize,
    x: u64,
) {
    for (c, &t) in tmpl.iter().enumerate() {
        let is_x = if LAST { c == N - 1 } else { c == xcol };
        let v = if is_x { O::from_u64(x) } else { t };
        // SAFETY: the caller guarantees the element is in bounds and unshared.
        unsafe { dst.add(base + c * cs).write(v) };
    }
}

/// [`Rows::walk`] compiled for AVX2, BMI1 and POPCNT.
///
/// # Safety
/// As for [`Rows::walk`]; the CPU has AVX2, BMI1 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn walk_avx2<O: Coord, const N: usize, const PACKED: bool, const LAST: bool, S>(
    rows: &Rows<'_, O, N, PACKED, S>,
    words: &[u64],
    start: u64,
    first: usize,
    end: usize,
) {
    // SAFETY: forwarded contract.
    unsafe { rows.walk::<LAST>(words, start, first, end) }
}

/// The dense walk of a packed UINT32 output of up to four columns whose last column is the
/// line position: words are expanded eight elements at a time.
///
/// Streaming the rows out with non-temporal stores (through a staging buffer in L1) was tried
/// and was three times slower on the AMD EPYC this was tuned on.
///
/// # Safety
/// As for [`Rows::walk`]; the CPU has AVX2, BMI1 and POPCNT; `O` is `u32`, `PACKED`, N <= 4,
/// and the line dimension is the last column.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,popcnt")]
unsafe fn walk_dense<O: Coord, const N: usize, const PACKED: bool, S>(
    rows: &Rows<'_, O, N, PACKED, S>,
    words: &[u64],
    start: u64,
    first: usize,
    end: usize,
) {
    let g = &rows.geo;
    let mut cur = Cursor::<O, N>::at(g, start);
    let mut row = first;
    // SAFETY: the CPU has AVX2; N <= 4.
    let shape = unsafe { expand::Shape::new(N) };
    // SAFETY: as above.
    let mut tmpl = unsafe { expand::Template::new(&cur.row) };
    let mut tmpl_line = cur.line_start;
    let out = rows.out.as_ptr().cast::<u32>();
    for (wi, &w) in words.iter().enumerate() {
        let base = start + 64 * wi as u64;
        if w == 0 {
            continue;
        }
        if base + 64 <= cur.line_end && row + SLACK <= end {
            if tmpl_line != cur.line_start {
                // SAFETY: the CPU has AVX2.
                tmpl = unsafe { expand::Template::new(&cur.row) };
                tmpl_line = cur.line_start;
            }
            // SAFETY: the word's rows start at `row`; its stores stay below row + SLACK <= `end`
            // (in bounds and ours; rows past the word's own are rewritten by later words before
            // anyone may read them). Packed UINT32: row r starts at element r × N.
            row = unsafe { expand::word::<N>(out, row, w, base - cur.line_start, &shape, &tmpl) };
        } else if base + 64 <= cur.line_end {
            // SAFETY: this word's rows follow `row`, below `end`: in bounds and ours.
            row = unsafe { rows.word::<true>(w, base - cur.line_start, &cur.row, row, end) };
        } else {
            // SAFETY: one row per set bit, so `row` stays below `end`.
            row = unsafe { rows.word_across_lines::<true>(&mut cur, w, base, N - 1, row) };
        }
    }
    debug_assert_eq!(row, end);
}

impl<O: Coord, const N: usize, const PACKED: bool, S> Rows<'_, O, N, PACKED, S> {
    /// Writes what an AVX-512 walk left: the words from `done` on, from row `row` on.
    ///
    /// # Safety
    /// As for [`Rows::walk`] on those words and rows `row .. end`; the CPU has AVX2, BMI1 and
    /// POPCNT.
    #[cfg(target_arch = "x86_64")]
    unsafe fn rest_avx2(
        &self,
        words: &[u64],
        start: u64,
        done: usize,
        row: usize,
        end: usize,
        last_col: bool,
    ) {
        if done == words.len() {
            return;
        }
        let (rest, at) = (&words[done..], start + 64 * done as u64);
        // SAFETY: forwarded contract.
        unsafe {
            if last_col {
                walk_avx2::<O, N, PACKED, true, S>(self, rest, at, row, end);
            } else {
                walk_avx2::<O, N, PACKED, false, S>(self, rest, at, row, end);
            }
        }
    }
}

impl<O: Coord, const N: usize, const PACKED: bool, S: Sharing> Emit for Rows<'_, O, N, PACKED, S> {
    unsafe fn emit(&self, words: &[u64], start: u64, first_row: u64) -> u64 {
        let count: u64 = words.iter().map(|w| u64::from(w.count_ones())).sum();
        if count == 0 {
            return 0;
        }
        // The largest index any of these rows touches, checked once for the whole walk.
        let last = usize::try_from(first_row + count - 1)
            .ok()
            .and_then(|r| r.checked_mul(self.rs))
            .and_then(|i| i.checked_add((N - 1) * self.cs));
        assert!(
            last.is_some_and(|i| i < self.out.len()),
            "{OP}: rows {first_row}..{} do not fit the coordinates output",
            first_row + count
        );
        let (first, end) = (first_row as usize, (first_row + count) as usize);
        let last_col = self.geo.line - self.geo.first == N - 1;
        // Why the walks below are sound: rows first .. end are in bounds (asserted above) and
        // `end - first` is the number of set bits; the caller guarantees no other thread writes
        // those rows. The AVX2 walks run only when the CPU has AVX2, BMI1 and POPCNT; the dense
        // one only for a packed UINT32 output of up to four columns whose last is the line
        // position.
        #[cfg(target_arch = "x86_64")]
        if self.isa.has_avx512()
            && !PACKED
            && !O::WIDE
            && S::DISJOINT
            && self.rs == 2
            && self.cs >= 2
            && self.geo.width >= COMPRESS_MIN_WIDTH
            && end - first >= COMPRESS_BITS * words.len()
        {
            // SAFETY: see above; the output is UINT32 with rows two elements apart (ONNX
            // Runtime's int64 pairs) over a layout proven disjoint (rows stored ahead of the
            // walk share no element with a row written before), and the level allows AVX-512
            // F, BW, VL and VBMI2, BMI1 and POPCNT.
            let (done, row) = unsafe {
                compress::walk_pairs::<N>(
                    self.out.as_ptr().cast(),
                    self.cs,
                    &self.geo,
                    words,
                    start,
                    first,
                    end,
                )
            };
            // SAFETY: as for the packed case below.
            unsafe { self.rest_avx2(words, start, done, row, end, last_col) };
            return count;
        }
        #[cfg(target_arch = "x86_64")]
        if self.isa.has_avx512()
            && PACKED
            && N <= 8
            && self.geo.width >= COMPRESS_MIN_WIDTH
            && end - first >= COMPRESS_BITS * words.len()
        {
            // SAFETY: see above; the output is packed with N <= 8 columns, and the level
            // allows AVX-512 F, BW, VL and VBMI2, BMI1 and POPCNT.
            let (done, row) = unsafe {
                compress::walk::<O, N>(self.out.as_ptr(), &self.geo, words, start, first, end)
            };
            // SAFETY: the rest of the words have `end - row` set bits, for rows `row .. end`, in
            // bounds and ours as above; the level allows AVX2.
            unsafe { self.rest_avx2(words, start, done, row, end, last_col) };
            return count;
        }
        #[cfg(target_arch = "x86_64")]
        if self.isa.has_avx2() {
            let dense = PACKED && !O::WIDE && N <= 4 && last_col;
            if dense && end - first >= DENSE_BITS * words.len() {
                // SAFETY: see above; `dense` holds.
                unsafe { walk_dense::<O, N, PACKED, S>(self, words, start, first, end) };
            } else if last_col {
                // SAFETY: see above.
                unsafe { walk_avx2::<O, N, PACKED, true, S>(self, words, start, first, end) };
            } else {
                // SAFETY: see above.
                unsafe { walk_avx2::<O, N, PACKED, false, S>(self, words, start, first, end) };
            }
            return count;
        }
        // SAFETY: see above.
        unsafe {
            if last_col {
                self.walk::<true>(words, start, first, end);
            } else {
                self.walk::<false>(words, start, first, end);
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::xorshift;

    /// The sparse walk's division: floor(x / w) == (x × (u64::MAX / w + 1)) >> 64 for every
    /// w from 2 and x below 2^32.
    #[test]
    fn lemire_division_is_exact_below_2_pow_32() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || xorshift(&mut seed);
        let mut widths: Vec<u64> = (2..600).collect();
        widths.extend([1 << 16, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 3 << 30]);
        widths.extend((0..200).map(|_| 2 + next() % ((1 << 32) - 2)));
        for w in widths {
            let magic = u64::MAX / w + 1;
            let mut xs = vec![0, 1, w - 1, w, w + 1, (1 << 32) - 1, (1 << 32) - w];
            xs.extend((0..200).map(|_| next() % (1 << 32)));
            xs.extend((1..50).map(|k| (k * w).min((1 << 32) - 1)));
            for x in xs {
                let q = ((u128::from(x) * u128::from(magic)) >> 64) as u64;
                assert_eq!(q, x / w, "x {x} w {w}");
            }
        }
    }
}
