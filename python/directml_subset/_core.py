"""Devices, operators and the numpy-facing functions."""

from __future__ import annotations

import ctypes
import operator
import os
import sys
import threading
import weakref
from typing import Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _capi as C
from . import _tensor as T
from ._capi import lib


class DirectMLError(RuntimeError):
    """A call into the library failed.

    ``hresult`` is the HRESULT as an unsigned 32-bit number (``0x80070057`` for E_INVALIDARG,
    as Windows headers write it); ``hresult_signed`` is the same value as the C ``int32_t``.
    ``message`` is the library's message (``dmls_get_last_error_message``), ``function`` the
    ``dmls_`` function that failed and ``name`` the HRESULT's name (``"E_INVALIDARG"``).
    """

    def __init__(self, hresult: int, message: str, function: str) -> None:
        self.hresult = hresult & 0xFFFFFFFF
        self.hresult_signed = self.hresult - (1 << 32) if self.hresult & 0x80000000 else self.hresult
        self.message = message
        self.function = function
        self.name = C.HRESULT_NAMES.get(self.hresult, f"HRESULT 0x{self.hresult:08X}")
        super().__init__(f"{message} ({function} returned {self.name}, 0x{self.hresult:08X})")


def _check(hr, function):
    if hr < 0:
        raise DirectMLError(hr, C.last_error_message(), function)


def version() -> str:
    """The library's version (``dmls_version``)."""
    return lib.dmls_version().decode()


def _parse_level(level):
    if level is None:
        return 0
    if isinstance(level, str):
        key = level.upper()
        for prefix in ("DML_FEATURE_LEVEL_", "FEATURE_LEVEL_"):
            if key.startswith(prefix):
                key = key[len(prefix) :]
        key = key.replace(".", "_")
        if key not in C.FEATURE_LEVELS:
            raise ValueError(
                f"Device: feature_level {level!r} is not a DirectML feature level "
                f"({', '.join(C.FEATURE_LEVELS)})"
            )
        return C.FEATURE_LEVELS[key]
    level = operator.index(level)
    if not 0 <= level <= C.UINT32_MAX:
        raise ValueError(f"Device: feature_level {level} does not fit DML_FEATURE_LEVEL (32 bits)")
    return level


def feature_level_name(level):
    for k, v in C.FEATURE_LEVELS.items():
        if v == level:
            return k
    return f"0x{level:x}"


class _Closable:
    """Closed by `close()`, at the end of a `with` block, or when collected."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Device(_Closable):
    """A directml_subset device (``dmls_device``).

    ``feature_level``: the DirectML feature level to emulate, as ``0x5100``, ``"5_1"``, ``"5.1"``
    or ``"DML_FEATURE_LEVEL_5_1"``; None is the newest (6_4). ``threads``: worker threads, 0 =
    one per logical core (shared), 1 = the calling thread only. ``extensions``: set
    DMLS_DEVICE_FLAG_EXTENSIONS (64-bit NONZERO_COORDINATES inputs, counts and coordinates);
    False is strict DirectML.

    The module-level functions take ``device=``; without it they use a shared default device
    with extensions on. A device may be used from many threads at once.
    """

    def __init__(
        self, feature_level: Union[None, int, str] = None, threads: int = 0, extensions: bool = False
    ) -> None:
        self._handle = None
        # Operators already created for a layout (see OPERATOR_CACHE_SIZE), dropped on close.
        self._ops = {}
        self._ops_lock = threading.Lock()
        _live_devices.add(self)
        level = _parse_level(feature_level)
        threads = operator.index(threads)
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

    def _query(self, feature, query, support):
        _check(
            lib.dmls_device_check_feature_support(
                self._h(),
                feature,
                ctypes.sizeof(query),
                ctypes.byref(query),
                ctypes.sizeof(support),
                ctypes.byref(support),
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
        alive)."""
        h, self._handle = self._handle, None
        with self._ops_lock:
            self._ops = {}
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


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def default_device() -> Device:
    """The shared device the functions use without ``device=``: newest level, extensions on."""
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


class _Operator(_Closable):
    """A dmls_operator created from an operator desc; released when closed or collected."""

    def __init__(self, device, op_type, desc):
        self.handle = None
        op_desc = C.DML_OPERATOR_DESC(op_type, ctypes.addressof(desc))
        h = ctypes.c_void_p()
        _check(
            lib.dmls_device_create_operator(device._h(), ctypes.byref(op_desc), ctypes.byref(h)),
            "dmls_device_create_operator",
        )
        self.handle = h
        self._release = lib.dmls_operator_release

    def close(self):
        h, self.handle = self.handle, None
        if h is not None:
            self._release(h)


class _Prepared:
    """A cached operator with its bindings prepared: `run(*addresses)` patches only the
    `Buffer` of each bound slot and calls `dmls_operator_execute`.

    Binding blocks (the DML_BINDING_DESC array and the DML_BUFFER_BINDINGs it points to, with
    `SizeInBytes` set to each tensor's TotalTensorSizeInBytes) are taken from a pool, one per
    call in flight, so threads never share one. The operator is released when the last
    reference goes (a call in flight holds one), never under a running call.
    """

    __slots__ = ("op", "handle", "totals", "n_in", "n_out", "_kinds", "_pool", "run")

    def __init__(self, device, op_type, desc, totals, input_kinds):
        # `totals`: TotalTensorSizeInBytes per slot (None for an unbound input);
        # `input_kinds`: per input slot, True when bound (False: DML_BINDING_TYPE_NONE).
        self.op = _Operator(device, op_type, desc)
        self.handle = self.op.handle.value
        self.totals = totals
        self.n_in = len(input_kinds)
        self.n_out = len(totals) - self.n_in
        self._kinds = list(input_kinds) + [True] * self.n_out
        self._pool = []
        self.run = self._runner()

    def _block(self):
        n = self.n_in + self.n_out
        descs = (C.DML_BINDING_DESC * n)()
        bindings = (C.DML_BUFFER_BINDING * n)()
        for i, bound in enumerate(self._kinds):
            if bound:
                bindings[i].SizeInBytes = self.totals[i]
                descs[i].Type = C.DML_BINDING_TYPE_BUFFER
                descs[i].Desc = ctypes.addressof(bindings[i])
            else:
                descs[i].Type = C.DML_BINDING_TYPE_NONE
        # Buffer is the first member of each 24-byte DML_BUFFER_BINDING: patched as a uint64.
        buffers = (ctypes.c_uint64 * (3 * n)).from_buffer(bindings)
        base = ctypes.addressof(descs)
        outs = base + ctypes.sizeof(C.DML_BINDING_DESC) * self.n_in
        return (buffers, base if self.n_in else None, outs, descs, bindings)

    def _runner(self):
        """`run(*addresses)`: one address per bound slot, in slot order."""
        pool, make, handle, n_in, n_out = self._pool, self._block, self.handle, self.n_in, self.n_out
        slots = [3 * i for i, bound in enumerate(self._kinds) if bound]
        # The bound slots are consecutive (only an optional input comes unbound, and first), so
        # one extended slice of the Buffer fields patches them all.
        if slots != list(range(slots[0], slots[-1] + 1, 3)):
            raise AssertionError(f"bound slots {slots} are not consecutive")
        buffers = slice(slots[0], slots[-1] + 1, 3)

        def run(*addresses):
            blk = pool.pop() if pool else make()
            blk[0][buffers] = addresses
            hr = _execute(handle, n_in, blk[1], n_out, blk[2])
            pool.append(blk)
            if hr < 0:
                raise DirectMLError(hr, C.last_error_message(), "dmls_operator_execute")

        return run


_execute = C.operator_execute_raw

# The operators a device has created, per device: at most this many, the oldest dropped first.
OPERATOR_CACHE_SIZE = 256


def _prepared(device, key, make):
    """The cached operator for `key` on `device`, made by `make()` (a _Prepared) on a miss."""
    op = device._ops.get(key)
    if op is not None and device._handle is not None:
        return op
    device._h()  # a closed device raises
    op = make()
    with device._ops_lock:
        cache = device._ops
        if key not in cache:
            while len(cache) >= OPERATOR_CACHE_SIZE:
                del cache[next(iter(cache))]
            cache[key] = op
    return op


# A numpy array's data pointer. `a.ctypes.data` costs about a microsecond; the pointer is the
# first field after the object header of numpy's PyArrayObject (public, stable layout), read
# here directly once checked at import against `a.ctypes.data` (with a fallback).
def _addr_slow(a):
    return a.ctypes.data


def _pick_addr():
    off = ctypes.sizeof(ctypes.c_ssize_t) + ctypes.sizeof(ctypes.c_void_p)  # PyObject_HEAD
    read = ctypes.c_void_p.from_address

    def fast(a):
        return read(id(a) + off).value or 0

    try:
        base = np.arange(64, dtype=np.float64)
        samples = [base, base[3:], base[::2], base.reshape(8, 8).T, np.empty(0), np.zeros((2, 3), np.uint8)[1:]]
        if all(fast(s) == s.ctypes.data for s in samples):
            return fast
    except Exception:
        pass
    return _addr_slow


_addr = _pick_addr()

# Native-order numpy dtypes -> DML_TENSOR_DATA_TYPE, for the fast path (bool stores as UINT8).
_FAST_DT = T.DATA_TYPES

_tls = threading.local()


class _Scratch:
    """One thread's buffers for NONZERO_COORDINATES: the count (UINT32 or UINT64) and the
    worst-case coordinate rows (up to SCRATCH_LIMIT bytes, grown on demand, kept between calls).
    """

    __slots__ = ("_count64", "_count32", "count_addr", "_rows", "_rows_addr")

    def __init__(self):
        self._count64 = (ctypes.c_uint64 * 2)()
        self._count32 = (ctypes.c_uint32 * 4).from_buffer(self._count64)
        self.count_addr = ctypes.addressof(self._count64)
        self._rows = None
        self._rows_addr = 0

    def count(self, out_dt):
        return self._count32[0] if out_dt == C.DT_UINT32 else self._count64[0]

    def rows(self, nbytes):
        """The address of the rows buffer, at least `nbytes` long."""
        if self._rows is None or self._rows.nbytes < nbytes:
            self._rows = None  # the old one goes first
            self._rows = T.alloc((max(nbytes, 4096),), np.uint8)
            self._rows_addr = _addr(self._rows)
        return self._rows_addr


def _take_scratch():
    """This thread's scratch, which the caller holds until `_put_scratch`: a call that starts
    on this thread meanwhile (from a signal handler or a finalizer) gets a new one, so nothing
    it writes can reach the holder's rows before they are copied out."""
    s = getattr(_tls, "scratch", None)
    if s is None:
        return _Scratch()
    _tls.scratch = None
    return s


def _put_scratch(s):
    _tls.scratch = s


def _bind_in(x, dt, total, where):
    """(array kept alive, address) for input `x` (native order) bound packed; copies it only
    when it is not C-contiguous, not aligned to its element size, or shorter than `total`."""
    a = _addr(x)
    if x.flags.c_contiguous and a % x.itemsize == 0 and x.nbytes >= total:
        return x, a
    b = T.bind_input(np.ascontiguousarray(x), dt, where=where)
    return b.array, b.address


def _input_layout(x, dt, where):
    """(array, address, strides or None) for binding `x` as it is laid out (strided arrays
    without a copy when DirectML can express their strides)."""
    a = _addr(x)
    if x.flags.c_contiguous and a % x.itemsize == 0:
        return x, a, None
    T.check_sizes(x.shape, where)
    b = T.bind_input(x, dt, where=where)
    return b.array, b.address, b.desc.strides


def _empty(shape, dtype, total):
    """A new C-contiguous array of at least `total` bytes (TotalTensorSizeInBytes rounds up)."""
    out = np.empty(shape, dtype)
    if out.nbytes >= total:
        return out
    return T.alloc(shape, dtype)


def _check_array(a, name, shape, dtype, where):
    """Raises unless `a` (an `input` or `out`) is a numpy array of `shape` and `dtype` (in
    either byte order), and, for `out`, writeable."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{where}: {name} must be a numpy array, not {type(a).__name__}")
    if a.shape != shape:
        raise ValueError(f"{where}: {name} has shape {a.shape}, expected {shape}")
    if a.dtype.newbyteorder("=") != dtype.newbyteorder("="):
        raise TypeError(f"{where}: {name} has dtype {a.dtype}, expected {dtype} (DirectML needs the same type)")
    if name == "out" and not a.flags.writeable:
        raise ValueError(f"{where}: out is read-only")


def _packed_out(out, total):
    """Whether the library can write `out` as a packed tensor of `total` bytes: native byte
    order, C-contiguous, aligned, and `total` bytes known to be there (the total rounds up)."""
    return (
        out.dtype.isnative
        and out.flags.c_contiguous
        and out.flags.aligned
        and (out.nbytes >= total or T.bindable(out) is not None)
    )


# ---------------------------------------------------------------------------------------------
# NONZERO_COORDINATES


def _nonzero_input(x, where):
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    dt = _FAST_DT.get(x.dtype)
    if dt is None:
        dt = T.data_type(x.dtype, where)
        x = T.storage(x)
    return x, dt


def _pad_shape(shape, dims):
    return (1,) * (dims - len(shape)) + tuple(shape)


def _make_nonzero(device, shape, dt, strides, columns, out_dt, coords_sizes, count_dims, where):
    def make():
        in_desc = T.TensorDesc(dt, shape, strides, where)
        count_desc = T.TensorDesc(out_dt, [1] * count_dims, where=where)
        coords_desc = T.TensorDesc(out_dt, coords_sizes, where=where)
        desc = C.DML_NONZERO_COORDINATES_OPERATOR_DESC(
            in_desc.pointer(), count_desc.pointer(), coords_desc.pointer()
        )
        return _Prepared(
            device,
            C.DML_OPERATOR_NONZERO_COORDINATES,
            desc,
            [in_desc.total, count_desc.total, coords_desc.total],
            [True],
        )

    return make


def _run_nonzero(device, x, dt, columns, out_dt, where, out=None):
    """NONZERO_COORDINATES on `x` (native order, ndim >= 1, nonempty) with packed coordinate
    rows of type `out_dt`; returns the rows as a C-contiguous ``(count, columns)`` array.

    The count is known only after execution, so the rows go to a worst-case ``{M, columns}``
    buffer. With `out` (checked by `_rows_out`) that is `out`, and the result is the view
    ``out[:count]``. Otherwise, up to SCRATCH_LIMIT bytes, it is this thread's scratch buffer,
    whose first ``count`` rows are copied into a new array; above, a new array shrunk in place
    to ``count`` rows (``ndarray.resize``, a ``realloc``; the library writes only the first
    ``count`` rows, so the pages after them are never touched). At feature levels below 4.0
    all three tensors get 4 or 5 dimensions (leading 1s), as DirectML requires there.
    """
    fl3 = device.feature_level < 0x4000
    ndim = x.ndim
    if fl3 and ndim < 4:
        x = x.reshape(_pad_shape(x.shape, 4))
    shape = x.shape
    m = x.size
    if m <= C.UINT32_MAX:
        coords_sizes = (1,) * (x.ndim - 2 if fl3 else 0) + (m, columns)
    else:
        # More rows than a 32-bit M: with 64-bit outputs (an extension) the rows may spread
        # over the dimensions before N, as the input's own dimensions.
        if fl3 or x.ndim + 1 > C.MAX_DIMS:
            raise ValueError(
                f"{where}: the input has {m} elements, more than a 32-bit M; its coordinates "
                f"need {x.ndim + 1} dimensions (the input's and N), more than this device allows"
            )
        coords_sizes = shape + (columns,)
    count_dims = x.ndim if fl3 else 1
    arr, addr, strides = _input_layout(x, dt, where)
    key = (C.DML_OPERATOR_NONZERO_COORDINATES, dt, shape, None if strides is None else tuple(strides), columns, out_dt, coords_sizes, count_dims)
    op = device._ops.get(key)
    if op is None or device._handle is None:
        T.check_sizes(shape, where)
        op = _prepared(
            device, key, _make_nonzero(device, shape, dt, strides, columns, out_dt, coords_sizes, count_dims, where)
        )
    totals = op.totals
    if strides is None and arr.nbytes < totals[0]:
        arr, addr = _bind_in(arr, dt, totals[0], where)
    scratch = _take_scratch()
    try:
        if out is not None:
            # M rows of `columns` 4- or 8-byte coordinates: exactly the tensor's total.
            op.run(addr, scratch.count_addr, _addr(out))
            return out[: scratch.count(out_dt)]
        np_dt = T.NUMPY_TYPES[out_dt]
        worst = totals[2]
        if worst <= SCRATCH_LIMIT:
            # Into this thread's scratch buffer, then the `count` rows copied out.
            rows = scratch.rows(worst)
            op.run(addr, scratch.count_addr, rows)
            coords = np.empty((scratch.count(out_dt), columns), np_dt)
            if coords.size:
                ctypes.memmove(_addr(coords), rows, coords.nbytes)
            return coords
        # Into a new worst-case array, shrunk in place to `count` rows: only the rows written
        # are ever touched (pages past them stay unmapped), nothing is copied.
        coords = T.alloc_result((m, columns), np_dt)
        op.run(addr, scratch.count_addr, _addr(coords))
        coords.resize((scratch.count(out_dt), columns), refcheck=False)
        return coords
    finally:
        _put_scratch(scratch)


# NONZERO_COORDINATES' worst-case coordinates up to this many bytes go to a per-thread scratch
# buffer kept between calls (the count rows are then copied out); larger ones to a new array
# shrunk in place.
SCRATCH_LIMIT = 16 << 20


def _rows_out(out, shape, dtype, order, where):
    """Checks a caller's `out` for coordinate rows: a writeable numpy array of `shape` and
    exactly `dtype`, `order`-contiguous ("C" or "F") and aligned, since the library writes it
    as one packed tensor."""
    dtype = np.dtype(dtype)
    _check_array(out, "out", shape, dtype, where)
    if out.dtype != dtype:
        raise TypeError(f"{where}: out has dtype {out.dtype}, expected {dtype} in native byte order")
    contiguous = out.flags.c_contiguous if order == "C" else out.flags.f_contiguous
    if not (contiguous and out.flags.aligned):
        kind = "C-contiguous" if order == "C" else "Fortran-contiguous"
        raise ValueError(f"{where}: out must be {kind} and aligned (the library writes it as packed rows)")


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
    x, dt = _nonzero_input(x, where)
    if x.ndim == 0:
        x = x.reshape(1)
    columns = x.ndim if columns is None else operator.index(columns)
    if not 0 <= columns <= C.UINT32_MAX:
        raise ValueError(f"{where}: columns is {columns}, must be a non-negative 32-bit number")
    # A tensor holds at most 2^32 - 1 elements unless the outputs are 64-bit (an extension):
    # the coordinates tensor {M, columns} decides.
    out_dt = C.DT_UINT64 if x.size * max(columns, 1) > C.UINT32_MAX else C.DT_UINT32
    if out is not None:
        _rows_out(out, (x.size, columns), T.NUMPY_TYPES[out_dt], "C", where)
    if x.size == 0:
        if not 1 <= columns <= x.ndim:
            raise ValueError(f"{where}: columns is {columns}, must be 1 to {x.ndim} (x.ndim)")
        return np.empty((0, columns), np.uint32) if out is None else out
    return _run_nonzero(device, x, dt, columns, out_dt, where, out)


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
    x, dt = _nonzero_input(x, where)
    ndim = x.ndim
    if out is not None:
        _rows_out(out, (ndim, x.size), np.int64, "F", where)
    if ndim == 0:
        count = _onnx_coords(device, x.reshape(1), dt, where).shape[1]
        return np.zeros((0, count), np.int64) if out is None else out[:, :count]
    if x.size == 0:
        return np.zeros((ndim, 0), np.int64) if out is None else out
    max_dims = 5 if device.feature_level < 0x4000 else C.MAX_DIMS
    if ndim <= max_dims:
        return _onnx_coords(device, x, dt, where, out)
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


def _onnx_coords(device, x, dt, where, out=None):
    """ONNX NonZero of `x` (1 to 8 dimensions, nonempty) as int64 ``[ndim, nnz]``, in
    ``out[:, :nnz]`` when `out` (Fortran-ordered ``(ndim, x.size)``) is given."""
    m, n = x.size, x.ndim
    rows_out = None if out is None else out.T
    if device.extensions or m * n > C.UINT32_MAX:
        # INT64 rows (a strict device refuses them, naming the flag).
        return _run_nonzero(device, x, dt, n, C.DT_INT64, where, rows_out).T
    rows = _run_nonzero(device, x, dt, n, C.DT_UINT32, where)
    if out is None:
        return rows.T.astype(np.int64, order="C")
    rows_out[: len(rows)] = rows
    return out[:, : len(rows)]


# ---------------------------------------------------------------------------------------------
# DIAGONAL_MATRIX1 and DIAGONAL_MATRIX


def _int32(v, name, where):
    v = operator.index(v)
    if not C.INT32_MIN <= v <= C.INT32_MAX:
        raise ValueError(f"{where}: {name} is {v}, must fit DirectML's INT (-2**31 to 2**31 - 1)")
    return v


def _convert_value(value, dtype, where):
    """`value` as a numpy scalar of `dtype`, converted as DIAGONAL_MATRIX converts its FLOAT
    Value: to an integer type by truncating toward zero and saturating to the type's range
    (NaN becomes 0; integers, exact, saturate too); to bool as nonzero-and-not-NaN; to a float
    type by numpy's rounding (to nearest, overflow to ±inf)."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ValueError(f"{where}: value must be a scalar, got an array of shape {value.shape}")
        value = value[()]
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"{where}: value is complex ({value!r}); DirectML's Value is a real scalar")
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return np.asarray(value, dtype=dtype).reshape(())
    if isinstance(value, (bool, np.bool_)):
        v = int(value)
    else:
        try:
            v = operator.index(value)  # Python and numpy integers: exact
        except TypeError:
            try:
                f = float(value)
            except (TypeError, ValueError):
                raise TypeError(f"{where}: value {value!r} is not a number") from None
            if f != f:
                v = 0
            elif f in (float("inf"), float("-inf")):
                v = 1 if f > 0 else -1
                v *= 2**64
            else:
                v = int(f)  # truncates toward zero
    if dtype.kind == "b":
        return np.asarray(v != 0, dtype=dtype).reshape(())
    info = np.iinfo(dtype)
    return np.asarray(min(max(v, int(info.min)), int(info.max)), dtype=dtype).reshape(())


def _scalar(value, dtype, where):
    """(DML_SCALAR_UNION, its bytes) holding `value` converted to `dtype` (bool as UINT8)."""
    v = T.storage(_convert_value(value, dtype, where))
    raw = v.tobytes()
    u = C.DML_SCALAR_UNION()
    ctypes.memmove(ctypes.addressof(u), raw, len(raw))
    return u, raw


_ZERO_UNION = C.DML_SCALAR_UNION()


def _make_diagonal1(device, dt, shape, in_strides, has_input, out_strides, value_union, begin, end, where):
    def make():
        in_desc = T.TensorDesc(dt, shape, in_strides, where) if has_input else None
        out_desc = T.TensorDesc(dt, shape, out_strides, where)
        desc = C.DML_DIAGONAL_MATRIX1_OPERATOR_DESC(
            None if in_desc is None else in_desc.pointer(), out_desc.pointer(), dt, value_union, begin, end
        )
        return _Prepared(
            device,
            C.DML_OPERATOR_DIAGONAL_MATRIX1,
            desc,
            [None if in_desc is None else in_desc.total, out_desc.total],
            [has_input],
        )

    return make


def _diagonal1_op(device, dt, shape, in_strides, has_input, out_strides, value, begin, end, where):
    """The cached DIAGONAL_MATRIX1 operator; `value` is (union, bytes)."""
    key = (
        C.DML_OPERATOR_DIAGONAL_MATRIX1,
        dt,
        shape,
        has_input,
        None if in_strides is None else tuple(in_strides),
        None if out_strides is None else tuple(out_strides),
        value[1],
        begin,
        end,
    )
    op = device._ops.get(key)
    if op is None or device._handle is None:
        op = _prepared(
            device, key, _make_diagonal1(device, dt, shape, in_strides, has_input, out_strides, value[0], begin, end, where)
        )
    return op


def _run_diagonal1(device, dt, shape, begin, end, value, x, out_array, where, out_dt):
    """DIAGONAL_MATRIX1 into `out_array` (native order; or a new array of `out_dt`), with `x`
    the input (native-order storage) or None; `value` is (union, bytes). An `out_array` the
    library cannot write as it is laid out, or that overlaps `x` other than exactly (in
    place), gets the result through a temporary."""
    x_arr = x_addr = x_strides = None
    has_input = x is not None
    if has_input:
        x_arr, x_addr, x_strides = _input_layout(x, dt, where)
    out_addr = out_strides = None
    if out_array is not None:
        if out_array.flags.c_contiguous and out_array.flags.aligned:
            out_addr = _addr(out_array)  # its length against the total: below
        else:
            out_strides = T.bindable(out_array)
            if out_strides is not None:
                out_addr = _addr(out_array)
    op = _diagonal1_op(device, dt, shape, x_strides, has_input, out_strides, value, begin, end, where)
    if out_addr is not None:
        in_total, out_total = op.totals
        if out_strides is None and out_array.nbytes < out_total and T.bindable(out_array) is None:
            out_addr = None  # too little memory known to follow it for the rounded-up total
        elif has_input and x_addr < out_addr + out_total and out_addr < x_addr + in_total:
            if not (x_addr == out_addr and _norm(shape, x_strides) == _norm(shape, out_strides)):
                out_addr = None  # overlaps the input, and not exactly
        if out_addr is None and out_strides is not None:
            op = _diagonal1_op(device, dt, shape, x_strides, has_input, None, value, begin, end, where)
    if has_input and x_strides is None and x_arr.nbytes < op.totals[0] and out_addr != x_addr:
        # Too short for the rounded-up total (in place, `out` was found long enough above).
        x_arr, x_addr = _bind_in(x_arr, dt, op.totals[0], where)
    res = out_array
    if out_addr is None:
        res = _empty(shape, out_dt, op.totals[1])
        out_addr = _addr(res)
    if has_input:
        op.run(x_addr, out_addr)
    else:
        op.run(out_addr)
    if out_array is not None and res is not out_array:
        out_array[...] = res
        return out_array
    return res


def _norm(shape, strides):
    """Strides with packed made explicit (to compare layouts)."""
    if strides is not None:
        return [0 if s == 1 else st for s, st in zip(shape, strides)]
    out, acc = [], 1
    for s in reversed(shape):
        out.append(0 if s == 1 else acc)
        acc *= s
    return out[::-1]


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
    operator runs in place). An empty shape skips the library.
    """
    where = "diagonal_matrix"
    device = _default if device is None and _default is not None else _device(device)
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
    shape = tuple(operator.index(s) for s in (shape if np.iterable(shape) else (shape,)))
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
    if 0 in shape:
        return out if out is not None else np.empty(shape, dtype)
    T.check_sizes(shape, where)
    return _diagonal1(device, dt, shape, dtype, begin, end, value, input, out, where)


def _diagonal1(device, dt, shape, dtype, begin, end, value, input, out, where):
    """DIAGONAL_MATRIX1 of `shape` (nonempty) and `dtype` (native order) with `input` and
    `out` checked (each may be None); returns `out` or a new array."""
    x = None if input is None else T.storage(input)
    boolean = dtype.kind == "b"
    if out is not None and not out.dtype.isnative:
        out[...] = _run_diagonal1(device, dt, shape, begin, end, value, x, None, where, dtype)
        return out
    out_storage = None if out is None else out.view(np.uint8) if boolean else out
    res = _run_diagonal1(device, dt, shape, begin, end, value, x, out_storage, where, np.uint8 if boolean else dtype)
    if out is not None:
        return out
    return res.view(np.bool_) if boolean else res


_ZERO = (_ZERO_UNION, b"")


def _matrix_args(shape, k, out, dtype, where):
    """trilu's and eye_like's common checks: at least 2 dimensions, `out` (when given) of
    `shape` and `dtype`; returns `k` as an int."""
    if len(shape) < 2:
        raise ValueError(f"{where}: input has {len(shape)} dimensions, needs at least 2")
    if out is not None:
        _check_array(out, "out", shape, dtype, where)
    return k if k.__class__ is int else operator.index(k)


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
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    dtype = x.dtype
    dt = _FAST_DT.get(dtype)
    if dt is None:
        dt = T.data_type(dtype, where)
        x = T.storage(x)
    shape = x.shape
    ndim = len(shape)
    k = _matrix_args(shape, k, out, dtype, where)
    if x.size == 0:
        return np.empty(shape, dtype) if out is None else out
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
    if ndim > 4:
        res = res.reshape(shape)
    return res.view(np.bool_) if dtype.kind == "b" and res.dtype.kind != "b" else res


def _view_as(a, shape):
    """`a` reshaped to `shape` as a view of its memory, or None when that takes a copy."""
    v = a.reshape(shape)
    return v if np.may_share_memory(v, a) else None


def _make_diagonal(device, dt, dims, k, where):
    def make():
        out_desc = T.TensorDesc(dt, dims, where=where)
        desc = C.DML_DIAGONAL_MATRIX_OPERATOR_DESC(out_desc.pointer(), k, 1.0)
        return _Prepared(device, C.DML_OPERATOR_DIAGONAL_MATRIX, desc, [out_desc.total], [])

    return make


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
