"""nonzero_coordinates and onnx_nonzero against numpy."""

import numpy as np
import pytest

import directml_subset as dml
from directml_subset import DirectMLError
from _util import (
    ALL_TYPES,
    WIDE_TYPES,
    copies_on_bind,
    effective_rank,
    every_type_and_layout,
    layout,
    random_shape,
    random_shapes,
    strict_device,
    tail_overrun,
    values,
)


def expected_coords(a, columns):
    return np.argwhere(a)[:, a.ndim - columns :].astype(np.uint32)


def expected_onnx(a):
    if a.ndim == 0:
        return np.zeros((0, int(bool(a))), np.int64)
    return np.array(np.nonzero(a), dtype=np.int64).reshape(a.ndim, -1)


@every_type_and_layout
def test_nonzero_coordinates_matches_numpy(rng, dtype, kind):
    for shape in random_shapes(rng, 6, (1, 9), [2, 3, 6]):
        ndim = len(shape)
        a, copy = layout(rng, dtype, shape, kind)
        assert copies_on_bind(a) == (copy or tail_overrun(a)), (kind, a.shape, a.strides)
        rank = effective_rank(shape)
        columns = int(rng.integers(max(rank, 1), ndim + 1))
        got = dml.nonzero_coordinates(a, columns)
        want = expected_coords(a, columns)
        assert got.dtype == np.uint32
        assert got.shape == want.shape, (shape, columns)
        np.testing.assert_array_equal(got, want)
        # Default columns: all of them.
        np.testing.assert_array_equal(dml.nonzero_coordinates(a), expected_coords(a, ndim))


@every_type_and_layout
def test_onnx_nonzero_matches_numpy(rng, dtype, kind):
    strict = strict_device()
    for shape in random_shapes(rng, 6, (1, 9), [2, 3, 6]):
        ndim = len(shape)
        a, _ = layout(rng, dtype, shape, kind)
        want = expected_onnx(a)
        got = dml.onnx_nonzero(a)
        # Packed INT64 rows, transposed: a Fortran-ordered array (C-ordered too when 1-D).
        assert got.dtype == np.int64 and (got.flags.f_contiguous or got.flags.c_contiguous)
        np.testing.assert_array_equal(got, want)
        if dtype not in WIDE_TYPES:
            # A strict device: UINT32 rows, converted to a new C-ordered int64 array.
            got = dml.onnx_nonzero(a, device=strict)
            assert got.dtype == np.int64 and got.flags.c_contiguous
            np.testing.assert_array_equal(got, want)


def test_onnx_examples():
    # The ONNX backend test for NonZero (test_nonzero_example).
    condition = np.array([[1, 0], [1, 1]], dtype=bool)
    np.testing.assert_array_equal(dml.onnx_nonzero(condition), [[0, 1, 1], [0, 0, 1]])
    # numpy.nonzero's documented example, which ONNX NonZero follows for rank >= 1.
    x = np.array([[3, 0, 0], [0, 4, 0], [5, 6, 0]])
    np.testing.assert_array_equal(dml.onnx_nonzero(x), [[0, 1, 2, 2], [0, 1, 0, 1]])
    # A scalar gives (0, N), unlike numpy.
    for v, n in [(np.float32(7), 1), (np.float32(0), 0), (np.int64(-1), 1), (True, 1), (np.float16(-0.0), 0)]:
        out = dml.onnx_nonzero(np.asarray(v))
        assert out.shape == (0, n) and out.dtype == np.int64


def test_directml_doc_example():
    # DML_NONZERO_COORDINATES_OPERATOR_DESC's example: the count is 4, then the coordinates.
    x = np.array([[1.0, 0.0, 0.0, 2.0], [-0.0, 3.5, 0.0, -5.2]], np.float32)
    got = dml.nonzero_coordinates(x)
    np.testing.assert_array_equal(got, [[0, 0], [0, 3], [1, 1], [1, 3]])
    # The last index only.
    x1 = x[np.newaxis]
    np.testing.assert_array_equal(dml.nonzero_coordinates(x[:1], columns=1), [[0], [3]])
    np.testing.assert_array_equal(dml.nonzero_coordinates(x1, columns=2), got)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_scalars(dtype):
    for v in (0, 1):
        a = np.asarray(v).astype(dtype)
        assert a.ndim == 0
        out = dml.onnx_nonzero(a)
        assert out.shape == (0, v) and out.dtype == np.int64
        # DirectML tensors have at least one dimension: a 0-d input is shape [1].
        c = dml.nonzero_coordinates(a)
        assert c.shape == (v, 1) and c.dtype == np.uint32
        assert (c == 0).all()


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4, 2), (2, 3, 0, 1, 5), (1, 1, 0), (1, 0, 3)])
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.float16, np.int64])
def test_empty(shape, dtype):
    a = np.zeros(shape, dtype)
    out = dml.onnx_nonzero(a)
    assert out.shape == (len(shape), 0) and out.dtype == np.int64
    c = dml.nonzero_coordinates(a)
    assert c.shape == (0, len(shape)) and c.dtype == np.uint32
    # columns from the effective rank (without leading dimensions of size 1) to ndim, as
    # DirectML requires of a non-empty input (the library is not called for an empty one).
    rank = len(shape) - next((i for i, s in enumerate(shape) if s != 1), len(shape))
    assert dml.nonzero_coordinates(a, columns=rank).shape == (0, rank)
    with pytest.raises(ValueError, match=f"columns is {rank - 1}, must be from the input's effective rank"):
        dml.nonzero_coordinates(a, columns=rank - 1)
    with pytest.raises(ValueError, match=f"columns is {len(shape) + 1}"):
        dml.nonzero_coordinates(a, columns=len(shape) + 1)


def test_floats_zero_and_nan():
    for t in (np.float16, np.float32, np.float64):
        a = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, np.finfo(t).smallest_subnormal, 1], t)
        np.testing.assert_array_equal(dml.nonzero_coordinates(a)[:, 0], [2, 3, 4, 5, 6, 7])
        np.testing.assert_array_equal(dml.onnx_nonzero(a), [[2, 3, 4, 5, 6, 7]])


def test_extreme_integers():
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(t)
        a = np.array([info.min, 0, info.max, 0, 1], t)
        want = [i for i, v in enumerate(a) if v != 0]
        np.testing.assert_array_equal(dml.onnx_nonzero(a), [want])
    # Only the high bits set: a 64-bit input must be read as 64 bits.
    a = np.array([0, 1 << 40, 1 << 63, 0], np.uint64)
    np.testing.assert_array_equal(dml.onnx_nonzero(a), [[1, 2]])
    b = np.array([0, 1 << 32, 0], np.int64)
    np.testing.assert_array_equal(dml.nonzero_coordinates(b), [[1]])


def test_large_input_runs_in_parallel(rng):
    # Above the library's serial threshold (2^17 elements): the parallel path.
    for t in (np.uint8, np.float32, np.int64):
        a = values(rng, t, (7, 300, 129), density=0.3)
        np.testing.assert_array_equal(dml.onnx_nonzero(a), expected_onnx(a))
        np.testing.assert_array_equal(dml.nonzero_coordinates(a[:, ::2, 1:]), expected_coords(a[:, ::2, 1:], 3))
    with dml.Device(threads=2, extensions=True) as dev:
        a = values(rng, np.float64, (1 << 18,), density=0.01)
        np.testing.assert_array_equal(dml.onnx_nonzero(a, device=dev), expected_onnx(a))


def test_more_than_eight_dimensions(rng):
    a = values(rng, np.int16, (2, 1, 3, 2, 1, 2, 2, 1, 3, 2), density=0.5)
    np.testing.assert_array_equal(dml.onnx_nonzero(a), expected_onnx(a))
    np.testing.assert_array_equal(dml.onnx_nonzero(np.transpose(a)), expected_onnx(np.transpose(a)))
    # nonzero_coordinates is DirectML's operator, which has at most 8 dimensions.
    with pytest.raises(DirectMLError) as e:
        dml.nonzero_coordinates(a)
    assert e.value.hresult == dml.E_INVALIDARG
    assert "InputTensor DimensionCount is 10, must be 1 to 8" in e.value.message


@pytest.mark.parametrize("level", ["3_0", "3_1"])
def test_feature_level_3_pads_to_four_dimensions(rng, level):
    dev = dml.Device(feature_level=level)
    for ndim in (1, 2, 3, 4, 5):
        a = values(rng, np.float32, random_shape(rng, ndim), density=0.5)
        np.testing.assert_array_equal(dml.onnx_nonzero(a, device=dev), expected_onnx(a))
        np.testing.assert_array_equal(dml.nonzero_coordinates(a, device=dev), expected_coords(a, ndim))
    # Six dimensions: merged to five for ONNX; DirectML's operator itself refuses them.
    a = values(rng, np.uint8, (2, 2, 1, 3, 2, 2), density=0.5)
    np.testing.assert_array_equal(dml.onnx_nonzero(a, device=dev), expected_onnx(a))
    with pytest.raises(DirectMLError, match="DimensionCount is 6, must be 4 or 5"):
        dml.nonzero_coordinates(a, device=dev)


def test_layouts_bind_without_copy():
    from directml_subset import _tensor as T

    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for view in (base.T, base[:, ::2, 1:], base[1:, 1, :], np.broadcast_to(base[:, :1, :], (3, 7, 5))):
        b = T.bind_input(view, T.data_type(view.dtype, "t"))
        assert not b.copied and b.address == view.ctypes.data
        assert b.desc.strides == [0 if s == 1 else st // 4 for s, st in zip(view.shape, view.strides)]
    for view in (base[::-1], base.view(np.uint8)[:, :, 1:-3].view(np.float32)):
        assert T.bind_input(view, T.data_type(view.dtype, "t")).copied
    # A one-byte array whose last element is the last allocated byte: DirectML's
    # TotalTensorSizeInBytes rounds up to 4, past the allocation, so it is copied ...
    small = np.arange(1, 6, dtype=np.uint8)
    assert T.bind_input(small, T.data_type(small.dtype, "t")).copied
    np.testing.assert_array_equal(dml.onnx_nonzero(small), [[0, 1, 2, 3, 4]])
    # ... unless the memory after it is known to be allocated.
    inside = np.arange(1, 9, dtype=np.uint8)[:5]
    assert not T.bind_input(inside, T.data_type(inside.dtype, "t")).copied
    # Strides that do not fit DirectML's 32-bit UINT are copied.
    huge = np.lib.stride_tricks.as_strided(np.zeros(2, np.uint8), shape=(2,), strides=(1 << 33,))
    assert T.element_strides(huge) is None


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: np.array([1 + 2j, 0], np.complex64), "complex64"),
        (lambda: np.array([1 + 2j, 0], np.complex128), "complex128"),
        (lambda: np.array(["a", ""]), "string"),
        (lambda: np.array([b"a", b""]), "string"),
        (lambda: np.array([object(), None], dtype=object), "object"),
        (lambda: np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64"),
        (lambda: np.zeros(2, dtype=[("a", np.int32)]), "void"),
    ],
)
def test_unsupported_types(make, name):
    a = make()
    for f in (dml.onnx_nonzero, dml.nonzero_coordinates):
        with pytest.raises(TypeError, match=name):
            f(a)


def test_bfloat16_and_longdouble():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.array([1, 0, 2], dtype=ml_dtypes.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        dml.onnx_nonzero(a)
    if np.dtype(np.longdouble).itemsize > 8:
        with pytest.raises(TypeError, match=np.dtype(np.longdouble).name):
            dml.onnx_nonzero(np.ones(2, np.longdouble))


@pytest.mark.parametrize("dtype", WIDE_TYPES, ids=lambda t: np.dtype(t).name)
def test_strict_device_rejects_64_bit_inputs(dtype):
    a = np.array([[0, 1], [2, 0]], dtype)
    with pytest.raises(DirectMLError) as e:
        dml.onnx_nonzero(a, device=strict_device())
    err = e.value
    assert err.hresult == 0x80070057 == dml.E_INVALIDARG
    assert err.hresult_signed == -2147024809
    assert err.name == "E_INVALIDARG"
    assert err.function == "dmls_device_create_operator"
    assert "InputTensor DataType is " + {np.int64: "INT64", np.uint64: "UINT64", np.float64: "FLOAT64"}[dtype] in err.message
    assert "DMLS_DEVICE_FLAG_EXTENSIONS" in err.message
    assert err.message in str(err)
    # The same with extensions (and the default device).
    np.testing.assert_array_equal(dml.onnx_nonzero(a), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(dml.onnx_nonzero(a, device=dml.Device(extensions=True)), [[0, 1], [1, 0]])


def test_columns_out_of_range_is_the_librarys_error():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(DirectMLError) as e:
        dml.nonzero_coordinates(a, columns=3)
    assert e.value.hresult == dml.E_INVALIDARG
    assert e.value.message == (
        "NONZERO_COORDINATES: OutputCoordinatesTensor Sizes[1] (N) is 3, must be from the input's "
        "effective rank 2 to its DimensionCount 2"
    )
    with pytest.raises(DirectMLError, match=r"Sizes\[1\] \(N\) is 1, must be from the input's effective rank 2"):
        dml.nonzero_coordinates(a, columns=1)
    with pytest.raises(DirectMLError, match="Sizes\\[1\\] is 0"):
        dml.nonzero_coordinates(a, columns=0)
    with pytest.raises(ValueError):
        dml.nonzero_coordinates(a, columns=-1)


def test_feature_level_too_old():
    dev = dml.Device(feature_level="2_1")
    with pytest.raises(DirectMLError) as e:
        dml.onnx_nonzero(np.ones(3, np.float32), device=dev)
    assert e.value.hresult == dml.E_INVALIDARG
    assert "NONZERO_COORDINATES was introduced in DML_FEATURE_LEVEL_3_0; this device emulates DML_FEATURE_LEVEL_2_1; create the device with feature level 3_0 or newer" == e.value.message


def test_input_is_not_modified(rng):
    a = values(rng, np.float32, (5, 6), density=0.5)
    before = a.copy()
    dml.onnx_nonzero(a)
    dml.nonzero_coordinates(a.T)
    np.testing.assert_array_equal(a, before)


def test_array_likes():
    np.testing.assert_array_equal(dml.onnx_nonzero([[0, 1], [1, 1]]), [[0, 1, 1], [1, 0, 1]])
    np.testing.assert_array_equal(dml.nonzero_coordinates([0.0, 2.5]), [[1]])


def test_element_limits():
    # 2^31 + 1 broadcast elements (no memory): {M, 2} coordinates hold more than 2^32 - 1
    # elements, so they must be 64-bit, which a strict device refuses, naming the flag (before
    # any buffer is allocated).
    big = np.broadcast_to(np.uint8(1), (2, 2**30 + 1))
    for f in (dml.nonzero_coordinates, dml.onnx_nonzero):
        with pytest.raises(DirectMLError) as e:
            f(big, device=strict_device())
        assert e.value.hresult == dml.E_INVALIDARG
        assert "DMLS_DEVICE_FLAG_EXTENSIONS" in e.value.message
        assert "OutputCountTensor DataType is" in e.value.message
    # More than 2^32 - 1 input elements: the coordinates' rows spread over {65536, 65537}
    # (an extension); a strict device refuses 64-bit outputs.
    huge = np.broadcast_to(np.uint8(0), (65536, 65537))
    for f in (dml.nonzero_coordinates, dml.onnx_nonzero):
        with pytest.raises(DirectMLError, match="DMLS_DEVICE_FLAG_EXTENSIONS"):
            f(huge, device=strict_device())


def test_inputs_above_the_element_limit_are_described(monkeypatch):
    # The library accepts the desc (operator created), then the 68 GB worst-case coordinates
    # buffer would be allocated: stop there and look at what was created.
    from directml_subset import _capi, _operators, _tensor

    class Stop(Exception):
        pass

    created = []
    real_init = _operators._Operator.__init__

    def spy(self, device, op_type, desc):
        real_init(self, device, op_type, desc)
        t = desc.OutputCoordinatesTensor.contents
        b = _capi.DML_BUFFER_TENSOR_DESC.from_address(t.Desc)
        created.append((b.DataType, [b.Sizes[i] for i in range(b.DimensionCount)], bool(b.Strides)))

    real_alloc = _tensor.alloc_result

    def no_alloc(shape, dtype):
        if int(np.prod(shape)) > 1 << 20:
            raise Stop
        return real_alloc(shape, dtype)

    monkeypatch.setattr(_operators._Operator, "__init__", spy)
    monkeypatch.setattr(_tensor, "alloc_result", no_alloc)
    huge = np.broadcast_to(np.uint8(0), (65536, 65537))
    with pytest.raises(Stop):
        dml.nonzero_coordinates(huge)
    with pytest.raises(Stop):
        dml.onnx_nonzero(huge)
    with pytest.raises(Stop):
        dml.nonzero_coordinates(huge[np.newaxis], columns=2)
    assert created == [
        (10, [65536, 65537, 2], False),  # UINT64
        (11, [65536, 65537, 2], False),  # INT64
        (10, [1, 65536, 65537, 2], False),
    ]
    with pytest.raises(ValueError, match="more than this device allows"):
        dml.nonzero_coordinates(np.broadcast_to(np.uint8(0), (2,) * 7 + (2**26 + 1,)))
