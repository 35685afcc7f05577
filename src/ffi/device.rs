//! The device's C entry points: create, release, and DirectML's feature queries.

use core::ffi::c_void;

use super::boundary::{boundary, hand_out, non_null, null, read_as, release};
use crate::device::{Device, DeviceOptions};
use crate::dml::*;
use crate::error::{invalid, Error};

/// A device: the feature level it emulates and the threads it runs on. Opaque; created by
/// `dmls_device_create`, released by `dmls_device_release`.
///
/// Thread safety: a device may be used from any number of threads at once, with no lock of the
/// caller's. `dmls_device_create_operator` and `dmls_device_check_feature_support` may run on
/// one device concurrently, and operators of one device may execute concurrently (executions
/// on a device with a pool share its threads). Only `dmls_device_release` must not overlap
/// another call on the same device; operators already created keep working after it.
///
/// Stack: every call works from a calling thread with as little as 64 KiB of stack (a
/// coroutine's, a fiber's); the deepest path uses about 16 KiB of it on x86-64
/// (`c_tests/test_small_stack.c`).
pub struct dmls_device {
    pub(super) device: Device,
}

/// How `dmls_device_create` sets up a device. A NULL desc means all fields 0.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dmls_device_desc {
    /// The DirectML feature level to emulate; 0 = the newest (6_4). Validation follows that
    /// level's tables. Values that are not a DML_FEATURE_LEVEL are E_INVALIDARG; a well-formed
    /// level above 6_4 (such as 0x6500) is DXGI_ERROR_UNSUPPORTED.
    pub feature_level: DML_FEATURE_LEVEL,
    /// Worker threads: 0 = one per logical core (or `RAYON_NUM_THREADS` when set), shared
    /// process-wide; 1 = run on the calling thread only; n = a pool of n threads owned by this
    /// device (at most 1024).
    pub thread_count: u32,
    /// DMLS_DEVICE_FLAG_* bits; 0 = strict DirectML behaviour. Unknown bits are E_INVALIDARG.
    pub flags: u32,
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
        non_null(device, format_args!("dmls_device_create: device"))?;
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
        let handle = dmls_device {
            device: Device::new(&options).map_err(|e| e.prefixed("dmls_device_create"))?,
        };
        // SAFETY: `device` is non-NULL and points to writable storage for a pointer.
        unsafe { hand_out(device, handle) };
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
    // SAFETY: per this function's contract, `device` came from `dmls_device_create`.
    unsafe { release(device) }
}

/// Answers a DirectML feature query.
///
/// - `DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT`: `query` is a DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT,
///   `support` a DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT: TRUE for the 11 types of 8 to 64
///   bits, FALSE for UINT4, INT4 and unknown values.
/// - `DML_FEATURE_FEATURE_LEVELS`: `query` is a DML_FEATURE_QUERY_FEATURE_LEVELS, `support` a
///   DML_FEATURE_DATA_FEATURE_LEVELS: the highest requested level not above the device's. A
///   well-formed level above 6_4 (0xMm00, as a program built with a newer DirectML.h may list)
///   counts as above the device's. A requested value that is neither a DML_FEATURE_LEVEL nor
///   such a level (0x3300, 0x6401), or a count of 0, is E_INVALIDARG; when every requested
///   level is above the device's, DXGI_ERROR_UNSUPPORTED.
///
/// `query_size` and `support_size` must equal the structs' sizes exactly (E_INVALIDARG). An
/// unknown feature is DXGI_ERROR_UNSUPPORTED. NULL `device`, `query` or `support` is E_POINTER, as
/// is a NULL `RequestedFeatureLevels` with a nonzero count.
/// The checks run in this order, the first failure answering: `device`, the feature, `query`
/// and `support`, their sizes.
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
        non_null(
            device,
            format_args!("dmls_device_check_feature_support: device"),
        )?;
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
        non_null(query, format_args!("{F}({name}): query"))?;
        non_null(support, format_args!("{F}({name}): support"))?;
        if query_size as usize != want_query {
            return invalid!("{F}({name}): query_size is {query_size}, must be {want_query}");
        }
        if support_size as usize != want_support {
            return invalid!("{F}({name}): support_size is {support_size}, must be {want_support}");
        }
        if feature == DML_FEATURE::TENSOR_DATA_TYPE_SUPPORT {
            // SAFETY: `query` is non-NULL and the caller says it holds `query_size` bytes, which
            // is the struct's size.
            let q = unsafe { read_as::<DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT>(query) };
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
            let q = unsafe { read_as::<DML_FEATURE_QUERY_FEATURE_LEVELS>(query) };
            if q.RequestedFeatureLevelCount > 0 && q.RequestedFeatureLevels.is_null() {
                return Err(null(format_args!("{F}({name}): RequestedFeatureLevels")));
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
            let max = device
                .max_supported_feature_level(levels)
                .map_err(|e| e.prefixed(&format!("{F}({name})")))?;
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
