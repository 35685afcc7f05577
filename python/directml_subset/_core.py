"""Devices, operators and the numpy-facing functions."""

import ctypes
import operator
import os
import threading

import numpy as np

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

    def __init__(self, hresult, message, function):
        self.hresult = hresult & 0xFFFFFFFF
        self.hresult_signed = self.hresult - (1 << 32) if self.hresult & 0x80000000 else self.hresult
        self.message = message
        self.function = function
        self.name = C.HRESULT_NAMES.get(self.hresult, f"HRESULT 0x{self.hresult:08X}")
        super().__init__(f"{message} ({function} returned {self.name}, 0x{self.hresult:08X})")


def _check(hr, function):
    if hr < 0:
        raise DirectMLError(hr, C.last_error_message(), function)


def version():
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


class Device:
    """A directml_subset device (``dmls_device``).

    ``feature_level``: the DirectML feature level to emulate, as ``0x5100``, ``"5_1"``, ``"5.1"``
    or ``"DML_FEATURE_LEVEL_5_1"``; None is the newest (6_4). ``threads``: worker threads, 0 =
    one per logical core (shared), 1 = the calling thread only. ``extensions``: set
    DMLS_DEVICE_FLAG_EXTENSIONS (64-bit NONZERO_COORDINATES inputs, counts and coordinates);
    False is strict DirectML.

    The module-level functions take ``device=``; without it they use a shared default device
    with extensions on. A device may be used from many threads at once.
    """

    def __init__(self, feature_level=None, threads=0, extensions=False):
        self._handle = None
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

    def close(self):
        """Releases the device (operators in flight keep what they need alive)."""
        h, self._handle = self._handle, None
        if h is not None:
            self._release(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        state = "closed" if self._handle is None else f"feature_level={self.feature_level_name!r}"
        return f"Device({state}, threads={self.threads}, extensions={self.extensions})"

    # The module-level functions as methods.
    def nonzero_coordinates(self, x, columns=None):
        return nonzero_coordinates(x, columns, device=self)

    def onnx_nonzero(self, x):
        return onnx_nonzero(x, device=self)

    def diagonal_matrix(self, shape, dtype, begin, end, value=1, input=None, out=None):
        return diagonal_matrix(shape, dtype, begin, end, value, input, out, device=self)

    def trilu(self, x, k=0, upper=True):
        return trilu(x, k, upper, device=self)

    def eye_like(self, x, k=0, dtype=None):
        return eye_like(x, k, dtype, device=self)


_default = None
_default_lock = threading.Lock()


def _after_fork_in_child():
    # A thread of the parent may have held the lock at the fork; it does not exist here. (The
    # library's own pools restart by themselves in a child.)
    global _default_lock
    _default_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def default_device():
    """The shared device the functions use without ``device=``: newest level, extensions on."""
    global _default
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


class _Operator:
    """A dmls_operator created from an operator desc; released on close."""

    def __init__(self, device, op_type, desc):
        self.handle = None
        op_desc = C.DML_OPERATOR_DESC(op_type, ctypes.addressof(desc))
        h = ctypes.c_void_p()
        _check(
            lib.dmls_device_create_operator(device._h(), ctypes.byref(op_desc), ctypes.byref(h)),
            "dmls_device_create_operator",
        )
        self.handle = h

    def execute(self, inputs, outputs):
        """`inputs`: Bound or None (DML_BINDING_TYPE_NONE) per slot; `outputs`: Bound per slot."""
        n_in, n_out = len(inputs), len(outputs)
        ins = (C.DML_BINDING_DESC * max(n_in, 1))()
        for i, b in enumerate(inputs):
            ins[i] = C.DML_BINDING_DESC(C.DML_BINDING_TYPE_NONE, None) if b is None else b.binding_desc
        outs = (C.DML_BINDING_DESC * max(n_out, 1))()
        for i, b in enumerate(outputs):
            outs[i] = b.binding_desc
        _check(
            lib.dmls_operator_execute(self.handle, n_in, ins if n_in else None, n_out, outs),
            "dmls_operator_execute",
        )

    def close(self):
        h, self.handle = self.handle, None
        if h is not None:
            lib.dmls_operator_release(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------------------------------------
# NONZERO_COORDINATES


def _nonzero_input(x, where):
    x = np.asarray(x)
    dt = T.data_type(x.dtype, where)
    return T.storage(x), dt


def _pad_shape(shape, dims):
    return (1,) * (dims - len(shape)) + tuple(shape)


def _run_nonzero(device, x, dt, columns, wide, coords_layout, where):
    """Runs NONZERO_COORDINATES on `x` (native order, ndim >= 1, nonempty).

    `coords_layout(M, N, dt_out)` returns (array to bind, element strides or None); the array is
    the coordinates buffer. Returns (count, buffer). At feature levels below 4.0 all three
    tensors get 4 or 5 dimensions (leading 1s), as DirectML requires there.
    """
    fl3 = device.feature_level < C.FEATURE_LEVELS["4_0"]
    dims = max(4, x.ndim) if fl3 else x.ndim
    if fl3 and x.ndim < dims:
        x = x.reshape(_pad_shape(x.shape, dims))
    m = x.size
    out_dt = (C.DT_INT64 if wide == "int64" else C.DT_UINT64) if wide else C.DT_UINT32
    count_dims = dims if fl3 else 1
    lead = [1] * ((dims - 2) if fl3 else 0)
    T.check_sizes(x.shape, where)
    bound_in = T.bind_input(x, dt, where=where)
    count_desc = T.TensorDesc(out_dt, [1] * count_dims, where=where)
    coords_arr, coords_strides = coords_layout(m, columns, out_dt)
    if m <= C.UINT32_MAX:
        coords_sizes = lead + [m, columns]
        if coords_strides is not None:
            coords_strides = [0] * len(lead) + list(coords_strides)
    else:
        # More rows than a 32-bit M: with 64-bit outputs (an extension) the rows may spread
        # over the dimensions before N; packed, they spread like the input's own dimensions.
        assert coords_strides is None and wide
        if fl3 or x.ndim + 1 > C.MAX_DIMS:
            raise ValueError(
                f"{where}: the input has {m} elements, more than a 32-bit M; its coordinates "
                f"need {x.ndim + 1} dimensions (the input's and N), more than this device allows"
            )
        coords_sizes = list(x.shape) + [columns]
    coords_desc = T.TensorDesc(out_dt, coords_sizes, coords_strides, where=where)
    desc = C.DML_NONZERO_COORDINATES_OPERATOR_DESC(
        bound_in.desc.pointer(), count_desc.pointer(), coords_desc.pointer()
    )
    with _Operator(device, C.DML_OPERATOR_NONZERO_COORDINATES, desc) as op:
        count_arr = T.alloc((1,), np.uint64 if wide else np.uint32, zero=True)
        buf = coords_arr()
        op.execute([bound_in], [T.bind_output(count_arr, count_desc), T.bind_output(buf, coords_desc)])
    return int(count_arr[0]), buf


def nonzero_coordinates(x, columns=None, device=None):
    """DML_OPERATOR_NONZERO_COORDINATES: the coordinates of ``x``'s nonzero elements.

    Returns an array of shape ``(count, columns)``: one row per nonzero element in row-major
    order, holding the element's last ``columns`` indices (default: all, ``x.ndim``). The
    type is uint32, or uint64 when the worst case (``x.size * columns`` coordinates) exceeds
    2**32 - 1, which needs a device with extensions (DMLS_DEVICE_FLAG_EXTENSIONS); a strict
    device then raises DirectMLError naming the flag. With more than 2**32 - 1 input elements
    the coordinates tensor is described as ``x.shape + (columns,)`` (the extension lets rows
    spread over the dimensions before N). ``columns`` must lie between ``x``'s effective rank (ignoring leading
    dimensions of size 1) and ``x.ndim``, as DirectML requires. ±0.0 is zero; NaN is not.

    A 0-d input is treated as shape ``[1]`` (DirectML tensors have at least one dimension).
    An empty input skips the library and gives ``(0, columns)``.
    """
    where = "nonzero_coordinates"
    device = _device(device)
    x, dt = _nonzero_input(x, where)
    if x.ndim == 0:
        x = x.reshape(1)
    columns = x.ndim if columns is None else operator.index(columns)
    if not 0 <= columns <= C.UINT32_MAX:
        raise ValueError(f"{where}: columns is {columns}, must be a non-negative 32-bit number")
    if x.size == 0:
        if not 1 <= columns <= x.ndim:
            raise ValueError(f"{where}: columns is {columns}, must be 1 to {x.ndim} (x.ndim)")
        return np.empty((0, columns), np.uint32)
    # A tensor holds at most 2^32 - 1 elements unless the outputs are 64-bit (an extension):
    # the coordinates tensor {M, columns} decides.
    wide = x.size * max(columns, 1) > C.UINT32_MAX
    out_np = np.uint64 if wide else np.uint32

    def layout(m, n, out_dt):
        return (lambda: T.alloc((m, n), out_np)), None

    count, buf = _run_nonzero(device, x, dt, columns, "uint64" if wide else False, layout, where)
    return buf[:count].copy()


def onnx_nonzero(x, device=None):
    """ONNX NonZero: the indices of ``x``'s nonzero elements as int64 ``[x.ndim, nnz]``.

    A 0-d input gives shape ``(0, nnz)`` (ONNX's rule, unlike numpy). Inputs: bool, every
    integer width, float16, float32, float64; other types (strings, complex, bfloat16, ...)
    raise TypeError. Runs as ONNX Runtime's DirectML provider does: NONZERO_COORDINATES into a
    worst-case ``{M, rank}`` buffer written transposed through output strides, then sliced to
    ``nnz`` columns. With a strict device the coordinates are UINT32 written with strides
    ``{2, 2*M}`` into the low halves of a zeroed int64 buffer (ONNX Runtime's trick); with
    extensions they are INT64 written with strides ``{1, M}``. Empty inputs skip the library.
    """
    where = "onnx_nonzero"
    device = _device(device)
    x, dt = _nonzero_input(x, where)
    if x.ndim == 0:
        count, _ = _onnx_coords(device, x.reshape(1), dt, where)
        return np.zeros((0, count), np.int64)
    if x.size == 0:
        return np.zeros((x.ndim, 0), np.int64)
    max_dims = 5 if device.feature_level < C.FEATURE_LEVELS["4_0"] else C.MAX_DIMS
    if x.ndim <= max_dims:
        return _onnx_coords(device, x, dt, where)[1]
    # More dimensions than a DirectML tensor has: merge the leading ones (a view when the layout
    # allows, else a copy) and unravel them afterwards.
    keep = max_dims - 1
    lead_shape = x.shape[: x.ndim - keep]
    merged = x.reshape((-1,) + x.shape[x.ndim - keep :])
    _, coords = _onnx_coords(device, merged, dt, where)
    lead = np.unravel_index(coords[0], lead_shape)
    return np.concatenate([np.stack(lead).astype(np.int64).reshape(len(lead_shape), -1), coords[1:]])


def _onnx_coords(device, x, dt, where):
    m, n = x.size, x.ndim
    use64 = device.extensions or m * n > C.UINT32_MAX

    if m > C.UINT32_MAX:
        # Too many rows for strides {1, M}: packed INT64 rows, transposed here.
        def layout(m, n, out_dt):
            return (lambda: T.alloc((m, n), np.int64)), None

        count, buf = _run_nonzero(device, x, dt, n, "int64", layout, where)
        return count, np.ascontiguousarray(buf[:count].T)
    if use64:
        # INT64 coordinates straight into an int64 [N, M] buffer: element (i, j) at j * M + i.
        holder = {}

        def layout(m, n, out_dt):
            def make():
                holder["buf"] = T.alloc((n, m), np.int64)
                return holder["buf"]

            return make, [1, m]

        count, buf = _run_nonzero(device, x, dt, n, "int64", layout, where)
        return count, np.ascontiguousarray(buf[:, :count])
    if 2 * m <= C.UINT32_MAX:
        # ONNX Runtime's layout: a UINT32 view of a zeroed int64 [N, M] buffer, strides {2, 2M},
        # so coordinate (i, j) lands in the low half of int64 element (j, i).
        holder = {}

        def layout(m, n, out_dt):
            def make():
                buf64 = T.alloc((n, m), np.int64, zero=True)
                holder["buf64"] = buf64
                u32 = buf64.reshape(-1).view(np.uint32)
                return u32 if T.LITTLE_ENDIAN else u32[1:]

            return make, [2, 2 * m]

        count, _ = _run_nonzero(device, x, dt, n, False, layout, where)
        return count, np.ascontiguousarray(holder["buf64"][:, :count])
    # Strides {2, 2M} do not fit 32 bits: packed UINT32 rows, transposed here.
    def layout(m, n, out_dt):
        return (lambda: T.alloc((m, n), np.uint32)), None

    count, buf = _run_nonzero(device, x, dt, n, False, layout, where)
    return count, np.ascontiguousarray(buf[:count].T.astype(np.int64))


# ---------------------------------------------------------------------------------------------
# DIAGONAL_MATRIX1 and DIAGONAL_MATRIX


def _int32(v, name, where):
    v = operator.index(v)
    if not C.INT32_MIN <= v <= C.INT32_MAX:
        raise ValueError(f"{where}: {name} is {v}, must fit DirectML's INT (-2**31 to 2**31 - 1)")
    return v


def _scalar(value, dtype, where):
    """The DML_SCALAR_UNION holding `value` converted to `dtype` (bool as UINT8)."""
    v = np.asarray(value, dtype=dtype).reshape(())
    v = T.storage(v)
    u = C.DML_SCALAR_UNION()
    raw = v.tobytes()
    for i, b in enumerate(raw):
        u.Bytes[i] = b
    return u


def _run_diagonal1(device, dt, shape, begin, end, value_union, x_bound, out_array, where, out_dt):
    """DIAGONAL_MATRIX1 into `out_array` (or a new array), with `x_bound` the input or None."""
    out_bound = None
    temp = False
    if out_array is not None:
        strides = T.bindable(out_array)
        if strides is not None:
            out_bound = T.Bound(
                out_array,
                T.TensorDesc(dt, shape, None if out_array.flags.c_contiguous else strides, where),
                False,
            )
            if x_bound is not None and x_bound.overlaps(out_bound):
                same = (
                    x_bound.address == out_bound.address
                    and x_bound.desc.sizes == out_bound.desc.sizes
                    and _norm(x_bound.desc) == _norm(out_bound.desc)
                )
                if not same:
                    out_bound = None
        if out_bound is None:
            temp = True
    if out_bound is None:
        arr = T.alloc(shape, out_dt)
        out_bound = T.Bound(arr, T.TensorDesc(dt, shape, None, where), False)
    desc = C.DML_DIAGONAL_MATRIX1_OPERATOR_DESC(
        None if x_bound is None else x_bound.desc.pointer(),
        out_bound.desc.pointer(),
        dt,
        value_union,
        begin,
        end,
    )
    with _Operator(device, C.DML_OPERATOR_DIAGONAL_MATRIX1, desc) as op:
        op.execute([x_bound], [out_bound])
    if temp:
        out_array[...] = out_bound.array
        return out_array
    return out_bound.array


def _norm(desc):
    """A desc's strides with packed made explicit (to compare layouts)."""
    if desc.strides is not None:
        return [0 if s == 1 else st for s, st in zip(desc.sizes, desc.strides)]
    out, acc = [], 1
    for s in reversed(desc.sizes):
        out.append(0 if s == 1 else acc)
        acc *= s
    return out[::-1]


def diagonal_matrix(shape, dtype, begin, end, value=1, input=None, out=None, device=None):
    """DML_OPERATOR_DIAGONAL_MATRIX1.

    For each element with column x and row y (the last two dimensions), with ``topX = x - y``:
    ``useValue = (end >= begin) ^ (topX >= begin) ^ (topX < end)``; the element is ``value``
    where useValue, else ``input``'s element (or 0 without ``input``). ``shape`` has 2 to 4
    dimensions; ``dtype`` is any of the 11 DirectML types or bool (passed as UINT8); ``shape``
    and ``dtype`` may be None to take them from ``input`` or ``out``. ``begin`` and ``end``
    are 32-bit (DirectML's INT). ``value`` is converted to ``dtype`` by numpy.

    ``out`` (optional) receives the result and is returned; it may be ``input`` itself (the
    operator runs in place). An empty shape skips the library.
    """
    where = "diagonal_matrix"
    device = _device(device)
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
        if a is None:
            continue
        if a.shape != shape:
            raise ValueError(f"{where}: {name} has shape {a.shape}, expected {shape}")
        if a.dtype.newbyteorder("=") != dtype.newbyteorder("="):
            raise TypeError(f"{where}: {name} has dtype {a.dtype}, expected {dtype} (DirectML needs the same type)")
    if out is not None and not out.flags.writeable:
        raise ValueError(f"{where}: out is read-only")
    value_union = _scalar(value, dtype, where)
    if 0 in shape:
        return out if out is not None else np.empty(shape, dtype)
    T.check_sizes(shape, where)
    x_bound = None
    if input is not None:
        x_bound = T.bind_input(T.storage(input), dt, where=where)
    out_storage = None
    if out is not None:
        out_storage = out.view(np.uint8) if dtype.kind == "b" else out
        if not out.dtype.isnative:
            out_storage = None
    if out is not None and out_storage is None:
        res = _run_diagonal1(device, dt, shape, begin, end, value_union, x_bound, None, where, dtype.newbyteorder("="))
        out[...] = res
        return out
    storage_dtype = np.uint8 if dtype.kind == "b" else dtype
    res = _run_diagonal1(device, dt, shape, begin, end, value_union, x_bound, out_storage, where, storage_dtype)
    if out is not None:
        return out
    return res.view(np.bool_) if dtype.kind == "b" else res


def _batch(x, where):
    """`x` as 2 to 4 dimensions: more than 4 merge the leading (batch) dimensions."""
    if x.ndim < 2:
        raise ValueError(f"{where}: input has {x.ndim} dimensions, needs at least 2")
    if x.ndim > 4:
        return x.reshape((-1,) + x.shape[-2:])
    return x


def trilu(x, k=0, upper=True, device=None):
    """ONNX Trilu: the upper (``x - y >= k``) or lower (``x - y <= k``) triangle of the last two
    dimensions of ``x``, zeros elsewhere. Runs as ONNX Runtime's DirectML provider does:
    DIAGONAL_MATRIX1 with ``x`` as input, Value 0, and DiagonalFillBegin/End = INT32_MIN/k
    (upper) or k+1/INT32_MAX (lower). ``k`` is first clamped to ``[-rows, columns]`` (any k
    beyond gives the same result), so every Python int works. Inputs of 2 to 4 dimensions go
    to the library as they are; more dimensions are merged into one batch dimension. Empty
    inputs skip the library.
    """
    where = "trilu"
    device = _device(device)
    x = np.asarray(x)
    dtype = x.dtype
    dt = T.data_type(dtype, where)
    if x.ndim < 2:
        raise ValueError(f"{where}: input has {x.ndim} dimensions, needs at least 2")
    k = operator.index(k)
    if x.size == 0:
        return np.empty(x.shape, dtype)
    h, w = x.shape[-2:]
    if h > 2**31 or w > C.INT32_MAX - 1:
        raise ValueError(
            f"{where}: a {h}x{w} matrix has diagonals beyond DirectML's 32-bit DiagonalFillBegin/End"
        )
    k = min(max(k, -h), w)
    if upper:
        begin, end = C.INT32_MIN, k
    else:
        begin, end = k + 1, C.INT32_MAX
    s = _batch(T.storage(x), where)
    T.check_sizes(s.shape, where)
    x_bound = T.bind_input(s, dt, where=where)
    res = _run_diagonal1(device, dt, s.shape, begin, end, C.DML_SCALAR_UNION(), x_bound, None, where, s.dtype)
    res = res.reshape(x.shape)
    return res.view(np.bool_) if dtype.kind == "b" else res


def eye_like(x, k=0, dtype=None, device=None):
    """ONNX EyeLike: an array shaped like ``x`` with ones where ``column - row == k`` (in the
    last two dimensions) and zeros elsewhere, of ``dtype`` (default ``x.dtype``). Runs as ONNX
    Runtime's DirectML provider does: DML_OPERATOR_DIAGONAL_MATRIX with Offset k and Value 1.
    ``k`` is clamped to ``[-rows, columns]`` first. ONNX defines EyeLike for 2 dimensions;
    2 to 4 go to the library as they are (a batch of matrices), more are merged into one batch
    dimension. At feature levels below 4.0 the output gets 4 dimensions (leading 1s), as
    DirectML requires there. Empty inputs skip the library.
    """
    where = "eye_like"
    device = _device(device)
    x = np.asarray(x)
    dtype = (x.dtype if dtype is None else np.dtype(dtype)).newbyteorder("=")
    dt = T.data_type(dtype, where)
    if x.ndim < 2:
        raise ValueError(f"{where}: input has {x.ndim} dimensions, needs at least 2")
    k = operator.index(k)
    shape = x.shape
    if x.size == 0:
        return np.zeros(shape, dtype)
    h, w = shape[-2:]
    if h > 2**31 or w > C.INT32_MAX:
        raise ValueError(f"{where}: a {h}x{w} matrix has diagonals beyond DirectML's 32-bit Offset")
    k = min(max(k, -h), w)
    run_shape = shape if len(shape) <= 4 else (-1,) + shape[-2:]
    storage_dtype = np.dtype(np.uint8) if dtype.kind == "b" else dtype
    out = T.alloc((int(np.prod(shape)),), storage_dtype).reshape(run_shape)
    dims = out.shape
    if device.feature_level < C.FEATURE_LEVELS["4_0"]:
        dims = _pad_shape(dims, 4)
    T.check_sizes(dims, where)
    out_desc = T.TensorDesc(dt, dims, where=where)
    desc = C.DML_DIAGONAL_MATRIX_OPERATOR_DESC(out_desc.pointer(), k, 1.0)
    with _Operator(device, C.DML_OPERATOR_DIAGONAL_MATRIX, desc) as op:
        op.execute([], [T.bind_output(out, out_desc)])
    out = out.reshape(shape)
    return out.view(np.bool_) if dtype.kind == "b" else out
