//! The operator's C entry points: create (validation against the device) and release.

use super::boundary::{boundary, hand_out, non_null, release};
use super::desc::read_operator;
use super::device::dmls_device;
use crate::device::Operator;
use crate::dml::*;

/// A validated, immutable operator. Opaque; created by `dmls_device_create_operator`, released
/// by `dmls_operator_release`. `dmls_operator_execute` may run on one operator from many threads
/// at once. An operator keeps its device alive.
pub struct dmls_operator {
    pub(super) op: Operator,
}

/// Validates `desc` against the device's feature level and creates an operator from it. Every
/// rule that can be checked without buffers is checked here; everything the operator needs is
/// copied, so the caller may free the desc, its tensor descs and their arrays right after.
///
/// An output tensor in which two elements share a byte (a zero stride on a dimension of size
/// above 1, or strides that fold the tensor onto itself) is E_INVALIDARG, with a message naming
/// the tensor, its strides and two such elements: on DirectML its result would depend on the
/// order of the GPU's threads. Layouts whose elements are interleaved but disjoint (ONNX
/// Runtime's `{2, 2·M}` coordinates, strides `{3, 2}` on sizes `{2, 3}`) are valid, and input
/// tensors may broadcast freely. The check is a bounded exact search: it never rejects a valid
/// layout, and a layout built so that the search cannot settle it within its bound (none that
/// real programs use) is accepted unproven and written by one thread, in element order.
///
/// Returns S_OK, E_POINTER (a NULL argument, or a NULL required pointer inside the desc),
/// E_INVALIDARG (a broken rule; the message names the operator, tensor, rule and values),
/// E_NOTIMPL (a DirectML operator type this library lacks) or E_OUTOFMEMORY. On failure `*op` is
/// left untouched.
///
/// # Safety
/// `device` is NULL or a live device; `desc` is NULL or points to a DML_OPERATOR_DESC whose pointers are valid as DirectML documents them; `op` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dmls_device_create_operator(
    device: *const dmls_device,
    desc: *const DML_OPERATOR_DESC,
    op: *mut *mut dmls_operator,
) -> HRESULT {
    boundary("dmls_device_create_operator", || {
        non_null(device, format_args!("dmls_device_create_operator: device"))?;
        non_null(desc, format_args!("dmls_device_create_operator: desc"))?;
        non_null(op, format_args!("dmls_device_create_operator: op"))?;
        // SAFETY: non-NULL; by the API's contract it points to a valid operator desc.
        let rust_desc = unsafe { read_operator(desc) }?;
        // SAFETY: a non-NULL `device` came from `dmls_device_create` and is not yet released.
        let device = unsafe { &(*device).device };
        let handle = dmls_operator {
            op: device.create_operator(&rust_desc)?,
        };
        // SAFETY: `op` is non-NULL and points to writable storage for a pointer.
        unsafe { hand_out(op, handle) };
        Ok(())
    })
}

/// Releases an operator. NULL is fine. Must not run while another thread executes it.
///
/// # Safety
/// `op` is NULL or an operator from `dmls_device_create_operator` not yet released, which no other thread is executing.
#[no_mangle]
pub unsafe extern "C" fn dmls_operator_release(op: *mut dmls_operator) {
    // SAFETY: per this function's contract, `op` came from `dmls_device_create_operator`.
    unsafe { release(op) }
}
