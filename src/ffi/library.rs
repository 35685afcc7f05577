//! What a C program asks of the library itself: the last error message and the version.

use core::ffi::c_char;
use std::panic::catch_unwind;

use super::boundary::with_last_error;

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
        with_last_error(|e| {
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
