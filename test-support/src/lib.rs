//! The one set of test helpers of directml_subset, shared by the integration tests (`tests/`,
//! through `tests/common/mod.rs`), the benchmark (`benches/kernels/`) and the fuzz harness
//! (`fuzz/`). By job:
//!
//! - [`guarded`]: the one guarded buffer type, [`Buffer`] (tensor bytes between canary guards,
//!   against an inaccessible page on Unix), [`GuardedArray`] for a caller's arrays, and on Linux
//!   `Reserved` (tensor bytes that take address space, not memory, and show whether a run
//!   touched them);
//! - [`capi`]: the C API as a C program calls it (tensor descs with owned arrays, devices and
//!   operators released on drop, handles that threads share, operator descs, bindings,
//!   execution, feature queries, the last error message);
//! - [`checked`]: the one reference runner (operators executed through the C API on guarded
//!   buffers, every output byte compared with `directml_subset::reference`), and the runs it is
//!   made of, which check nothing, for the tests of failures;
//! - [`threads`]: threads that start together;
//! - [`random`]: seeds printed on failure, the one random layout generator and the one random
//!   element generator;
//! - [`rust_api`]: the safe Rust API's devices and descs;
//! - [`bytes`]: comparing buffers and reading them as elements.
//!
//! Everything is also re-exported at the root, which is how the tests use it (`common::*`).
//! The library lists this crate as a dev-dependency only.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bytes;
pub mod capi;
pub mod checked;
pub mod guarded;
pub mod random;
pub mod rust_api;
pub mod threads;

pub use bytes::*;
pub use capi::*;
pub use checked::*;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use guarded::Reserved;
pub use guarded::{or_null, or_null_mut, Buffer, GuardedArray, CANARY, GUARD};
pub use random::*;
pub use rust_api::*;
pub use threads::*;

/// Makes the kernels take their parallel paths wherever an input is large enough to have one
/// (as `DMLS_PARALLEL=always` does), instead of where this machine's measured costs say they
/// pay, DIAGONAL_MATRIX1 its streaming stores from 8 MiB touched on, and NONZERO_COORDINATES
/// its slots up to 512 KiB of input per thread, whatever this machine's caches: the tests of
/// the large paths call it first. The variable is set too, for
/// the child processes a test starts.
pub fn force_parallel_paths() {
    directml_subset::force_parallel_paths();
    directml_subset::force_streaming_from(8 << 20);
    directml_subset::force_slots_max(512 << 10);
    // Every test that calls this sets the same value; std::env serialises reads and writes.
    std::env::set_var("DMLS_PARALLEL", "always");
}

/// The environment variable `var` parsed as a `T` (a count, a scale, a number of seconds), or
/// `default` when it is not set or does not parse.
pub fn env_or<T: std::str::FromStr>(var: &str, default: T) -> T {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Where `DMLS_SIMD` names a level, checks that the kernels run at it or below (a CPU without it
/// runs lower): a test rerun in a child process at a lower level must not pass at the best one.
pub fn assert_simd_level_honoured() {
    const ORDER: [&str; 4] = ["portable", "sse2", "avx2", "avx512"];
    let Ok(wanted) = std::env::var("DMLS_SIMD") else {
        return;
    };
    let rank = |name: &str| {
        ORDER
            .iter()
            .position(|l| l.eq_ignore_ascii_case(name.trim()))
    };
    let (Some(wanted_rank), running) = (rank(&wanted), directml_subset::simd_level()) else {
        return;
    };
    let running_rank = rank(running).expect("a level the library names");
    assert!(
        running_rank <= wanted_rank,
        "DMLS_SIMD={wanted}, but the kernels run at {running}"
    );
}
