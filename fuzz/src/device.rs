//! The case's device: created through the C API and checked against the model; devices with
//! their own pools are created once and kept.

use std::sync::Mutex;

use directml_subset::dml::*;
use directml_subset::ffi::*;

use crate::case::Case;
use crate::hresult::{check_hr, check_verdict, DEVICE_CODES};
use crate::model;

/// Devices with their own thread pools, created once per (level, flags, threads) and kept for
/// the whole run (a global, so leak checkers see them as reachable).
static POOLED: Mutex<Vec<(DeviceKey, usize)>> = Mutex::new(Vec::new());

/// (feature level, flags, thread count).
type DeviceKey = (u32, u32, u32);

fn pooled(key: DeviceKey) -> Option<usize> {
    let p = POOLED.lock().unwrap_or_else(|e| e.into_inner());
    p.iter().find(|(k, _)| *k == key).map(|&(_, d)| d)
}

/// Creates the case's device through the C API and checks the result. `None` when creation
/// failed (as it should, per the model).
pub(crate) fn create_device(case: &Case) -> Option<(*mut dmls_device, bool)> {
    let desc = dmls_device_desc {
        feature_level: case.level(),
        thread_count: case.thread_count(),
        flags: case.flags,
    };
    let expect = model::device(&desc);
    let use_pool = (2..=3).contains(&desc.thread_count) && expect == Ok(());
    if use_pool {
        let key = (desc.feature_level.0, desc.flags, desc.thread_count);
        if let Some(p) = pooled(key) {
            return Some((p as *mut dmls_device, false));
        }
    }
    let sentinel = 0x5EA1usize as *mut dmls_device;
    let mut dev = sentinel;
    // SAFETY: valid pointers.
    let hr = unsafe { dmls_device_create(&desc, &mut dev) };
    let msg = check_hr("dmls_device_create", hr, DEVICE_CODES, case);
    check_verdict(&format!("device {desc:?}"), hr, &expect, &msg, case);
    if hr != S_OK {
        assert_eq!(dev, sentinel, "dmls_device_create wrote *device on failure");
        return None;
    }
    assert!(!dev.is_null() && dev != sentinel);
    if use_pool {
        let key = (desc.feature_level.0, desc.flags, desc.thread_count);
        POOLED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((key, dev as usize));
        return Some((dev, false));
    }
    Some((dev, true))
}

pub(crate) fn resolved_level(case: &Case) -> DML_FEATURE_LEVEL {
    match case.level() {
        DML_FEATURE_LEVEL(0) => DML_FEATURE_LEVEL_6_4,
        l => l,
    }
}
