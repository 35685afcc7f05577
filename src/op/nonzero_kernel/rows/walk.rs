//! The portable walks: one row per set bit, eight rows at a time, and the sparse walk that
//! finds nonzero words from a summary word.

use super::Rows;
use crate::op::nonzero_kernel::cursor::{Coord, Cursor};

/// Chunks with fewer set bits per word than this on average take the sparse walk.
const SPARSE_BITS: usize = 2;
/// Rows written unconditionally per word by the bit walk, before it loops over any others:
/// a fixed trip count, so sparse words cost no mispredicted loop exit.
const UNROLL: usize = 8;
/// Words that cross lines are written a line's part at a time, eight rows at a time, when a
/// part holds at least this many set bits on average; bit by bit otherwise (eight rows
/// written for one or two cost more than the loop's exit).
const PART_BITS: u64 = 4;

impl<O: Coord, const N: usize, const PACKED: bool, S> Rows<'_, O, N, PACKED, S> {
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
    pub(super) unsafe fn word<const LAST: bool>(
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
                let x = off.wrapping_add(u64::from(bits.trailing_zeros()));
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
                let x = off.wrapping_add(u64::from(bits.trailing_zeros()));
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
                let x = off.wrapping_add(u64::from(bits.trailing_zeros()));
                bits &= bits.wrapping_sub(1);
                // SAFETY: row + i < row + UNROLL <= `end`: in bounds and ours.
                unsafe { put_at::<O, N, LAST>(dst, (row + i) * rs, cs, &tmpl, xcol, x) };
            }
            row += ones.min(UNROLL);
        }
        // SAFETY: the bits left have their rows from `row`: in bounds and ours.
        unsafe { self.bits::<LAST>(bits, off, &tmpl, row) }
    }

    /// Writes the rows of the set bits of `bits`, which lie in the cursor's line (`off` is
    /// bit 0's position in the line, wrapping), one at a time from row `row` on; returns the row
    /// after them.
    ///
    /// # Safety
    /// Rows `row .. row + (set bits)` are in bounds and no other thread accesses them.
    #[inline(always)]
    unsafe fn bits<const LAST: bool>(
        &self,
        mut bits: u64,
        off: u64,
        tmpl: &[O; N],
        mut row: usize,
    ) -> usize {
        let xcol = self.geo.line - self.geo.first;
        let (dst, tmpl, (rs, cs)) = (self.out.as_ptr(), *tmpl, self.strides());
        while bits != 0 {
            let x = off.wrapping_add(u64::from(bits.trailing_zeros()));
            bits &= bits - 1;
            // SAFETY: one row per set bit from `row`: in bounds and ours.
            unsafe { put_at::<O, N, LAST>(dst, row * rs, cs, &tmpl, xcol, x) };
            row += 1;
        }
        row
    }

    /// Writes the rows of a word that may cross lines (bit i is element `base + i`) one line
    /// at a time, moving the cursor along, from row `row` on; returns the row after them.
    /// `in_line(bits, off, template, row)` writes the rows of the bits that lie in the cursor's
    /// line (bit i is position `off + i` of the line, wrapping: `off` is below zero for a line
    /// that starts inside the word) and returns the row after them.
    ///
    /// # Safety
    /// Rows `row .. row + (set bits)` are in bounds and no other thread accesses them, and
    /// `in_line` writes exactly one row per set bit it is given, from the row it is given.
    #[inline(always)]
    pub(super) unsafe fn word_by_lines(
        &self,
        cur: &mut Cursor<O, N>,
        mut bits: u64,
        base: u64,
        mut row: usize,
        mut in_line: impl FnMut(u64, u64, &[O; N], usize) -> usize,
    ) -> usize {
        while bits != 0 {
            cur.reach(&self.geo, base + u64::from(bits.trailing_zeros()));
            // The bits below the line's end (it ends past the lowest set bit).
            let len = cur.line_end - base;
            let line_bits = if len >= 64 {
                bits
            } else {
                bits & ((1u64 << len) - 1)
            };
            bits &= !line_bits;
            row = in_line(line_bits, base.wrapping_sub(cur.line_start), &cur.row, row);
        }
        row
    }

    /// Writes the rows of `words` from row `first` on; `end` is one past the last of them.
    ///
    /// # Safety
    /// `end - first` is the number of set bits in `words`; rows `first .. end` are in bounds
    /// and no other thread accesses them.
    #[inline(always)]
    pub(super) unsafe fn walk<const LAST: bool>(
        &self,
        words: &[u64],
        start: u64,
        first: usize,
        end: usize,
    ) {
        let g = &self.geo;
        let span = 64 * words.len() as u64;
        if end - first < SPARSE_BITS * words.len() && g.width >= 2 && g.width + span <= 1 << 32 {
            // SAFETY: forwarded contract.
            unsafe { self.walk_sparse::<LAST>(words, start, first) };
            return;
        }
        // Set bits per line part of a word crossing lines, on average, times 64 words.
        let part_bits = (end - first) as u64 * g.width.min(64);
        let dense_parts = part_bits >= PART_BITS * span;
        let mut cur = Cursor::<O, N>::at(g, start);
        let mut row = first;
        for (wi, &w) in words.iter().enumerate() {
            let base = start + 64 * wi as u64;
            if w == 0 {
                continue;
            }
            // A word that starts a line finds the cursor still on the line before.
            cur.reach(g, base);
            if base + 64 <= cur.line_end {
                // SAFETY: this word's rows follow `row`, below `end`: in bounds and ours.
                row = unsafe { self.word::<LAST>(w, base - cur.line_start, &cur.row, row, end) };
            } else {
                // SAFETY: one row per set bit, so `row` stays below `end`; `word` and `bits`
                // write one row per set bit of the line's bits, from the row they are given.
                row = unsafe {
                    self.word_by_lines(&mut cur, w, base, row, |bits, off, tmpl, row| {
                        if dense_parts {
                            self.word::<LAST>(bits, off, tmpl, row, end)
                        } else {
                            self.bits::<LAST>(bits, off, tmpl, row)
                        }
                    })
                };
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
        // Each position is divided from a fixed base (the start of a line, and that line's
        // index), not from the line of the row before: moving the cursor by each row's quotient
        // made every row wait for the multiply and the subtraction of the one before (about 12
        // cycles a row on AMD Zen 5; the rows are now independent). The base moves only when
        // the outer index passes its size and carries.
        let (mut base_line, mut base_idx) = (cur.line_start, outer.map_or(0, |o| cur.idx[o]));
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
                    let x = pos - base_line;
                    let lines = ((u128::from(x) * u128::from(magic)) >> 64) as u64;
                    if let Some(o) = outer {
                        let i = base_idx + lines;
                        cur.idx[o] = i;
                        cur.row[o - g.first] = O::from_u64(i);
                        if i >= g.sizes[o] {
                            cur.carry(g, o);
                            // Rebase on this row's line.
                            base_line += lines * width;
                            base_idx = cur.idx[o];
                            // SAFETY: one row per set bit from `first`: in bounds and ours.
                            unsafe {
                                put_at::<O, N, LAST>(
                                    dst,
                                    row * rs,
                                    cs,
                                    &cur.row,
                                    xcol,
                                    pos - base_line,
                                )
                            };
                            row += 1;
                            if bits == 0 {
                                break;
                            }
                            continue;
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
/// `dst` is an [`OutView`](super::OutView)'s first element, and the row's elements are within the view and
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
