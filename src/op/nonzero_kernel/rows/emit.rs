//! [`Emit`] for [`Rows`]: checks a chunk's rows fit the output once, then picks the walk for
//! the chunk by the CPU, the output's shape and the chunk's density.

#[cfg(target_arch = "x86_64")]
use super::avx2::{walk_avx2, walk_dense};
use super::{Emit, Rows, Sharing};
use crate::op::kind::OpKind;
use crate::op::nonzero_kernel::cursor::Coord;
#[cfg(target_arch = "x86_64")]
use crate::op::nonzero_kernel::one_pass::{Bits, Elements, Words};
use crate::op::nonzero_kernel::source::Packed;
#[cfg(target_arch = "x86_64")]
use crate::op::nonzero_kernel::{compress, one_pass};
#[cfg(target_arch = "x86_64")]
use crate::op::simd::dispatch::{compress_min_width, COMPRESS_BITS, COMPRESS_MIN_WIDTH};

const OP: &str = OpKind::NonZeroCoordinates.name();

/// Chunks with at least this many set bits per word on average are expanded eight elements at
/// a time (AVX2) rather than bit by bit. Deciding per chunk keeps the branch predictable.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by the x86-64 kernels only
const DENSE_BITS: usize = 12;
/// Rows of three or four columns are expanded from lines this long; shorter lines split words
/// into parts, each expanded (permuted and blended) whole, and the bit walk was faster (AMD
/// Zen 5, 3-D FLOAT32 input at density 0.5: 0.73x the expansion's time at 8 × 8 × 16, 0.82x at
/// 16 × 32 × 32).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by the x86-64 kernels only
const DENSE_MIN_WIDTH_3_4: u64 = 64;
impl<O: Coord, const N: usize, const PACKED: bool, S: Sharing> Emit for Rows<'_, O, N, PACKED, S> {
    unsafe fn one_pass(&self, input: Packed<'_>, start: u64, first_row: u64) -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        if self.isa.has_avx512() && !O::WIDE {
            // SAFETY: forwarded contract; the level allows AVX-512 F, BW, VL and VBMI2, BMI2 and
            // POPCNT.
            return unsafe {
                match input {
                    Packed::U8(data, mask) => {
                        self.one_pass_avx512(Elements { data, mask }, start, first_row)
                    }
                    Packed::U16(data, mask) => {
                        self.one_pass_avx512(Elements { data, mask }, start, first_row)
                    }
                    Packed::U32(data, mask) => {
                        self.one_pass_avx512(Elements { data, mask }, start, first_row)
                    }
                }
            };
        }
        let _ = (input, start, first_row);
        None
    }

    unsafe fn one_pass_words(
        &self,
        words: &[u64],
        len: u64,
        start: u64,
        first_row: u64,
        count: u64,
    ) -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        if self.isa.has_avx512() && !O::WIDE {
            let len = usize::try_from(len).ok()?;
            if words.len() != len.div_ceil(64) {
                return None;
            }
            let src = Words { words, len, count };
            // SAFETY: forwarded contract (`count` set bits in `words`, none past `len`: the
            // rows are one per set bit); the level allows AVX-512 F, BW, VL and VBMI2, BMI2 and
            // POPCNT.
            return unsafe { self.one_pass_avx512(src, start, first_row) };
        }
        let _ = (words, len, start, first_row, count);
        None
    }

    unsafe fn emit(&self, words: &[u64], start: u64, first_row: u64, count: u64) {
        debug_assert_eq!(
            count,
            words.iter().map(|w| u64::from(w.count_ones())).sum::<u64>()
        );
        if count == 0 {
            return;
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
        #[cfg(target_arch = "x86_64")]
        let chunk = compress::Chunk {
            words,
            start,
            first,
            end,
        };
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
                compress::walk_pairs::<N>(self.out.as_ptr().cast(), self.cs, &self.geo, chunk)
            };
            // SAFETY: as for the packed case below.
            unsafe { self.rest_avx2(words, start, done, row, end, last_col) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.isa.has_avx512()
            && PACKED
            && N <= 8
            && self.geo.width >= compress_min_width(N * (1 + O::WIDE as usize))
            && end - first >= COMPRESS_BITS * words.len()
        {
            // SAFETY: see above; the output is packed with N <= 8 columns, and the level
            // allows AVX-512 F, BW, VL and VBMI2, BMI1 and POPCNT.
            let (done, row) = unsafe {
                if N == if O::WIDE { 1 } else { 2 } {
                    compress::walk_lanes::<O, N>(self.out.as_ptr(), &self.geo, chunk)
                } else {
                    compress::walk::<O, N>(self.out.as_ptr(), &self.geo, chunk)
                }
            };
            // SAFETY: the rest of the words have `end - row` set bits, for rows `row .. end`, in
            // bounds and ours as above; the level allows AVX2.
            unsafe { self.rest_avx2(words, start, done, row, end, last_col) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.isa.has_avx2() {
            let dense = PACKED
                && !O::WIDE
                && N <= 4
                && last_col
                && (N <= 2 || self.geo.width >= DENSE_MIN_WIDTH_3_4);
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
            return;
        }
        // SAFETY: see above.
        unsafe {
            if last_col {
                self.walk::<true>(words, start, first, end);
            } else {
                self.walk::<false>(words, start, first, end);
            }
        }
    }
}

impl<O: Coord, const N: usize, const PACKED: bool, S: Sharing> Rows<'_, O, N, PACKED, S> {
    /// [`Emit::one_pass`] with AVX-512, for UINT32 coordinates of one column (a 1-D input,
    /// packed or in ONNX Runtime's layout) or two (the line position in the second, packed or
    /// in ONNX Runtime's layout), lines long enough.
    ///
    /// # Safety
    /// As for [`Emit::one_pass`]; the CPU has AVX-512 F, BW, VL and VBMI2, BMI2 and POPCNT, and
    /// the coordinates are UINT32.
    #[cfg(target_arch = "x86_64")]
    unsafe fn one_pass_avx512<B: Bits>(&self, src: B, start: u64, first_row: u64) -> Option<u64> {
        let out = self.out.as_ptr().cast::<u32>();
        let width = self.geo.width as usize;
        let (start, first_row) = (
            usize::try_from(start).ok()?,
            usize::try_from(first_row).ok()?,
        );
        // At most a row per element of the part, from its first: rows below `rows`.
        let rows = first_row.checked_add(src.len())?;
        if src.len() == 0 {
            return None;
        }
        if N == 1 && self.geo.width >= COMPRESS_MIN_WIDTH {
            // One column: a 1-D input (or one whose other dimensions are 1), one line.
            let stride = if PACKED { 1 } else { self.rs };
            let last = (rows - 1).checked_mul(stride);
            if (stride == 1 || (stride == 2 && S::DISJOINT))
                && last.is_some_and(|l| l < self.out.len())
            {
                // SAFETY: the elements `stride × r` of the rows below `rows` are in the output
                // (checked), the part's rows from `first_row` are accessed by no other thread
                // (caller).
                return unsafe {
                    one_pass::one_pass_column(out.add(stride * first_row), stride, src, start)
                };
            }
        }
        // Two columns, the line position in the second: the first is then the line's index
        // (the input's dimensions before those two are 1).
        if N == 2 && self.geo.line - self.geo.first == 1 {
            if PACKED && self.geo.width >= COMPRESS_MIN_WIDTH && self.out.len() >= 2 * rows {
                // SAFETY: the output is packed with room for the rows below `rows` (checked),
                // and the part's rows are accessed by no other thread (caller).
                return unsafe {
                    one_pass::one_pass_packed(out.add(2 * first_row), src, start, width)
                };
            }
            // The last row's second column.
            let last = (2 * (rows - 1)).checked_add(self.cs);
            if !PACKED
                && S::DISJOINT
                && self.rs == 2
                && self.cs >= 2
                && self.geo.width >= COMPRESS_MIN_WIDTH
                && last.is_some_and(|l| l < self.out.len())
            {
                // SAFETY: as above, in ONNX Runtime's layout: the last row's second column,
                // element 2 (rows - 1) + cs, is in the output (checked), and the layout is
                // proven disjoint.
                return unsafe {
                    one_pass::one_pass_pairs(out.add(2 * first_row), self.cs, src, start, width)
                };
            }
        }
        None
    }
}
