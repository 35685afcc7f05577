//! Input masking: a [`Source`] turns a range of input elements into nonzero bitmask words, by a
//! SIMD compare (packed input), a gather through a [`StridedCursor`] (strided input) or tiles
//! (a transposed input).

use crate::op::simd::{mask_tail, Isa, Word};
use crate::tensor::{Layout, MAX_DIMS};

/// A packed input's elements of 8, 16 or 32 bits and the mask (an element is nonzero when it
/// AND the mask is not zero).
#[derive(Clone, Copy)]
pub(super) enum Packed<'a> {
    U8(&'a [u8], u8),
    U16(&'a [u16], u16),
    U32(&'a [u32], u32),
}

impl Packed<'_> {
    /// Elements `start .. end` only.
    pub fn range(self, start: usize, end: usize) -> Self {
        match self {
            Packed::U8(d, k) => Packed::U8(&d[start..end], k),
            Packed::U16(d, k) => Packed::U16(&d[start..end], k),
            Packed::U32(d, k) => Packed::U32(&d[start..end], k),
        }
    }
}

/// Where the input's elements come from, as bitmasks.
pub(super) struct Source<'a, U> {
    data: &'a [U],
    mask: U,
    isa: Isa,
    /// `None` for a packed input.
    strided: Option<Strides>,
    /// The line width when the strided input is read in tiles (see [`Source::tiled_masks`]).
    tiled: Option<u64>,
}

impl<'a, U: Word> Source<'a, U> {
    pub fn new(input: &'a [u8], layout: &Layout, mask: U, isa: Isa) -> Self {
        let data: &[U] = bytemuck::cast_slice(&input[..input.len() / U::SIZE * U::SIZE]);
        let strided = (!layout.packed).then(|| Strides::new(layout));
        let tiled = strided.as_ref().and_then(|s| s.tile_width(U::SIZE));
        Source {
            data,
            mask,
            isa,
            strided,
            tiled,
        }
    }

    /// The input's elements and the mask, when the input is packed and its elements are 8, 16
    /// or 32 bits.
    pub fn packed(&self) -> Option<Packed<'a>> {
        if self.strided.is_some() {
            return None;
        }
        let m: &[u8] = bytemuck::cast_slice(core::slice::from_ref(&self.mask));
        match U::SIZE {
            1 => Some(Packed::U8(bytemuck::cast_slice(self.data), m[0])),
            2 => Some(Packed::U16(
                bytemuck::cast_slice(self.data),
                u16::from_ne_bytes([m[0], m[1]]),
            )),
            4 => Some(Packed::U32(
                bytemuck::cast_slice(self.data),
                u32::from_ne_bytes([m[0], m[1], m[2], m[3]]),
            )),
            _ => None,
        }
    }

    /// How the input is read: 0 packed, 1 gathered through its strides, 2 in tiles.
    pub fn class(&self) -> usize {
        match (&self.strided, self.tiled) {
            (None, _) => 0,
            (Some(_), None) => 1,
            (Some(_), Some(_)) => 2,
        }
    }

    /// The fewest elements a chunk should hold: for a tiled input, `64 × GROUPS` whole lines
    /// (so that each of its columns is read a page at a time), else 0.
    pub fn min_chunk(&self) -> u64 {
        self.tiled.map_or(0, |width| width * (64 * GROUPS) as u64)
    }

    /// Fills `words` with the nonzero bitmask of elements `[start, end)` (bit i of word w is
    /// element `start + 64 w + i`; `words` holds exactly the words that range needs) and returns
    /// how many bits are set.
    pub fn masks(&self, start: u64, end: u64, words: &mut [u64]) -> u64 {
        let n = (end - start) as usize;
        let whole = n / 64;
        let mut total;
        match &self.strided {
            None => {
                let data = &self.data[start as usize..end as usize];
                let (blocks, rest) = data.split_at(whole * 64);
                total = U::mask_blocks(blocks, self.mask, &mut words[..whole], self.isa);
                if !rest.is_empty() {
                    let m = mask_tail(rest, self.mask);
                    total += u64::from(m.count_ones());
                    words[whole] = m;
                }
            }
            Some(strides) => {
                total = match self.tiled {
                    // Whole lines go through the tiled path; partial ones at either end (whole
                    // words, as the width is a multiple of 64 and `start` of 64) do not.
                    Some(width) if start.div_ceil(width) < end / width => {
                        let (r0, r1) = (start.div_ceil(width) * width, end / width * width);
                        let (w0, w1) = (((r0 - start) / 64) as usize, ((r1 - start) / 64) as usize);
                        self.gather_masks(strides, start, r0, &mut words[..w0])
                            + self.tiled_masks(strides, r0, r1, &mut words[w0..w1])
                            + self.gather_masks(strides, r1, end, &mut words[w1..])
                    }
                    _ => self.gather_masks(strides, start, end, words),
                };
            }
        }
        total
    }

    /// [`Source::masks`] for a strided input, element by element in row-major order.
    fn gather_masks(&self, strides: &Strides, start: u64, end: u64, words: &mut [u64]) -> u64 {
        if start == end {
            return 0;
        }
        let n = (end - start) as usize;
        let mut cur = StridedCursor::at(strides, start);
        let mut block = [U::ZERO; 64];
        let mut total = 0;
        for (wi, w) in words.iter_mut().enumerate() {
            let len = (n - wi * 64).min(64);
            cur.gather(strides, self.data, &mut block[..len]);
            let m = if len == 64 {
                U::mask_blocks(&block, self.mask, core::slice::from_mut(w), self.isa);
                *w
            } else {
                mask_tail(&block[..len], self.mask)
            };
            total += u64::from(m.count_ones());
            *w = m;
        }
        total
    }

    /// [`Source::masks`] for whole lines `[r0, r1)` of an input whose line elements lie in
    /// different cache lines but whose neighbouring lines share them (a transposed matrix).
    /// Tiles of up to 64 lines by 64 columns are read column by column, so consecutive loads
    /// share cache lines; each column's bits are then scattered into the lines' words.
    fn tiled_masks(&self, strides: &Strides, r0: u64, r1: u64, words: &mut [u64]) -> u64 {
        let last = strides.dims - 1;
        let width = strides.sizes[last] as usize;
        let step = strides.strides[last] as usize;
        let per_line = width / 64;
        let lines = ((r1 - r0) as usize) / width;
        let first = r0 / width as u64;
        let mut bases = [0usize; 64];
        let mut total = 0;
        let mut t0 = 0;
        while t0 < lines {
            // Lines next to each other in memory (a transposed matrix): up to GROUPS tiles at
            // once, so that each column is read GROUPS × 64 elements at a time, in one page.
            let h = (64 * GROUPS).min(lines - t0);
            let b0 = strides.line_offset(first + t0 as u64) as usize;
            if h > 64
                && (1..h).all(|k| strides.line_offset(first + (t0 + k) as u64) as usize == b0 + k)
            {
                total += self.adjacent_tiles(b0, step, per_line, h, &mut words[t0 * per_line..]);
                t0 += h;
                continue;
            }
            let nt = 64.min(lines - t0);
            for (k, b) in bases[..nt].iter_mut().enumerate() {
                *b = strides.line_offset(first + (t0 + k) as u64) as usize;
            }
            let bases = &bases[..nt];
            // Lines next to each other in memory (a transposed matrix): a column of the tile is
            // nt consecutive elements, masked like a packed input.
            let adjacent = bases.iter().enumerate().all(|(k, &b)| b == bases[0] + k);
            for col in 0..per_line {
                // Column masks first: independent loads, no branches, so many cache misses
                // are in flight at once. Bit k: line t0 + k is nonzero in that column.
                let mut cols = [0u64; 64];
                for (j, m) in cols.iter_mut().enumerate() {
                    let at = (col * 64 + j) * step;
                    prefetch(self.data, bases[0] + at + PREFETCH_COLUMNS * step);
                    if adjacent {
                        let run = &self.data[bases[0] + at..][..nt];
                        if nt == 64 {
                            U::mask_blocks(run, self.mask, core::slice::from_mut(m), self.isa);
                        } else {
                            *m = mask_tail(run, self.mask);
                        }
                        continue;
                    }
                    for (k, &b) in bases.iter().enumerate() {
                        *m |= u64::from(self.data[b + at].and(self.mask) != U::ZERO) << k;
                    }
                }
                // Then the bit matrix transposed: word k holds line t0 + k's bits.
                transpose64(&mut cols);
                for (k, &w) in cols[..nt].iter().enumerate() {
                    words[(t0 + k) * per_line + col] = w;
                    total += u64::from(w.count_ones());
                }
            }
            t0 += nt;
        }
        total
    }

    /// [`Source::tiled_masks`] for `h` lines (at most `64 × GROUPS`) whose first elements are
    /// adjacent from element `b0` on: each column's `h` elements are one contiguous run,
    /// masked like a packed input; `words` starts at the first line's first word.
    fn adjacent_tiles(
        &self,
        b0: usize,
        step: usize,
        per_line: usize,
        h: usize,
        words: &mut [u64],
    ) -> u64 {
        let groups = h.div_ceil(64);
        let whole = h / 64;
        let mut cols = [[0u64; 64]; GROUPS];
        let mut total = 0;
        for col in 0..per_line {
            for j in 0..64 {
                let at = b0 + (col * 64 + j) * step;
                prefetch(self.data, at + PREFETCH_COLUMNS * step);
                let run = &self.data[at..][..h];
                let mut tile = [0u64; GROUPS];
                U::mask_blocks(&run[..whole * 64], self.mask, &mut tile[..whole], self.isa);
                if whole < groups {
                    tile[whole] = mask_tail(&run[whole * 64..], self.mask);
                }
                for (c, &w) in cols[..groups].iter_mut().zip(&tile) {
                    c[j] = w;
                }
            }
            for (g, c) in cols[..groups].iter_mut().enumerate() {
                transpose64(c);
                let n = 64.min(h - 64 * g);
                for (k, &w) in c[..n].iter().enumerate() {
                    words[(64 * g + k) * per_line + col] = w;
                    total += u64::from(w.count_ones());
                }
            }
        }
        total
    }
}

/// Tiles of 64 lines that [`Source::adjacent_tiles`] reads at once: 16 × 64 elements of four
/// bytes are a 4 KiB page per column.
const GROUPS: usize = 16;

/// Transposes a 64 × 64 bit matrix in place: bit c of word r moves to bit r of word c. Blocks
/// are swapped across the diagonal, halving in size: 32 × 32, then 16 × 16 within each, and so
/// on (six passes of 32 word pairs, instead of one step per bit).
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        for k in 0..64 {
            if k & j == 0 {
                // The high-column block of row k and the low-column block of row k + j.
                let t = ((a[k] >> j) ^ a[k + j]) & m;
                a[k] ^= t << j;
                a[k + j] ^= t;
            }
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// Columns ahead that [`Source::tiled_masks`] asks the CPU to fetch.
const PREFETCH_COLUMNS: usize = 8;

/// Hints that `data[i]` will be read soon (nothing when `i` is out of bounds).
#[inline(always)]
fn prefetch<U>(data: &[U], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = data.get(i) {
        // SAFETY: a prefetch hint never faults and has no effect on memory; the address is an
        // element of `data` anyway.
        unsafe {
            core::arch::x86_64::_mm_prefetch(
                (x as *const U).cast(),
                core::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, i);
}

/// A strided input's dimensions larger than 1, outermost first.
struct Strides {
    sizes: [u64; MAX_DIMS],
    strides: [u64; MAX_DIMS],
    dims: usize,
}

impl Strides {
    fn new(l: &Layout) -> Strides {
        let mut s = Strides {
            sizes: [1; MAX_DIMS],
            strides: [0; MAX_DIMS],
            dims: 0,
        };
        for d in 0..l.dims {
            if l.sizes[d] > 1 {
                s.sizes[s.dims] = u64::from(l.sizes[d]);
                s.strides[s.dims] = l.strides[d];
                s.dims += 1;
            }
        }
        if s.dims == 0 {
            s.dims = 1;
        }
        s
    }

    /// The line width when tiles pay: at least two dimensions, a line a whole number of words
    /// long, line elements in different cache lines and neighbouring lines in the same ones.
    fn tile_width(&self, size: usize) -> Option<u64> {
        let d = self.dims;
        let pays = d >= 2
            && self.sizes[d - 1].is_multiple_of(64)
            && self.strides[d - 1] as usize * size >= 64
            && self.strides[d - 2] != 0
            && self.strides[d - 2] as usize * size <= 32;
        pays.then_some(self.sizes[d - 1])
    }

    /// The offset of the first element of line `line` (the flat index over all dimensions but
    /// the last).
    fn line_offset(&self, mut line: u64) -> u64 {
        let mut off = 0;
        for d in (0..self.dims - 1).rev() {
            off += line % self.sizes[d] * self.strides[d];
            line /= self.sizes[d];
        }
        off
    }
}

/// Walks a strided input in row-major order, tracking the element offset.
struct StridedCursor {
    idx: [u64; MAX_DIMS],
    offset: u64,
}

impl StridedCursor {
    fn at(s: &Strides, flat: u64) -> StridedCursor {
        let mut c = StridedCursor {
            idx: [0; MAX_DIMS],
            offset: 0,
        };
        let mut rest = flat;
        for d in (0..s.dims).rev() {
            c.idx[d] = rest % s.sizes[d];
            rest /= s.sizes[d];
            c.offset += c.idx[d] * s.strides[d];
        }
        c
    }

    /// Reads the next `out.len()` elements.
    #[inline]
    fn gather<U: Word>(&mut self, s: &Strides, data: &[U], out: &mut [U]) {
        let last = s.dims - 1;
        let (size, stride) = (s.sizes[last], s.strides[last]);
        let mut k = 0;
        while k < out.len() {
            let take = ((size - self.idx[last]) as usize).min(out.len() - k);
            let mut off = self.offset as usize;
            for slot in &mut out[k..k + take] {
                *slot = data[off];
                off += stride as usize;
            }
            k += take;
            self.idx[last] += take as u64;
            self.offset = off as u64;
            if self.idx[last] == size {
                self.carry(s);
            }
        }
    }

    /// Moves from one past the end of the innermost dimension to the start of the next line.
    fn carry(&mut self, s: &Strides) {
        let mut d = s.dims - 1;
        loop {
            self.offset = self
                .offset
                .wrapping_sub(s.sizes[d].wrapping_mul(s.strides[d]));
            self.idx[d] = 0;
            if d == 0 {
                return;
            }
            d -= 1;
            self.idx[d] += 1;
            self.offset = self.offset.wrapping_add(s.strides[d]);
            if self.idx[d] < s.sizes[d] {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{transpose64, Source};
    use crate::op::simd::Isa;
    use crate::tensor::{Ctx, DataType, Layout, TensorDesc};
    use crate::test_util::xorshift;

    /// Packed, gathered and tiled inputs are three classes of work (each has its own rates).
    #[test]
    fn each_way_of_reading_is_its_own_class() {
        let ctx = Ctx {
            op: "TEST",
            tensor: "InputTensor",
        };
        let class = |sizes: &[u32], strides: &[u32]| {
            let desc = TensorDesc::with_strides(DataType::Float32, sizes, strides);
            let l = Layout::validate(&desc, DataType::Float32, ctx, u64::from(u32::MAX))
                .expect("a valid layout");
            let bytes = vec![0u8; l.total_bytes as usize];
            Source::<u32>::new(&bytes, &l, u32::MAX, Isa::detect()).class()
        };
        assert_eq!(class(&[64, 128], &[128, 1]), 0, "packed");
        assert_eq!(class(&[64, 128], &[1, 0]), 1, "broadcast rows: gathered");
        assert_eq!(class(&[64, 128], &[1, 64]), 2, "transposed: tiled");
    }

    /// A tiled input masked a few words at a time (as a part whose whole bitmask could not be
    /// allocated is) gives the bitmask that whole pages of lines give.
    #[test]
    fn a_tiled_input_masks_the_same_in_short_steps() {
        let ctx = Ctx {
            op: "TEST",
            tensor: "InputTensor",
        };
        let (rows, cols) = (300u32, 4096u32);
        let desc = TensorDesc::with_strides(DataType::Float32, &[rows, cols], &[1, rows]);
        let l = Layout::validate(&desc, DataType::Float32, ctx, u64::from(u32::MAX))
            .expect("a valid layout");
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let bytes: Vec<u8> = (0..l.total_bytes)
            .map(|_| u8::from(xorshift(&mut seed).is_multiple_of(5)))
            .collect();
        let src = Source::<u32>::new(&bytes, &l, u32::MAX, Isa::detect());
        assert_eq!(src.class(), 2, "tiled");
        let m = u64::from(rows) * u64::from(cols);
        let mut whole = vec![0u64; m.div_ceil(64) as usize];
        let total = src.masks(0, m, &mut whole);
        for step_words in [1u64, 3, 4, 64] {
            let mut stepped = vec![0u64; whole.len()];
            let mut count = 0;
            let mut at = 0;
            while at < m {
                let stop = (at + 64 * step_words).min(m);
                let w0 = (at / 64) as usize;
                count += src.masks(
                    at,
                    stop,
                    &mut stepped[w0..w0 + ((stop - at) as usize).div_ceil(64)],
                );
                at = stop;
            }
            assert_eq!(count, total, "{step_words} words a step");
            assert_eq!(stepped, whole, "{step_words} words a step");
        }
    }

    #[test]
    fn transpose64_moves_every_bit() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..50 {
            let mut a = [0u64; 64];
            for w in a.iter_mut() {
                *w = xorshift(&mut seed);
            }
            let mut t = a;
            transpose64(&mut t);
            for (r, &row) in a.iter().enumerate() {
                for (c, &col) in t.iter().enumerate() {
                    assert_eq!(row >> c & 1, col >> r & 1, "bit ({r}, {c})");
                }
            }
        }
    }
}
