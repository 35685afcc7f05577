"""Operators and their bindings: a dmls_operator made from an operator desc (`_Operator`),
prepared for repeated execution with pooled binding blocks (`_Prepared`), and each device's
bounded cache of them by layout (`_prepared`)."""

from __future__ import annotations

import ctypes

from . import _capi as C
from ._arrays import _addr
from ._capi import lib
from ._library import DirectMLError, _check, _Closable


class _Operator(_Closable):
    """A dmls_operator created from an operator desc; released when closed or collected."""

    def __init__(self, device, op_type, desc):
        self.handle = None
        op_desc = C.DML_OPERATOR_DESC(op_type, ctypes.addressof(desc))
        h = ctypes.c_void_p()
        _check(
            device._use(lambda d: lib.dmls_device_create_operator(d, ctypes.byref(op_desc), ctypes.byref(h))),
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
        self.handle = self.op.handle
        self.totals = totals
        self.n_in = len(input_kinds)
        self.n_out = len(totals) - self.n_in
        self._kinds = list(input_kinds) + [True] * self.n_out
        self._pool = []
        self.run = self._runner()

    def _runner(self):
        """`run(*addresses)`: one address per bound slot, in slot order. It refers to the
        operator (`_Operator`), not to this object, so that nothing here is a reference cycle:
        when a closed device drops its cache, the last reference to the operator goes with it
        (or with the call in flight that still holds `run`), and the operator and the device's
        threads are released at once, not at the garbage collector's next pass."""
        pool, handle, n_in, n_out = self._pool, self.handle, self.n_in, self.n_out
        kinds, totals = list(self._kinds), list(self.totals)

        def make():
            return _block(kinds, totals, n_in, n_out)

        slots = [3 * i for i, bound in enumerate(kinds) if bound]
        # The bound slots are consecutive (only an optional input comes unbound, and first), so
        # one extended slice of the Buffer fields patches them all.
        if slots != list(range(slots[0], slots[-1] + 1, 3)):
            raise AssertionError(f"bound slots {slots} are not consecutive")
        buffers = slice(slots[0], slots[-1] + 1, 3)
        op = self.op

        def run(*addresses, _keep=op):  # `_keep`: the operator lives while `run` does
            try:  # not `pool.pop() if pool`: without the GIL another thread may pop between the two
                blk = pool.pop()
            except IndexError:
                blk = make()
            blk[0][buffers] = addresses
            hr = _execute(handle, n_in, blk[1], n_out, blk[2])
            pool.append(blk)
            if hr < 0:
                raise DirectMLError(hr, C.last_error_message(), "dmls_operator_execute")

        return run


def _block(kinds, totals, n_in, n_out):
    """A binding block: the DML_BINDING_DESC array and the DML_BUFFER_BINDINGs it points to
    (`kinds`: per slot, True when bound; `totals`: each bound slot's SizeInBytes)."""
    n = n_in + n_out
    descs = (C.DML_BINDING_DESC * n)()
    bindings = (C.DML_BUFFER_BINDING * n)()
    for i, bound in enumerate(kinds):
        if bound:
            bindings[i].SizeInBytes = totals[i]
            descs[i].Type = C.DML_BINDING_TYPE_BUFFER
            descs[i].Desc = ctypes.addressof(bindings[i])
        else:
            descs[i].Type = C.DML_BINDING_TYPE_NONE
    # Buffer is the first member of each 24-byte DML_BUFFER_BINDING: patched as a uint64.
    buffers = (ctypes.c_uint64 * (3 * n)).from_buffer(bindings)
    base = ctypes.addressof(descs)
    outs = ctypes.c_void_p(base + ctypes.sizeof(C.DML_BINDING_DESC) * n_in)
    return (buffers, ctypes.c_void_p(base) if n_in else None, outs, descs, bindings)


_execute = C.operator_execute_untyped

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
        # (Not into the cache of a device closed meanwhile: `close` emptied it.)
        if key not in cache and device._handle is not None:
            while len(cache) >= OPERATOR_CACHE_SIZE:
                del cache[next(iter(cache))]
            cache[key] = op
    return op


# Calls whose result (NonZero: worst-case rows) takes up to this many bytes are cached whole
# (`_cached_call`) once their checks have passed for a layout: for them the checks and the
# layout cost about as much as the operator.
CACHED_CALL_LIMIT = 64 << 10


def _cached_call(runner, finish):
    """A small call whose layout has been seen, cached whole in its device's operator cache:
    `call(x)` runs `runner(address)` on `x` (an array of the dtype and shape the layout was
    checked for) and returns `finish` of its result; or None when `x` is not C-contiguous and
    aligned (the caller then takes the checked path)."""
    addr = _addr

    def call(x):
        if not x.flags.c_contiguous:
            return None
        a = addr(x)
        if a % x.itemsize:
            return None
        return finish(runner(a))

    return call


def _identity(result):
    return result


def _run_cached(device, key, x):
    """The call cached under `key` on `device` run on `x`; None when there is none, the device
    is closed, or `x` is laid out otherwise."""
    call = device._ops.get(key)
    if call is None or device._handle is None:
        return None
    return call(x)
