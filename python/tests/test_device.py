"""Devices, errors, the library's loading and helpers."""

import ctypes
import os
import threading
import time

import numpy as np
import pytest

import directml_subset as dml
from directml_subset import DirectMLError, _capi, _tensor
from _util import run_threads


def test_loaded_from_the_environment_variable():
    path = os.environ.get("DIRECTML_SUBSET_LIBRARY")
    if path:
        assert os.path.samefile(dml.LIBRARY_PATH, path)
    assert dml.version() == dml.__version__
    assert dml.version().count(".") == 2


def test_default_device():
    d = dml.default_device()
    assert d is dml.default_device()
    assert d.extensions and d.threads == 0
    assert d.feature_level == 0x6400 and d.feature_level_name == "6_4"


@pytest.mark.parametrize(
    "spec, value",
    [(None, 0x6400), ("3_0", 0x3000), ("5.1", 0x5100), ("DML_FEATURE_LEVEL_4_1", 0x4100), (0x6200, 0x6200)],
)
def test_feature_levels(spec, value):
    with dml.Device(feature_level=spec) as d:
        assert d.feature_level == value
        assert not d.extensions
        assert repr(d).startswith("Device(feature_level=")
    assert "closed" in repr(d)
    with pytest.raises(ValueError, match="closed"):
        dml.onnx_nonzero(np.ones(2, np.float32), device=d)
    d.close()  # twice is fine


def test_device_errors():
    with pytest.raises(DirectMLError) as e:
        dml.Device(feature_level=0x1234)
    assert e.value.hresult == dml.E_INVALIDARG and e.value.function == "dmls_device_create"
    assert "0x1234" in e.value.message
    with pytest.raises(DirectMLError) as e:
        dml.Device(feature_level=0x6500)
    assert e.value.hresult == dml.DXGI_ERROR_UNSUPPORTED == 0x887A0004
    assert e.value.name == "DXGI_ERROR_UNSUPPORTED"
    assert e.value.hresult_signed == 0x887A0004 - 2**32
    with pytest.raises(DirectMLError) as e:
        dml.Device(threads=2000)
    assert e.value.hresult == dml.E_INVALIDARG
    assert e.value.message == "dmls_device_create: thread_count is 2000, at most 1024"
    # A well-formed level above 6_4, named or numbered: one a newer DirectML may define.
    with pytest.raises(DirectMLError) as e:
        dml.Device(feature_level="7_0")
    assert e.value.hresult == dml.DXGI_ERROR_UNSUPPORTED
    for bad in ("7_x", "2_5", "16_0", "6_16"):
        with pytest.raises(ValueError):
            dml.Device(feature_level=bad)
    with pytest.raises(ValueError):
        dml.Device(threads=-1)
    with pytest.raises(TypeError):
        dml.onnx_nonzero(np.ones(2), device="cpu")


def test_errors_survive_pickling():
    import copy
    import pickle

    with pytest.raises(DirectMLError) as e:
        dml.Device(threads=2000)
    e.value.context = "a caller's attribute"
    for again in (pickle.loads(pickle.dumps(e.value)), copy.copy(e.value)):
        assert again.context == "a caller's attribute"
        assert type(again) is DirectMLError
        assert (again.hresult, again.message, again.function, str(again)) == (
            e.value.hresult,
            e.value.message,
            e.value.function,
            str(e.value),
        )


def test_a_closed_default_device_is_made_again():
    first = dml.default_device()
    first.close()
    np.testing.assert_array_equal(dml.trilu(np.ones((2, 3), np.float32)), np.triu(np.ones((2, 3))))
    second = dml.default_device()
    assert second is not first and "closed" not in repr(second)
    assert second is dml.default_device()


def test_close_while_other_threads_create_operators_and_query(monkeypatch):
    # Creations and queries in flight keep the device; the last of them releases it after
    # close (the library's rule: a release must not overlap another call on the device). The
    # creations are slowed down, so that close comes while some are in flight.
    from directml_subset import _operators

    real = _operators.lib
    in_flight = []
    lock = threading.Lock()

    class Slow:
        def __getattr__(self, name):
            return getattr(real, name)

        def dmls_device_create_operator(self, *args):
            with lock:
                in_flight.append(1)
            try:
                time.sleep(0.002)
                return real.dmls_device_create_operator(*args)
            finally:
                with lock:
                    in_flight.pop()

    monkeypatch.setattr(_operators, "lib", Slow())
    deferred = 0
    for _ in range(10):
        d = dml.Device(threads=1)
        release, released = d._release, []

        def checked_release(h, release=release, released=released):
            with lock:
                assert not in_flight, "the device was released during an operator creation"
            released.append(h)
            release(h)

        d._release = checked_release
        started = threading.Event()

        def work(i, d=d, started=started):
            for n in range(2, 50):
                started.set()
                try:
                    d.trilu(np.ones((2, n + 100 * i), np.float32))  # a new layout: a new operator
                    d.supports_data_type(np.float32)
                except ValueError as e:
                    assert "closed" in str(e)
                    return

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        started.wait()
        time.sleep(0.003)
        d.close()
        deferred += d._pending is not None
        for t in threads:
            t.join()
        assert len(released) == 1 and d._users == 0 and d._pending is None and d._ops == {}
        with pytest.raises(ValueError, match="closed"):
            d.trilu(np.ones((2, 2), np.float32))
    assert deferred > 0, "close never came while a creation was in flight"


def test_unknown_flag_bits_are_rejected_by_the_library():
    desc = _capi.dmls_device_desc(0, 0, 0x2)
    h = ctypes.c_void_p()
    hr = _capi.lib.dmls_device_create(ctypes.byref(desc), ctypes.byref(h))
    assert hr & 0xFFFFFFFF == dml.E_INVALIDARG and not h.value
    assert _capi.last_error_message() == (
        "dmls_device_create: flags is 0x2; the only flag is DMLS_DEVICE_FLAG_EXTENSIONS (0x1)"
    )


def test_error_message_is_cleared_by_success():
    with pytest.raises(DirectMLError):
        dml.diagonal_matrix((3,), np.float32, 0, 1)
    assert _capi.last_error_message() != ""
    dml.diagonal_matrix((3, 3), np.float32, 0, 1)
    assert _capi.last_error_message() == ""


def test_feature_queries():
    d = dml.Device(feature_level="5_0")
    assert d.max_supported_feature_level(["4_0", "5_0", "6_0"]) == 0x5000
    assert dml.Device().max_supported_feature_level(["6_5", "DML_FEATURE_LEVEL_6_4"]) == 0x6400
    with pytest.raises(DirectMLError) as e:
        d.max_supported_feature_level(["6_0"])
    assert e.value.hresult == dml.DXGI_ERROR_UNSUPPORTED
    for t in (np.bool_, np.int8, np.uint64, np.float16, np.float64):
        assert d.supports_data_type(t)
    assert not d.supports_data_type(np.complex64)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_thread_counts_agree(rng, threads):
    a = rng.random((300, 900)) < 0.3
    with dml.Device(threads=threads, extensions=True) as d:
        np.testing.assert_array_equal(dml.onnx_nonzero(a, device=d), np.array(np.nonzero(a)))
        np.testing.assert_array_equal(d.trilu(a.astype(np.float32), 2), np.triu(a.astype(np.float32), 2))


def test_methods_mirror_functions(rng):
    d = dml.Device(extensions=True)
    a = (rng.random((4, 5)) < 0.5).astype(np.float32)
    np.testing.assert_array_equal(d.onnx_nonzero(a), np.array(np.nonzero(a)))
    np.testing.assert_array_equal(d.nonzero_coordinates(a), np.argwhere(a))
    np.testing.assert_array_equal(d.nonzero_coordinates(a[2:3], 1), np.argwhere(a[2:3])[:, 1:])
    np.testing.assert_array_equal(d.trilu(a, -1, False), np.tril(a, -1))
    np.testing.assert_array_equal(d.eye_like(a, 2, np.int8), np.eye(4, 5, 2, np.int8))
    np.testing.assert_array_equal(d.diagonal_matrix((4, 5), np.float32, 0, 1), np.eye(4, 5))


def test_many_python_threads_share_a_device(rng):
    arrays = [(rng.random((50, 60)) < 0.4).astype(np.int32) for _ in range(8)]

    def work(a):
        for _ in range(20):
            np.testing.assert_array_equal(dml.onnx_nonzero(a), np.array(np.nonzero(a)))
            np.testing.assert_array_equal(dml.trilu(a, 1), np.triu(a, 1))
        # A failure on one thread: its message is that thread's own.
        with pytest.raises(DirectMLError, match="DimensionCount is 1"):
            dml.diagonal_matrix((3,), np.int32, 0, 1)

    run_threads(work, arrays)


def test_buffer_sizes_come_from_the_library(rng, monkeypatch):
    # DMLCalcBufferTensorSize, written out here only as the test's oracle.
    def oracle(itemsize, sizes, strides):
        if strides is None:
            elements = int(np.prod(sizes, dtype=object))
        else:
            elements = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
        return (elements * itemsize + 3) & ~3

    for _ in range(300):
        dt = int(rng.choice(list(_tensor.ITEMSIZE)))
        n = int(rng.integers(1, 9))
        sizes = [int(rng.integers(1, 2**int(rng.integers(1, 17)))) for _ in range(n)]
        strides = None if rng.random() < 0.3 else [int(rng.integers(0, 2**32)) for _ in range(n)]
        want = oracle(_tensor.ITEMSIZE[dt], sizes, strides)
        if want < 2**64:
            assert _tensor.buffer_tensor_size(dt, sizes, strides) == want, (dt, sizes, strides)
            assert _tensor.TensorDesc(dt, sizes, strides).total == want
    # The package asks the library (dmls_calc_buffer_tensor_size) rather than computing it.
    calls = []

    def fake(dt, n, sizes, strides):
        calls.append((dt, [sizes[i] for i in range(n)], strides))
        return 4096

    monkeypatch.setattr(_capi.lib, "dmls_calc_buffer_tensor_size", fake)
    assert _tensor.TensorDesc(_capi.DT_FLOAT32, [2, 3]).total == 4096
    assert calls == [(_capi.DT_FLOAT32, [2, 3], None)]


def test_struct_layouts():
    assert ctypes.sizeof(_capi.DML_DIAGONAL_MATRIX1_OPERATOR_DESC) == 40
    assert _capi.DML_DIAGONAL_MATRIX1_OPERATOR_DESC.Value.offset == 24
    assert _capi.DML_DIAGONAL_MATRIX1_OPERATOR_DESC.DiagonalFillEnd.offset == 36
    assert _capi.DML_BUFFER_TENSOR_DESC.TotalTensorSizeInBytes.offset == 32
    assert _capi.DML_BUFFER_TENSOR_DESC.GuaranteedBaseOffsetAlignment.offset == 40
    assert ctypes.sizeof(_capi.DML_SCALAR_UNION) == 8 and ctypes.alignment(_capi.DML_SCALAR_UNION) == 8
