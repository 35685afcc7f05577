//! Nothing but a home for `tests/header.rs`, the check that `include/directml_subset.h` is what
//! cbindgen generates from the library's source (see `Cargo.toml`).
