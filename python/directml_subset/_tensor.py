"""numpy arrays as DirectML buffer tensors: data types, strides, sizes and buffer bindings."""

import ctypes

import numpy as np

from . import _capi as C

# DML_TENSOR_DATA_TYPE -> the numpy type holding it.
NUMPY_TYPES = {
    C.DT_FLOAT32: np.float32,
    C.DT_FLOAT16: np.float16,
    C.DT_FLOAT64: np.float64,
    C.DT_UINT8: np.uint8,
    C.DT_UINT16: np.uint16,
    C.DT_UINT32: np.uint32,
    C.DT_UINT64: np.uint64,
    C.DT_INT8: np.int8,
    C.DT_INT16: np.int16,
    C.DT_INT32: np.int32,
    C.DT_INT64: np.int64,
}

ITEMSIZE = {dt: np.dtype(t).itemsize for dt, t in NUMPY_TYPES.items()}

# Native-order numpy dtypes -> DML_TENSOR_DATA_TYPE. bool is passed as UINT8 (numpy stores it
# as one byte holding 0 or 1).
DATA_TYPES = {np.dtype(t): dt for dt, t in NUMPY_TYPES.items()}
DATA_TYPES[np.dtype(np.bool_)] = C.DT_UINT8
# The same by (kind, itemsize), for dtypes that are not those objects (other byte order,
# platform aliases).
_BY_KIND = {(d.kind, d.itemsize): dt for d, dt in DATA_TYPES.items()}

# A type of each element size, for buffer sizes (which depend only on the element size).
DATA_TYPE_OF_ITEMSIZE = {1: C.DT_UINT8, 2: C.DT_UINT16, 4: C.DT_UINT32, 8: C.DT_UINT64}


def _type_label(dtype):
    if dtype.kind in "US":
        return f"string ({dtype.str}, numpy name {dtype.name})"
    return f"{dtype.name} ({dtype.str})"


def data_type(dtype, where):
    """The DML_TENSOR_DATA_TYPE for a numpy dtype, or TypeError naming the type."""
    dtype = np.dtype(dtype)
    dt = None
    # Only numpy's own scalar types: a numpy extension type could report the kind and size of
    # one of them without its values. (ml_dtypes' types report kind 'V' today.)
    if dtype.fields is None and dtype.subdtype is None and dtype.type.__module__ == "numpy":
        dt = _BY_KIND.get((dtype.kind, dtype.itemsize))
    if dt is None:
        raise TypeError(
            f"{where}: element type {_type_label(dtype)} has no DirectML tensor type; "
            "supported are bool (passed as UINT8), int8/16/32/64, uint8/16/32/64 and "
            "float16/32/64"
        )
    return dt


def storage(x):
    """`x` with native byte order, bool viewed as uint8 (no copy unless the byte order differs)."""
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    if x.dtype.kind == "b":
        x = x.view(np.uint8)
    return x


def buffer_tensor_size(dt, sizes, strides=None, where="directml_subset", check=True):
    """The library's ``dmls_calc_buffer_tensor_size`` (DirectMLX's DMLCalcBufferTensorSize):
    the bytes a buffer tensor spans, rounded up to a multiple of 4. The library answers 0 for
    a tensor it cannot size (no dimension or more than 8, a size of 0); that raises ValueError
    when `check`, else is returned (the operator's creation then says what is wrong)."""
    n = len(sizes)
    sizes_c = (ctypes.c_uint32 * max(n, 1))(*sizes)
    strides_c = None if strides is None else (ctypes.c_uint32 * max(n, 1))(*strides)
    total = C.lib.dmls_calc_buffer_tensor_size(dt, n, sizes_c, strides_c)
    if total == 0 and check:
        raise ValueError(
            f"{where}: a tensor of {n} dimensions, sizes {list(sizes)} and strides "
            f"{None if strides is None else list(strides)} has no DirectML buffer size"
        )
    return total


def check_sizes(sizes, where):
    for i, s in enumerate(sizes):
        if s > C.UINT32_MAX:
            raise ValueError(
                f"{where}: dimension {i} has size {s}; DirectML sizes are 32-bit (at most "
                f"{C.UINT32_MAX})"
            )


class TensorDesc:
    """A DML_BUFFER_TENSOR_DESC and the DML_TENSOR_DESC pointing to it, with their arrays kept alive."""

    def __init__(self, dt, sizes, strides=None, where="directml_subset"):
        sizes = [int(s) for s in sizes]
        check_sizes(sizes, where)
        n = len(sizes)
        self.dt = dt
        self.sizes = sizes
        self.strides = None if strides is None else [int(s) for s in strides]
        if self.strides is not None:
            for i, st in enumerate(self.strides):
                if not 0 <= st <= C.UINT32_MAX:
                    raise ValueError(f"{where}: stride {st} of dimension {i} does not fit DirectML's UINT")
        self.total = buffer_tensor_size(dt, sizes, self.strides, where, check=False)
        self._sizes_c = (ctypes.c_uint32 * max(n, 1))(*sizes)
        self._strides_c = None if self.strides is None else (ctypes.c_uint32 * max(n, 1))(*self.strides)
        self.buffer_desc = C.DML_BUFFER_TENSOR_DESC(
            dt,
            0,
            n,
            ctypes.cast(self._sizes_c, ctypes.POINTER(ctypes.c_uint32)),
            None
            if self._strides_c is None
            else ctypes.cast(self._strides_c, ctypes.POINTER(ctypes.c_uint32)),
            self.total,
            0,
        )
        self.desc = C.DML_TENSOR_DESC(C.DML_TENSOR_TYPE_BUFFER, ctypes.addressof(self.buffer_desc))

    def pointer(self):
        return ctypes.pointer(self.desc)


def _owner(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _byte_bounds(a):
    low = high = a.ctypes.data
    for s, st in zip(a.shape, a.strides):
        if s == 0:
            return a.ctypes.data, a.ctypes.data
        if st < 0:
            low += (s - 1) * st
        else:
            high += (s - 1) * st
    return low, high + a.itemsize


def known_end(a):
    """An address up to which memory from `a`'s data pointer is known to be allocated."""
    return max(_byte_bounds(a)[1], _byte_bounds(_owner(a))[1])


def element_strides(a):
    """`a`'s strides in elements when DirectML can express them (size-1 dimensions get 0), else None."""
    out = []
    for s, st in zip(a.shape, a.strides):
        if s == 1:
            out.append(0)
            continue
        if st < 0 or st % a.itemsize:
            return None
        e = st // a.itemsize
        if e > C.UINT32_MAX:
            return None
        out.append(e)
    return out


def alloc(shape, dtype, zero=False):
    """A new C-contiguous array whose memory is 16-byte aligned and padded to a multiple of 16
    bytes, so that a binding may claim the rounded-up TotalTensorSizeInBytes."""
    dtype = np.dtype(dtype)
    count = 1
    for s in shape:
        count *= s
    nbytes = count * dtype.itemsize
    padded = (nbytes + 15) & ~15
    raw = (np.zeros if zero else np.empty)(padded + 16, np.uint8)
    off = (-raw.ctypes.data) % 16
    return raw[off : off + nbytes].view(dtype).reshape(shape)


def alloc_result(shape, dtype):
    """A new array owning its memory, for results (NONZERO_COORDINATES' rows, shrunk in place
    with ``ndarray.resize`` once the count is known)."""
    return np.empty(shape, dtype)


class Bound:
    """A numpy array bound to a tensor: the array (kept alive), its address and its desc."""

    def __init__(self, array, desc, copied):
        self.array = array
        self.desc = desc
        self.copied = copied
        self.address = array.ctypes.data


def bindable(a):
    """Element strides for binding `a` (a native-order array) in place, or None when it must be
    copied: strides DirectML cannot express, an address not aligned to the element size, or too
    little memory known to follow it for the rounded-up TotalTensorSizeInBytes."""
    if a.ctypes.data % a.itemsize:
        return None
    strides = element_strides(a)
    if strides is None:
        return None
    if a.size == 0 or a.ndim > C.MAX_DIMS or max(a.shape) > C.UINT32_MAX:
        return None
    total = buffer_tensor_size(DATA_TYPE_OF_ITEMSIZE[a.itemsize], a.shape, strides)
    if a.ctypes.data + total > known_end(a):
        return None
    return strides


def bindable_output(a):
    """Element strides for binding `a` (a native-order array) in place as an output, or None
    when it must get the result through a temporary: as `bindable`, and also when its elements
    may share memory (a zero stride on a dimension of more than one element, or strides that
    fold it onto itself), which the library rejects for an output. The test is the sufficient
    one (each stride, smallest first, at least the span of the dimensions below it): a rarer
    layout that interleaves without sharing goes through the temporary too."""
    strides = bindable(a)
    if strides is None:
        return None
    span = 1
    for st, s in sorted((st, s) for s, st in zip(a.shape, strides) if s > 1):
        if st < span:
            return None
        span += (s - 1) * st
    return strides


def bind_input(x, dt, where="directml_subset"):
    """Binds a native-order array as an input tensor, without a copy when DirectML can express
    its layout. When only the memory after it is too short for DirectML's rounded-up
    TotalTensorSizeInBytes, the bytes it spans (a few, for a broadcast array) are copied into
    padded memory and keep their strides; anything else becomes a packed copy."""
    sizes = list(x.shape)
    strides = element_strides(x) if x.ctypes.data % x.itemsize == 0 else None
    if strides is not None and 0 < x.ndim <= C.MAX_DIMS:
        packed = x.flags.c_contiguous
        total = buffer_tensor_size(DATA_TYPE_OF_ITEMSIZE[x.itemsize], sizes, strides)
        if x.ctypes.data + total <= known_end(x):
            return Bound(x, TensorDesc(dt, sizes, None if packed else strides, where), False)
        low, high = _byte_bounds(x)
        span = high - low  # the bytes numpy says x spans (strides are non-negative here)
        raw = alloc((total,), np.uint8)
        ctypes.memmove(raw.ctypes.data, x.ctypes.data, span)
        y = np.lib.stride_tricks.as_strided(
            raw[:span].view(x.dtype), shape=x.shape, strides=[st * x.itemsize for st in strides]
        )
        return Bound(y, TensorDesc(dt, sizes, None if packed else strides, where), True)
    y = alloc(x.shape, x.dtype)
    y[...] = x
    return Bound(y, TensorDesc(dt, sizes, None, where), True)
