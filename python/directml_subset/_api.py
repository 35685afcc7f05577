"""The public API: Device, the shared default device, and the five functions on numpy arrays
(their argument checks and the dispatch to `_nonzero` and `_diagonal`, which run the
operators). Device's methods call the functions, so both live here."""

from __future__ import annotations

import ctypes
import os
import threading
import weakref
from typing import Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _capi as C
from . import _tensor as T
from ._arrays import _addr, _apart, _check_array, _empty, _index, _packed_out, _pad_shape, _rows_out, _unmasked
from ._capi import lib
from ._diagonal import TINY_TRILU, _ZERO, _cache_trilu, _diagonal1, _int32, _make_diagonal, _matrix_args, _run_diagonal1, _scalar, _view_as
from ._library import _check, _Closable, _parse_level, feature_level_name
from ._nonzero import TINY_COORDS, TINY_ONNX, _nonzero_input, _onnx_coords, _run_nonzero, _try_cached
from ._operators import _identity, _prepared, _run_cached


# Native-order numpy dtypes -> DML_TENSOR_DATA_TYPE, for the fast path (bool stores as UINT8).
# Bound by assignment, not imported: CPython 3.11 compiles `name.get(...)` on an imported name
# without LOAD_METHOD, which costs a bound method per call.
_FAST_DT = T.DATA_TYPES


# ---------------------------------------------------------------------------------------------
# Devices


class Device(_Closable):
    """A directml_subset device (``dmls_device``).

    ``feature_level``: the DirectML feature level to emulate, as ``0x5100``, ``"5_1"``, ``"5.1"``
    or ``"DML_FEATURE_LEVEL_5_1"``; None is the newest (6_4). ``threads``: worker threads, 0 =
    one per logical core, or ``RAYON_NUM_THREADS`` when set (shared), 1 = the calling thread
    only. ``extensions``: set
    DMLS_DEVICE_FLAG_EXTENSIONS (64-bit NONZERO_COORDINATES inputs, counts and coordinates);
    False is strict DirectML.

    The module-level functions take ``device=``; without it they use a shared default device
    with extensions on. A device may be used from many threads at once.
    """

    def __init__(
        self, feature_level: Union[None, int, str] = None, threads: int = 0, extensions: bool = False
    ) -> None:
        self._handle = None
        # Operators already created for a layout (see _operators.OPERATOR_CACHE_SIZE), dropped on close.
        self._ops = {}
        self._ops_lock = threading.Lock()
        # Calls that use the handle now (operator creations, feature queries), and the handle
        # that `close` left for the last of them to release (the library's rule: releasing a
        # device must not overlap another call on it). Both under `_ops_lock`.
        self._users = 0
        self._pending = None
        _live_devices.add(self)
        level = _parse_level(feature_level)
        threads = _index(threads, "threads", "Device")
        if not 0 <= threads <= C.UINT32_MAX:
            raise ValueError(f"Device: threads is {threads}, must be a non-negative 32-bit number")
        flags = C.DMLS_DEVICE_FLAG_EXTENSIONS if extensions else 0
        desc = C.dmls_device_desc(level, threads, flags)
        handle = ctypes.c_void_p()
        _check(lib.dmls_device_create(ctypes.byref(desc), ctypes.byref(handle)), "dmls_device_create")
        self._handle = handle
        self._release = lib.dmls_device_release
        self.extensions = bool(extensions)
        self.threads = threads
        self.feature_level = self._max_level(list(C.FEATURE_LEVELS.values()))

    def _h(self):
        if self._handle is None:
            raise ValueError("the device is closed")
        return self._handle

    def _use(self, call):
        """`call(handle)` with the device's handle, which a `close` meanwhile does not release
        (the last call in flight does, once it returns)."""
        with self._ops_lock:
            h = self._handle
            if h is None:
                raise ValueError("the device is closed")
            self._users += 1
        try:
            return call(h)
        finally:
            with self._ops_lock:
                self._users -= 1
                pending = self._pending if self._users == 0 else None
                if pending is not None:
                    self._pending = None
            if pending is not None:
                self._release(pending)

    def _query(self, feature, query, support):
        _check(
            self._use(
                lambda h: lib.dmls_device_check_feature_support(
                    h,
                    feature,
                    ctypes.sizeof(query),
                    ctypes.byref(query),
                    ctypes.sizeof(support),
                    ctypes.byref(support),
                )
            ),
            "dmls_device_check_feature_support",
        )

    def _max_level(self, levels):
        arr = (ctypes.c_uint32 * len(levels))(*levels)
        q = C.DML_FEATURE_QUERY_FEATURE_LEVELS(len(levels), ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32)))
        s = C.DML_FEATURE_DATA_FEATURE_LEVELS()
        self._query(C.DML_FEATURE_FEATURE_LEVELS, q, s)
        return s.MaxSupportedFeatureLevel

    def max_supported_feature_level(self, levels):
        """DML_FEATURE_FEATURE_LEVELS: the highest of ``levels`` not above this device's level."""
        return self._max_level([_parse_level(l) for l in levels])

    def supports_data_type(self, dtype):
        """DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT for a numpy dtype (False when it has no DirectML type)."""
        try:
            dt = T.data_type(dtype, "supports_data_type")
        except TypeError:
            return False
        q = C.DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(dt)
        s = C.DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT()
        self._query(C.DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, q, s)
        return bool(s.IsSupported)

    @property
    def feature_level_name(self):
        return feature_level_name(self.feature_level)

    def close(self) -> None:
        """Releases the device and its cached operators (calls in flight keep what they need
        alive: an execution its operator, an operator creation or a feature query the device,
        which the last of them releases). Closing the default device makes the functions
        create a new one when next called without ``device=``."""
        global _default
        if self is _default:
            _default = None
        with self._ops_lock:
            h, self._handle = self._handle, None
            self._ops = {}
            if h is not None and self._users:
                self._pending, h = h, None
        if h is not None:
            self._release(h)

    def __repr__(self):
        state = "closed" if self._handle is None else f"feature_level={self.feature_level_name!r}"
        return f"Device({state}, threads={self.threads}, extensions={self.extensions})"

    # The module-level functions as methods.
    def nonzero_coordinates(self, x, columns=None, out=None):
        return nonzero_coordinates(x, columns, device=self, out=out)

    def onnx_nonzero(self, x, out=None):
        return onnx_nonzero(x, device=self, out=out)

    def diagonal_matrix(self, shape, dtype, begin, end, value=1, input=None, out=None):
        return diagonal_matrix(shape, dtype, begin, end, value, input, out, device=self)

    def trilu(self, x, k=0, upper=True, out=None):
        return trilu(x, k, upper, device=self, out=out)

    def eye_like(self, x, k=0, dtype=None, out=None):
        return eye_like(x, k, dtype, device=self, out=out)


_default = None
_default_lock = threading.Lock()
# Every open Device, so that a forked child can renew their locks.
_live_devices: "weakref.WeakSet[Device]" = weakref.WeakSet()


def _after_fork_in_child():
    # A thread of the parent may have held a lock at the fork; it does not exist here, so each
    # lock starts afresh. (The library's own pools restart by themselves in a child.)
    global _default_lock
    _default_lock = threading.Lock()
    for device in list(_live_devices):
        device._ops_lock = threading.Lock()
        # The calls in flight were the parent's other threads: none is here to finish.
        device._users = 0
        pending, device._pending = device._pending, None
        if pending is not None:
            device._release(pending)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def default_device() -> Device:
    """The shared device the functions use without ``device=``: newest level, extensions on
    (made on first use, and again after it was closed)."""
    global _default
    if _default is not None:
        return _default
    with _default_lock:
        if _default is None:
            _default = Device(extensions=True)
        return _default


def _device(device):
    if device is None:
        return default_device()
    if not isinstance(device, Device):
        raise TypeError(f"device must be a directml_subset.Device, not {type(device).__name__}")
    return device


# ---------------------------------------------------------------------------------------------
# NONZERO_COORDINATES (the work: _nonzero)


def nonzero_coordinates(
    x: ArrayLike, columns: Optional[int] = None, device: Optional[Device] = None, out: Optional[np.ndarray] = None
) -> np.ndarray:
    """DirectML's ``DML_OPERATOR_NONZERO_COORDINATES``: the coordinates of ``x``'s nonzero elements.

    Returns a new C-contiguous array of shape ``(count, columns)``: one row per nonzero
    element in row-major order, holding the element's last ``columns`` indices (default: all,
    ``x.ndim``). The type is uint32, or uint64 when the worst case (``x.size * columns``
    coordinates) exceeds 2**32 - 1, which needs a device with extensions
    (DMLS_DEVICE_FLAG_EXTENSIONS); a strict device then raises DirectMLError naming the flag.
    With more than 2**32 - 1 input elements the coordinates tensor is described as
    ``x.shape + (columns,)`` (the extension lets rows spread over the dimensions before N).
    ``columns`` must lie between ``x``'s effective rank (ignoring leading dimensions of size
    1) and ``x.ndim``, as DirectML requires. ±0.0 is zero; NaN is not.

    ``out`` (optional): a writeable, C-contiguous, aligned array of that type and shape
    ``(x.size, columns)`` (the most rows there can be), which the library writes directly; the
    result is then the view ``out[:count]``, which a later call with the same ``out``
    overwrites. Another shape raises ValueError, another type TypeError, another layout
    ValueError.

    A 0-d input is treated as shape ``[1]`` (DirectML tensors have at least one dimension).
    An empty input skips the library and gives ``(0, columns)``.
    """
    where = "nonzero_coordinates"
    device = _default if device is None and _default is not None else _device(device)
    tiny = None
    if out is None and columns is None and type(x) is np.ndarray:
        # A small input of a dtype and shape seen before: its checks passed then.
        result, tiny = _try_cached(device, TINY_COORDS, x)
        if result is not None:
            return result
    given = x
    x, dt = _nonzero_input(x, where)
    if x.ndim == 0:
        x = x.reshape(1)
    columns = x.ndim if columns is None else _index(columns, "columns", where)
    if not 0 <= columns <= C.UINT32_MAX:
        raise ValueError(f"{where}: columns is {columns}, must be a non-negative 32-bit number")
    # A tensor holds at most 2^32 - 1 elements unless the outputs are 64-bit (an extension):
    # the coordinates tensor {M, columns} decides.
    out_dt = C.DT_UINT64 if x.size * max(columns, 1) > C.UINT32_MAX else C.DT_UINT32
    if out is not None:
        _rows_out(out, (x.size, columns), T.NUMPY_TYPES[out_dt], "C", where)
        _apart(given, out, where)  # the library writes it (and `x` may be a copy of `given`)
    if x.size == 0:
        # The library is not called: its rule on columns, checked here.
        rank = x.ndim - next((i for i, s in enumerate(x.shape) if s != 1), x.ndim)
        if not max(rank, 1) <= columns <= x.ndim:
            raise ValueError(
                f"{where}: columns is {columns}, must be from the input's effective rank {rank} "
                f"(x.ndim without leading dimensions of size 1) to x.ndim {x.ndim}"
            )
        return np.empty((0, columns), np.uint32) if out is None else out
    if tiny is not None and x.ndim != len(tiny[2]):
        tiny = None  # a 0-d input, run as shape [1]
    return _run_nonzero(device, x, dt, columns, out_dt, where, out, tiny and (tiny, _identity))


def onnx_nonzero(x: ArrayLike, device: Optional[Device] = None, out: Optional[np.ndarray] = None) -> np.ndarray:
    """ONNX ``NonZero`` on DirectML's ``DML_OPERATOR_NONZERO_COORDINATES``: the indices of
    ``x``'s nonzero elements as int64 ``[x.ndim, nnz]``.

    A 0-d input gives shape ``(0, nnz)`` (ONNX's rule, unlike numpy). Inputs: bool, every
    integer width, float16, float32, float64; other types (strings, complex, bfloat16, ...)
    raise TypeError. NONZERO_COORDINATES writes packed ``{M, rank}`` coordinate rows (its
    fastest layout); the result is those rows transposed, a new Fortran-ordered
    ``[rank, nnz]`` array (``np.ascontiguousarray`` makes it C-ordered). With extensions (the
    default device) the coordinates are INT64; a strict device writes UINT32 rows, converted
    here to int64. Empty inputs skip the library.

    ``out`` (optional): a writeable, Fortran-contiguous, aligned int64 array of shape
    ``(x.ndim, x.size)`` (the most there can be: ``np.empty((x.ndim, x.size), np.int64,
    order="F")``); the library writes its rows directly (with extensions; a strict device's
    UINT32 rows are converted into it), and the result is the view ``out[:, :nnz]``, which a
    later call with the same ``out`` overwrites. Another shape raises ValueError, another
    type TypeError, another layout ValueError.
    """
    where = "onnx_nonzero"
    device = _default if device is None and _default is not None else _device(device)
    tiny = None
    if out is None and type(x) is np.ndarray:
        # A small input of a dtype and shape seen before: its checks passed then.
        result, tiny = _try_cached(device, TINY_ONNX, x)
        if result is not None:
            return result
    given = x
    x, dt = _nonzero_input(x, where)
    ndim = x.ndim
    if out is not None:
        _rows_out(out, (ndim, x.size), np.int64, "F", where)
        # Written by the library, or from its rows; `x` may be a copy of `given`.
        _apart(given, out, where)
    if ndim == 0:
        count = _onnx_coords(device, x.reshape(1), dt, where).shape[1]
        return np.zeros((0, count), np.int64) if out is None else out[:, :count]
    if x.size == 0:
        return np.zeros((ndim, 0), np.int64) if out is None else out
    max_dims = 5 if device.feature_level < 0x4000 else C.MAX_DIMS
    if ndim <= max_dims:
        return _onnx_coords(device, x, dt, where, out, tiny)
    # More dimensions than a DirectML tensor has: merge the leading ones (a view when the layout
    # allows, else a copy) and unravel them afterwards.
    keep = max_dims - 1
    lead_shape = x.shape[: ndim - keep]
    merged = x.reshape((-1,) + x.shape[ndim - keep :])
    coords = _onnx_coords(device, merged, dt, where)
    lead = np.unravel_index(coords[0], lead_shape)
    if out is None:
        return np.concatenate([np.stack(lead).astype(np.int64).reshape(len(lead_shape), -1), coords[1:]])
    res = out[:, : coords.shape[1]]
    res[: len(lead_shape)] = lead
    res[len(lead_shape) :] = coords[1:]
    return res


# ---------------------------------------------------------------------------------------------
# DIAGONAL_MATRIX1 and DIAGONAL_MATRIX (the work: _diagonal)


def diagonal_matrix(
    shape: Optional[Union[int, Sequence[int]]],
    dtype: DTypeLike,
    begin: int,
    end: int,
    value: Union[int, float, bool, np.generic] = 1,
    input: Optional[ArrayLike] = None,
    out: Optional[np.ndarray] = None,
    device: Optional[Device] = None,
) -> np.ndarray:
    """DirectML's ``DML_OPERATOR_DIAGONAL_MATRIX1`` (no ONNX operator of its own; ONNX Trilu
    is built on it, see ``trilu``).

    For each element with column x and row y (the last two dimensions), with ``topX = x - y``:
    ``useValue = (end >= begin) ^ (topX >= begin) ^ (topX < end)``; the element is ``value``
    where useValue, else ``input``'s element (or 0 without ``input``). ``shape`` has 2 to 4
    dimensions; ``dtype`` is any of the 11 DirectML types or bool (passed as UINT8); ``shape``
    and ``dtype`` may be None to take them from ``input`` or ``out``. ``begin`` and ``end``
    are 32-bit (DirectML's INT).

    ``value`` is converted to ``dtype`` as DIAGONAL_MATRIX converts its FLOAT Value: for an
    integer type it is truncated toward zero and saturated to the type's range (NaN becomes
    0, ±inf the type's limits; integers are exact and saturate too, so ``1e10`` and
    ``10**10`` give 127 for int8); bool takes ``value != 0`` (NaN is False); float types round
    to nearest (too large gives ±inf). Complex values and non-numbers raise TypeError.

    ``out`` (optional) receives the result and is returned; it may be ``input`` itself (the
    operator runs in place). An empty shape of 2 to 4 dimensions skips the library.
    """
    where = "diagonal_matrix"
    device = _default if device is None and _default is not None else _device(device)
    if input is not None:
        _unmasked(input, where, "input")
    if input is not None and not isinstance(input, np.ndarray):
        input = np.asarray(input, dtype=dtype)
    if out is not None and not isinstance(out, np.ndarray):
        raise TypeError(f"{where}: out must be a numpy array, not {type(out).__name__}")
    ref = input if input is not None else out
    if shape is None:
        if ref is None:
            raise ValueError(f"{where}: shape is None and there is no input or out to take it from")
        shape = ref.shape
    if dtype is None:
        if ref is None:
            raise ValueError(f"{where}: dtype is None and there is no input or out to take it from")
        dtype = ref.dtype
    shape = tuple(_index(s, "shape", where) for s in (shape if np.iterable(shape) else (shape,)))
    if any(s < 0 for s in shape):
        raise ValueError(f"{where}: shape {shape} has a negative size")
    # Results are in native byte order; inputs in the other order are converted.
    dtype = np.dtype(dtype).newbyteorder("=")
    dt = T.data_type(dtype, where)
    begin = _int32(begin, "begin", where)
    end = _int32(end, "end", where)
    for name, a in (("input", input), ("out", out)):
        if a is not None:
            _check_array(a, name, shape, dtype, where)
    value = _scalar(value, dtype, where)
    # (An empty shape of another rank goes on to the library, which refuses it as it refuses
    # a non-empty one.)
    if 0 in shape and 2 <= len(shape) <= 4:
        return out if out is not None else np.empty(shape, dtype)
    T.check_sizes(shape, where)
    return _diagonal1(device, dt, shape, dtype, begin, end, value, input, out, where)


def trilu(
    x: ArrayLike, k: int = 0, upper: bool = True, device: Optional[Device] = None, out: Optional[np.ndarray] = None
) -> np.ndarray:
    """ONNX ``Trilu`` on DirectML's ``DML_OPERATOR_DIAGONAL_MATRIX1``: the upper
    (``x - y >= k``) or lower (``x - y <= k``) triangle of the last two dimensions of ``x``,
    zeros elsewhere, as a new array (or in ``out``).

    Runs as ONNX Runtime's DirectML provider does: DIAGONAL_MATRIX1 with ``x`` as input, Value
    0, and DiagonalFillBegin/End = INT32_MIN/k (upper) or k+1/INT32_MAX (lower). ``k`` is
    first clamped to ``[-rows, columns]`` (any k beyond gives the same result), so every
    Python int works. Inputs of 2 to 4 dimensions go to the library as they are; more
    dimensions are merged into one batch dimension. Empty inputs skip the library.

    ``out`` (optional): a writeable array of ``x``'s shape and type that receives the result
    and is returned, as for ``diagonal_matrix``: the library writes it directly when DirectML
    can express its layout, else through a temporary; it may be ``x`` itself (in place).
    Another shape raises ValueError, another type TypeError.
    """
    where = "trilu"
    device = _default if device is None and _default is not None else _device(device)
    cache = None
    if out is None and type(x) is np.ndarray and type(k) is int and type(upper) is bool:
        # A small input of a dtype and shape seen before (with this k and upper): its checks
        # passed then.
        cache = (TINY_TRILU, x.dtype, x.shape, k, upper)
        result = _run_cached(device, cache, x)
        if result is not None:
            return result
    if type(x) is not np.ndarray:
        _unmasked(x, where)
        x = np.asarray(x)
    dtype = x.dtype
    dt = _FAST_DT.get(dtype)
    if dt is None:
        dt = T.data_type(dtype, where)
        x = T.storage(x)
        cache = None  # its bytes are converted first
    shape = x.shape
    ndim = len(shape)
    k = _matrix_args(shape, k, out, dtype, where)
    if x.size == 0:
        # Results are in native byte order, as for a non-empty input.
        return np.empty(shape, dtype.newbyteorder("=")) if out is None else out
    h, w = shape[-2:]
    if h > 2**31 or w > C.INT32_MAX - 1:
        raise ValueError(
            f"{where}: a {h}x{w} matrix has diagonals beyond DirectML's 32-bit DiagonalFillBegin/End"
        )
    k = min(max(k, -h), w)
    if upper:
        begin, end = C.INT32_MIN, k
    else:
        begin, end = k + 1, C.INT32_MAX
    if ndim > 4:
        x = x.reshape((-1,) + shape[-2:])
        T.check_sizes(x.shape, where)
    elif max(shape) > C.UINT32_MAX:
        T.check_sizes(shape, where)
    if out is not None:
        merged = out if ndim <= 4 else _view_as(out, x.shape)
        res = _diagonal1(device, dt, x.shape, dtype.newbyteorder("="), begin, end, _ZERO, x, merged, where)
        if merged is None:
            out[...] = res.reshape(shape)
        return out
    res = _run_diagonal1(device, dt, x.shape, begin, end, _ZERO, x, None, where, x.dtype)
    if cache is not None and ndim <= 4:
        _cache_trilu(device, cache, dt, x, begin, end, where)
    if ndim > 4:
        res = res.reshape(shape)
    return res.view(np.bool_) if dtype.kind == "b" and res.dtype.kind != "b" else res


def eye_like(
    x: ArrayLike,
    k: int = 0,
    dtype: Optional[DTypeLike] = None,
    device: Optional[Device] = None,
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """ONNX ``EyeLike`` on DirectML's ``DML_OPERATOR_DIAGONAL_MATRIX`` (not DIAGONAL_MATRIX1):
    a new array (or ``out``) shaped like ``x`` with ones where ``column - row == k`` (in the
    last two dimensions) and zeros elsewhere, of ``dtype`` (default ``x.dtype``).

    Runs as ONNX Runtime's DirectML provider does: DIAGONAL_MATRIX with Offset k and Value 1.
    ``k`` is clamped to ``[-rows, columns]`` first. ONNX defines EyeLike for 2 dimensions;
    2 to 4 go to the library as they are (a batch of matrices), more are merged into one batch
    dimension. At feature levels below 4.0 the output gets 4 dimensions (leading 1s), as
    DirectML requires there. Empty inputs skip the library.

    ``out`` (optional): a writeable array of ``x``'s shape and the result's type that
    receives the result and is returned; the library writes it directly when it is
    C-contiguous, aligned and in native byte order, else through a temporary. Another shape
    raises ValueError, another type TypeError.
    """
    where = "eye_like"
    device = _default if device is None and _default is not None else _device(device)
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    if dtype is None:
        dtype = x.dtype
        if not dtype.isnative:
            dtype = dtype.newbyteorder("=")
    else:
        dtype = np.dtype(dtype).newbyteorder("=")
    dt = _FAST_DT.get(dtype)
    if dt is None:
        dt = T.data_type(dtype, where)
    shape = x.shape
    k = _matrix_args(shape, k, out, dtype, where)
    if x.size == 0:
        return np.zeros(shape, dtype) if out is None else out
    h, w = shape[-2:]
    if h > 2**31 or w > C.INT32_MAX:
        raise ValueError(f"{where}: a {h}x{w} matrix has diagonals beyond DirectML's 32-bit Offset")
    k = min(max(k, -h), w)
    dims = shape if len(shape) <= 4 else (x.size // (h * w), h, w)
    if device.feature_level < 0x4000:
        dims = _pad_shape(dims, 4)
    key = (C.DML_OPERATOR_DIAGONAL_MATRIX, dt, dims, k)
    op = device._ops.get(key)
    if op is None or device._handle is None:
        T.check_sizes(dims, where)
        op = _prepared(device, key, _make_diagonal(device, dt, dims, k, where))
    # bool is written as UINT8 0 and 1, which are numpy's bools. `dims` has `shape`'s elements,
    # so a C-contiguous `out` is that tensor.
    if out is not None and _packed_out(out, op.totals[0]):
        op.run(_addr(out))
        return out
    res = _empty(shape, dtype, op.totals[0])
    op.run(_addr(res))
    if out is not None:
        out[...] = res
        return out
    return res
