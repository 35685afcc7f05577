//! SIMD for the kernels, by job: the instruction-set token ([`isa`]), which level's code each
//! class of work runs on a CPU with AVX-512 (`dispatch`), element words and compare-to-bitmask
//! for NONZERO_COORDINATES ([`mask`], its AVX-512 form in `mask512`), and non-temporal fills and
//! copies for DIAGONAL_MATRIX1 ([`stream`], and short runs with AVX2 in `runs256`). Each module
//! imports only from the ones before it, except [`mask`], which dispatches to its AVX-512 form
//! `mask512`.

#[cfg(target_arch = "x86_64")]
pub(crate) mod dispatch;
pub(crate) mod isa;
pub(crate) mod mask;
#[cfg(target_arch = "x86_64")]
mod mask512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod runs256;
pub(crate) mod stream;

pub(crate) use isa::Isa;
pub(crate) use mask::{mask_tail, Word};
pub(crate) use stream::StreamWriter;
