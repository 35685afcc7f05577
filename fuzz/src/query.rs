//! `dmls_device_check_feature_support` with the case's query, against the model; the query and
//! the answer sit against inaccessible pages.

use core::ffi::c_void;

use directml_subset::dml::*;
use directml_subset::ffi::dmls_device;
use directml_subset::ffi::dmls_device_check_feature_support;
use test_support::guarded::{or_null, or_null_mut, GuardedArray};

use crate::case::Case;
use crate::device::resolved_level;
use crate::hresult::{check_hr, check_verdict, QUERY_CODES};
use crate::model;

pub(crate) fn run_query(case: &Case, dev: *mut dmls_device) {
    let q = &case.query;
    if q.feature == 0 {
        return;
    }
    let feature = DML_FEATURE(match q.feature {
        1 => 0,
        2 => 1,
        _ => q.feature_raw,
    });
    let levels: Vec<u32> = q
        .levels
        .iter()
        .map(|&k| {
            if (k as usize) < model::KNOWN_LEVELS.len() {
                model::KNOWN_LEVELS[k as usize]
            } else {
                k
            }
        })
        .collect();
    let level_array = GuardedArray::new(&levels);
    let type_query = DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT {
        DataType: DML_TENSOR_DATA_TYPE(q.data_type),
    };
    let level_query = DML_FEATURE_QUERY_FEATURE_LEVELS {
        RequestedFeatureLevelCount: levels.len() as u32,
        RequestedFeatureLevels: or_null(q.nulls & 16 != 0, level_array.ptr().cast()),
    };
    // The query and answer sit against inaccessible pages too, so a wrong size cannot be read
    // or written past.
    let (query_bytes, want_query, want_support): (Vec<u8>, u32, u32) = if feature.0 == 1 {
        (bytes_of(&level_query), 16, 4)
    } else {
        (bytes_of(&type_query), 4, 4)
    };
    let query_mem = GuardedArray::of_structs(&query_bytes);
    let support_mem = GuardedArray::of_structs(&[0xABu8; 4]);
    let query_size = if q.nulls & 4 != 0 {
        q.query_size
    } else {
        want_query
    };
    let support_size = if q.nulls & 8 != 0 {
        q.support_size
    } else {
        want_support
    };
    // A size larger than the memory behind the pointer would be the caller's fault; only
    // sizes up to the real ones are passed with real memory.
    let query_ptr: *const c_void = or_null(q.nulls & 1 != 0, query_mem.ptr().cast());
    let support_ptr: *mut c_void = or_null_mut(q.nulls & 2 != 0, support_mem.ptr_mut().cast());
    // SAFETY: the pointers are NULL or point to memory of at least the correct struct size.
    let hr = unsafe {
        dmls_device_check_feature_support(
            dev,
            feature,
            query_size,
            query_ptr,
            support_size,
            support_ptr,
        )
    };
    let msg = check_hr("dmls_device_check_feature_support", hr, QUERY_CODES, case);
    let expect = model::query(
        resolved_level(case),
        feature,
        query_ptr.is_null(),
        support_ptr.is_null(),
        query_size,
        support_size,
        q.data_type,
        &levels,
        q.nulls & 16 != 0,
    );
    check_verdict("feature query", hr, &expect, &msg, case);
    match expect {
        Ok(answer) => {
            let got = u32::from_ne_bytes(support_mem.bytes().try_into().unwrap());
            assert_eq!(got, answer, "feature query answer\n{case:#?}");
        }
        Err(_) => {
            assert!(
                support_mem.bytes().iter().all(|&b| b == 0xAB),
                "feature query wrote its answer on failure"
            );
        }
    }
    assert_eq!(query_mem.bytes(), &query_bytes[..], "the query was written");
}

pub(crate) fn bytes_of<T: Copy>(v: &T) -> Vec<u8> {
    // SAFETY: T is a plain C struct; reading its bytes (padding included, possibly
    // uninitialised) is only used to copy it verbatim into other memory.
    let s = unsafe { core::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) };
    s.to_vec()
}
