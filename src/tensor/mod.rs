//! Tensor descs (owned, as a caller gave them) and validated tensor layouts.
//!
//! The modules, by job, each importing only from the ones before it: `dtype` ([`DataType`],
//! its sizes and names); `size` (the bytes a tensor spans, [`calc_buffer_tensor_size`]); `desc`
//! ([`TensorDesc`], a desc as given); `overlap` (the exact search for two elements that share
//! an address); `layout` (the checks every buffer tensor passes, and whether it is packed and
//! disjoint). This module declares them and re-exports what the rest of the crate uses.

mod desc;
mod dtype;
mod layout;
mod overlap;
mod size;

pub use desc::TensorDesc;
pub(crate) use desc::MAX_DIMS;
pub(crate) use dtype::raw_type_name;
pub use dtype::DataType;
pub(crate) use layout::{Ctx, Disjoint, Layout};
pub use size::calc_buffer_tensor_size;
pub(crate) use size::calc_size_bits;
