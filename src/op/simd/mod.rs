//! SIMD for the kernels, by job: the instruction-set token ([`isa`]), element words and
//! compare-to-bitmask for NONZERO_COORDINATES ([`mask`]), and non-temporal fills and copies for
//! DIAGONAL_MATRIX1 ([`stream`]). Each module imports only from the ones before it.

pub(crate) mod isa;
pub(crate) mod mask;
pub(crate) mod stream;

pub(crate) use isa::Isa;
pub(crate) use mask::{mask_tail, Word};
pub(crate) use stream::StreamWriter;
