//! The boundary every `dmls_` call crosses: panics caught, errors turned into an HRESULT and the
//! calling thread's last error message, and handles handed out to C and taken back.

use core::ffi::c_void;
use core::fmt::{self, Display};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::dml::{E_FAIL, HRESULT, S_OK};
use crate::error::{Error, Result};

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

// The message is reached with `try_with`: a `dmls_` call made while the thread exits, from a
// destructor that runs after the message's own, then keeps no message instead of panicking
// outside `catch_unwind` (which would abort the process).

fn set_error(message: &str) {
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            e.clear();
            e.push_str(message);
        }
    });
}

fn clear_error() {
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            e.clear();
        }
    });
}

/// Runs `f` on the calling thread's last error message (empty after a success, and while the
/// thread exits once the message is gone).
pub(super) fn with_last_error<R>(f: impl FnOnce(&str) -> R) -> R {
    // (A copy: this is not a hot path, and `f` then runs outside the thread-local's access.)
    let message = LAST_ERROR
        .try_with(|e| e.borrow().clone())
        .unwrap_or_default();
    f(&message)
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
pub(super) fn boundary(function: &str, f: impl FnOnce() -> Result<()>) -> HRESULT {
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

/// The E_POINTER error for a NULL `what`.
pub(super) fn null(what: impl Display) -> Error {
    Error::NullPointer(format!("{what} is NULL"))
}

/// `Ok` when `p` is non-NULL, otherwise the E_POINTER error for a NULL `what`.
pub(super) fn non_null<T>(p: *const T, what: fmt::Arguments<'_>) -> Result<()> {
    if p.is_null() {
        return Err(null(what));
    }
    Ok(())
}

/// Reads a `T` from a pointer that C typed `void *` (a desc's `Desc`, a query), unaligned.
///
/// # Safety
/// `p` points to a readable `T`.
pub(super) unsafe fn read_as<T>(p: *const c_void) -> T {
    // SAFETY: per this function's contract.
    unsafe { p.cast::<T>().read_unaligned() }
}

/// Hands a new object to C: boxes `value` and stores the pointer in `*out`.
///
/// # Safety
/// `out` is non-NULL and points to writable storage for a pointer.
pub(super) unsafe fn hand_out<T>(out: *mut *mut T, value: T) {
    // SAFETY: per this function's contract.
    unsafe { out.write_unaligned(Box::into_raw(Box::new(value))) };
}

/// Takes back and frees an object that [`hand_out`] gave to C. NULL is fine; a panic while
/// dropping is caught (a release has no HRESULT to report it with).
///
/// # Safety
/// `handle` is NULL or a pointer from [`hand_out`] not yet released, released once.
pub(super) unsafe fn release<T>(handle: *mut T) {
    if handle.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a non-NULL `handle` came from `hand_out` (`Box::into_raw`) and is released
        // once.
        drop(unsafe { Box::from_raw(handle) });
    }));
}
