//! Devices, feature queries, `dmls_calc_buffer_tensor_size` and operator creation only: the
//! validation paths, many times faster than `api` (see `src/lib.rs`).
#![no_main]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    directml_subset_fuzz::check(data, directml_subset_fuzz::Scope::Create);
});
