//! The library's version as numbers: the header's `DMLS_VERSION_MAJOR`, `DMLS_VERSION_MINOR` and
//! `DMLS_VERSION_PATCH` macros. They equal the crate version (`dmls_version()`), which the build
//! checks: a mismatch with Cargo.toml does not compile.

/// The major version (`dmls_version()` is "MAJOR.MINOR.PATCH").
pub const DMLS_VERSION_MAJOR: u32 = 0;

/// The minor version.
pub const DMLS_VERSION_MINOR: u32 = 2;

/// The patch version.
pub const DMLS_VERSION_PATCH: u32 = 0;

/// Parses a decimal `u32` at compile time (`u32::MAX` when `s` is not one).
const fn parse(s: &str) -> u32 {
    let b = s.as_bytes();
    if b.is_empty() {
        return u32::MAX;
    }
    let mut i = 0;
    let mut v: u32 = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            return u32::MAX;
        }
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

const _: () = assert!(
    parse(env!("CARGO_PKG_VERSION_MAJOR")) == DMLS_VERSION_MAJOR
        && parse(env!("CARGO_PKG_VERSION_MINOR")) == DMLS_VERSION_MINOR
        && parse(env!("CARGO_PKG_VERSION_PATCH")) == DMLS_VERSION_PATCH,
    "src/version.rs must match the version in Cargo.toml (then regenerate the header)"
);
