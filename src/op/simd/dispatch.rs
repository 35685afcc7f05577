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
//! | NONZERO_COORDINATES masking (compare to a bitmask) | AVX-512 (`vptestm`) | UINT8 density 0.1: 0.95-0.98 from 2^10 to 2^18; FLOAT32 density 0.01: 0.81-0.93 |
//! | NONZERO_COORDINATES packed rows, at least [`COMPRESS_BITS`] per word and lines of at least [`COMPRESS_MIN_WIDTH`] | AVX-512 (`vpcompressd` and permutes) | see `docs/isa/` |
//! | the same, sparser chunks or shorter lines (for rows of four 32-bit lanes or more, lines shorter than [`COMPRESS_MIN_WIDTH_WIDE_ROWS`]) | AVX2 (bit walk, sparse walk) | at 16- and 32-element lines 1.13-1.43 with AVX-512 |
//! | NONZERO_COORDINATES in ONNX Runtime's `{2, 2·M}` layout, at least [`COMPRESS_BITS`] per word and lines of at least [`COMPRESS_MIN_WIDTH`] | AVX-512 (masked stores, lines prefetched for writing) | 0.50-0.67 from 2^12 to 2^24 |
//! | DIAGONAL_MATRIX1 / DIAGONAL_MATRIX | AVX2 | the AVX-512 rows (masked byte stores and blends, 64-byte runs) were 1.1-4x slower at every size from 2^8 to 2^20 but rows of exactly 64 bytes (0.83-0.87), and a masked access that reaches a page the process may not touch (the last rows of a buffer that ends at a page) costs hundreds of nanoseconds each; they were removed |

/// AVX-512 row walks take chunks with at least this many set bits per word on average: they
/// cost the same for every 16 elements whatever their bits, the bit walk costs per set bit.
pub(crate) const COMPRESS_BITS: usize = 12;

/// AVX-512 row walks take lines at least this long: shorter lines change the template several
/// times a word, and each part of a word costs four compresses whatever its length.
pub(crate) const COMPRESS_MIN_WIDTH: u64 = 64;

/// Rows of four or more 32-bit lanes (two 64-bit columns and more, five UINT32 columns and
/// more) take the AVX-512 walk from lines this long: at 64-element lines it took 1.21-1.25x
/// the AVX2 walk's time (two UINT64 columns, 2^11 and 2^12 elements), at 128 0.95x.
pub(crate) const COMPRESS_MIN_WIDTH_WIDE_ROWS: u64 = 128;
