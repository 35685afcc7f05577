"""directml_subset for Python: DirectML's NONZERO_COORDINATES, DIAGONAL_MATRIX1 and
DIAGONAL_MATRIX on numpy arrays, and ONNX's NonZero, Trilu and EyeLike built on them.

The package calls libdirectml_subset only through its C API, with ctypes. It loads the library
named by the environment variable DIRECTML_SUBSET_LIBRARY when that is set, else the copy
bundled in the package by ``pip install``.
"""

from ._capi import (
    DMLS_DEVICE_FLAG_EXTENSIONS,
    DXGI_ERROR_UNSUPPORTED,
    E_FAIL,
    E_INVALIDARG,
    E_NOTIMPL,
    E_OUTOFMEMORY,
    E_POINTER,
    FEATURE_LEVELS,
    LIBRARY_PATH,
    S_OK,
)
from ._api import (
    Device,
    default_device,
    diagonal_matrix,
    eye_like,
    nonzero_coordinates,
    onnx_nonzero,
    trilu,
)
from ._library import DirectMLError, version

__version__ = version()

__all__ = [
    "Device",
    "DirectMLError",
    "default_device",
    "diagonal_matrix",
    "eye_like",
    "nonzero_coordinates",
    "onnx_nonzero",
    "trilu",
    "version",
    "DMLS_DEVICE_FLAG_EXTENSIONS",
    "FEATURE_LEVELS",
    "LIBRARY_PATH",
    "S_OK",
    "E_INVALIDARG",
    "E_POINTER",
    "E_OUTOFMEMORY",
    "E_NOTIMPL",
    "E_FAIL",
    "DXGI_ERROR_UNSUPPORTED",
]
