"""numpy arrays as the library's buffers: their data addresses, inputs bound as they are laid
out (or copied when DirectML cannot express that), results allocated, and `out=` arrays
checked."""

from __future__ import annotations

import ctypes
import operator

import numpy as np

from . import _tensor as T


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


def _pad_shape(shape, dims):
    return (1,) * (dims - len(shape)) + tuple(shape)


def _index(v, name, where):
    """`v` as an int (`operator.index`: ints and numpy integers, not floats), else a
    TypeError that names the function and the argument."""
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{where}: {name} must be an integer, not {type(v).__name__}") from None


def _unmasked(x, where, name="x"):
    """Refuses a masked array, whose mask the library would ignore (its values are read)."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(
            f"{where}: {name} is a masked array, whose mask would be ignored; pass {name}.filled(0) or {name}.data"
        )


def _apart(x, out, where):
    """For an `out` the library writes while it reads `x`: the library refuses outputs whose
    bytes overlap an input's (E_INVALIDARG), said here as the other `out` errors are."""
    if np.may_share_memory(x, out):
        raise ValueError(f"{where}: out overlaps x (the coordinates would be written over the input)")


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
