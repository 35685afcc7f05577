//! Row writers: [`Rows`] walks the set bits of bitmask words and writes one coordinate row per
//! bit, bit by bit, eight rows at a time, by a summary word for sparse chunks, or by the AVX2
//! expansion for dense ones.
//!
//! The modules, by job: this one holds the types the scheduler sees ([`Emit`], [`Writer`],
//! [`Rows`], [`Sharing`]); `emit` picks the walk for a chunk (the [`Emit`] impl); `walk` holds
//! the portable walks (bit by bit, eight rows at a time, sparse); `avx2` the same compiled for
//! AVX2 and the dense walk that expands words eight elements at a time.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod emit;
mod walk;

use super::cursor::{Coord, Geometry};
use super::out_view::{Exclusive, OutView, Shared};
use super::source::Packed;
use crate::op::simd::Isa;

/// Writes coordinate rows.
pub(super) trait Emit {
    /// Writes one row per set bit of `words` (bit i of word w is element `start + 64 w + i`),
    /// from row `first_row` on; `count` is the number of set bits (the rows written).
    ///
    /// # Safety
    /// `count` is the number of set bits in `words`; no other thread may write the rows
    /// `first_row .. first_row + count` while this call runs.
    unsafe fn emit(&self, words: &[u64], start: u64, first_row: u64, count: u64);

    /// Writes the rows of a part of a packed input (`input`, its elements `start ..`) in one
    /// pass, from row `first_row` on, and returns the part's row count, when this writer has
    /// such a pass for the output and the input; `None`, having written nothing, otherwise.
    ///
    /// # Safety
    /// `first_row` is the number of nonzero elements before `start`; no other thread may write
    /// the part's rows (from `first_row`, one per nonzero element of `input`) while this call
    /// runs. (The output must have room for `input.len()` rows from `first_row`, which the
    /// writer checks; rows past the part's are not written.)
    unsafe fn one_pass(&self, input: Packed<'_>, start: u64, first_row: u64) -> Option<u64> {
        let _ = (input, start, first_row);
        None
    }

    /// Writes the rows of a part from the bitmask its count kept (`words`: bit i of word w is
    /// element `start + 64 w + i`, of `len` elements; `count` set bits) in the form of
    /// [`Emit::one_pass`], from row `first_row` on, and returns `count`, when this writer has
    /// that form for the output and the part is dense enough for it; `None`, having written
    /// nothing, otherwise (then [`Emit::emit`] writes them).
    ///
    /// # Safety
    /// `count` is the number of set bits in `words`, none of them past `len`; `first_row` is
    /// the number of nonzero elements before `start`; no other thread may write the rows
    /// `first_row .. first_row + count` while this call runs.
    unsafe fn one_pass_words(
        &self,
        words: &[u64],
        len: u64,
        start: u64,
        first_row: u64,
        count: u64,
    ) -> Option<u64> {
        let _ = (words, len, start, first_row, count);
        None
    }
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
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by the x86-64 kernels only
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
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by the x86-64 kernels only
    const DISJOINT: bool;
    /// The writer for rows over a view of this kind.
    fn writer<'r, O: Coord, const N: usize, const P: bool>(
        rows: &'r Rows<'_, O, N, P, Self>,
    ) -> Writer<'r>;
}

/// `Sharing` for a kind of view and the writer its rows get.
macro_rules! sharing {
    ($view:ty, $disjoint:expr, $writer:ident) => {
        impl Sharing for $view {
            const DISJOINT: bool = $disjoint;
            fn writer<'r, O: Coord, const N: usize, const P: bool>(
                rows: &'r Rows<'_, O, N, P, Self>,
            ) -> Writer<'r> {
                Writer::$writer(rows)
            }
        }
    };
}
// Rows over an exclusive view are this thread's; a shared view is Sync, and so are its rows.
sharing!(Exclusive, false, Serial);
sharing!(Shared, true, Parallel);
