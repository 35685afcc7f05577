//! The codes a failing call may return.

use directml_subset::dml::*;

/// The codes a failing call may return.
pub type Codes = Vec<HRESULT>;

/// The codes of a call that breaks the given kinds of rule (NULL pointers, invalid values,
/// unsupported features).
pub(crate) fn codes(pointer: bool, invalid: bool, unsupported: bool) -> Codes {
    let mut c = Vec::new();
    if pointer {
        c.push(E_POINTER);
    }
    if invalid {
        c.push(E_INVALIDARG);
    }
    if unsupported {
        c.push(DXGI_ERROR_UNSUPPORTED);
    }
    c
}
