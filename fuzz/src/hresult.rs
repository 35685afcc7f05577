//! What every call's result is checked for: a documented HRESULT, and a message exactly when
//! it failed.

use directml_subset::dml::*;
use test_support::capi::last_error;

use crate::case::Case;
use crate::model::Codes;

pub(crate) fn hr_name(hr: HRESULT) -> &'static str {
    match hr {
        S_OK => "S_OK",
        E_INVALIDARG => "E_INVALIDARG",
        E_POINTER => "E_POINTER",
        E_OUTOFMEMORY => "E_OUTOFMEMORY",
        E_NOTIMPL => "E_NOTIMPL",
        E_FAIL => "E_FAIL",
        DXGI_ERROR_UNSUPPORTED => "DXGI_ERROR_UNSUPPORTED",
        _ => "an undocumented HRESULT",
    }
}

/// Checks a returned code against the function's documented set and the message rule.
pub(crate) fn check_hr(function: &str, hr: HRESULT, allowed: &[HRESULT], case: &Case) -> String {
    let msg = last_error();
    assert!(
        hr == S_OK || allowed.contains(&hr),
        "{function} returned {hr:#010x} ({}), not one it documents; message: {msg}\n{case:#?}",
        hr_name(hr)
    );
    if hr == S_OK {
        assert!(
            msg.is_empty(),
            "{function} succeeded but left a message: {msg}"
        );
    } else {
        assert!(
            !msg.is_empty(),
            "{function} failed with {} and no message\n{case:#?}",
            hr_name(hr)
        );
    }
    msg
}

pub(crate) const DEVICE_CODES: &[HRESULT] = &[
    E_POINTER,
    E_INVALIDARG,
    DXGI_ERROR_UNSUPPORTED,
    E_OUTOFMEMORY,
];
pub(crate) const QUERY_CODES: &[HRESULT] = &[E_POINTER, E_INVALIDARG, DXGI_ERROR_UNSUPPORTED];
pub(crate) const CREATE_CODES: &[HRESULT] = &[E_POINTER, E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY];
pub(crate) const EXECUTE_CODES: &[HRESULT] = &[E_POINTER, E_INVALIDARG, E_OUTOFMEMORY];

/// Asserts that `hr` is the model's verdict on the call (`what`): S_OK when the model expects
/// success, otherwise one of the codes it allows. `msg` is the call's message.
pub(crate) fn check_verdict<T>(
    what: &str,
    hr: HRESULT,
    expect: &Result<T, Codes>,
    msg: &str,
    case: &Case,
) {
    match expect {
        Ok(_) => assert_eq!(
            hr,
            S_OK,
            "{what}: the model says this succeeds, the library says: {msg}\n{case:#?}"
        ),
        Err(codes) => assert!(
            codes.contains(&hr),
            "{what}: the model expects one of {codes:?}, the library returned {} ({msg})\n{case:#?}",
            hr_name(hr)
        ),
    }
}
