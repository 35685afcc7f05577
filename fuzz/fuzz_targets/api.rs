//! Creates and executes arbitrary operators with arbitrary bindings through the C API, and
//! compares every buffer with the reference implementation (see `src/lib.rs`).
#![no_main]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    directml_subset_fuzz::check(data, directml_subset_fuzz::Scope::Execute);
});
