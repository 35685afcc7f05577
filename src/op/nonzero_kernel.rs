//! The NONZERO_COORDINATES kernel (see `nonzero.rs` for how it works).

use rayon::prelude::*;

use super::nonzero::NonZeroPlan;
use super::{OutView, Word, Workers};
use crate::error::{Error, Result};
use crate::tensor::{Layout, MAX_DIMS};

const OP: &str = "NONZERO_COORDINATES";

/// Elements per worker chunk in the parallel path (a multiple of 64).
const CHUNK: u64 = 1 << 19;
/// The most workers one execution uses.
const MAX_THREADS: usize = 64;
/// Inputs below this many elements run serially.
const PARALLEL_MIN: u64 = 1 << 17;

/// Coordinate output element types (UINT32, or UINT64 / INT64 as raw 64-bit words).
pub(crate) trait Coord: Copy + Send + Sync + bytemuck::Pod {
    fn from_u64(v: u64) -> Self;
}
impl Coord for u32 {
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as u32
    }
}
impl Coord for u64 {
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v
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
    let is_float = plan.input.dtype.is_float();
    match (plan.input.dtype.size(), plan.coords.dtype.size()) {
        (1, 4) => by_columns::<u8, u32>(plan, input, count, coords, 0xFF, workers),
        (2, 4) => by_columns::<u16, u32>(plan, input, count, coords, mask16(is_float), workers),
        (4, 4) => by_columns::<u32, u32>(plan, input, count, coords, mask32(is_float), workers),
        (8, 4) => by_columns::<u64, u32>(plan, input, count, coords, mask64(is_float), workers),
        (1, 8) => by_columns::<u8, u64>(plan, input, count, coords, 0xFF, workers),
        (2, 8) => by_columns::<u16, u64>(plan, input, count, coords, mask16(is_float), workers),
        (4, 8) => by_columns::<u32, u64>(plan, input, count, coords, mask32(is_float), workers),
        _ => by_columns::<u64, u64>(plan, input, count, coords, mask64(is_float), workers),
    }
}

fn mask16(float: bool) -> u16 {
    if float {
        0x7FFF
    } else {
        u16::MAX
    }
}
fn mask32(float: bool) -> u32 {
    if float {
        0x7FFF_FFFF
    } else {
        u32::MAX
    }
}
fn mask64(float: bool) -> u64 {
    if float {
        0x7FFF_FFFF_FFFF_FFFF
    } else {
        u64::MAX
    }
}

fn by_columns<U: Word, O: Coord>(
    plan: &NonZeroPlan,
    input: &[u8],
    count: &mut [u8],
    coords: &mut [u8],
    mask: U,
    workers: Workers<'_>,
) -> Result<()> {
    macro_rules! go {
        ($n:literal) => {
            run::<U, O, $n>(plan, input, count, coords, mask, workers)
        };
    }
    match plan.columns {
        1 => go!(1),
        2 => go!(2),
        3 => go!(3),
        4 => go!(4),
        5 => go!(5),
        6 => go!(6),
        7 => go!(7),
        _ => go!(8),
    }
}

/// How the input is read: a contiguous slice, or element by element through strides.
struct Source<'a, U> {
    data: &'a [U],
    layout: &'a Layout,
    mask: U,
}

impl<U: Word> Source<'_, U> {
    /// Fills `words` with the nonzero bitmask of elements `[start, end)` (bit i of word w is
    /// element `start + 64 w + i`) and returns how many bits are set.
    fn masks(&self, start: u64, end: u64, words: &mut [u64]) -> u64 {
        let n = (end - start) as usize;
        let words = &mut words[..n.div_ceil(64)];
        let mut total = 0u64;
        if self.layout.packed {
            let data = &self.data[start as usize..end as usize];
            let mut blocks = data.chunks_exact(64);
            for (w, block) in words.iter_mut().zip(&mut blocks) {
                let m = U::mask64(block.try_into().unwrap_or(&[U::ZERO; 64]), self.mask);
                total += u64::from(m.count_ones());
                *w = m;
            }
            let rest = blocks.remainder();
            if !rest.is_empty() {
                let mut m = 0u64;
                for (i, &x) in rest.iter().enumerate() {
                    m |= u64::from(x.and(self.mask) != U::ZERO) << i;
                }
                total += u64::from(m.count_ones());
                words[n / 64] = m;
            }
        } else {
            let mut cur = StridedCursor::at(self.layout, start);
            for (wi, w) in words.iter_mut().enumerate() {
                let len = (n - wi * 64).min(64);
                let mut m = 0u64;
                for i in 0..len {
                    m |= u64::from(self.data[cur.offset as usize].and(self.mask) != U::ZERO) << i;
                    cur.step();
                }
                total += u64::from(m.count_ones());
                *w = m;
            }
        }
        total
    }
}

/// Walks the input's elements in row-major order, tracking the element offset through strides.
struct StridedCursor {
    idx: [u64; MAX_DIMS],
    sizes: [u64; MAX_DIMS],
    strides: [u64; MAX_DIMS],
    dims: usize,
    offset: u64,
}

impl StridedCursor {
    fn at(l: &Layout, flat: u64) -> StridedCursor {
        let mut c = StridedCursor {
            idx: [0; MAX_DIMS],
            sizes: [1; MAX_DIMS],
            strides: [0; MAX_DIMS],
            dims: l.dims,
            offset: 0,
        };
        let mut rest = flat;
        for d in (0..l.dims).rev() {
            let s = u64::from(l.sizes[d]);
            c.sizes[d] = s;
            c.strides[d] = l.strides[d];
            c.idx[d] = rest % s;
            rest /= s;
            c.offset += c.idx[d] * l.strides[d];
        }
        c
    }

    #[inline(always)]
    fn step(&mut self) {
        let mut d = self.dims - 1;
        loop {
            self.idx[d] += 1;
            self.offset = self.offset.wrapping_add(self.strides[d]);
            if self.idx[d] < self.sizes[d] || d == 0 {
                return;
            }
            self.offset = self
                .offset
                .wrapping_sub(self.sizes[d].wrapping_mul(self.strides[d]));
            self.idx[d] = 0;
            d -= 1;
        }
    }
}

/// The coordinates of the element at a flat index, advanced incrementally. Only dimensions
/// larger than 1 move; the others stay 0.
struct Coords {
    idx: [u64; MAX_DIMS],
    /// The dimensions larger than 1, innermost first.
    moving: [usize; MAX_DIMS],
    sizes: [u64; MAX_DIMS],
    nmoving: usize,
    pos: u64,
}

impl Coords {
    fn at(l: &Layout, flat: u64) -> Coords {
        let mut c = Coords {
            idx: [0; MAX_DIMS],
            moving: [0; MAX_DIMS],
            sizes: [1; MAX_DIMS],
            nmoving: 0,
            pos: flat,
        };
        let mut rest = flat;
        for d in (0..l.dims).rev() {
            let s = u64::from(l.sizes[d]);
            c.sizes[d] = s;
            if s > 1 {
                c.moving[c.nmoving] = d;
                c.nmoving += 1;
                c.idx[d] = rest % s;
                rest /= s;
            }
        }
        c
    }

    /// Moves to flat index `to` (not before the current one).
    #[inline(always)]
    fn seek(&mut self, to: u64) {
        let delta = to - self.pos;
        self.pos = to;
        if self.nmoving == 0 {
            return;
        }
        let d = self.moving[0];
        let v = self.idx[d] + delta;
        if v < self.sizes[d] {
            self.idx[d] = v;
        } else {
            self.carry(v);
        }
    }

    #[cold]
    fn carry(&mut self, mut v: u64) {
        for k in 0..self.nmoving {
            let d = self.moving[k];
            let s = self.sizes[d];
            let c;
            if v < s {
                self.idx[d] = v;
                return;
            } else if v < 2 * s {
                self.idx[d] = v - s;
                c = 1;
            } else {
                self.idx[d] = v % s;
                c = v / s;
            }
            if k + 1 == self.nmoving {
                return;
            }
            v = self.idx[self.moving[k + 1]] + c;
        }
    }
}

/// Writes the coordinate rows of the set bits in `words` (elements from `start`), from row
/// `first_row` on.
///
/// # Safety
/// No other thread may write the rows `first_row ..` that this call writes, and the coordinates
/// layout must give distinct addresses to distinct elements when other threads write other rows.
#[inline(always)]
unsafe fn write_rows<O: Coord, const N: usize>(
    out: &OutView<'_, O>,
    words: &[u64],
    start: u64,
    first_row: u64,
    layout: &Layout,
    geometry: (usize, usize, usize),
) -> u64 {
    let (dims, row_stride, col_stride) = geometry;
    let mut coords = Coords::at(layout, start);
    let mut row = first_row as usize;
    for (wi, &w) in words.iter().enumerate() {
        let mut bits = w;
        let base = start + (wi as u64) * 64;
        while bits != 0 {
            let b = bits.trailing_zeros() as u64;
            bits &= bits - 1;
            coords.seek(base + b);
            let at = row * row_stride;
            for c in 0..N {
                // SAFETY: the caller guarantees no other thread writes this row.
                unsafe { out.write(at + c * col_stride, O::from_u64(coords.idx[dims - N + c])) };
            }
            row += 1;
        }
    }
    row as u64 - first_row
}

fn run<U: Word, O: Coord, const N: usize>(
    plan: &NonZeroPlan,
    input: &[u8],
    count: &mut [u8],
    coords: &mut [u8],
    mask: U,
    workers: Workers<'_>,
) -> Result<()> {
    let input: &[U] = bytemuck::cast_slice(&input[..input.len() / U::SIZE * U::SIZE]);
    let src = Source {
        data: input,
        layout: &plan.input,
        mask,
    };
    let k = plan.coords.dims;
    let geometry = (
        plan.input.dims,
        plan.coords.strides[k - 2] as usize,
        plan.coords.strides[k - 1] as usize,
    );
    let coords_len = coords.len() / O::SIZE_OF * O::SIZE_OF;
    let out = OutView::<O>::new(bytemuck::cast_slice_mut(&mut coords[..coords_len]));
    let m = plan.input.elements;
    let threads = workers.threads.min(MAX_THREADS);
    let parallel = threads > 1 && m >= PARALLEL_MIN && plan.coords.distinct;
    let total = if !parallel {
        // One pass: mask a block of 64, write its rows, move on.
        let mut row = 0u64;
        let mut start = 0u64;
        let mut word = [0u64; 1];
        while start < m {
            let end = (start + 64).min(m);
            src.masks(start, end, &mut word);
            // SAFETY: this thread is the only writer.
            row += unsafe { write_rows::<O, N>(&out, &word, start, row, &plan.input, geometry) };
            start = end;
        }
        row
    } else {
        let words_per_chunk = (CHUNK / 64) as usize;
        let mut scratch: Vec<u64> = Vec::new();
        scratch
            .try_reserve_exact(words_per_chunk * threads)
            .map_err(|_| {
                Error::OutOfMemory(format!("{OP}: no memory for {threads} bitmask chunks"))
            })?;
        scratch.resize(words_per_chunk * threads, 0);
        let mut counts = vec![0u64; threads];
        debug_assert!(threads <= MAX_THREADS);
        let mut row = 0u64;
        let mut round = 0u64;
        let out = &out;
        workers.run(|| {
            while round < m {
                scratch
                    .par_chunks_mut(words_per_chunk)
                    .zip(counts.par_iter_mut())
                    .enumerate()
                    .for_each(|(t, (words, count))| {
                        let s = (round + t as u64 * CHUNK).min(m);
                        let e = (s + CHUNK).min(m);
                        *count = if s < e { src.masks(s, e, words) } else { 0 };
                    });
                let mut firsts = [0u64; MAX_THREADS];
                let firsts = &mut firsts[..threads];
                for (f, &c) in firsts.iter_mut().zip(counts.iter()) {
                    *f = row;
                    row += c;
                }
                let firsts = &*firsts;
                scratch
                    .par_chunks(words_per_chunk)
                    .enumerate()
                    .for_each(|(t, words)| {
                        let s = (round + t as u64 * CHUNK).min(m);
                        let e = (s + CHUNK).min(m);
                        if s < e {
                            let nw = ((e - s) as usize).div_ceil(64);
                            // SAFETY: chunk t writes rows firsts[t] .. firsts[t] + counts[t], which
                            // no other chunk writes, and the layout is distinct (checked above).
                            unsafe {
                                write_rows::<O, N>(
                                    out,
                                    &words[..nw],
                                    s,
                                    firsts[t],
                                    &plan.input,
                                    geometry,
                                )
                            };
                        }
                    });
                round += CHUNK * threads as u64;
            }
        });
        row
    };
    let count: &mut [O] = bytemuck::cast_slice_mut(&mut count[..O::SIZE_OF]);
    count[0] = O::from_u64(total);
    Ok(())
}

trait SizeOf {
    const SIZE_OF: usize;
}
impl<T: Coord> SizeOf for T {
    const SIZE_OF: usize = core::mem::size_of::<T>();
}
