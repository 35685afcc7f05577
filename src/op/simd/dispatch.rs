//! The dispatch table: which level's code each class of work runs on a CPU with AVX-512.
//!
//! A class takes its AVX-512 code only where that code was measured at least as fast as the
//! AVX2 code (`cargo bench --bench kernels -- isa`: one thread, the levels alternating in one
//! process; the CSVs are in `docs/isa/`). Elsewhere it runs the AVX2 code, which every
//! AVX-512 CPU can run. Measured on an AMD EPYC (Zen 5, family 26 model 2), Nov 26 2026; the
//! ratios are AVX-512 time over AVX2 time, below 1 when AVX-512 is faster.
//!
//! | class of work | code on AVX-512 CPUs | measured |
//! | --- | --- | --- |
//! | NONZERO_COORDINATES on a packed 8-, 16- or 32-bit input into one or two UINT32 columns (packed, or ONNX Runtime's `{2, 2·M}` layout), lines of at least [`COMPRESS_MIN_WIDTH`] elements, the first 256 elements at least [`COMPRESS_BITS`] per 64 nonzero | AVX-512, one pass: compare, one `vpcompressb` of the bit positions per 64 elements, permutes, plain stores of 16 rows where 15 more rows follow and masked stores of exactly the rows after that (ONNX Runtime's layout: masked stores only) | from 2^8 to 2^20: FLOAT32 density 0.5 0.54-0.89 (one column 0.62-0.72); UINT8 density 0.1 0.27-0.88; FLOAT16 and UINT8 density 0.5 0.43-0.87; ONNX Runtime's layout 0.28-0.64 (the whole run: `docs/isa/`) |
//! | NONZERO_COORDINATES on the same packed inputs sparser than that (fewer than [`COMPRESS_BITS`] per 64 in the first 256 elements), of at most [`sparse_one_pass_max_bytes`] (a CPU's share of the L2), lines of at least [`SPARSE_MIN_WIDTH`] | AVX-512, one pass a row at a time: per 64 elements a compare, then one store per nonzero element; where 1,024 elements held 4 per 64 or more, the compresses for the rest of the part | one thread of an AMD EPYC (Zen 4, family 25 model 17), Nov 28 2026, against the two passes (a bitmask, then its walk): FLOAT32 density 0.01 in 2-D 0.73-0.91 from 2^12 to 2^18 (the curve, fastest of eight runs each); 2-D FLOAT32 at 0.01-0.06 0.51-0.90 and UINT8 0.43-0.91 in a C loop of one operator |
//! | NONZERO_COORDINATES from a part's bitmask words, as the one pass writes (a worker's part of a 32-bit or strided input, whose count kept its words; a step of a strided input on one thread), the part at least [`COMPRESS_BITS`] per 64 nonzero | AVX-512, the one pass's loop with the bits from the words | two threads of an AMD EPYC (Zen 4, family 25 model 17), Nov 28 2026, against the code before (the one pass over the input again, or the walk below): FLOAT32 density 0.5 0.61-0.87 from 2^14 to 2^21; UINT8, which keeps the one pass over the input, 1.05-1.1 |
//! | NONZERO_COORDINATES masking (compare to a bitmask) for the other cases | AVX-512 (`vptestm`) | FLOAT32 density 0.01: 0.78-1.05 from 2^8 to 2^20 |
//! | NONZERO_COORDINATES packed rows of other layouts (three or more columns, UINT64 coordinates), at least [`COMPRESS_BITS`] set bits per word and lines of at least [`compress_min_width`] elements | AVX-512 walk over the bitmask: a byte compress per word and permutes | three columns (3-D input): 0.71-1.00; two UINT64 columns: 0.51-0.99 |
//! | the same, sparser chunks or shorter lines | AVX2 (bit walk, sparse walk, dense expansion) | see the constants below |
//! | NONZERO_COORDINATES in ONNX Runtime's layout that the one pass does not take | AVX-512 walk (masked stores, lines prefetched for writing) | 0.5-0.7 from 2^12 to 2^24 before the one pass took the common cases |
//! | DIAGONAL_MATRIX1 / DIAGONAL_MATRIX | AVX2 | the AVX-512 rows (masked byte stores and blends, 64-byte runs) were 1.1-4x slower at every size from 2^8 to 2^20 but rows of exactly 64 bytes (0.83-0.87), and a masked access that reaches a page the process may not touch (the last rows of a buffer that ends at a page) costs hundreds of nanoseconds each; they were removed |

/// AVX-512 row walks and the one pass take chunks with at least this many set bits per word on
/// average (the one pass: in the first 256 elements). A word costs them one byte compress and a
/// widening per 16 rows; the bit walk costs per set bit. At 6.4 bits a word (UINT8, density
/// 0.1) the one pass took 0.30-0.59x the bit walk's time from 2^8 to 2^20 elements (with a
/// `vpcompressd` per 16 elements, before, the walk took 1.05-1.37x and the threshold was 12).
pub(crate) const COMPRESS_BITS: usize = 4;

/// True when `count` nonzero elements among `len` are at least [`COMPRESS_BITS`] per 64: dense
/// enough for the compresses.
#[inline(always)]
pub(crate) fn compress_dense(count: usize, len: usize) -> bool {
    count.saturating_mul(64) >= COMPRESS_BITS * len
}

/// Packed inputs of at most this many bytes too sparse for the one pass's compresses (fewer
/// than [`COMPRESS_BITS`] nonzero elements in 64) are written in one pass all the same, a row
/// at a time, rather than masked into a bitmask and then walked: as many bytes as a CPU's share
/// of the L2 (1 MiB where the system does not say). On one thread of an AMD Zen 4 (1 MiB of L2
/// per core), FLOAT32 at density 0.01 to 0.06 in 2-D took 0.61-0.90x the two passes' time from
/// 2^12 to 2^20 elements, UINT8 0.48-0.91x at 2^14 and 2^18; but from the L3 the row loop's
/// mispredicted branches stall its loads, one per 64 elements: UINT8 at 2^22 elements (4 MiB)
/// took 1.7-2.8x, FLOAT32 at 2^21 (8 MiB) up to 1.46x. (Asking for the lines ahead did not
/// help.)
pub(crate) fn sparse_one_pass_max_bytes() -> usize {
    crate::cpus::l2_share()
        .and_then(|b| usize::try_from(b).ok())
        .unwrap_or(1 << 20)
}

/// The sparse one pass ([`sparse_one_pass_max_bytes`]) takes lines at least this long: it
/// reads each line's elements 64 at a time, the last ones with the line's width as their mask,
/// so short lines cost it a read per line however sparse they are. On one thread of an AMD
/// Zen 4, FLOAT32 at density 0.01: in lines of 16 (2^8 elements) 1.30x the two passes' time,
/// of 32 (2^10) 1.03-1.04x, of 64 (2^12) 0.66-0.74x.
pub(crate) const SPARSE_MIN_WIDTH: usize = 64;

/// AVX-512 row walks take lines at least this long: shorter lines change the template several
/// times a word. At 16-element lines the walk of three UINT32 columns took 0.79x the AVX2
/// walk's time (2^10 elements, 8 × 8 × 16).
pub(crate) const COMPRESS_MIN_WIDTH: u64 = 16;

/// Rows of one 64-bit lane (two UINT32 columns, one UINT64 column) take the AVX-512 walk from
/// lines this long: at 16-element lines it took 1.05-1.08x the AVX2 dense walk's time (16 × 16),
/// at 32 0.99-1.0x, at 64 and more 0.91-0.97x.
pub(crate) const COMPRESS_MIN_WIDTH_ONE_LANE: u64 = 32;

/// Rows of four or more 32-bit lanes (two 64-bit columns and more, four UINT32 columns and
/// more) take the AVX-512 walk from lines this long: at 64-element lines it took 1.21-1.25x
/// the AVX2 walk's time (two UINT64 columns, 2^11 and 2^12 elements), at 128 0.95x.
pub(crate) const COMPRESS_MIN_WIDTH_WIDE_ROWS: u64 = 128;

/// Rows of three 32-bit lanes (three UINT32 columns) take the AVX-512 walk from lines this
/// long: at 8 × 8 × 16 and 16 × 32 × 32 elements it took 1.17x and 1.06x the bit walk's time
/// (the AVX2 expansion's, 0.82x and 0.87x), at 32 × 32 × 64 0.80x the bit walk's.
pub(crate) const COMPRESS_MIN_WIDTH_THREE_LANES: u64 = 64;

/// The shortest line the AVX-512 walk takes for rows of `lanes` 32-bit lanes.
pub(crate) const fn compress_min_width(lanes: usize) -> u64 {
    match lanes {
        2 => COMPRESS_MIN_WIDTH_ONE_LANE,
        3 => COMPRESS_MIN_WIDTH_THREE_LANES,
        0..4 => COMPRESS_MIN_WIDTH,
        _ => COMPRESS_MIN_WIDTH_WIDE_ROWS,
    }
}
