//! DirectML's NONZERO_COORDINATES, DIAGONAL_MATRIX1 and DIAGONAL_MATRIX operators on the CPU,
//! with DirectML's own types and a C ABI.
//!
//! The crate has three layers:
//! - [`dml`]: DirectML's structs and enum values, byte for byte (what `directml_subset.h`
//!   declares for C).
//! - The safe Rust core: [`Device`], [`Operator`], [`OperatorDesc`], [`TensorDesc`]. Validation
//!   turns descs into plans; kernels run plans on byte slices.
//! - [`ffi`]: the `dmls_` C functions, a thin layer over the core.
//!
//! [`mod@reference`] holds plain, obviously-correct implementations of each operator, which the
//! tests compare the fast kernels with.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod device;
// Never set when compiling: the cfg only tells cbindgen to wrap layer 1 in
// `#if !defined(DIRECTML_H)` (see cbindgen.toml).
#[cfg(not(directml_h))]
pub mod dml;
pub mod error;
pub mod ffi;
mod level;
mod op;
mod pool;
pub mod reference;
pub mod tensor;
pub mod version;

#[cfg(test)]
mod test_util;

pub use device::{Device, DeviceOptions, Operator, DMLS_DEVICE_FLAG_EXTENSIONS};
pub use error::{Error, Result};
pub use op::{Input, OperatorDesc};
pub use tensor::{calc_buffer_tensor_size, DataType, TensorDesc};
pub use version::{DMLS_VERSION_MAJOR, DMLS_VERSION_MINOR, DMLS_VERSION_PATCH};

/// Sets the SIMD level of this process from now on, as `DMLS_SIMD` does at start-up, so that
/// a benchmark can alternate the levels in one process: `"portable"`, `"sse2"`, `"avx2"` or
/// `"avx512"`, lowered to the best level the CPU has. Returns the name of the level set, or
/// `None` (and changes nothing) for another name. Not part of the supported API.
#[doc(hidden)]
pub fn force_simd_level(name: &str) -> Option<&'static str> {
    use op::simd::isa::{Isa, Level};
    let cap = match name {
        "portable" => Level::Portable,
        "sse2" => Level::Sse2,
        "avx2" => Level::Avx2,
        "avx512" => Level::Avx512,
        _ => return None,
    };
    Some(match Isa::force(cap).level() {
        Level::Portable => "portable",
        Level::Sse2 => "sse2",
        Level::Avx2 => "avx2",
        Level::Avx512 => "avx512",
    })
}
