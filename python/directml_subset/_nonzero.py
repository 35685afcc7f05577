"""NONZERO_COORDINATES: the operator for a layout, per-thread scratch buffers for the
worst-case coordinate rows, the run into scratch, `out` or a new array, and ONNX NonZero's
int64 ``[rank, nnz]`` from the rows. The public functions, with their argument checks, are
in `_api`."""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from . import _capi as C
from . import _tensor as T
from ._arrays import _addr, _bind_in, _input_layout, _pad_shape, _unmasked
from ._operators import CACHED_CALL_LIMIT, _cached_call, _Prepared, _prepared, _run_cached


# Native-order numpy dtypes -> DML_TENSOR_DATA_TYPE, for the fast path (bool stores as UINT8).
# Bound by assignment, not imported: CPython 3.11 compiles `name.get(...)` on an imported name
# without LOAD_METHOD, which costs a bound method per call.
_FAST_DT = T.DATA_TYPES


# NONZERO_COORDINATES' worst-case coordinates up to this many bytes go, after the count, to one
# new array whose first rows are the result (a view; for a tiny input the count-sized copy out
# of a scratch buffer costs more than the bytes it saves).
DIRECT_LIMIT = 4096

# NONZERO_COORDINATES' worst-case coordinates up to this many bytes go to a per-thread scratch
# buffer kept between calls (the count rows are then copied out); larger ones to a new array
# shrunk in place.
SCRATCH_LIMIT = 16 << 20


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


def _nonzero_input(x, where):
    if type(x) is not np.ndarray:
        _unmasked(x, where)
        x = np.asarray(x)
    dt = _FAST_DT.get(x.dtype)
    if dt is None:
        dt = T.data_type(x.dtype, where)
        x = T.storage(x)
    return x, dt


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


def _into_new(op, columns, out_dt, worst):
    """`run(address)`: NONZERO_COORDINATES of the input at `address` into one new array that
    holds the count (its first 8 bytes) and then the worst-case rows (`worst` bytes); returns
    the view of its first ``count`` rows. For up to DIRECT_LIMIT bytes."""
    np_dt = T.NUMPY_TYPES[out_dt]
    size = 4 if out_dt == C.DT_UINT32 else 8
    first, n = 8 // size, (worst + 8 + size - 1) // size
    execute, empty, addr = op.run, np.empty, _addr

    def run(a):
        buf = empty(n, np_dt)
        at = addr(buf)
        execute(a, at, at + 8)
        count = int(buf[0])
        return buf[first : first + count * columns].reshape(count, columns)

    return run


def _through_scratch(op, columns, out_dt, worst):
    """`run(address)`: NONZERO_COORDINATES of the input at `address` into this thread's scratch
    buffer, whose first ``count`` rows are then copied into a new array (returned). For up to
    SCRATCH_LIMIT bytes."""
    np_dt = T.NUMPY_TYPES[out_dt]
    execute, empty, addr = op.run, np.empty, _addr

    def run(a):
        scratch = _take_scratch()
        try:
            rows = scratch.rows(worst)
            execute(a, scratch.count_addr, rows)
            coords = empty((scratch.count(out_dt), columns), np_dt)
            if coords.size:
                ctypes.memmove(addr(coords), rows, coords.nbytes)
            return coords
        finally:
            _put_scratch(scratch)

    return run


def _run_nonzero(device, x, dt, columns, out_dt, where, out=None, tiny=None):
    """NONZERO_COORDINATES on `x` (native order, ndim >= 1, nonempty) with packed coordinate
    rows of type `out_dt`; returns the rows as a C-contiguous ``(count, columns)`` array.

    The count is known only after execution, so the rows go to a worst-case ``{M, columns}``
    buffer. With `out` (checked by `_rows_out`) that is `out`, and the result is the view
    ``out[:count]``. Otherwise, up to DIRECT_LIMIT bytes, a new array that holds the count
    and then the rows, of which the result is a view (`_into_new`); up to SCRATCH_LIMIT
    bytes, this thread's scratch buffer, whose first ``count`` rows are copied into a new
    array (`_through_scratch`); above, a new array shrunk in place
    to ``count`` rows (``ndarray.resize``, a ``realloc``; the library writes only the first
    ``count`` rows, so the pages after them are never touched). At feature levels below 4.0
    all three tensors get 4 or 5 dimensions (leading 1s), as DirectML requires there.

    `tiny` (optional): ``(key, finish)``. When the worst case is at most CACHED_CALL_LIMIT bytes and
    the input packed, the call is cached on the device under `key` (`_cached_call`), for the
    public function to find before any of its checks the next time it sees the same dtype and
    shape.
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
    worst = totals[2]
    if out is None and worst <= SCRATCH_LIMIT:
        if worst <= DIRECT_LIMIT:
            runner = _into_new(op, columns, out_dt, worst)
        else:
            runner = _through_scratch(op, columns, out_dt, worst)
        # Cached only where an array of this dtype and shape covers the input's rounded-up
        # total by itself: the cached call binds later arrays as they are.
        covered = arr is x and x.nbytes >= totals[0]
        if tiny is not None and worst <= CACHED_CALL_LIMIT and strides is None and covered:
            key, finish = tiny
            _prepared(device, key, lambda: _cached_call(runner, finish))
        return runner(addr)
    scratch = _take_scratch()
    try:
        if out is not None:
            # M rows of `columns` 4- or 8-byte coordinates: exactly the tensor's total.
            op.run(addr, scratch.count_addr, _addr(out))
            return out[: scratch.count(out_dt)]
        np_dt = T.NUMPY_TYPES[out_dt]
        # Into a new worst-case array, shrunk in place to `count` rows: only the rows written
        # are ever touched (pages past them stay unmapped), nothing is copied.
        coords = T.alloc_result((m, columns), np_dt)
        op.run(addr, scratch.count_addr, _addr(coords))
        coords.resize((scratch.count(out_dt), columns), refcheck=False)
        return coords
    finally:
        _put_scratch(scratch)


# The keys of the cached calls (`_cached_call`) in a device's operator cache, beside its
# operators.
TINY_ONNX = "onnx_nonzero"
TINY_COORDS = "nonzero_coordinates"


def _try_cached(device, name, x):
    """``(result, None)`` from the call cached for `x`'s dtype and shape under `name`, else
    ``(None, key)``: the key to cache this call under, or None when `x`'s bytes are converted
    before they are bound (a dtype outside _FAST_DT)."""
    key = (name, x.dtype, x.shape)
    result = _run_cached(device, key, x)
    if result is not None:
        return result, None
    return None, key if x.dtype in _FAST_DT else None


def _transposed(rows):
    return rows.T


def _transposed_int64(rows):
    return rows.T.astype(np.int64, order="C")


def _onnx_coords(device, x, dt, where, out=None, tiny=None):
    """ONNX NonZero of `x` (1 to 8 dimensions, nonempty) as int64 ``[ndim, nnz]``, in
    ``out[:, :nnz]`` when `out` (Fortran-ordered ``(ndim, x.size)``) is given. `tiny`: the
    key to cache a tiny call under (see `_run_nonzero`), or None."""
    m, n = x.size, x.ndim
    rows_out = None if out is None else out.T
    if device.extensions or m * n > C.UINT32_MAX:
        # INT64 rows (a strict device refuses them, naming the flag), written into `out`
        # (which the caller has checked is apart from `x`).
        tiny = None if tiny is None else (tiny, _transposed)
        return _run_nonzero(device, x, dt, n, C.DT_INT64, where, rows_out, tiny).T
    tiny = None if tiny is None else (tiny, _transposed_int64)
    rows = _run_nonzero(device, x, dt, n, C.DT_UINT32, where, tiny=tiny)
    if out is None:
        return _transposed_int64(rows)
    rows_out[: len(rows)] = rows
    return out[:, : len(rows)]
