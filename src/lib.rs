//! DirectML's NONZERO_COORDINATES, DIAGONAL_MATRIX1 and DIAGONAL_MATRIX operators on the CPU,
//! with DirectML's own types and a C ABI.
//!
//! This page is for Rust callers. C and C++ callers use the header `include/directml_subset.h`
//! (the [`ffi`] functions) and `include/directml_subset.hpp`; the repository's `README.md` and
//! `docs/` cover those, building, and how this library differs from DirectML.
//!
//! # The safe API
//!
//! - A [`Device`] emulates one DirectML feature level and runs on a number of threads
//!   ([`DeviceOptions`]; the default is the newest level, 6_4, one thread per logical core, and
//!   strict DirectML behaviour).
//! - [`Device::create_operator`] validates an [`OperatorDesc`] (one variant per operator, fields
//!   named after DirectML's desc) against that level and returns an immutable [`Operator`]. A
//!   tensor is a [`TensorDesc`]: [`TensorDesc::new`] makes a packed one,
//!   [`TensorDesc::with_strides`] a strided one.
//! - [`Operator::execute`] runs it on byte slices, one per binding slot in DirectML's order
//!   (inputs as [`Input`], outputs as `&mut [u8]`), from any number of threads at once. Each
//!   slice holds at least the tensor's `TotalTensorSizeInBytes` ([`Operator::input_sizes`],
//!   [`Operator::output_sizes`]) and is aligned to its element size (and to the desc's
//!   `GuaranteedBaseOffsetAlignment`, when it gives one).
//! - Every failure is an [`Error`]: its variant is the HRESULT the C API returns
//!   ([`Error::hresult`]), and its message names the operator, the tensor, the rule and the
//!   values found. Nothing is written when a call fails.
//!
//! ```
//! use directml_subset::dml::{DML_FEATURE_LEVEL_5_0, E_INVALIDARG};
//! use directml_subset::{DataType, Device, DeviceOptions, Input, OperatorDesc, TensorDesc};
//!
//! let device = Device::new(&DeviceOptions::default())?;
//!
//! // NONZERO_COORDINATES: the count, then one row of coordinates per nonzero element.
//! let nonzero = device.create_operator(&OperatorDesc::NonZeroCoordinates {
//!     input: TensorDesc::new(DataType::Float32, &[2, 4]),
//!     output_count: TensorDesc::new(DataType::UInt32, &[1]),
//!     output_coordinates: TensorDesc::new(DataType::UInt32, &[8, 2]),
//! })?;
//! let input: [f32; 8] = [1.0, 0.0, 0.0, 2.0, -0.0, 3.5, 0.0, -5.2];
//! let mut count = [0u32; 1];
//! let mut coordinates = [0u32; 16];
//! nonzero.execute(
//!     &[Input::Bytes(bytemuck::cast_slice(&input))],
//!     &mut [
//!         bytemuck::cast_slice_mut(&mut count),
//!         bytemuck::cast_slice_mut(&mut coordinates),
//!     ],
//! )?;
//! assert_eq!(count[0], 4);
//! assert_eq!(&coordinates[..8], &[0, 0, 0, 3, 1, 1, 1, 3]);
//!
//! // DIAGONAL_MATRIX1 as ONNX's Trilu (upper, k = 1): keep the elements with column - row >= 1,
//! // Value (0.0) elsewhere.
//! let matrix = TensorDesc::new(DataType::Float32, &[3, 3]);
//! let upper = device.create_operator(&OperatorDesc::DiagonalMatrix1 {
//!     input: Some(matrix),
//!     output: matrix,
//!     value_data_type: DataType::Float32.raw(),
//!     value: [0; 8],
//!     diagonal_fill_begin: i32::MIN,
//!     diagonal_fill_end: 1,
//! })?;
//! let x: [f32; 9] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
//! let mut y = [0f32; 9];
//! upper.execute(
//!     &[Input::Bytes(bytemuck::cast_slice(&x))],
//!     &mut [bytemuck::cast_slice_mut(&mut y)],
//! )?;
//! assert_eq!(y, [0.0, 2.0, 3.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0]);
//!
//! // A device emulating an older feature level refuses what that level lacks, and says why.
//! let old = Device::new(&DeviceOptions {
//!     feature_level: DML_FEATURE_LEVEL_5_0,
//!     ..DeviceOptions::default()
//! })?;
//! let error = old
//!     .create_operator(&OperatorDesc::DiagonalMatrix1 {
//!         input: None,
//!         output: matrix,
//!         value_data_type: DataType::Float32.raw(),
//!         value: [0; 8],
//!         diagonal_fill_begin: 0,
//!         diagonal_fill_end: 1,
//!     })
//!     .unwrap_err();
//! assert_eq!(error.hresult(), E_INVALIDARG);
//! assert!(error.message().contains("introduced in DML_FEATURE_LEVEL_5_1"));
//!
//! // DIAGONAL_MATRIX (ONNX's EyeLike) is there from level 2.0 on; it has no input.
//! let eye = old.create_operator(&OperatorDesc::DiagonalMatrix {
//!     output: matrix,
//!     offset: 0,
//!     value: 1.0,
//! })?;
//! eye.execute(&[], &mut [bytemuck::cast_slice_mut(&mut y)])?;
//! assert_eq!(y, [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
//! # Ok::<(), directml_subset::Error>(())
//! ```
//!
//! # Modules
//!
//! - [`dml`]: DirectML's structs and enum values, byte for byte (what `directml_subset.h`
//!   declares for C).
//! - The safe Rust core: [`Device`], [`Operator`], [`OperatorDesc`], [`TensorDesc`]. Validation
//!   turns descs into plans; kernels run plans on byte slices.
//! - [`ffi`]: the `dmls_` C functions, a thin layer over the core.
//! - [`mod@reference`] holds plain, obviously-correct implementations of each operator, which the
//!   tests compare the fast kernels with.
//!
//! # Environment
//!
//! `RAYON_NUM_THREADS` sizes the process-wide pool (devices with `thread_count` 0);
//! `DMLS_SIMD=avx2` (or `sse2`, `portable`, `avx512`; in any case) lowers the instruction set
//! the kernels use, and another value is reported once on stderr and ignored;
//! `DMLS_PARALLEL=always` takes the parallel path from its floor on (the tests set it);
//! `DMLS_SPIN_US` (0 to 1,000,000, default 100) is how many microseconds a pool's workers wait
//! for the next execution after their last part before they sleep. The repository's
//! `docs/environment.md` lists every variable.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod device;
// Never set when compiling: the cfg only tells cbindgen to wrap layer 1 in
// `#if !defined(DIRECTML_H)` (see cbindgen.toml).
mod cpus;
#[cfg(not(directml_h))]
pub mod dml;
pub mod error;
pub mod ffi;
mod kept;
mod level;
mod load;
mod op;
mod pool;
pub mod reference;
mod team;
pub mod tensor;
#[cfg(feature = "trace")]
#[doc(hidden)]
pub mod trace;
#[cfg(not(feature = "trace"))]
mod trace;
pub mod version;

#[cfg(test)]
mod test_util;

pub use device::{Device, DeviceOptions, Operator, DMLS_DEVICE_FLAG_EXTENSIONS};
pub use error::{Error, Result};
pub use op::{Input, OperatorDesc};
pub use tensor::{calc_buffer_tensor_size, DataType, TensorDesc};
pub use version::{DMLS_VERSION_MAJOR, DMLS_VERSION_MINOR, DMLS_VERSION_PATCH};

/// Makes the kernels take their parallel paths wherever an input is large enough to have one,
/// from now on in this process, as `DMLS_PARALLEL=always` in the environment does (which the
/// library reads once): for tests. Not part of the supported API.
#[doc(hidden)]
pub fn force_parallel_paths() {
    op::cost::force_parallel();
}

/// Makes DIAGONAL_MATRIX1 and DIAGONAL_MATRIX write with streaming stores from `bytes` touched
/// (output, and input if any) on, and plain stores below, from now on in this process, instead
/// of from this machine's last-level cache size and the measured choice below it (streaming
/// still needs at least 1 MiB touched, rows of at least 256 bytes and a SIMD level above
/// portable): for tests, which must reach both store paths on any machine. Not part of the
/// supported API.
#[doc(hidden)]
pub fn force_streaming_from(bytes: u64) {
    op::force_streaming_from(bytes);
}

/// Makes NONZERO_COORDINATES run its parallel parts in per-thread slots up to `bytes` of input per
/// thread (and claim them in order above that), from now on in this process, instead of up to half
/// of a CPU's share of this machine's L2 cache: for tests, which choose each path by size on any
/// machine. Not part of the supported API.
#[doc(hidden)]
pub fn force_slots_max(bytes: u64) {
    op::force_slots_max(bytes);
}

/// The SIMD level this process's kernels run at now (`"portable"`, `"sse2"`, `"avx2"` or
/// `"avx512"`): for tests that rerun themselves at a lower `DMLS_SIMD`, to check that they did.
/// Not part of the supported API.
#[doc(hidden)]
pub fn simd_level() -> &'static str {
    op::simd::isa::Isa::detect().level().name()
}

/// Sets the SIMD level of this process from now on, as `DMLS_SIMD` does at start-up, so that
/// a benchmark can alternate the levels in one process: `"portable"`, `"sse2"`, `"avx2"` or
/// `"avx512"` (in any case), lowered to the best level the CPU has. Returns the name of the level set, or
/// `None` (and changes nothing) for another name. Not part of the supported API.
#[doc(hidden)]
pub fn force_simd_level(name: &str) -> Option<&'static str> {
    use op::simd::isa::{Isa, Level};
    Some(Isa::force(Level::parse(name)?).level().name())
}
