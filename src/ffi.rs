//! Layer 2: the C API (`dmls_` functions). Every `extern "C"` function of the library is here.
//!
//! Each function checks its pointers in a straight list at the top, converts raw descs and
//! bindings into checked Rust values, calls the safe core, and turns an error into an HRESULT
//! plus a per-thread message. Panics are caught and become `E_FAIL`.
//!
//! The functions are `unsafe` for Rust callers: they trust the pointers they are given, as C
//! functions do. Rust programs should use [`crate::Device`] instead.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_void};
use core::ptr::addr_of;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::device::{Device, DeviceOptions, Operator};
use crate::dml::*;
use crate::error::{invalid, Error, Result};
use crate::op::{Input, OperatorDesc};
use crate::tensor::{DataType, Layout, TensorDesc, MAX_DIMS};

/// A device: the feature level it emulates and the threads it runs on. Opaque; created by
/// `dmls_device_create`, released by `dmls_device_release`.
pub struct dmls_device {
    device: Device,
}

/// A validated, immutable operator. Opaque; created by `dmls_device_create_operator`, released
/// by `dmls_operator_release`. `dmls_operator_execute` may run on one operator from many threads
/// at once. An operator keeps its device alive.
pub struct dmls_operator {
    op: Operator,
}

/// How `dmls_device_create` sets up a device. A NULL desc means all fields 0.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dmls_device_desc {
    /// The DirectML feature level to emulate; 0 = the newest (6_4). Validation follows that
    /// level's tables. Values that are not a DML_FEATURE_LEVEL are E_INVALIDARG; a well-formed
    /// level above 6_4 (such as 0x6500) is DXGI_ERROR_UNSUPPORTED.
    pub feature_level: DML_FEATURE_LEVEL,
    /// Worker threads: 0 = one per logical core, shared process-wide; 1 = run on the calling
    /// thread only; n = a pool of n threads owned by this device (at most 1024).
    pub thread_count: u32,
    /// DMLS_DEVICE_FLAG_* bits; 0 = strict DirectML behaviour. Unknown bits are E_INVALIDARG.
    pub flags: u32,
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn set_error(message: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.clear();
        e.push_str(message);
    });
}

fn clear_error() {
    LAST_ERROR.with(|e| e.borrow_mut().clear());
}

#[cfg(feature = "panic-test")]
thread_local! {
    static PANIC_ON_NEXT_CALL: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Test-only (cargo feature `panic-test`, off by default): the calling thread's next `dmls_`
/// call that returns an HRESULT panics inside the library, so tests can prove that a panic
/// comes back as `E_FAIL` with a message.
#[cfg(feature = "panic-test")]
#[doc(hidden)]
pub fn panic_on_next_call() {
    PANIC_ON_NEXT_CALL.with(|p| p.set(true));
}

/// Runs `f`, catching panics, and turns its result into an HRESULT and the thread's message.
fn boundary(function: &str, f: impl FnOnce() -> Result<()>) -> HRESULT {
    let f = || {
        #[cfg(feature = "panic-test")]
        if PANIC_ON_NEXT_CALL.with(|p| p.replace(false)) {
            panic!("test panic requested by panic_on_next_call (feature panic-test)");
        }
        f()
    };
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            clear_error();
            S_OK
        }
        Ok(Err(e)) => {
            set_error(e.message());
            e.hresult()
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            set_error(&format!(
                "{function}: internal error (a bug in directml_subset, please report it): {what}"
            ));
            E_FAIL
        }
    }
}

fn null(what: &str) -> Error {
    Error::NullPointer(format!("{what} is NULL"))
}

/// Creates a device. `desc` may be NULL (all defaults: the newest feature level, one thread
/// per logical core, strict DirectML). On success `*device` receives the new device; on
/// failure it is left untouched.
///
/// Devices, and operators, survive `fork()`: in the child, every device and operator of the
/// parent works, new ones can be created, and the parent is unaffected. Worker threads do not
/// cross a fork, so a child starts its own (for the process-wide pool and for each device
/// with its own pool) on its first parallel execution; the parent's pools are left untouched
/// in the child (their memory is not reclaimed there). No lock of the library is held between
/// calls, so a fork while other threads execute is safe too. If the child cannot start
/// threads, that execution fails with E_OUTOFMEMORY and writes nothing.
///
/// Returns S_OK, E_POINTER (`device` is NULL), E_INVALIDARG (unknown feature level, unknown
/// flags, more than 1024 threads), DXGI_ERROR_UNSUPPORTED (a level above 6_4) or E_OUTOFMEMORY.
///
/// # Safety
/// `desc` is NULL or points to a dmls_device_desc; `device` is NULL or points to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn dmls_device_create(
    desc: *const dmls_device_desc,
    device: *mut *mut dmls_device,
) -> HRESULT {
    boundary("dmls_device_create", || {
        if device.is_null() {
            return Err(null("dmls_device_create: device"));
        }
        let options = if desc.is_null() {
            DeviceOptions::default()
        } else {
            // SAFETY: `desc` is non-NULL and, by the API's contract, points to a dmls_device_desc.
            let d = unsafe { desc.read_unaligned() };
            DeviceOptions {
                feature_level: d.feature_level,
                thread_count: d.thread_count,
                flags: d.flags,
            }
        };
        let handle = Box::new(dmls_device {
            device: Device::new(&options).map_err(|e| e.prefixed("dmls_device_create"))?,
        });
        // SAFETY: `device` is non-NULL and points to writable storage for a pointer.
        unsafe { device.write_unaligned(Box::into_raw(handle)) };
        Ok(())
    })
}

/// Releases a device. NULL is fine. Operators created from it stay valid: they keep what they
/// need of the device alive until they are released too.
///
/// # Safety
/// `device` is NULL or a device from `dmls_device_create` not yet released.
#[no_mangle]
pub unsafe extern "C" fn dmls_device_release(device: *mut dmls_device) {
    if device.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a non-NULL `device` came from `dmls_device_create` and is released once.
        drop(unsafe { Box::from_raw(device) });
    }));
}

/// Answers a DirectML feature query.
///
/// - `DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT`: `query` is a DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT,
///   `support` a DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT: TRUE for the 11 types of 8 to 64
///   bits, FALSE for UINT4, INT4 and unknown values.
/// - `DML_FEATURE_FEATURE_LEVELS`: `query` is a DML_FEATURE_QUERY_FEATURE_LEVELS, `support` a
///   DML_FEATURE_DATA_FEATURE_LEVELS: the highest requested level not above the device's. A
///   requested value that is not a DML_FEATURE_LEVEL, or a count of 0, is E_INVALIDARG; when
///   every requested level is above the device's, DXGI_ERROR_UNSUPPORTED.
///
/// `query_size` and `support_size` must equal the structs' sizes exactly (E_INVALIDARG). An
/// unknown feature is DXGI_ERROR_UNSUPPORTED. NULL `device`, `query` or `support` is E_POINTER.
///
/// # Safety
/// `device` is NULL or a live device; `query` and `support`, when non-NULL, hold `query_size` and `support_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn dmls_device_check_feature_support(
    device: *const dmls_device,
    feature: DML_FEATURE,
    query_size: u32,
    query: *const c_void,
    support_size: u32,
    support: *mut c_void,
) -> HRESULT {
    const F: &str = "dmls_device_check_feature_support";
    boundary(F, || {
        if device.is_null() {
            return Err(null("dmls_device_check_feature_support: device"));
        }
        // SAFETY: a non-NULL `device` came from `dmls_device_create` and is not yet released.
        let device = unsafe { &(*device).device };
        let (want_query, want_support, name) = match feature {
            DML_FEATURE::TENSOR_DATA_TYPE_SUPPORT => (
                size_of::<DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT>(),
                size_of::<DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT>(),
                "DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT",
            ),
            DML_FEATURE::FEATURE_LEVELS => (
                size_of::<DML_FEATURE_QUERY_FEATURE_LEVELS>(),
                size_of::<DML_FEATURE_DATA_FEATURE_LEVELS>(),
                "DML_FEATURE_FEATURE_LEVELS",
            ),
            other => {
                return Err(Error::Unsupported(format!(
                    "{F}: feature {} is not a DML_FEATURE this library answers (0 or 1)",
                    other.0
                )))
            }
        };
        if query.is_null() {
            return Err(null(&format!("{F}({name}): query")));
        }
        if support.is_null() {
            return Err(null(&format!("{F}({name}): support")));
        }
        if query_size as usize != want_query {
            return invalid!("{F}({name}): query_size is {query_size}, must be {want_query}");
        }
        if support_size as usize != want_support {
            return invalid!("{F}({name}): support_size is {support_size}, must be {want_support}");
        }
        if feature == DML_FEATURE::TENSOR_DATA_TYPE_SUPPORT {
            // SAFETY: `query` is non-NULL and the caller says it holds `query_size` bytes, which
            // is the struct's size.
            let q = unsafe {
                query
                    .cast::<DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT>()
                    .read_unaligned()
            };
            let answer = DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT {
                IsSupported: BOOL::from(device.is_data_type_supported(q.DataType)),
            };
            // SAFETY: `support` is non-NULL and holds `support_size` bytes, the struct's size.
            unsafe {
                support
                    .cast::<DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT>()
                    .write_unaligned(answer)
            };
        } else {
            // SAFETY: as above, for the feature-levels query.
            let q = unsafe {
                query
                    .cast::<DML_FEATURE_QUERY_FEATURE_LEVELS>()
                    .read_unaligned()
            };
            if q.RequestedFeatureLevelCount > 0 && q.RequestedFeatureLevels.is_null() {
                return Err(null(&format!("{F}({name}): RequestedFeatureLevels")));
            }
            let levels: &[DML_FEATURE_LEVEL] = if q.RequestedFeatureLevelCount == 0 {
                &[]
            } else {
                // SAFETY: non-NULL, and the caller says it holds RequestedFeatureLevelCount
                // entries; DML_FEATURE_LEVEL is a plain u32 (any bit pattern is valid).
                unsafe {
                    core::slice::from_raw_parts(
                        q.RequestedFeatureLevels,
                        q.RequestedFeatureLevelCount as usize,
                    )
                }
            };
            let max = device.max_supported_feature_level(levels)?;
            let answer = DML_FEATURE_DATA_FEATURE_LEVELS {
                MaxSupportedFeatureLevel: max,
            };
            // SAFETY: `support` is non-NULL and holds `support_size` bytes, the struct's size.
            unsafe {
                support
                    .cast::<DML_FEATURE_DATA_FEATURE_LEVELS>()
                    .write_unaligned(answer)
            };
        }
        Ok(())
    })
}

/// Reads a tensor desc pointer. NULL gives `None`; the caller decides whether that is allowed.
///
/// # Safety
/// `p`, when non-NULL, points to a DML_TENSOR_DESC whose pointers are valid as DirectML
/// documents them (`Sizes` and, when non-NULL, `Strides` hold `DimensionCount` entries).
unsafe fn read_tensor(
    p: *const DML_TENSOR_DESC,
    op: &str,
    name: &str,
) -> Result<Option<TensorDesc>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, per this function's contract.
    let t = unsafe { p.read_unaligned() };
    if t.Type != DML_TENSOR_TYPE::BUFFER {
        return invalid!(
            "{op}: {name} Type is {}, must be DML_TENSOR_TYPE_BUFFER (1)",
            t.Type.0
        );
    }
    if t.Desc.is_null() {
        return Err(null(&format!("{op}: {name} Desc")));
    }
    // SAFETY: a BUFFER tensor desc's `Desc` points to a DML_BUFFER_TENSOR_DESC.
    let b = unsafe { t.Desc.cast::<DML_BUFFER_TENSOR_DESC>().read_unaligned() };
    let dims = b.DimensionCount as usize;
    // Sizes and Strides are read only when the count is one a tensor can have, so a wrong count
    // never leads past the caller's arrays; validation then reports the count.
    let mut sizes = [0u32; MAX_DIMS];
    let mut strides = [0u32; MAX_DIMS];
    let mut has_strides = false;
    if (1..=MAX_DIMS).contains(&dims) {
        if b.Sizes.is_null() {
            return Err(null(&format!("{op}: {name} Sizes")));
        }
        // SAFETY: `Sizes` is non-NULL and holds DimensionCount (1 to 8) entries.
        sizes[..dims].copy_from_slice(unsafe { core::slice::from_raw_parts(b.Sizes, dims) });
        if !b.Strides.is_null() {
            // SAFETY: `Strides`, when given, holds DimensionCount entries too.
            strides[..dims]
                .copy_from_slice(unsafe { core::slice::from_raw_parts(b.Strides, dims) });
            has_strides = true;
        }
    }
    let mut desc = TensorDesc::raw(
        b.DataType,
        &sizes[..dims.min(MAX_DIMS)],
        has_strides.then_some(&strides[..dims.min(MAX_DIMS)]),
        b.TotalTensorSizeInBytes,
    );
    desc.dimension_count = b.DimensionCount;
    desc.flags = b.Flags;
    desc.guaranteed_base_offset_alignment = b.GuaranteedBaseOffsetAlignment;
    Ok(Some(desc))
}

/// Reads a required tensor desc pointer: NULL is E_POINTER.
///
/// # Safety
/// As for [`read_tensor`].
unsafe fn required_tensor(p: *const DML_TENSOR_DESC, op: &str, name: &str) -> Result<TensorDesc> {
    // SAFETY: forwarded contract.
    unsafe { read_tensor(p, op, name) }?.ok_or_else(|| null(&format!("{op}: {name}")))
}

/// Converts a C operator desc into the Rust one.
///
/// # Safety
/// `desc` is non-NULL and points to a DML_OPERATOR_DESC whose pointers are valid as DirectML
/// documents them.
unsafe fn read_operator(desc: *const DML_OPERATOR_DESC) -> Result<OperatorDesc> {
    // SAFETY: non-NULL per contract.
    let d = unsafe { desc.read_unaligned() };
    let ty = d.Type;
    let op = match ty {
        DML_OPERATOR_TYPE::NONZERO_COORDINATES => "NONZERO_COORDINATES",
        DML_OPERATOR_TYPE::DIAGONAL_MATRIX1 => "DIAGONAL_MATRIX1",
        DML_OPERATOR_TYPE::DIAGONAL_MATRIX => "DIAGONAL_MATRIX",
        DML_OPERATOR_TYPE::INVALID => {
            return invalid!("dmls_device_create_operator: desc Type is DML_OPERATOR_INVALID (0)")
        }
        t => {
            if let Some(name) = t.directml_name() {
                return Err(Error::NotImplemented(format!(
                    "dmls_device_create_operator: desc Type is {name} ({}), a DirectML operator \
                     this library does not implement (it has DML_OPERATOR_DIAGONAL_MATRIX 93, \
                     DML_OPERATOR_NONZERO_COORDINATES 133 and DML_OPERATOR_DIAGONAL_MATRIX1 163)",
                    t.0
                )));
            }
            return invalid!(
                "dmls_device_create_operator: desc Type is {}, not a DML_OPERATOR_TYPE value \
                 (DirectML's go up to DML_OPERATOR_UNFOLD 177)",
                t.0
            );
        }
    };
    if d.Desc.is_null() {
        return Err(null(&format!("{op}: DML_OPERATOR_DESC.Desc")));
    }
    // SAFETY (all three arms): `Desc` is non-NULL and, for this Type, points to the matching
    // operator desc, whose tensor pointers follow `read_tensor`'s contract.
    Ok(match ty {
        DML_OPERATOR_TYPE::NONZERO_COORDINATES => {
            // SAFETY: `Desc` points to a DML_NONZERO_COORDINATES_OPERATOR_DESC (see above).
            let n = unsafe {
                d.Desc
                    .cast::<DML_NONZERO_COORDINATES_OPERATOR_DESC>()
                    .read_unaligned()
            };
            OperatorDesc::NonZeroCoordinates {
                // SAFETY: the desc's tensor pointers follow `read_tensor`'s contract.
                input: unsafe { required_tensor(n.InputTensor, op, "InputTensor") }?,
                // SAFETY: as above.
                output_count: unsafe {
                    required_tensor(n.OutputCountTensor, op, "OutputCountTensor")
                }?,
                // SAFETY: as above.
                output_coordinates: unsafe {
                    required_tensor(n.OutputCoordinatesTensor, op, "OutputCoordinatesTensor")
                }?,
            }
        }
        DML_OPERATOR_TYPE::DIAGONAL_MATRIX1 => {
            // Field by field, so that the union `Value` is read only as wide as ValueDataType
            // says: the bytes past that may be uninitialised in the caller's desc.
            let g = d.Desc.cast::<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>();
            // SAFETY: `g` points to a DML_DIAGONAL_MATRIX1_OPERATOR_DESC (contract above); these
            // scalar and pointer fields are always set by the caller.
            let (input, output, value_data_type, begin, end) = unsafe {
                (
                    addr_of!((*g).InputTensor).read_unaligned(),
                    addr_of!((*g).OutputTensor).read_unaligned(),
                    addr_of!((*g).ValueDataType).read_unaligned(),
                    addr_of!((*g).DiagonalFillBegin).read_unaligned(),
                    addr_of!((*g).DiagonalFillEnd).read_unaligned(),
                )
            };
            let width = match DataType::from_raw(value_data_type) {
                Some(t) => t.size(),
                // UINT4 / INT4 (rejected later): their value would sit in the first byte.
                None if matches!(value_data_type.0, 12 | 13) => 1,
                None => 0,
            };
            OperatorDesc::DiagonalMatrix1 {
                // SAFETY: the desc's tensor pointers follow `read_tensor`'s contract.
                input: unsafe { read_tensor(input, op, "InputTensor") }?,
                // SAFETY: as above.
                output: unsafe { required_tensor(output, op, "OutputTensor") }?,
                value_data_type,
                // SAFETY: `Value` lies inside the desc; a caller sets at least the member its
                // ValueDataType names, which is `width` bytes from the union's start.
                value: unsafe { DML_SCALAR_UNION::read_prefix(addr_of!((*g).Value), width) },
                diagonal_fill_begin: begin,
                diagonal_fill_end: end,
            }
        }
        _ => {
            // SAFETY: `Desc` points to a DML_DIAGONAL_MATRIX_OPERATOR_DESC (see above).
            let g = unsafe {
                d.Desc
                    .cast::<DML_DIAGONAL_MATRIX_OPERATOR_DESC>()
                    .read_unaligned()
            };
            OperatorDesc::DiagonalMatrix {
                // SAFETY: the desc's tensor pointer follows `read_tensor`'s contract.
                output: unsafe { required_tensor(g.OutputTensor, op, "OutputTensor") }?,
                offset: g.Offset,
                value: g.Value,
            }
        }
    })
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
/// tensors may broadcast freely. The check is exact; a layout built so that its bounded search
/// cannot settle it (none that real programs use) is accepted and written by one thread.
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
        if device.is_null() {
            return Err(null("dmls_device_create_operator: device"));
        }
        if desc.is_null() {
            return Err(null("dmls_device_create_operator: desc"));
        }
        if op.is_null() {
            return Err(null("dmls_device_create_operator: op"));
        }
        // SAFETY: non-NULL; by the API's contract it points to a valid operator desc.
        let rust_desc = unsafe { read_operator(desc) }?;
        // SAFETY: a non-NULL `device` came from `dmls_device_create` and is not yet released.
        let device = unsafe { &(*device).device };
        let handle = Box::new(dmls_operator {
            op: device.create_operator(&rust_desc)?,
        });
        // SAFETY: `op` is non-NULL and points to writable storage for a pointer.
        unsafe { op.write_unaligned(Box::into_raw(handle)) };
        Ok(())
    })
}

/// Releases an operator. NULL is fine. Must not run while another thread executes it.
///
/// # Safety
/// `op` is NULL or an operator from `dmls_device_create_operator` not yet released, which no other thread is executing.
#[no_mangle]
pub unsafe extern "C" fn dmls_operator_release(op: *mut dmls_operator) {
    if op.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a non-NULL `op` came from `dmls_device_create_operator` and is released once.
        drop(unsafe { Box::from_raw(op) });
    }));
}

/// A bound buffer range, checked.
#[derive(Clone, Copy)]
struct Bound {
    addr: usize,
    len: usize,
}

/// Reads and checks one binding against its tensor. `Ok(None)` for DML_BINDING_TYPE_NONE.
///
/// # Safety
/// `b` points to a DML_BINDING_DESC whose `Desc`, for a BUFFER binding, points to a
/// DML_BUFFER_BINDING.
unsafe fn read_binding(
    b: *const DML_BINDING_DESC,
    op: &str,
    name: &str,
    layout: Option<&Layout>,
) -> Result<Option<Bound>> {
    // SAFETY: per contract.
    let d = unsafe { b.read_unaligned() };
    match d.Type {
        DML_BINDING_TYPE::NONE => return Ok(None),
        DML_BINDING_TYPE::BUFFER => {}
        DML_BINDING_TYPE::BUFFER_ARRAY => {
            return invalid!(
                "{op}: {name} is bound with DML_BINDING_TYPE_BUFFER_ARRAY, which this library does \
                 not support; use DML_BINDING_TYPE_BUFFER"
            )
        }
        t => {
            return invalid!(
                "{op}: {name} binding Type is {}, not a DML_BINDING_TYPE value (0 to 2)",
                t.0
            )
        }
    }
    if d.Desc.is_null() {
        return Err(null(&format!("{op}: {name} binding Desc")));
    }
    // SAFETY: a BUFFER binding's `Desc` points to a DML_BUFFER_BINDING.
    let buf = unsafe { d.Desc.cast::<DML_BUFFER_BINDING>().read_unaligned() };
    if buf.Buffer.is_null() {
        return Err(null(&format!("{op}: {name} DML_BUFFER_BINDING.Buffer")));
    }
    let Some(l) = layout else {
        // The slot takes no tensor; the core reports it with the slot's name.
        return Ok(Some(Bound {
            addr: buf.Buffer as usize,
            len: 0,
        }));
    };
    let need = if l.alignment != 0 {
        u64::from(l.alignment)
    } else {
        u64::from(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)
    };
    if buf.Offset % need != 0 {
        return invalid!(
            "{op}: {name} binding Offset is {}, must be a multiple of {need}{}",
            buf.Offset,
            if l.alignment != 0 {
                " (the tensor's GuaranteedBaseOffsetAlignment)"
            } else {
                " (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)"
            }
        );
    }
    if buf.SizeInBytes < l.total_bytes {
        return invalid!(
            "{op}: {name} binding SizeInBytes is {}, less than the tensor's TotalTensorSizeInBytes {}; \
             bind at least {} bytes",
            buf.SizeInBytes,
            l.total_bytes,
            l.total_bytes
        );
    }
    let base = buf.Buffer as usize as u64;
    let end = base
        .checked_add(buf.Offset)
        .and_then(|start| start.checked_add(buf.SizeInBytes).map(|e| (start, e)));
    let Some((start, _)) = end.filter(|&(_, e)| e <= isize::MAX as u64) else {
        return invalid!(
            "{op}: {name} binding Buffer {:#x} + Offset {} + SizeInBytes {} runs past the end of \
             the address space",
            base,
            buf.Offset,
            buf.SizeInBytes
        );
    };
    Ok(Some(Bound {
        addr: start as usize,
        len: l.total_bytes as usize,
    }))
}

fn overlaps(a: Bound, b: Bound) -> bool {
    a.addr < b.addr + b.len && b.addr < a.addr + a.len
}

/// Runs an operator on bound memory.
///
/// `inputs` holds exactly `input_count` entries and `outputs` exactly `output_count`, in
/// DirectML's order:
///
/// | operator            | inputs                                        | outputs                                      |
/// |---------------------|-----------------------------------------------|----------------------------------------------|
/// | NONZERO_COORDINATES | InputTensor                                   | OutputCountTensor, OutputCoordinatesTensor   |
/// | DIAGONAL_MATRIX1    | InputTensor (DML_BINDING_TYPE_NONE exactly when the desc's InputTensor was NULL) | OutputTensor |
/// | DIAGONAL_MATRIX     | none (`input_count` 0, `inputs` may be NULL)  | OutputTensor                                 |
///
/// A DML_BINDING_TYPE_BUFFER entry points to a DML_BUFFER_BINDING whose `Buffer` is host memory;
/// the tensor's bytes start at `Buffer + Offset`. Each of these is E_INVALIDARG: `SizeInBytes`
/// below the tensor's TotalTensorSizeInBytes; `Offset` not a multiple of 16 (or of
/// GuaranteedBaseOffsetAlignment when given); `Buffer + Offset` not aligned to the element size
/// (and GuaranteedBaseOffsetAlignment); DML_BINDING_TYPE_BUFFER_ARRAY; an output's bytes
/// `[Buffer + Offset, + TotalTensorSizeInBytes)` overlapping any other bound tensor's, except
/// that DIAGONAL_MATRIX1 may run in place (input and output at the same address with the same
/// layout). NULL `op`, a NULL array with a nonzero count, a NULL binding `Desc` or `Buffer` is
/// E_POINTER.
///
/// Only the output tensors' elements are written: never padding between strided elements,
/// never bytes past the last element, and for NONZERO_COORDINATES never the rows from the count
/// on (DirectML leaves them undefined; this library leaves them untouched). On failure nothing
/// is written.
///
/// # Safety
/// `op` is NULL or a live operator; `inputs` and `outputs` hold `input_count` and `output_count` entries; each bound `Buffer + Offset` holds `SizeInBytes` bytes of host memory.
#[no_mangle]
pub unsafe extern "C" fn dmls_operator_execute(
    op: *const dmls_operator,
    input_count: u32,
    inputs: *const DML_BINDING_DESC,
    output_count: u32,
    outputs: *const DML_BINDING_DESC,
) -> HRESULT {
    boundary("dmls_operator_execute", || {
        if op.is_null() {
            return Err(null("dmls_operator_execute: op"));
        }
        // SAFETY: a non-NULL `op` came from `dmls_device_create_operator` and is not released.
        let op = unsafe { &(*op).op };
        let plan = op.plan();
        let name = plan.name();
        let (in_slots, out_slots) = (plan.inputs(), plan.outputs());
        let (in_names, out_names) = (plan.input_names(), plan.output_names());
        if input_count as usize != in_slots.len() {
            // What to pass instead: an optional tensor left out of the desc still has its slot.
            let remedy = match in_slots {
                [] => "pass input_count 0 (inputs may be NULL)".to_string(),
                [None] => format!(
                    "the desc's {0} is NULL, so bind its slot with DML_BINDING_TYPE_NONE and pass \
                     input_count 1",
                    in_names[0]
                ),
                _ => format!(
                    "pass input_count {} with the slots in this order",
                    in_slots.len()
                ),
            };
            return invalid!(
                "{name}: input_count is {input_count}, the operator has {} input{} ({}); {remedy}",
                in_slots.len(),
                if in_slots.len() == 1 { "" } else { "s" },
                if in_names.is_empty() {
                    "none".to_string()
                } else {
                    in_names.join(", ")
                }
            );
        }
        if output_count as usize != out_slots.len() {
            return invalid!(
                "{name}: output_count is {output_count}, the operator has {} output{} ({}); pass \
                 output_count {} with the slots in this order",
                out_slots.len(),
                if out_slots.len() == 1 { "" } else { "s" },
                out_names.join(", "),
                out_slots.len()
            );
        }
        if input_count > 0 && inputs.is_null() {
            return Err(null(&format!("{name}: inputs")));
        }
        if outputs.is_null() {
            return Err(null(&format!("{name}: outputs")));
        }
        let mut in_bound: [Option<Bound>; 1] = [None];
        for (i, slot) in in_slots.iter().enumerate() {
            // SAFETY: `inputs` holds `input_count` entries (checked equal to the slot count).
            in_bound[i] = unsafe { read_binding(inputs.add(i), name, in_names[i], slot.as_ref()) }?;
        }
        let mut out_bound: [Bound; 2] = [Bound { addr: 0, len: 0 }; 2];
        for (i, slot) in out_slots.iter().enumerate() {
            // SAFETY: `outputs` holds `output_count` entries (checked equal to the slot count).
            match unsafe { read_binding(outputs.add(i), name, out_names[i], Some(slot)) }? {
                Some(b) => out_bound[i] = b,
                None => {
                    return invalid!(
                        "{name}: {} is bound with DML_BINDING_TYPE_NONE; outputs need a buffer",
                        out_names[i]
                    )
                }
            }
        }
        let out_bound = &out_bound[..out_slots.len()];
        // Overlap: outputs against each other and against inputs; in place is the exception.
        let mut in_place = false;
        for (i, &o) in out_bound.iter().enumerate() {
            for (j, &p) in out_bound.iter().enumerate().skip(i + 1) {
                if overlaps(o, p) {
                    return invalid!(
                        "{name}: {} [{:#x}, +{}) overlaps {} [{:#x}, +{}); outputs must not overlap",
                        out_names[i], o.addr, o.len, out_names[j], p.addr, p.len
                    );
                }
            }
            for (j, b) in in_bound.iter().enumerate().take(in_slots.len()) {
                let Some(b) = *b else { continue };
                if b.len == 0 || !overlaps(o, b) {
                    continue;
                }
                let same_layout = in_slots[j].as_ref() == Some(&out_slots[i]);
                if plan.kind().runs_in_place() && b.addr == o.addr && same_layout {
                    in_place = true;
                    continue;
                }
                return invalid!(
                    "{name}: {} [{:#x}, +{}) overlaps {} [{:#x}, +{}){}",
                    out_names[i],
                    o.addr,
                    o.len,
                    in_names[j],
                    b.addr,
                    b.len,
                    if plan.kind().runs_in_place() {
                        "; in place needs the same address and the same layout"
                    } else {
                        "; outputs must not overlap inputs"
                    }
                );
            }
        }
        let input_views: [Input<'_>; 1] = [match in_bound[0] {
            None => Input::None,
            Some(_) if in_place => Input::InPlace,
            // SAFETY: the caller guarantees `Buffer + Offset` holds `SizeInBytes` readable bytes
            // (checked at least `len`), and no output overlaps it (checked above).
            Some(b) => {
                // SAFETY: see above.
                Input::Bytes(unsafe { core::slice::from_raw_parts(b.addr as *const u8, b.len) })
            }
        }];
        let mut first: &mut [u8] = &mut [];
        let mut second: &mut [u8] = &mut [];
        for (i, b) in out_bound.iter().enumerate() {
            // SAFETY: the caller guarantees `Buffer + Offset` holds `SizeInBytes` writable bytes
            // (checked at least `len`); the output ranges overlap nothing else that is bound
            // (checked above), so this is the only reference to these bytes.
            let s = unsafe { core::slice::from_raw_parts_mut(b.addr as *mut u8, b.len) };
            if i == 0 {
                first = s;
            } else {
                second = s;
            }
        }
        let mut views: [&mut [u8]; 2] = [first, second];
        op.execute(
            &input_views[..in_slots.len()],
            &mut views[..out_slots.len()],
        )
    })
}

/// DirectMLX's `DMLCalcBufferTensorSize`: the bytes a buffer tensor of this type, sizes and
/// strides (NULL = packed) needs, rounded up to a multiple of 4, computed in 64 bits (DirectMLX
/// accumulates in 32 bits and can wrap; this does not). UINT4 and INT4 count half a byte per
/// element. Returns 0 for an unknown data type, a NULL `sizes`, a dimension count of 0 or
/// above 8, or a size that does not fit in 64 bits.
///
/// # Safety
/// `sizes` is NULL or holds `dimension_count` entries; so does `strides` when non-NULL.
#[no_mangle]
pub unsafe extern "C" fn dmls_calc_buffer_tensor_size(
    data_type: DML_TENSOR_DATA_TYPE,
    dimension_count: u32,
    sizes: *const u32,
    strides: *const u32,
) -> u64 {
    let dims = dimension_count as usize;
    if sizes.is_null() || dims == 0 || dims > MAX_DIMS {
        return 0;
    }
    catch_unwind(|| {
        // SAFETY: `sizes` is non-NULL and holds `dimension_count` (1 to 8) entries.
        let sizes = unsafe { core::slice::from_raw_parts(sizes, dims) };
        // SAFETY: `strides`, when non-NULL, holds `dimension_count` entries too.
        let strides =
            (!strides.is_null()).then(|| unsafe { core::slice::from_raw_parts(strides, dims) });
        crate::tensor::calc_size_bits(data_type, sizes, strides).unwrap_or(0)
    })
    .unwrap_or(0)
}

/// Copies the calling thread's last error message, NUL-terminated, into `buffer` (truncated to
/// `buffer_size` bytes including the NUL; a NULL buffer or size 0 copies nothing) and returns
/// its full length without the NUL, or 0 when the thread's last `dmls_` call succeeded. Each
/// `dmls_` call that returns an HRESULT sets the message on failure and clears it on success.
///
/// # Safety
/// `buffer` is NULL or holds `buffer_size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn dmls_get_last_error_message(
    buffer: *mut c_char,
    buffer_size: usize,
) -> usize {
    catch_unwind(|| {
        LAST_ERROR.with(|e| {
            let e = e.borrow();
            if !buffer.is_null() && buffer_size > 0 {
                let n = e.len().min(buffer_size - 1);
                // SAFETY: `buffer` is non-NULL and holds `buffer_size` bytes; n + 1 <= buffer_size.
                unsafe {
                    core::ptr::copy_nonoverlapping(e.as_ptr(), buffer.cast::<u8>(), n);
                    buffer.add(n).write(0);
                }
            }
            e.len()
        })
    })
    .unwrap_or(0)
}

static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// The library's version ("MAJOR.MINOR.PATCH"), a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn dmls_version() -> *const c_char {
    VERSION.as_ptr().cast()
}
