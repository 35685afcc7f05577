"""Random arrays of every type and layout for the tests."""

import sys
import threading

import numpy as np
import pytest

import directml_subset
from directml_subset import _tensor

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float16, np.float32, np.float64]
ALL_TYPES = [np.bool_] + INT_TYPES + FLOAT_TYPES
WIDE_TYPES = [np.int64, np.uint64, np.float64]

# How an array is laid out in memory, and whether the package must copy it to bind it.
LAYOUTS = [
    "contiguous",
    "fortran",
    "permuted",
    "strided",
    "broadcast",
    "offset",
    "reversed",
    "unaligned",
    "byteswapped",
]


def every_type_and_layout(test):
    """Parametrizes `test(rng, dtype, kind)` with every type and every layout."""
    test = pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)(test)
    return pytest.mark.parametrize("kind", LAYOUTS)(test)


def run_threads(work, args):
    """Runs `work(arg)` on one thread per arg, all at once; fails with the first exception a
    thread raised."""
    errors = []

    def body(arg):
        try:
            work(arg)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(a,)) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def values(rng, dtype, shape, density=None):
    """Random values of `dtype` with about `density` of them nonzero; floats include -0.0,
    NaN, infinities and subnormals."""
    dtype = np.dtype(dtype)
    if density is None:
        density = rng.choice([0.0, 0.05, 0.5, 0.9, 1.0])
    nz = rng.random(shape) < density
    if dtype.kind == "b":
        return nz
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        v[v == 0] = 1
        return np.where(nz, v, dtype.type(0)).astype(dtype)
    info = np.finfo(dtype)
    v = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3])).astype(dtype)
    special = np.array([np.nan, np.inf, -np.inf, info.smallest_subnormal, -info.smallest_subnormal, info.max], dtype)
    pick = rng.random(shape) < 0.1
    v = np.where(pick, special[rng.integers(0, len(special), size=shape)], v)
    v[v == 0] = info.tiny
    zeros = np.where(rng.random(shape) < 0.5, dtype.type(0.0), dtype.type(-0.0))
    return np.where(nz, v, zeros).astype(dtype)


def layout(rng, dtype, shape, kind, density=None):
    """An array of `shape` laid out as `kind`; returns (array, copy_expected)."""
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    ndim = len(shape)
    if kind == "contiguous":
        return values(rng, dtype, shape, density), False
    if kind == "fortran":
        return np.asfortranarray(values(rng, dtype, shape, density)), False
    if kind == "permuted":
        perm = rng.permutation(ndim)
        base = values(rng, dtype, tuple(shape[p] for p in perm), density)
        return np.transpose(base, np.argsort(perm)), False
    if kind == "strided":
        # Steps of 1 to 3 on at most three dimensions (the base stays small).
        picked = set(rng.permutation(ndim)[:3].tolist()) if ndim else set()
        steps = [int(rng.integers(1, 4)) if d in picked else 1 for d in range(ndim)]
        starts = [int(rng.integers(0, 3)) if d in picked else int(rng.integers(0, 2)) for d in range(ndim)]
        big = tuple(st + s * k + 1 for st, s, k in zip(starts, shape, steps))
        base = values(rng, dtype, big, density)
        idx = tuple(slice(st, st + s * k, k) for st, s, k in zip(starts, shape, steps))
        return base[idx], False
    if kind == "broadcast":
        small = tuple(1 if rng.random() < 0.5 else s for s in shape)
        return np.broadcast_to(values(rng, dtype, small, density), shape), False
    if kind == "offset":
        n = int(np.prod(shape))
        start = int(rng.integers(1, 5))
        flat = values(rng, dtype, (n + start + 3,), density)
        return flat[start : start + n].reshape(shape), False
    if kind == "reversed":
        a = values(rng, dtype, shape, density)
        if ndim == 0:
            return a, False
        axis = int(rng.integers(0, ndim))
        r = np.flip(a, axis)
        return r, shape[axis] > 1
    if kind == "unaligned":
        n = int(np.prod(shape))
        raw = np.zeros(n * dtype.itemsize + 16, np.uint8)
        off = 1 if raw.ctypes.data % 2 == 0 else 0
        a = raw[off : off + n * dtype.itemsize].view(dtype).reshape(shape)
        a[...] = values(rng, dtype, shape, density)
        return a, dtype.itemsize > 1 and n > 0
    if kind == "byteswapped":
        a = values(rng, dtype, shape, density)
        other = ">" if sys.byteorder == "little" else "<"
        return a.astype(dtype.newbyteorder(other)), False
    raise ValueError(kind)


def tail_overrun(a):
    """Whether DirectML's TotalTensorSizeInBytes (the span rounded up to 4 bytes) runs past the
    memory allocated for `a` (then binding must copy)."""
    owner = a
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner.ndim and not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return False
    span = 1 + sum((s - 1) * st // a.itemsize for s, st in zip(a.shape, a.strides) if s > 1)
    need = (span * a.itemsize + 3) & ~3
    return a.ctypes.data + need > owner.ctypes.data + owner.nbytes


def copies_on_bind(a):
    """Whether the package copies `a` to bind it (after converting to native byte order)."""
    s = _tensor.storage(a)
    if s.ndim == 0:
        s = s.reshape(1)
    dt = _tensor.data_type(s.dtype, "test")
    return _tensor.bind_input(s, dt).copied


def random_shape(rng, ndim, max_size=5, min_size=1, max_elements=5000):
    """A random shape with at most `max_elements` elements (the largest sizes shrink)."""
    shape = [int(rng.integers(min_size, max_size + 1)) for _ in range(ndim)]
    while int(np.prod(shape)) > max_elements:
        i = int(np.argmax(shape))
        shape[i] = max(min_size, shape[i] // 2)
    return tuple(shape)


def random_shapes(rng, count, ndims, sizes, max_elements=5000):
    """`count` random shapes of `ndims[0]` to `ndims[1] - 1` dimensions, each with sizes up to
    one of `sizes` (picked per shape) and at most `max_elements` elements."""
    for _ in range(count):
        ndim = int(rng.integers(*ndims))
        yield random_shape(rng, ndim, max_size=int(rng.choice(sizes)), max_elements=max_elements)


def effective_rank(shape):
    """The rank DirectML's NONZERO_COORDINATES counts (leading 1s dropped): the test's oracle
    for which `columns` are valid; the package itself leaves that check to the library."""
    lead = 0
    for s in shape:
        if s != 1:
            break
        lead += 1
    return len(shape) - lead


STRICT = None


def strict_device():
    global STRICT
    if STRICT is None:
        STRICT = directml_subset.Device()
    return STRICT
