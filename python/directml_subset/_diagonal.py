"""DIAGONAL_MATRIX1 and DIAGONAL_MATRIX: Value converted as DirectML converts it, the cached
operator for a layout, and the run into `out` (directly, in place, or through a temporary)
or a new array. The public functions (`diagonal_matrix`, `trilu`, `eye_like`), with their
argument checks, are in `_api`."""

from __future__ import annotations

import ctypes
import numbers
import operator

import numpy as np

from . import _capi as C
from . import _tensor as T
from ._arrays import _addr, _bind_in, _check_array, _empty, _index, _input_layout
from ._operators import CACHED_CALL_LIMIT, _cached_call, _identity, _Prepared, _prepared


def _int32(v, name, where):
    v = _index(v, name, where)
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
    if not isinstance(value, (numbers.Real, np.bool_)):
        raise TypeError(f"{where}: value {value!r} is not a number")
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            try:
                return np.asarray(value, dtype=dtype).reshape(())
            except OverflowError:
                # A Python integer beyond the largest float: ±inf, as a float that large rounds.
                return np.asarray(np.inf if value > 0 else -np.inf, dtype=dtype).reshape(())
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
            if dtype.kind == "b":
                return np.asarray(f != 0 and f == f, dtype=dtype).reshape(())
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
# trilu's Value: 0, an all-zero union (the empty bytes stand for it in the operator's cache key).
_ZERO = (_ZERO_UNION, b"")


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
            out_strides = T.bindable_output(out_array)
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


# The key of trilu's cached calls (`_operators._cached_call`) in a device's operator cache.
TINY_TRILU = "trilu"


def _into_new(op, shape, dtype):
    """`run(address)`: DIAGONAL_MATRIX1 (`op`, with the input bound packed) of the input at
    `address` into a new array of `shape` and `dtype` (returned)."""
    execute, empty, addr = op.run, np.empty, _addr

    def run(a):
        res = empty(shape, dtype)
        execute(a, addr(res))
        return res

    return run


def _cache_trilu(device, key, dt, x, begin, end, where):
    """Caches trilu's call under `key` when `x` (native order, 2 to 4 dimensions) is packed and
    at most CACHED_CALL_LIMIT bytes, and its bytes and a new array of its shape cover the
    operator's totals (the cached call checks each input's layout itself)."""
    if x.nbytes > CACHED_CALL_LIMIT or not x.flags.c_contiguous:
        return
    op = _diagonal1_op(device, dt, x.shape, None, True, None, _ZERO, begin, end, where)
    if x.nbytes >= max(op.totals):
        _prepared(device, key, lambda: _cached_call(_into_new(op, x.shape, x.dtype), _identity))


def _norm(shape, strides):
    """Strides with packed made explicit (to compare layouts)."""
    if strides is not None:
        return [0 if s == 1 else st for s, st in zip(shape, strides)]
    out, acc = [], 1
    for s in reversed(shape):
        out.append(0 if s == 1 else acc)
        acc *= s
    return out[::-1]


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



def _matrix_args(shape, k, out, dtype, where):
    """trilu's and eye_like's common checks: at least 2 dimensions, `out` (when given) of
    `shape` and `dtype`; returns `k` as an int."""
    if len(shape) < 2:
        raise ValueError(f"{where}: input has {len(shape)} dimensions, needs at least 2")
    if out is not None:
        _check_array(out, "out", shape, dtype, where)
    return k if k.__class__ is int else _index(k, "k", where)


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
