//! The library's one error type and its mapping to HRESULTs.

use crate::dml::{
    DXGI_ERROR_UNSUPPORTED, E_FAIL, E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY, E_POINTER, HRESULT,
};

/// Why a call failed. Each variant carries the full message: the operator, the tensor, the rule
/// broken and the values found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A desc, binding or argument breaks a rule (`E_INVALIDARG`).
    #[error("{0}")]
    InvalidArg(String),
    /// A required pointer is NULL (`E_POINTER`).
    #[error("{0}")]
    NullPointer(String),
    /// A real DirectML operator type this subset does not implement (`E_NOTIMPL`).
    #[error("{0}")]
    NotImplemented(String),
    /// An unknown feature query or a feature level this library cannot emulate
    /// (`DXGI_ERROR_UNSUPPORTED`).
    #[error("{0}")]
    Unsupported(String),
    /// An allocation failed (`E_OUTOFMEMORY`).
    #[error("{0}")]
    OutOfMemory(String),
    /// An internal fault (`E_FAIL`): through the C API, a panic caught at the boundary.
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// The HRESULT the C API returns for this error.
    pub fn hresult(&self) -> HRESULT {
        match self {
            Error::InvalidArg(_) => E_INVALIDARG,
            Error::NullPointer(_) => E_POINTER,
            Error::NotImplemented(_) => E_NOTIMPL,
            Error::Unsupported(_) => DXGI_ERROR_UNSUPPORTED,
            Error::OutOfMemory(_) => E_OUTOFMEMORY,
            Error::Internal(_) => E_FAIL,
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Error::InvalidArg(m)
            | Error::NullPointer(m)
            | Error::NotImplemented(m)
            | Error::Unsupported(m)
            | Error::OutOfMemory(m)
            | Error::Internal(m) => m,
        }
    }
}

impl Error {
    /// The same error with `prefix: ` before its message (the C layer names its function).
    pub(crate) fn prefixed(self, prefix: &str) -> Error {
        let add = |m: String| format!("{prefix}: {m}");
        match self {
            Error::InvalidArg(m) => Error::InvalidArg(add(m)),
            Error::NullPointer(m) => Error::NullPointer(add(m)),
            Error::NotImplemented(m) => Error::NotImplemented(add(m)),
            Error::Unsupported(m) => Error::Unsupported(add(m)),
            Error::OutOfMemory(m) => Error::OutOfMemory(add(m)),
            Error::Internal(m) => Error::Internal(add(m)),
        }
    }
}

/// The library's result type (`E` is [`Error`] unless given, so that a glob import of the crate
/// does not take `Result<T, E>` from the prelude).
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// `Err(Error::InvalidArg(format!(...)))`.
macro_rules! invalid {
    ($($arg:tt)*) => {
        Err($crate::error::Error::InvalidArg(format!($($arg)*)))
    };
}
pub(crate) use invalid;
