//! Layer 2: the C API (`dmls_` functions). Every exported (`#[no_mangle]`) `extern "C"` function of
//! the library is in this folder, one module per job: `device` and `operator` create and release
//! the two objects, `execute` checks bindings and runs an operator, `desc` reads DirectML's C
//! descs, `library` answers the last error message and the version, and `boundary` is what every
//! call crosses (panics caught, errors turned into HRESULTs and messages, handles handed out).
//!
//! Each function checks its pointers in a straight list at the top, converts raw descs and
//! bindings into checked Rust values, calls the safe core, and turns an error into an HRESULT
//! plus a per-thread message. Panics are caught and become `E_FAIL`.
//!
//! The functions are `unsafe` for Rust callers: they trust the pointers they are given, as C
//! functions do. Rust programs should use [`crate::Device`] instead.
#![allow(non_camel_case_types)]

mod boundary;

// The order of these modules is the order of their functions in the generated header (cbindgen
// reads them in declaration order); blank lines keep rustfmt from sorting them.
mod device;

mod operator;

mod execute;

mod desc;

mod library;

#[cfg(feature = "panic-test")]
pub use boundary::panic_on_next_call;
pub use desc::dmls_calc_buffer_tensor_size;
pub use device::{
    dmls_device, dmls_device_check_feature_support, dmls_device_create, dmls_device_desc,
    dmls_device_release,
};
pub use execute::dmls_operator_execute;
pub use library::{dmls_get_last_error_message, dmls_version};
pub use operator::{dmls_device_create_operator, dmls_operator, dmls_operator_release};
