//! The operators through the C API: the seed documents' examples verbatim, every operator and
//! data type, strides, feature levels, and each validation rule with its code and message.
//! NONZERO_COORDINATES in `nonzero`, DIAGONAL_MATRIX1 and DIAGONAL_MATRIX in `diagonal`.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[path = "../common/mod.rs"]
mod common;
mod diagonal;
mod nonzero;

use core::ptr;

use common::data_types::*;
use common::*;
use directml_subset::dml::*;
use directml_subset::ffi::dmls_operator_execute;
