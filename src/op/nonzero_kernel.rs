//! The NONZERO_COORDINATES kernel (validation is in `nonzero.rs`).
//!
//! Two halves meet in [`drive`]: a [`Source`] turns a range of input elements into bitmask
//! words (a SIMD compare for a packed input, a gather for a strided one, tiles for a
//! transposed one), and an [`Emit`] walks the set bits of those words and writes coordinate
//! rows. Coordinates advance line by line: a line is the run of elements along the innermost
//! dimension larger than 1, so within a line only one column changes and the others come from
//! a template row. How a chunk is walked depends on its density: sparse chunks find their
//! nonzero words from a summary word, dense ones (AVX2, packed UINT32 output) expand eight
//! elements at a time, the rest walk the set bits eight at a time.
//!
//! Small inputs run serially with their bitmask on the stack. Large ones run in rounds of
//! chunks on the workers: each trip through the pool writes the rows of the previous round's
//! chunks (a prefix sum of their counts gives each its first row) and masks the next round's.
//! The input is read once; the scratch is two bitmasks per task.

use rayon::prelude::*;

use super::nonzero::NonZeroPlan;
use super::simd::{self, Isa};
use super::{OutView, Word, Workers};
use crate::error::{Error, Result};
use crate::tensor::{Layout, MAX_DIMS};

const OP: &str = "NONZERO_COORDINATES";

/// Elements per parallel task (a multiple of 64); its bitmask is 16 KiB. On two workers a
/// round of `TASKS_PER_WORKER` tasks each is then two million elements, so a 16M-element input
/// takes 8 trips through the pool.
const CHUNK: u64 = 1 << 17;
/// The smallest parallel task (smaller inputs get smaller chunks, for at least four rounds).
const MIN_CHUNK: u64 = 1 << 14;
/// Tasks per worker in one round. More than one lets the others take over the work of a worker
/// that falls behind (the machine may be shared); with eight, a round ends at most one task
/// (an eighth of a worker's share) after its last worker could have finished.
const TASKS_PER_WORKER: usize = 8;
/// The most workers one execution uses.
const MAX_THREADS: usize = 64;
const MAX_TASKS: usize = MAX_THREADS * TASKS_PER_WORKER;
/// Inputs below this many elements run serially.
const PARALLEL_MIN: u64 = 1 << 17;
/// Bitmask words the serial path works on at a time (on the stack).
const SERIAL_WORDS: usize = 64;
/// A cursor more than this many lines behind jumps by division instead of stepping.
const MAX_STEP_LINES: u64 = 8;

/// Coordinate output element types (UINT32, or UINT64 / INT64 as raw 64-bit words).
pub(crate) trait Coord: Copy + Send + Sync + bytemuck::Pod + Default {
    /// True for 64-bit coordinates.
    const WIDE: bool;
    fn from_u64(v: u64) -> Self;
    /// The low 32 bits.
    fn low32(self) -> u32;
}
impl Coord for u32 {
    const WIDE: bool = false;
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as u32
    }
    #[inline(always)]
    fn low32(self) -> u32 {
        self
    }
}
impl Coord for u64 {
    const WIDE: bool = true;
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v
    }
    #[inline(always)]
    fn low32(self) -> u32 {
        self as u32
    }
}

/// Runs the operator. `input` holds the input tensor's bytes, `count` and `coords` the outputs';
/// all are at least their tensor's `TotalTensorSizeInBytes` long and aligned to the element size.
pub(crate) fn execute(
    plan: &NonZeroPlan,
    input: &[u8],
    count: &mut [u8],
    coords: &mut [u8],
    workers: Workers<'_>,
) -> Result<()> {
    let total = match plan.coords.dtype.size() {
        4 => with_output::<u32>(plan, input, coords, workers)?,
        _ => with_output::<u64>(plan, input, coords, workers)?,
    };
    match plan.coords.dtype.size() {
        4 => count[..4].copy_from_slice(&(total as u32).to_ne_bytes()),
        _ => count[..8].copy_from_slice(&total.to_ne_bytes()),
    }
    Ok(())
}

/// Picks the row writer for the output type, then the bitmask source for the input type.
fn with_output<O: Coord>(
    plan: &NonZeroPlan,
    input: &[u8],
    coords: &mut [u8],
    workers: Workers<'_>,
) -> Result<u64> {
    let len = coords.len() / size_of::<O>();
    let out = OutView::<O>::new(bytemuck::cast_slice_mut(
        &mut coords[..len * size_of::<O>()],
    ));
    let k = plan.coords.dims;
    let n = plan.columns;
    let m = plan.input.elements;
    // Strides that never matter are normalised, so that more layouts count as packed.
    let rs = if m == 1 {
        n
    } else {
        plan.coords.strides[k - 2] as usize
    };
    let cs = if n == 1 {
        1
    } else {
        plan.coords.strides[k - 1] as usize
    };
    let geo = Geometry::new(&plan.input, n);
    let isa = simd::isa();
    macro_rules! emit {
        ($n:literal) => {
            if rs == $n && cs == 1 {
                let rows = Rows::<O, $n, true> {
                    out,
                    rs,
                    cs,
                    geo,
                    isa,
                };
                go(plan, input, &rows, workers)
            } else {
                let rows = Rows::<O, $n, false> {
                    out,
                    rs,
                    cs,
                    geo,
                    isa,
                };
                go(plan, input, &rows, workers)
            }
        };
    }
    match n {
        1 => emit!(1),
        2 => emit!(2),
        3 => emit!(3),
        4 => emit!(4),
        5 => emit!(5),
        6 => emit!(6),
        7 => emit!(7),
        _ => emit!(8),
    }
}

fn go(plan: &NonZeroPlan, input: &[u8], rows: &dyn Emit, workers: Workers<'_>) -> Result<u64> {
    let is_float = plan.input.dtype.is_float();
    let isa = simd::isa();
    match plan.input.dtype.size() {
        1 => drive(
            &Source::<u8>::new(input, &plan.input, 0xFF, isa),
            rows,
            plan,
            workers,
        ),
        2 => {
            let mask = if is_float { 0x7FFF } else { u16::MAX };
            drive(
                &Source::<u16>::new(input, &plan.input, mask, isa),
                rows,
                plan,
                workers,
            )
        }
        4 => {
            let mask = if is_float { 0x7FFF_FFFF } else { u32::MAX };
            drive(
                &Source::<u32>::new(input, &plan.input, mask, isa),
                rows,
                plan,
                workers,
            )
        }
        _ => {
            let mask = if is_float { u64::MAX >> 1 } else { u64::MAX };
            drive(
                &Source::<u64>::new(input, &plan.input, mask, isa),
                rows,
                plan,
                workers,
            )
        }
    }
}

/// Masks and writes every element, serially or in parallel rounds; returns the row count.
fn drive<U: Word>(
    src: &Source<'_, U>,
    rows: &dyn Emit,
    plan: &NonZeroPlan,
    workers: Workers<'_>,
) -> Result<u64> {
    let m = plan.input.elements;
    let threads = workers.threads.min(MAX_THREADS);
    if threads <= 1 || m < PARALLEL_MIN || !plan.coords.distinct {
        // Small inputs mask on the stack (no allocation); large ones a chunk at a time, as the
        // parallel path does.
        if m <= 64 {
            return Ok(serial(src, rows, m, &mut [0u64; 1]));
        }
        if m < PARALLEL_MIN {
            return Ok(serial(src, rows, m, &mut [0u64; SERIAL_WORDS]));
        }
        let n = (CHUNK / 64) as usize;
        let mut heap = Vec::new();
        heap.try_reserve_exact(n)
            .map_err(|_| Error::OutOfMemory(format!("{OP}: no memory for a bitmask chunk")))?;
        heap.resize(n, 0);
        return Ok(serial(src, rows, m, &mut heap));
    }

    // Parallel rounds of `tasks` chunks. Each step writes the rows of the previous round (whose
    // first rows the prefix sum gave) and masks the chunks of the next one, so a round costs
    // one trip through the pool.
    let tasks = threads * TASKS_PER_WORKER;
    // At least four rounds, with chunks from MIN_CHUNK to CHUNK elements.
    let chunk = (m / (4 * tasks as u64) / 64 * 64).clamp(MIN_CHUNK, CHUNK);
    let per_chunk = (chunk / 64) as usize;
    let mut scratch: Vec<u64> = Vec::new();
    scratch
        .try_reserve_exact(2 * tasks * per_chunk)
        .map_err(|_| Error::OutOfMemory(format!("{OP}: no memory for {tasks} bitmask chunks")))?;
    scratch.resize(2 * tasks * per_chunk, 0);
    let (mut cur, mut next) = scratch.split_at_mut(tasks * per_chunk);
    let mut cur_counts = [0u64; MAX_TASKS];
    let mut next_counts = [0u64; MAX_TASKS];
    let round_len = tasks as u64 * chunk;
    let range = |round: u64, i: usize| {
        let s = (round * round_len + i as u64 * chunk).min(m);
        (s, (s + chunk).min(m))
    };
    let nwords = |(s, e): (u64, u64)| ((e - s) as usize).div_ceil(64);
    let total = workers.run(|| {
        cur.par_chunks_mut(per_chunk)
            .zip(cur_counts[..tasks].par_iter_mut())
            .enumerate()
            .for_each(|(i, (words, count))| {
                let (s, e) = range(0, i);
                *count = if s < e {
                    src.masks(s, e, &mut words[..nwords((s, e))])
                } else {
                    0
                };
            });
        let mut row = 0u64;
        let mut round = 0u64;
        while round * round_len < m {
            let mut firsts = [0u64; MAX_TASKS];
            for (f, &c) in firsts[..tasks].iter_mut().zip(&cur_counts[..tasks]) {
                *f = row;
                row += c;
            }
            let more = (round + 1) * round_len < m;
            let (firsts, counts) = (&firsts, &cur_counts);
            cur.par_chunks(per_chunk)
                .zip(next.par_chunks_mut(per_chunk))
                .zip(next_counts[..tasks].par_iter_mut())
                .enumerate()
                .for_each(|(i, ((words, next_words), next_count))| {
                    let r = range(round, i);
                    if counts[i] > 0 {
                        // SAFETY: task i writes rows firsts[i] .. firsts[i] + counts[i] (its
                        // words have counts[i] set bits), which no other task writes, and the
                        // coordinates layout gives distinct elements distinct addresses
                        // (checked above).
                        unsafe { rows.emit(&words[..nwords(r)], r.0, firsts[i]) };
                    }
                    if more {
                        let (s, e) = range(round + 1, i);
                        *next_count = if s < e {
                            src.masks(s, e, &mut next_words[..nwords((s, e))])
                        } else {
                            0
                        };
                    }
                });
            core::mem::swap(&mut cur, &mut next);
            core::mem::swap(&mut cur_counts, &mut next_counts);
            round += 1;
        }
        row
    })?;
    Ok(total)
}

/// Masks and writes every element on this thread, `words.len()` words at a time; returns the
/// row count.
#[inline(always)]
fn serial<U: Word>(src: &Source<'_, U>, rows: &dyn Emit, m: u64, words: &mut [u64]) -> u64 {
    let step = 64 * words.len() as u64;
    let mut row = 0u64;
    let mut start = 0u64;
    while start < m {
        let end = (start + step).min(m);
        let words = &mut words[..((end - start) as usize).div_ceil(64)];
        if src.masks(start, end, words) > 0 {
            // SAFETY: this thread is the only writer.
            row += unsafe { rows.emit(words, start, row) };
        }
        start = end;
    }
    row
}

/// Where the input's elements come from, as bitmasks.
struct Source<'a, U> {
    data: &'a [U],
    mask: U,
    isa: Isa,
    /// `None` for a packed input.
    strided: Option<Strides>,
    /// The line width when the strided input is read in tiles (see [`Source::tiled_masks`]).
    tiled: Option<u64>,
}

impl<'a, U: Word> Source<'a, U> {
    fn new(input: &'a [u8], layout: &Layout, mask: U, isa: Isa) -> Self {
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

    /// Fills `words` with the nonzero bitmask of elements `[start, end)` (bit i of word w is
    /// element `start + 64 w + i`; `words` holds exactly the words that range needs) and returns
    /// how many bits are set.
    fn masks(&self, start: u64, end: u64, words: &mut [u64]) -> u64 {
        let n = (end - start) as usize;
        let whole = n / 64;
        let mut total;
        match &self.strided {
            None => {
                let data = &self.data[start as usize..end as usize];
                let (blocks, rest) = data.split_at(whole * 64);
                total = U::mask_blocks(blocks, self.mask, &mut words[..whole], self.isa);
                if !rest.is_empty() {
                    let m = simd::mask_tail(rest, self.mask);
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
                simd::mask_tail(&block[..len], self.mask)
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
        for t0 in (0..lines).step_by(64) {
            let nt = 64.min(lines - t0);
            for (k, b) in bases[..nt].iter_mut().enumerate() {
                *b = strides.line_offset(first + (t0 + k) as u64) as usize;
            }
            let bases = &bases[..nt];
            for col in 0..per_line {
                // Column masks first: independent loads, no branches, so many cache misses
                // are in flight at once. Bit k: line t0 + k is nonzero in that column.
                let mut cols = [0u64; 64];
                for (j, m) in cols.iter_mut().enumerate() {
                    let at = (col * 64 + j) * step;
                    prefetch(self.data, bases[0] + at + PREFETCH_COLUMNS * step);
                    for (k, &b) in bases.iter().enumerate() {
                        *m |= u64::from(self.data[b + at].and(self.mask) != U::ZERO) << k;
                    }
                }
                // Then the bit matrix transposed into each line's word.
                for k in 0..nt {
                    let mut w = 0u64;
                    for (j, &m) in cols.iter().enumerate() {
                        w |= (m >> k & 1) << j;
                    }
                    words[(t0 + k) * per_line + col] = w;
                    total += u64::from(w.count_ones());
                }
            }
        }
        total
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
            && self.sizes[d - 1] % 64 == 0
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

/// The input's shape as the coordinate walk sees it.
#[derive(Clone, Copy)]
struct Geometry {
    sizes: [u64; MAX_DIMS],
    /// The line dimension: the innermost one larger than 1 (the last one if none is).
    line: usize,
    /// Its size.
    width: u64,
    /// The input dimension of a row's first column (`dims - N`); dimensions before it are 1.
    first: usize,
}

impl Geometry {
    fn new(l: &Layout, n: usize) -> Geometry {
        let mut sizes = [1u64; MAX_DIMS];
        for (s, &l) in sizes.iter_mut().zip(l.sizes()) {
            *s = u64::from(l);
        }
        let line = (0..l.dims)
            .rev()
            .find(|&d| sizes[d] > 1)
            .unwrap_or(l.dims - 1);
        Geometry {
            sizes,
            line,
            width: sizes[line],
            first: l.dims - n,
        }
    }
}

/// The coordinates of the current line, as a template row (the line column reads 0).
struct Cursor<O, const N: usize> {
    row: [O; N],
    idx: [u64; MAX_DIMS],
    line_start: u64,
    line_end: u64,
}

impl<O: Coord, const N: usize> Cursor<O, N> {
    fn at(g: &Geometry, flat: u64) -> Self {
        let line_no = flat / g.width;
        let mut c = Cursor {
            row: [O::default(); N],
            idx: [0; MAX_DIMS],
            line_start: line_no * g.width,
            line_end: line_no * g.width + g.width,
        };
        let mut rest = line_no;
        for d in (g.first..g.line).rev() {
            c.idx[d] = rest % g.sizes[d];
            rest /= g.sizes[d];
            c.row[d - g.first] = O::from_u64(c.idx[d]);
        }
        c
    }

    /// Moves to the line holding flat index `pos` (not before the current line).
    #[inline(always)]
    fn reach(&mut self, g: &Geometry, pos: u64) {
        if pos < self.line_end {
            return;
        }
        if pos - self.line_end >= MAX_STEP_LINES * g.width {
            *self = Cursor::at(g, pos);
            return;
        }
        while pos >= self.line_end {
            self.next_line(g);
        }
    }

    /// After dimension `d`'s index went past its size (by any amount), carries into the
    /// dimensions before it.
    #[cold]
    fn carry(&mut self, g: &Geometry, mut d: usize) {
        while d > g.first && self.idx[d] >= g.sizes[d] {
            let q = self.idx[d] / g.sizes[d];
            self.idx[d] %= g.sizes[d];
            self.row[d - g.first] = O::from_u64(self.idx[d]);
            d -= 1;
            self.idx[d] += q;
            self.row[d - g.first] = O::from_u64(self.idx[d]);
        }
    }

    #[inline(always)]
    fn next_line(&mut self, g: &Geometry) {
        self.line_start += g.width;
        self.line_end += g.width;
        let mut d = g.line;
        while d > g.first {
            d -= 1;
            self.idx[d] += 1;
            if self.idx[d] < g.sizes[d] {
                self.row[d - g.first] = O::from_u64(self.idx[d]);
                return;
            }
            self.idx[d] = 0;
            self.row[d - g.first] = O::default();
        }
    }
}

/// Writes coordinate rows.
trait Emit: Sync {
    /// Writes one row per set bit of `words` (bit i of word w is element `start + 64 w + i`),
    /// from row `first_row` on; returns the number of rows written.
    ///
    /// # Safety
    /// No other thread may write the rows `first_row ..` that this call writes while it runs.
    unsafe fn emit(&self, words: &[u64], start: u64, first_row: u64) -> u64;
}

/// The coordinates output: N columns, packed (`rs == N`, `cs == 1`) or strided.
struct Rows<'a, O, const N: usize, const PACKED: bool> {
    out: OutView<'a, O>,
    rs: usize,
    cs: usize,
    geo: Geometry,
    isa: Isa,
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

impl<O: Coord, const N: usize, const PACKED: bool> Rows<'_, O, N, PACKED> {
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
                let mut bits = w;
                while bits != 0 {
                    let pos = base + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    cur.reach(g, pos);
                    // SAFETY: one row per set bit, so `row` stays below `end`.
                    unsafe { self.put::<LAST>(row, &cur.row, xcol, pos - cur.line_start) };
                    row += 1;
                }
            }
        }
        debug_assert_eq!(row, end);
    }
}

impl<O: Coord, const N: usize, const PACKED: bool> Rows<'_, O, N, PACKED> {
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
unsafe fn walk_avx2<O: Coord, const N: usize, const PACKED: bool, const LAST: bool>(
    rows: &Rows<'_, O, N, PACKED>,
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
unsafe fn walk_dense<O: Coord, const N: usize, const PACKED: bool>(
    rows: &Rows<'_, O, N, PACKED>,
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
            let mut bits = w;
            while bits != 0 {
                let pos = base + u64::from(bits.trailing_zeros());
                bits &= bits - 1;
                cur.reach(g, pos);
                // SAFETY: one row per set bit, so `row` stays below `end`.
                unsafe { rows.put::<true>(row, &cur.row, N - 1, pos - cur.line_start) };
                row += 1;
            }
        }
    }
    debug_assert_eq!(row, end);
}

impl<O: Coord, const N: usize, const PACKED: bool> Emit for Rows<'_, O, N, PACKED> {
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
        if self.isa == Isa::Avx2 {
            let dense = PACKED && !O::WIDE && N <= 4 && last_col;
            if dense && end - first >= DENSE_BITS * words.len() {
                // SAFETY: see above; `dense` holds.
                unsafe { walk_dense::<O, N, PACKED>(self, words, start, first, end) };
            } else if last_col {
                // SAFETY: see above.
                unsafe { walk_avx2::<O, N, PACKED, true>(self, words, start, first, end) };
            } else {
                // SAFETY: see above.
                unsafe { walk_avx2::<O, N, PACKED, false>(self, words, start, first, end) };
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

/// AVX2 expansion of a dense bitmask word into packed UINT32 rows of up to four columns whose
/// last column is the position in the line: each byte of the word becomes eight rows (its set
/// bits' positions from a table, spread into the template rows by permutes and blends), of
/// which the first popcount(byte) are kept.
#[cfg(target_arch = "x86_64")]
mod expand {
    use core::arch::x86_64::*;

    use super::Coord;

    /// The set bits of each byte value, in increasing order (then zeros).
    static POSITIONS: [[u8; 8]; 256] = {
        let mut t = [[0u8; 8]; 256];
        let mut b = 0;
        while b < 256 {
            let (mut k, mut i) = (0, 0);
            while i < 8 {
                if b & (1 << i) != 0 {
                    t[b][k] = i as u8;
                    k += 1;
                }
                i += 1;
            }
            b += 1;
        }
        t
    };

    /// Eight rows of N columns are N vectors of eight lanes. For vector v, lane l holds column
    /// (8v + l) % N of row (8v + l) / N: `perm` picks that row's position, `mask` marks the
    /// lanes of the last column.
    #[derive(Clone, Copy)]
    pub struct Shape {
        perm: [__m256i; 4],
        mask: [__m256i; 4],
    }

    impl Default for Shape {
        fn default() -> Self {
            // SAFETY: all-zero bits are a valid __m256i; no instruction is needed.
            unsafe { core::mem::zeroed() }
        }
    }

    impl Shape {
        /// # Safety
        /// The CPU has AVX2; `n` is 1 to 4.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub unsafe fn new(n: usize) -> Shape {
            let mut perm = [[0i32; 8]; 4];
            let mut mask = [[0i32; 8]; 4];
            for v in 0..n {
                for l in 0..8 {
                    let g = 8 * v + l;
                    perm[v][l] = (g / n) as i32;
                    mask[v][l] = if g % n == n - 1 { -1 } else { 0 };
                }
            }
            // SAFETY: each array is 8 i32 = 32 readable bytes; loadu needs no alignment.
            let load = |a: &[i32; 8]| unsafe { _mm256_loadu_si256(a.as_ptr().cast()) };
            Shape {
                perm: [
                    load(&perm[0]),
                    load(&perm[1]),
                    load(&perm[2]),
                    load(&perm[3]),
                ],
                mask: [
                    load(&mask[0]),
                    load(&mask[1]),
                    load(&mask[2]),
                    load(&mask[3]),
                ],
            }
        }
    }

    /// Eight copies of a template row (its last column is overwritten).
    #[derive(Clone, Copy)]
    pub struct Template([__m256i; 4]);

    impl Default for Template {
        fn default() -> Self {
            // SAFETY: all-zero bits are a valid __m256i.
            unsafe { core::mem::zeroed() }
        }
    }

    impl Template {
        /// # Safety
        /// The CPU has AVX2; N is 1 to 4.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub unsafe fn new<O: Coord, const N: usize>(row: &[O; N]) -> Template {
            let mut lanes = [[0u32; 8]; 4];
            for v in 0..N.min(4) {
                for l in 0..8 {
                    lanes[v][l] = row[(8 * v + l) % N].low32();
                }
            }
            // SAFETY: each array is 8 u32 = 32 readable bytes.
            let load = |a: &[u32; 8]| unsafe { _mm256_loadu_si256(a.as_ptr().cast()) };
            Template([
                load(&lanes[0]),
                load(&lanes[1]),
                load(&lanes[2]),
                load(&lanes[3]),
            ])
        }
    }

    /// Writes the rows of `bits` (positions `off + i` in the line) from row `row` on, and
    /// returns the row after them. Each byte stores eight whole rows.
    ///
    /// # Safety
    /// The CPU has AVX2, BMI1 and POPCNT; `shape` is `Shape::new(N)`, N <= 4; `out` is a packed
    /// UINT32 output of N columns whose rows `row .. row + 72` may be written by this thread.
    #[inline(always)]
    pub unsafe fn word<const N: usize>(
        out: *mut u32,
        mut row: usize,
        bits: u64,
        off: u64,
        shape: &Shape,
        tmpl: &Template,
    ) -> usize {
        let mut base = _mm256_set1_epi32(off as i32);
        let eight = _mm256_set1_epi32(8);
        for j in 0..8 {
            let byte = (bits >> (8 * j)) as u8;
            // SAFETY: POSITIONS[byte] is 8 readable bytes (loadl reads 8).
            let pos = unsafe { _mm_loadl_epi64(POSITIONS[byte as usize].as_ptr().cast()) };
            let xs = _mm256_add_epi32(_mm256_cvtepu8_epi32(pos), base);
            // SAFETY: row r starts at element r × n; this byte's eight rows end before
            // (row + 8) × n, within the rows the caller lets us write.
            let p = unsafe { out.add(row * N) };
            for v in 0..N {
                let x = _mm256_permutevar8x32_epi32(xs, shape.perm[v]);
                let lanes = _mm256_blendv_epi8(tmpl.0[v], x, shape.mask[v]);
                // SAFETY: lanes 8v .. 8v + 8 of the eight rows (see above).
                unsafe { _mm256_storeu_si256(p.add(8 * v).cast(), lanes) };
            }
            row += byte.count_ones() as usize;
            base = _mm256_add_epi32(base, eight);
        }
        row
    }
}

#[cfg(test)]
mod tests {
    /// The sparse walk's division: floor(x / w) == (x × (u64::MAX / w + 1)) >> 64 for every
    /// w from 2 and x below 2^32.
    #[test]
    fn lemire_division_is_exact_below_2_pow_32() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
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
