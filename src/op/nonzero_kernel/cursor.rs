//! The coordinate cursor: the input's shape as the walk sees it ([`Geometry`]) and the
//! coordinates of the current line as a template row ([`Cursor`]), in the output's element
//! type ([`Coord`]).

use crate::tensor::{Layout, MAX_DIMS};

/// A cursor more than this many lines behind jumps by division instead of stepping.
const MAX_STEP_LINES: u64 = 8;

/// Coordinate output element types (UINT32, or UINT64 / INT64 as raw 64-bit words).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by the x86-64 kernels only
pub(super) trait Coord: Copy + Send + Sync + bytemuck::Pod + Default {
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

/// The input's shape as the coordinate walk sees it.
#[derive(Clone, Copy)]
pub(super) struct Geometry {
    pub sizes: [u64; MAX_DIMS],
    /// The line dimension: the innermost one larger than 1 (the last one if none is).
    pub line: usize,
    /// Its size.
    pub width: u64,
    /// The input dimension of a row's first column (`dims - N`); dimensions before it are 1.
    pub first: usize,
}

impl Geometry {
    pub fn new(l: &Layout, n: usize) -> Geometry {
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
pub(super) struct Cursor<O, const N: usize> {
    pub row: [O; N],
    pub idx: [u64; MAX_DIMS],
    pub line_start: u64,
    pub line_end: u64,
}

impl<O: Coord, const N: usize> Cursor<O, N> {
    pub fn at(g: &Geometry, flat: u64) -> Self {
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
    pub fn reach(&mut self, g: &Geometry, pos: u64) {
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
    pub fn carry(&mut self, g: &Geometry, mut d: usize) {
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
    pub fn next_line(&mut self, g: &Geometry) {
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
