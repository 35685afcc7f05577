//! The walks compiled for AVX2, BMI1 and POPCNT, and the dense walk that expands words eight
//! elements at a time ([`expand`]).

use super::Rows;
use crate::op::nonzero_kernel::cursor::{Coord, Cursor};
use crate::op::nonzero_kernel::expand;

/// Rows one expanded word may store past its first row: 64 set bits, then eight whole rows.
const SLACK: usize = 72;

/// [`Rows::walk`] compiled for AVX2, BMI1 and POPCNT.
///
/// # Safety
/// As for [`Rows::walk`]; the CPU has AVX2, BMI1 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(super) unsafe fn walk_avx2<
    O: Coord,
    const N: usize,
    const PACKED: bool,
    const LAST: bool,
    S,
>(
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
pub(super) unsafe fn walk_dense<O: Coord, const N: usize, const PACKED: bool, S>(
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
        // A word that starts a line finds the cursor still on the line before.
        cur.reach(g, base);
        if base + 64 <= cur.line_end && row + SLACK <= end {
            if tmpl_line != cur.line_start {
                // SAFETY: the CPU has AVX2.
                tmpl = unsafe { expand::Template::new(&cur.row) };
                tmpl_line = cur.line_start;
            }
            // SAFETY: the word's rows start at `row`; its stores stay below row + SLACK <= `end`
            // (in bounds and ours; rows past the word's own are rewritten by later words before
            // anyone may read them). Packed UINT32: row r starts at element r × N.
            row = unsafe {
                expand::word::<N, false>(out, row, w, base - cur.line_start, &shape, &tmpl)
            };
        } else if base + 64 <= cur.line_end {
            // SAFETY: this word's rows follow `row`, below `end`: in bounds and ours.
            row = unsafe { rows.word::<true>(w, base - cur.line_start, &cur.row, row, end) };
        } else if row + SLACK <= end {
            // SAFETY: as for a word in one line above, for each line's bits in turn (shifted
            // down by whole bytes, so their positions in the line are `off` plus 8 × the bytes
            // shifted out, plus their index). A part stores at most eight rows past its own,
            // and the parts' own rows are the word's, so all stores stay below row + 72 =
            // row + SLACK <= `end`.
            row = unsafe {
                rows.word_by_lines(&mut cur, w, base, row, |bits, off, t, row| {
                    let skip = bits.trailing_zeros() / 8 * 8;
                    let tmpl = expand::Template::new(t);
                    expand::word::<N, true>(
                        out,
                        row,
                        bits >> skip,
                        off.wrapping_add(u64::from(skip)),
                        &shape,
                        &tmpl,
                    )
                })
            };
        } else {
            // SAFETY: one row per set bit, so `row` stays below `end`; `word` writes one row
            // per set bit of the line's bits, from the row it is given.
            row = unsafe {
                rows.word_by_lines(&mut cur, w, base, row, |bits, off, t, row| {
                    rows.word::<true>(bits, off, t, row, end)
                })
            };
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
    pub(super) unsafe fn rest_avx2(
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
