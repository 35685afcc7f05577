"""What the package reuses across calls (operators, bindings, scratch buffers) and what it
must not: results belong to the caller; caches are per device, bounded and thread-safe."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import directml_subset as dml
from directml_subset import _nonzero, _operators
from _util import run_threads, values

PYTHON_DIR = Path(__file__).resolve().parent.parent


def test_results_are_not_overwritten_by_the_next_call(rng):
    a = values(rng, np.float32, (40, 50), density=0.5)
    b = values(rng, np.float32, (40, 50), density=0.5)
    r1 = [dml.onnx_nonzero(a), dml.nonzero_coordinates(a), dml.trilu(a), dml.eye_like(a, 1)]
    kept = [r.copy() for r in r1]
    r2 = [dml.onnx_nonzero(b), dml.nonzero_coordinates(b), dml.trilu(b), dml.eye_like(b, 2)]
    for r, k in zip(r1, kept):
        np.testing.assert_array_equal(r, k)
    for r in r1 + r2:
        base = r
        while isinstance(base.base, np.ndarray):
            base = base.base
        assert base.flags.owndata and base.flags.writeable


def test_a_call_is_cached_only_for_inputs_that_cover_the_rounded_up_total():
    """Three UINT8 elements are 3 bytes, TotalTensorSizeInBytes 4. A first call on a view with
    memory after it binds it as it is; a call cached then would bind a later 3-byte array
    claiming 4 bytes of it."""
    dev = dml.Device(extensions=True)
    view = np.array([1, 0, 1, 5], np.uint8)[:3]
    for f in (dml.nonzero_coordinates, dml.onnx_nonzero):
        f(view, device=dev)
    assert not [k for k in dev._ops if k[0] in (_nonzero.TINY_COORDS, _nonzero.TINY_ONNX)]
    np.testing.assert_array_equal(dml.nonzero_coordinates(np.array([1, 0, 1], np.uint8), device=dev), [[0], [2]])
    # Four bytes cover it: cached.
    dml.nonzero_coordinates(np.array([1, 0, 1, 1], np.uint8), device=dev)
    assert [k for k in dev._ops if k[0] == _nonzero.TINY_COORDS]


def test_operators_are_cached_per_layout_and_bounded(monkeypatch):
    dev = dml.Device(extensions=True)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    dml.trilu(x, device=dev)
    n = len(dev._ops)
    created = []
    real = _operators._Operator.__init__

    def spy(self, *a):
        created.append(a[1])
        real(self, *a)

    monkeypatch.setattr(_operators._Operator, "__init__", spy)
    for _ in range(5):
        dml.trilu(x, device=dev)
    assert created == [] and len(dev._ops) == n
    dml.trilu(x, k=1, device=dev)
    assert len(created) == 1
    monkeypatch.setattr(_operators, "OPERATOR_CACHE_SIZE", 4)
    for k in range(10):
        np.testing.assert_array_equal(dml.trilu(x, k=k - 5, device=dev), np.triu(x, k - 5))
    assert len(dev._ops) <= 4
    dev.close()
    assert len(dev._ops) == 0
    with pytest.raises(ValueError, match="closed"):
        dml.trilu(x, device=dev)


def test_threads_and_devices_share_nothing_they_should_not(rng):
    devices = [dml.default_device(), dml.Device(extensions=True, threads=1), dml.Device(extensions=True, threads=2)]
    arrays = [values(rng, np.float32, (int(rng.integers(1, 30)), int(rng.integers(1, 30))), density=0.5) for _ in range(12)]

    def work(i):
        for j in range(60):
            a = arrays[(i + j) % len(arrays)]
            dev = devices[(i * 7 + j) % len(devices)]
            np.testing.assert_array_equal(dml.onnx_nonzero(a, device=dev), np.array(np.nonzero(a)))
            np.testing.assert_array_equal(dml.nonzero_coordinates(a, device=dev), np.argwhere(a))
            np.testing.assert_array_equal(dml.trilu(a, j % 5 - 2, device=dev), np.triu(a, j % 5 - 2))
            np.testing.assert_array_equal(dml.eye_like(a, device=dev), np.eye(*a.shape, dtype=np.float32))

    run_threads(work, range(6))


def test_large_nonzero_shrinks_a_new_array(rng, monkeypatch):
    # Above the scratch limit the rows go to a new worst-case array, shrunk to the count.
    monkeypatch.setattr(_nonzero, "SCRATCH_LIMIT", 0)
    a = values(rng, np.float32, (64, 70), density=0.3)
    got = dml.nonzero_coordinates(a)
    assert got.flags.owndata and got.flags.c_contiguous
    np.testing.assert_array_equal(got, np.argwhere(a))
    np.testing.assert_array_equal(dml.onnx_nonzero(a), np.array(np.nonzero(a)))


def test_scratch_results_are_independent_across_sizes(rng, monkeypatch):
    # Results copied out of the thread's scratch buffer stay as they were while the buffer is
    # reused (grown, then written by smaller calls), and above the limit nothing is kept.
    monkeypatch.setattr(_nonzero, "SCRATCH_LIMIT", 64 << 10)
    monkeypatch.setattr(_nonzero._tls, "scratch", _nonzero._Scratch(), raising=False)  # a new one
    arrays = [values(rng, np.float32, shape, density=0.6) for shape in [(20, 30), (60, 70), (5, 6), (90, 91), (60, 70)]]
    results = [(dml.nonzero_coordinates(a), dml.onnx_nonzero(a)) for a in arrays]
    for a, (coords, onnx) in zip(arrays, results):
        np.testing.assert_array_equal(coords, np.argwhere(a))
        np.testing.assert_array_equal(onnx, np.array(np.nonzero(a)))
        for r in (coords, onnx):
            base = r if r.base is None else r.base
            assert base.flags.owndata and not np.shares_memory(r, _nonzero._tls.scratch._rows)
    # 60 x 70 rows fit in 64 KB; 90 x 91 (64 KB of uint32 rows, 128 KB of int64) do not.
    assert _nonzero._tls.scratch._rows.nbytes <= 64 << 10


def test_a_call_nested_in_a_call_gets_its_own_scratch(rng, monkeypatch):
    # A call that starts on the same thread while another holds the scratch (as from a signal
    # handler or a finalizer, here from inside reading the count) must not write the rows the
    # outer call has not copied out yet.
    outer = values(rng, np.float32, (30, 40), density=0.5)
    inner = values(rng, np.float32, (30, 40), density=0.5)
    dml.nonzero_coordinates(outer)  # this thread now keeps a scratch buffer
    real = _nonzero._Scratch.count
    nested = []

    def count_then_call(self, out_dt):
        if not nested:
            nested.append(None)
            nested[0] = dml.nonzero_coordinates(inner)
            assert self is not _nonzero._tls.scratch  # the nested call used (and kept) another
        return real(self, out_dt)

    monkeypatch.setattr(_nonzero._Scratch, "count", count_then_call)
    np.testing.assert_array_equal(dml.nonzero_coordinates(outer), np.argwhere(outer))
    np.testing.assert_array_equal(nested[0], np.argwhere(inner))


def test_each_thread_has_its_own_scratch(rng):
    arrays = [values(rng, np.float32, (int(rng.integers(1, 120)), int(rng.integers(1, 120))), density=0.5) for _ in range(8)]
    scratches = {}

    def work(i):
        for j in range(30):
            a = arrays[(i + j) % len(arrays)]
            np.testing.assert_array_equal(dml.nonzero_coordinates(a), np.argwhere(a))
            out = np.empty((a.ndim, a.size), np.int64, order="F")
            np.testing.assert_array_equal(dml.onnx_nonzero(a, out=out), np.array(np.nonzero(a)))
        scratches[i] = _nonzero._tls.scratch

    run_threads(work, range(6))
    assert len({id(s) for s in scratches.values()}) == 6


def test_importing_the_source_folder_says_it_shadows_the_package(tmp_path):
    # From inside python/ without DIRECTML_SUBSET_LIBRARY, `import directml_subset` finds the
    # source folder, which holds no built library.
    if (PYTHON_DIR / "directml_subset" / "libdirectml_subset.so").exists():
        pytest.skip("a library was built into the source folder (editable install)")
    env = {k: v for k, v in os.environ.items() if k not in ("DIRECTML_SUBSET_LIBRARY", "PYTHONPATH")}
    r = subprocess.run(
        [sys.executable, "-c", "import directml_subset"], cwd=PYTHON_DIR, env=env, capture_output=True, text=True
    )
    assert r.returncode != 0
    msg = r.stderr.strip().splitlines()[-1]
    assert "source folder" in msg and "shadowing the installed package" in msg, msg
    assert "DIRECTML_SUBSET_LIBRARY" in msg and "another directory" in msg
    assert "reinstall" not in msg.lower()


def test_value_converts_as_directml_does():
    # Truncate toward zero and saturate to the type's range, NaN -> 0, as DIAGONAL_MATRIX's FLOAT
    # Value converts (the README's "How it differs").
    def diag(dtype, value):
        return dml.diagonal_matrix((2, 2), dtype, 0, 1, value=value)[0, 0]

    assert diag(np.int8, 1e10) == 127
    assert diag(np.int8, -1e10) == -128
    assert diag(np.int8, 10**10) == 127
    assert diag(np.uint8, -3.7) == 0
    assert diag(np.uint8, 300) == 255
    assert diag(np.int32, -7.9) == -7
    assert diag(np.int16, float("nan")) == 0
    assert diag(np.int64, float("inf")) == np.iinfo(np.int64).max
    assert diag(np.uint64, 2**64 + 5) == 2**64 - 1
    assert diag(np.int64, 2**53 + 1) == 2**53 + 1  # integers stay exact
    assert diag(np.int64, np.uint64(2**64 - 1)) == np.iinfo(np.int64).max
    assert diag(bool, 0.0) == False and diag(bool, float("nan")) == False and diag(bool, -2.5) == True  # noqa: E712
    assert np.isinf(diag(np.float16, 1e10)) and diag(np.float32, 0.1) == np.float32(0.1)
    with pytest.raises(TypeError, match="value"):
        dml.diagonal_matrix((2, 2), np.int8, 0, 1, value=1 + 2j)
    with pytest.raises(TypeError, match="value"):
        dml.diagonal_matrix((2, 2), np.int8, 0, 1, value="x")


def test_docstrings_name_the_onnx_and_directml_operators():
    assert "NonZero" in dml.onnx_nonzero.__doc__ and "DML_OPERATOR_NONZERO_COORDINATES" in dml.onnx_nonzero.__doc__
    assert "DML_OPERATOR_NONZERO_COORDINATES" in dml.nonzero_coordinates.__doc__
    assert "Trilu" in dml.trilu.__doc__ and "DML_OPERATOR_DIAGONAL_MATRIX1" in dml.trilu.__doc__
    assert "EyeLike" in dml.eye_like.__doc__ and "DML_OPERATOR_DIAGONAL_MATRIX`" in dml.eye_like.__doc__
    assert "DML_OPERATOR_DIAGONAL_MATRIX1" in dml.diagonal_matrix.__doc__
    assert (PYTHON_DIR / "directml_subset" / "py.typed").is_file()


# (3, 5): into one new array; (40, 50): through the scratch buffer (see _operators.CACHED_CALL_LIMIT).
@pytest.mark.parametrize("shape", [(3, 5), (40, 50)])
@pytest.mark.parametrize("extensions", [True, False])
def test_a_small_nonzero_call_is_cached_per_dtype_and_shape(rng, monkeypatch, extensions, shape):
    from directml_subset import _api

    dev = dml.Device(extensions=extensions)
    checked = []
    for name in ("_onnx_coords", "_run_nonzero"):
        real = getattr(_api, name)
        monkeypatch.setattr(_api, name, lambda *a, _real=real, **k: checked.append(1) or _real(*a, **k))

    def onnx(a):
        return np.array(np.nonzero(a), dtype=np.int64).reshape(a.ndim, -1)

    for f, want, key in (
        (dml.onnx_nonzero, onnx, _nonzero.TINY_ONNX),
        (dml.nonzero_coordinates, np.argwhere, _nonzero.TINY_COORDS),
    ):
        x = values(rng, np.float32, shape, density=0.5)
        np.testing.assert_array_equal(f(x, device=dev), want(x))
        assert (key, x.dtype, x.shape) in dev._ops
        # The same dtype and shape again: the cached call, without the checked path.
        checked.clear()
        zeros, ones = np.zeros(shape, np.float32), np.full(shape, 2, np.float32)
        results = [(f(y, device=dev), y) for y in (values(rng, np.float32, shape, density=0.5), zeros, ones)]
        assert checked == []
        for got, y in results:
            np.testing.assert_array_equal(got, want(y))
            assert got.dtype == (np.int64 if f is dml.onnx_nonzero else np.uint32)
        assert results[1][0].shape[-1 if f is dml.onnx_nonzero else 0] == 0
        # Other layouts of that dtype and shape take the checked path.
        other = values(rng, np.float32, shape[::-1], density=0.5).T
        for y in (other, misaligned(values(rng, np.float32, shape, density=0.5))):
            checked.clear()
            np.testing.assert_array_equal(f(y, device=dev), want(y))
            assert checked != []
        # A dtype whose bytes are converted first is not cached.
        y = values(rng, np.float32, shape, density=0.5).astype(">f4")
        np.testing.assert_array_equal(f(y, device=dev), want(y))
        assert (key, y.dtype, y.shape) not in dev._ops
    dev.close()
    with pytest.raises(ValueError, match="closed"):
        dml.onnx_nonzero(np.ones(shape, np.float32), device=dev)


def misaligned(a):
    """A copy of `a` whose data starts one byte past an aligned address."""
    buf = np.zeros(a.nbytes + 1, np.uint8)
    m = buf[1:].view(a.dtype).reshape(a.shape)
    m[...] = a
    assert not m.flags.aligned
    return m


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.bool_, np.float64])
def test_a_small_trilu_call_is_cached_per_dtype_shape_k_and_side(rng, monkeypatch, dtype):
    from directml_subset import _api, _diagonal

    dev = dml.Device(extensions=True)
    checked = []
    real = _api._run_diagonal1
    monkeypatch.setattr(_api, "_run_diagonal1", lambda *a, **k: checked.append(1) or real(*a, **k))
    # 72 elements: whole 4-byte units in every type (an input whose bytes end short of its
    # rounded-up total is bound through a padded copy, and not cached).
    shape = (3, 4, 6)
    odd = values(rng, np.uint8, (3, 5, 7), density=0.5)
    np.testing.assert_array_equal(dml.trilu(odd, 1, True, device=dev), np.triu(odd, 1))
    assert (_diagonal.TINY_TRILU, odd.dtype, odd.shape, 1, True) not in dev._ops
    for k, upper, want in ((1, True, np.triu), (-2, False, np.tril), (0, True, np.triu)):
        x = values(rng, dtype, shape, density=0.5)
        np.testing.assert_array_equal(dml.trilu(x, k, upper, device=dev), want(x, k))
        assert (_diagonal.TINY_TRILU, x.dtype, shape, k, upper) in dev._ops
        checked.clear()
        results = [(dml.trilu(y, k, upper, device=dev), y) for y in (values(rng, dtype, shape, density=0.5), np.zeros(shape, dtype))]
        assert checked == []
        for got, y in results:
            np.testing.assert_array_equal(got, want(y, k))
            assert got.dtype == y.dtype and got.shape == shape and not np.shares_memory(got, y)
        # Other layouts of that dtype and shape, and a k of another type, take the checked path.
        y = values(rng, dtype, shape, density=0.5)
        others = [(y[:, :, ::-1], k), (y, np.int64(k))]
        if y.itemsize > 1:
            others.append((misaligned(y), k))
        for args in others:
            checked.clear()
            np.testing.assert_array_equal(dml.trilu(*args, upper, device=dev), want(args[0], k))
            assert checked != []
    dev.close()
    with pytest.raises(ValueError, match="closed"):
        dml.trilu(np.ones(shape, dtype), 1, True, device=dev)


def test_closing_a_device_releases_its_operators_without_the_garbage_collector(rng, monkeypatch):
    # A device's operators hold its threads. Were a cached operator part of a reference cycle,
    # only a pass of the garbage collector would release it, and for old objects such a pass
    # may be long in coming: a program that closes devices would keep their threads.
    import gc
    import weakref

    made = []
    real = _operators._Operator.__init__

    def spy(self, *a):
        real(self, *a)
        made.append(weakref.ref(self))

    monkeypatch.setattr(_operators._Operator, "__init__", spy)
    monkeypatch.setattr(_operators, "OPERATOR_CACHE_SIZE", 3)
    small = rng.standard_normal((4, 6)).astype(np.float32)
    large = rng.standard_normal((300, 300)).astype(np.float32)
    gc.collect()
    gc.disable()
    try:
        with dml.Device(threads=2, extensions=True) as dev:
            for x in (small, large, small[:, :5], large[:299]):  # cached calls and operators
                for _ in range(2):
                    dml.trilu(x, device=dev)
                    dml.onnx_nonzero(x, device=dev)
                    dml.nonzero_coordinates(x, device=dev)
                    dml.eye_like(x, device=dev)
            dml.diagonal_matrix((3, 3), np.float32, 0, 3, device=dev)
            assert len(made) > 3
            # Those the cache dropped (it keeps three) are released already.
            assert sum(r() is not None for r in made) <= 3
        assert [r for r in made if r() is not None] == [], "operators outlived their device's close"
    finally:
        gc.enable()
