//! Helpers shared by the tests, by job: `capi` (the C API as a C program calls it), `buffer`
//! (the one guarded buffer type), `checked` (the reference runners), `random` (seeds, random
//! layouts and elements) and `rust_api` (the safe API). Every test file uses them through this
//! module.
#![allow(dead_code)]

mod buffer;
mod capi;
mod checked;
mod random;
mod rust_api;

// Each test file uses some of these.
#[allow(unused_imports)]
pub use buffer::*;
#[allow(unused_imports)]
pub use capi::*;
#[allow(unused_imports)]
pub use checked::*;
#[allow(unused_imports)]
pub use random::*;
#[allow(unused_imports)]
pub use rust_api::*;

/// Makes the kernels take their parallel paths wherever an input is large enough to have one
/// (`DMLS_PARALLEL=always`, read by the library on each such call), instead of where this
/// machine's measured costs say they pay: the parallel-path tests call it first.
pub fn force_parallel_paths() {
    // Every test that calls this sets the same value; the library reads it through std::env,
    // which serialises reads and writes.
    std::env::set_var("DMLS_PARALLEL", "always");
}
