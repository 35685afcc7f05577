//! AVX2 expansion of a dense bitmask word into packed UINT32 rows of up to four columns whose
//! last column is the position in the line: each byte of the word becomes eight rows (its set
//! bits' positions from a table, spread into the template rows), of which the first
//! popcount(byte) are kept. One column stores the positions as they are; two interleave them
//! with the template's first column (two unpacks, from a table whose positions are ordered for
//! them); three and four permute and blend.

use core::arch::x86_64::*;

use super::cursor::Coord;

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

/// [`POSITIONS`] in the order two-column rows want them: `unpacklo(t, v)` takes lanes 0, 1, 4,
/// 5 of `v` (rows 0–3) and `unpackhi` lanes 2, 3, 6, 7 (rows 4–7).
static PAIR_POSITIONS: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let lane = [0, 1, 4, 5, 2, 3, 6, 7];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            t[b][lane[k]] = POSITIONS[b][k];
            k += 1;
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
        if n <= 2 {
            // One and two columns need no permutes (see `word`).
            return Shape::default();
        }
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

/// Eight copies of a template row (its last column is overwritten); for two columns, the first
/// vector holds the first column in every lane.
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
                lanes[v][l] = row[if N == 2 { 0 } else { (8 * v + l) % N }].low32();
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
/// returns the row after them. Each byte stores eight whole rows; with `PART` (a line's part
/// of a word, its set bits in the low bytes) the bytes after the last set bit are skipped.
///
/// # Safety
/// The CPU has AVX2, BMI1 and POPCNT; `shape` is `Shape::new(N)`, N <= 4; `out` is a packed
/// UINT32 output of N columns whose rows `row .. row + 72` may be written by this thread.
#[inline(always)]
pub unsafe fn word<const N: usize, const PART: bool>(
    out: *mut u32,
    mut row: usize,
    bits: u64,
    off: u64,
    shape: &Shape,
    tmpl: &Template,
) -> usize {
    // SAFETY: the caller guarantees the CPU has AVX2 (here and below).
    let (mut base, eight) = unsafe { (_mm256_set1_epi32(off as i32), _mm256_set1_epi32(8)) };
    for j in 0..8 {
        if PART && bits >> (8 * j) == 0 {
            // The set bits of a line's part of a word are done.
            break;
        }
        let byte = (bits >> (8 * j)) as u8;
        let table = if N == 2 { &PAIR_POSITIONS } else { &POSITIONS };
        // SAFETY: table[byte] is 8 readable bytes (loadl reads 8); the CPU has AVX2.
        let xs = unsafe {
            let pos = _mm_loadl_epi64(table[byte as usize].as_ptr().cast());
            _mm256_add_epi32(_mm256_cvtepu8_epi32(pos), base)
        };
        // SAFETY: row r starts at element r × n; this byte's eight rows end before
        // (row + 8) × n, within the rows the caller lets us write.
        let p = unsafe { out.add(row * N) };
        if N == 1 {
            // SAFETY: the eight rows (see above); the CPU has AVX2.
            unsafe { _mm256_storeu_si256(p.cast(), xs) };
        } else if N == 2 {
            // SAFETY: rows 0–3 then 4–7 of the eight (see above); the CPU has AVX2.
            unsafe {
                _mm256_storeu_si256(p.cast(), _mm256_unpacklo_epi32(tmpl.0[0], xs));
                _mm256_storeu_si256(p.add(8).cast(), _mm256_unpackhi_epi32(tmpl.0[0], xs));
            }
        } else {
            for v in 0..N {
                // SAFETY: lanes 8v .. 8v + 8 of the eight rows (see above); the CPU has AVX2.
                unsafe {
                    let x = _mm256_permutevar8x32_epi32(xs, shape.perm[v]);
                    let lanes = _mm256_blendv_epi8(tmpl.0[v], x, shape.mask[v]);
                    _mm256_storeu_si256(p.add(8 * v).cast(), lanes)
                };
            }
        }
        row += byte.count_ones() as usize;
        // SAFETY: the CPU has AVX2.
        base = unsafe { _mm256_add_epi32(base, eight) };
    }
    row
}
