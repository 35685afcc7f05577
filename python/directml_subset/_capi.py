"""The C API of libdirectml_subset through ctypes: loading, DirectML's structs, prototypes.

Nothing here knows about numpy; see ``_tensor.py`` and the modules that use it for that.
"""

import ctypes
import os
from ctypes import (
    POINTER,
    Structure,
    Union,
    c_char_p,
    c_double,
    c_float,
    c_int8,
    c_int16,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)

from ._library_file import LIBRARY_FILE

ENV_LIBRARY = "DIRECTML_SUBSET_LIBRARY"

# HRESULTs (Windows' values, as unsigned 32-bit numbers).
S_OK = 0
E_INVALIDARG = 0x80070057
E_POINTER = 0x80004003
E_OUTOFMEMORY = 0x8007000E
E_NOTIMPL = 0x80004001
E_FAIL = 0x80004005
DXGI_ERROR_UNSUPPORTED = 0x887A0004

HRESULT_NAMES = {
    S_OK: "S_OK",
    E_INVALIDARG: "E_INVALIDARG",
    E_POINTER: "E_POINTER",
    E_OUTOFMEMORY: "E_OUTOFMEMORY",
    E_NOTIMPL: "E_NOTIMPL",
    E_FAIL: "E_FAIL",
    DXGI_ERROR_UNSUPPORTED: "DXGI_ERROR_UNSUPPORTED",
}

DMLS_DEVICE_FLAG_EXTENSIONS = 0x1

# DML_TENSOR_DATA_TYPE
DT_FLOAT32 = 1
DT_FLOAT16 = 2
DT_UINT32 = 3
DT_UINT16 = 4
DT_UINT8 = 5
DT_INT32 = 6
DT_INT16 = 7
DT_INT8 = 8
DT_FLOAT64 = 9
DT_UINT64 = 10
DT_INT64 = 11

DML_TENSOR_TYPE_BUFFER = 1
DML_BINDING_TYPE_NONE = 0
DML_BINDING_TYPE_BUFFER = 1

DML_OPERATOR_DIAGONAL_MATRIX = 93
DML_OPERATOR_NONZERO_COORDINATES = 133
DML_OPERATOR_DIAGONAL_MATRIX1 = 163

DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT = 0
DML_FEATURE_FEATURE_LEVELS = 1

# DML_FEATURE_LEVEL values, oldest first.
FEATURE_LEVELS = {
    "1_0": 0x1000,
    "2_0": 0x2000,
    "2_1": 0x2100,
    "3_0": 0x3000,
    "3_1": 0x3100,
    "4_0": 0x4000,
    "4_1": 0x4100,
    "5_0": 0x5000,
    "5_1": 0x5100,
    "5_2": 0x5200,
    "6_0": 0x6000,
    "6_1": 0x6100,
    "6_2": 0x6200,
    "6_3": 0x6300,
    "6_4": 0x6400,
}

DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16
MAX_DIMS = 8
UINT32_MAX = 0xFFFFFFFF
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


class DML_BUFFER_TENSOR_DESC(Structure):
    _fields_ = [
        ("DataType", c_uint32),
        ("Flags", c_uint32),
        ("DimensionCount", c_uint32),
        ("Sizes", POINTER(c_uint32)),
        ("Strides", POINTER(c_uint32)),
        ("TotalTensorSizeInBytes", c_uint64),
        ("GuaranteedBaseOffsetAlignment", c_uint32),
    ]


class DML_TENSOR_DESC(Structure):
    _fields_ = [("Type", c_uint32), ("Desc", c_void_p)]


class DML_OPERATOR_DESC(Structure):
    _fields_ = [("Type", c_uint32), ("Desc", c_void_p)]


class DML_SCALAR_UNION(Union):
    _fields_ = [
        ("Bytes", c_uint8 * 8),
        ("Int8", c_int8),
        ("UInt8", c_uint8),
        ("Int16", c_int16),
        ("UInt16", c_uint16),
        ("Int32", c_int32),
        ("UInt32", c_uint32),
        ("Int64", c_int64),
        ("UInt64", c_uint64),
        ("Float32", c_float),
        ("Float64", c_double),
    ]


_TENSOR = POINTER(DML_TENSOR_DESC)


class DML_NONZERO_COORDINATES_OPERATOR_DESC(Structure):
    _fields_ = [("InputTensor", _TENSOR), ("OutputCountTensor", _TENSOR), ("OutputCoordinatesTensor", _TENSOR)]


class DML_DIAGONAL_MATRIX_OPERATOR_DESC(Structure):
    _fields_ = [("OutputTensor", _TENSOR), ("Offset", c_int32), ("Value", c_float)]


class DML_DIAGONAL_MATRIX1_OPERATOR_DESC(Structure):
    _fields_ = [
        ("InputTensor", _TENSOR),
        ("OutputTensor", _TENSOR),
        ("ValueDataType", c_uint32),
        ("Value", DML_SCALAR_UNION),
        ("DiagonalFillBegin", c_int32),
        ("DiagonalFillEnd", c_int32),
    ]


class DML_BINDING_DESC(Structure):
    _fields_ = [("Type", c_uint32), ("Desc", c_void_p)]


class DML_BUFFER_BINDING(Structure):
    _fields_ = [("Buffer", c_void_p), ("Offset", c_uint64), ("SizeInBytes", c_uint64)]


class DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(Structure):
    _fields_ = [("DataType", c_uint32)]


class DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT(Structure):
    _fields_ = [("IsSupported", c_int32)]


class DML_FEATURE_QUERY_FEATURE_LEVELS(Structure):
    _fields_ = [
        ("RequestedFeatureLevelCount", c_uint32),
        ("RequestedFeatureLevels", POINTER(c_uint32)),
    ]


class DML_FEATURE_DATA_FEATURE_LEVELS(Structure):
    _fields_ = [("MaxSupportedFeatureLevel", c_uint32)]


class dmls_device_desc(Structure):
    _fields_ = [("feature_level", c_uint32), ("thread_count", c_uint32), ("flags", c_uint32)]


# The sizes DirectML.h has on 64-bit targets; a mismatch means these declarations are wrong.
_EXPECTED_SIZES = {
    DML_BUFFER_TENSOR_DESC: 48,
    DML_TENSOR_DESC: 16,
    DML_OPERATOR_DESC: 16,
    DML_SCALAR_UNION: 8,
    DML_NONZERO_COORDINATES_OPERATOR_DESC: 24,
    DML_DIAGONAL_MATRIX_OPERATOR_DESC: 16,
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC: 40,
    DML_BINDING_DESC: 16,
    DML_BUFFER_BINDING: 24,
    DML_FEATURE_QUERY_FEATURE_LEVELS: 16,
    dmls_device_desc: 12,
}
if ctypes.sizeof(c_void_p) == 8:
    for _t, _n in _EXPECTED_SIZES.items():
        assert ctypes.sizeof(_t) == _n, (_t.__name__, ctypes.sizeof(_t), _n)


def _candidates():
    env = os.environ.get(ENV_LIBRARY)
    if env:
        return [("the environment variable " + ENV_LIBRARY, env)]
    here = os.path.dirname(os.path.abspath(__file__))
    return [("the package", os.path.join(here, LIBRARY_FILE))]


def _shadowing_source_folder():
    """A message when this package is the repository's source folder (python/directml_subset,
    which holds no built library) imported ahead of an installed copy, else None."""
    here = os.path.dirname(os.path.abspath(__file__))
    python_dir = os.path.dirname(here)
    if not (
        os.path.isfile(os.path.join(python_dir, "setup.py"))
        and os.path.isfile(os.path.join(os.path.dirname(python_dir), "Cargo.toml"))
    ):
        return None
    installed = ""
    try:
        from importlib import metadata

        dist = metadata.distribution("directml_subset")
        location = str(dist.locate_file(""))
        if os.path.abspath(location) != os.path.abspath(python_dir):
            installed = f" (an installed copy is in {location})"
    except Exception:
        pass
    return (
        f"directml_subset: imported from the source folder {here}, which has no built library: "
        f"the repository's python/ folder (the current directory, or on PYTHONPATH) is shadowing "
        f"the installed package{installed}. Run Python from another directory, or set "
        f"{ENV_LIBRARY} to a built {LIBRARY_FILE} (cargo build --release writes "
        f"target/release/{LIBRARY_FILE}) to use the source folder as it is."
    )


def _load():
    (where, path), = _candidates()
    if not os.path.exists(path):
        if where.startswith("the package"):
            shadow = _shadowing_source_folder()
            if shadow:
                raise ImportError(shadow)
            raise ImportError(
                f"directml_subset: the bundled library {path} is missing. Install the package "
                f"with `pip install ./python` from a clone of the repository (it builds the Rust "
                f"library with cargo), or set {ENV_LIBRARY} to the path of {LIBRARY_FILE}."
            )
        raise ImportError(f"directml_subset: {ENV_LIBRARY} is {path!r}, which does not exist")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"directml_subset: cannot load {path} (from {where}): {e}") from e

    def proto(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)
        return f

    HRESULT = c_int32
    proto("dmls_device_create", HRESULT, POINTER(dmls_device_desc), POINTER(c_void_p))
    proto("dmls_device_release", None, c_void_p)
    proto(
        "dmls_device_check_feature_support",
        HRESULT,
        c_void_p,
        c_uint32,
        c_uint32,
        c_void_p,
        c_uint32,
        c_void_p,
    )
    proto("dmls_device_create_operator", HRESULT, c_void_p, POINTER(DML_OPERATOR_DESC), POINTER(c_void_p))
    proto("dmls_operator_release", None, c_void_p)
    proto(
        "dmls_operator_execute",
        HRESULT,
        c_void_p,
        c_uint32,
        POINTER(DML_BINDING_DESC),
        c_uint32,
        POINTER(DML_BINDING_DESC),
    )
    proto("dmls_calc_buffer_tensor_size", c_uint64, c_uint32, c_uint32, POINTER(c_uint32), POINTER(c_uint32))
    proto("dmls_get_last_error_message", c_size_t, c_char_p, c_size_t)
    proto("dmls_version", c_char_p)
    lib._dmls_path = path
    return lib


lib = _load()
LIBRARY_PATH = lib._dmls_path

# dmls_operator_execute for the prepared bindings of _operators._Prepared, without argtypes:
# its arguments are made once (c_void_p objects for the handle and the binding arrays, small
# Python ints for the counts, which ctypes passes as C ints) and passed as they are, which
# saves the per-call conversions of a typed prototype (about 0.4 µs of a 1 µs call). A
# function object of its own, so the typed `lib.dmls_operator_execute` stays as it is.
operator_execute_untyped = type(lib.dmls_operator_execute)(("dmls_operator_execute", lib))
operator_execute_untyped.restype = c_int32


def last_error_message():
    """The calling thread's last error message from the library ('' when there is none)."""
    n = lib.dmls_get_last_error_message(None, 0)
    if n == 0:
        return ""
    buf = ctypes.create_string_buffer(n + 1)
    lib.dmls_get_last_error_message(buf, n + 1)
    return buf.value.decode("utf-8", errors="replace")
