//! The test helpers: the crate `test_support` (`test-support/` at the root of the repository),
//! shared with the benchmark and the fuzz harness. Every test file uses it through this module
//! (`mod common;`, then `common::*`); see test-support/src/lib.rs for what is where.

pub use test_support::*;
