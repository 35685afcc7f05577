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
