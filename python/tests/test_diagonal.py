"""diagonal_matrix (DIAGONAL_MATRIX1), trilu and eye_like against numpy."""

import numpy as np
import pytest

import directml_subset as dml
from directml_subset import DirectMLError
from _util import ALL_TYPES, copies_on_bind, every_type_and_layout, layout, random_shape, random_shapes, tail_overrun, values

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def assert_same(got, want):
    """Same shape, dtype and bits (so -0.0 and NaN payloads count)."""
    want = np.asarray(want)
    want = want.astype(want.dtype.newbyteorder("="))
    got = got.astype(got.dtype.newbyteorder("="))
    assert got.shape == want.shape
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(bits(got), bits(want))


def ref_diagonal(shape, dtype, begin, end, value, input=None):
    h, w = shape[-2:]
    top = np.arange(w, dtype=np.int64)[None, :] - np.arange(h, dtype=np.int64)[:, None]
    use = (end >= begin) ^ (top >= begin) ^ (top < end)
    base = np.zeros(shape, dtype) if input is None else np.asarray(input)
    return np.where(use, np.asarray(value, dtype), base).astype(dtype)


def random_bound(rng):
    c = int(rng.integers(0, 6))
    if c == 0:
        return int(rng.choice([INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1]))
    if c == 1:
        return int(rng.integers(INT32_MIN, INT32_MAX, endpoint=True))
    return int(rng.integers(-8, 9))


def random_value(rng, dtype):
    dtype = np.dtype(dtype)
    return values(rng, dtype, (), density=0.9)[()]


def ref_trilu(a, k, upper):
    # Clamp only so numpy's int64 arithmetic cannot overflow; the rule is x - y >= k (upper)
    # or x - y <= k (lower).
    k = max(min(k, 10**12), -(10**12))
    return np.triu(a, k) if upper else np.tril(a, k)


def ref_eye(shape, k, dtype):
    h, w = shape[-2:]
    if -h < k < w:
        e = np.eye(h, w, k, dtype=dtype)
    else:
        e = np.zeros((h, w), dtype)
    return np.broadcast_to(e, shape).copy()


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_diagonal_matrix_without_input(rng, dtype):
    for shape in random_shapes(rng, 12, (2, 5), [3, 7, 40], max_elements=60000):
        begin, end = random_bound(rng), random_bound(rng)
        value = random_value(rng, dtype)
        got = dml.diagonal_matrix(shape, dtype, begin, end, value)
        assert_same(got, ref_diagonal(shape, dtype, begin, end, value))


@every_type_and_layout
def test_diagonal_matrix_with_input(rng, dtype, kind):
    for shape in random_shapes(rng, 4, (2, 5), [3, 6, 33], max_elements=60000):
        a, copy = layout(rng, dtype, shape, kind)
        assert copies_on_bind(a) == (copy or tail_overrun(a))
        begin, end = random_bound(rng), random_bound(rng)
        value = random_value(rng, dtype)
        want = ref_diagonal(shape, dtype, begin, end, value, a)
        before = a.copy()
        assert_same(dml.diagonal_matrix(shape, dtype, begin, end, value, input=a), want)
        assert_same(a, before)
        # shape and dtype from the input.
        assert_same(dml.diagonal_matrix(None, None, begin, end, value, input=a), want)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int16, np.float16, np.float32, np.int64, np.float64], ids=lambda t: np.dtype(t).name)
def test_diagonal_matrix_out(rng, dtype):
    for _ in range(6):
        shape = random_shape(rng, int(rng.integers(2, 5)), max_size=6)
        begin, end = random_bound(rng), random_bound(rng)
        value = random_value(rng, dtype)
        x = values(rng, dtype, shape)
        want = ref_diagonal(shape, dtype, begin, end, value, x)

        # A strided view of a bigger array: the elements between are untouched.
        big = values(rng, dtype, tuple(2 * s + 1 for s in shape))
        view = big[tuple(slice(1, 1 + 2 * s, 2) for s in shape)]
        outside = big.copy()
        r = dml.diagonal_matrix(shape, dtype, begin, end, value, input=x, out=view)
        assert r is view
        assert_same(view, want)
        mask = np.ones(big.shape, bool)
        mask[tuple(slice(1, 1 + 2 * s, 2) for s in shape)] = False
        assert_same(big[mask], outside[mask])

        # An output DirectML cannot express (negative strides): computed aside and copied in.
        rev = np.empty(shape, dtype)[::-1]
        dml.diagonal_matrix(shape, dtype, begin, end, value, input=x, out=rev)
        assert_same(rev, want)

        # In place: input and out are the same array.
        y = x.copy()
        r = dml.diagonal_matrix(shape, dtype, begin, end, value, input=y, out=y)
        assert r is y
        assert_same(y, want)

        # In place on a transposed view (same address and layout for both tensors).
        z = np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2)
        dml.diagonal_matrix(shape, dtype, begin, end, value, input=z, out=z)
        assert_same(z, want)

        # out overlaps input with another layout: the input is read before anything is written.
        base = values(rng, dtype, shape[:-1] + (shape[-1] + 1,))
        src, dst = base[..., :-1], base[..., 1:]
        want2 = ref_diagonal(shape, dtype, begin, end, value, src.copy())
        dml.diagonal_matrix(shape, dtype, begin, end, value, input=src, out=dst)
        assert_same(dst, want2)


def bound_buffers(count, descs):
    """The Buffer of each DML_BUFFER_BINDING that `count` DML_BINDING_DESCs point to."""
    from directml_subset import _capi as C

    if descs is None:
        return []
    # The prepared bindings pass their arrays as c_void_p objects.
    arr = (C.DML_BINDING_DESC * count).from_address(descs.value)
    return [C.DML_BUFFER_BINDING.from_address(d.Desc).Buffer if d.Type else None for d in arr]


def test_diagonal_matrix_in_place_goes_to_the_library_in_place(monkeypatch):
    from directml_subset import _operators

    seen = []
    real = _operators._execute

    def spy(handle, n_in, ins, n_out, outs):
        seen.append((bound_buffers(n_in, ins), bound_buffers(n_out, outs)))
        return real(handle, n_in, ins, n_out, outs)

    monkeypatch.setattr(_operators, "_execute", spy)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    dml.diagonal_matrix(None, None, 0, 1, 9, input=a, out=a)
    assert seen == [([a.ctypes.data], [a.ctypes.data])]


def test_diagonal_matrix_doc_examples():
    # DML_DIAGONAL_MATRIX1_OPERATOR_DESC's examples.
    np.testing.assert_array_equal(dml.diagonal_matrix((4, 5), np.float32, 0, 1, 1), np.eye(4, 5))
    strip = dml.diagonal_matrix((4, 5), np.float32, 0, 3, 7)
    np.testing.assert_array_equal(
        strip, [[7, 7, 7, 0, 0], [0, 7, 7, 7, 0], [0, 0, 7, 7, 7], [0, 0, 0, 7, 7]]
    )
    x = np.array([[4, 7, 3, 7, 9], [1, 2, 8, 6, 9], [9, 4, 1, 8, 7], [4, 3, 4, 2, 4]], np.float32)
    np.testing.assert_array_equal(
        dml.diagonal_matrix(x.shape, x.dtype, INT32_MIN, 1, 0, input=x),
        [[0, 7, 3, 7, 9], [0, 0, 8, 6, 9], [0, 0, 0, 8, 7], [0, 0, 0, 0, 4]],
    )
    np.testing.assert_array_equal(
        dml.diagonal_matrix(x.shape, x.dtype, 1, 0, 0, input=x),
        [[4, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 2, 0]],
    )


@every_type_and_layout
def test_trilu_matches_numpy(rng, dtype, kind):
    for shape in random_shapes(rng, 4, (2, 7), [2, 5, 30]):
        ndim = len(shape)
        if ndim > 4:
            shape = random_shape(rng, ndim, max_size=3)
        a, _ = layout(rng, dtype, shape, kind)
        h, w = shape[-2:]
        for k in (0, int(rng.integers(-h - 1, w + 2)), int(rng.choice([INT32_MIN, INT32_MAX, -(2**40), 2**40]))):
            for upper in (True, False):
                got = dml.trilu(a, k, upper)
                assert_same(got, ref_trilu(np.asarray(a), k, upper).astype(a.dtype))


def test_trilu_k_at_the_edges():
    a = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    for k in list(range(-5, 7)) + [2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 10**30, -(10**30)]:
        for upper in (True, False):
            assert_same(dml.trilu(a, k, upper), ref_trilu(a, k, upper))
    # ONNX's own Trilu test cases (test_triu, test_tril, ..._neg, ..._out_pos, ..._zero).
    x = np.array([[4, 7, 3, 7, 9], [1, 2, 8, 6, 9], [9, 4, 1, 8, 7], [4, 3, 4, 2, 4]], np.int64)
    assert_same(dml.trilu(x), np.triu(x))
    assert_same(dml.trilu(x, upper=False), np.tril(x))
    assert_same(dml.trilu(x, -1), np.triu(x, -1))
    assert_same(dml.trilu(x, 6), np.zeros_like(x))
    assert_same(dml.trilu(x, -7, upper=False), np.zeros_like(x))


def test_trilu_large_matrix(rng):
    # Above the library's parallel threshold (1 MiB); 2.5 MB, below the streaming stores, which
    # start at the machine's last-level cache size (the Rust tests force them at 8 MiB).
    a = values(rng, np.float32, (2, 300, 517), density=0.8)
    assert_same(dml.trilu(a, 3), np.triu(a, 3))
    assert_same(dml.trilu(a, -200, upper=False), np.tril(a, -200))
    b = values(rng, np.float32, (3, 1024, 1000), density=0.9)
    assert_same(dml.trilu(b, 17), np.triu(b, 17))
    assert_same(dml.trilu(b[:, ::2, 1:], -5, upper=False), np.tril(b[:, ::2, 1:], -5))
    c = values(rng, np.float64, (1100, 1000), density=0.9)
    want = ref_diagonal(c.shape, c.dtype, -3, 40, 2.5, c)
    dml.diagonal_matrix(None, None, -3, 40, 2.5, input=c, out=c)
    assert_same(c, want)
    big = np.zeros((2, 1100, 2000), np.int16)
    view = big[:, :, ::2]
    dml.diagonal_matrix(view.shape, np.int16, 5, -5, -7, out=view)
    assert_same(view, ref_diagonal(view.shape, np.int16, 5, -5, -7))
    assert not big[:, :, 1::2].any()


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_eye_like_matches_numpy(rng, dtype):
    for _ in range(8):
        ndim = int(rng.integers(2, 6))
        shape = random_shape(rng, ndim, max_size=int(rng.choice([3, 8, 40])) if ndim <= 4 else 3)
        x = np.zeros(shape, np.float32)
        h, w = shape[-2:]
        for k in (0, int(rng.integers(-h - 1, w + 2)), int(rng.choice([INT32_MIN, INT32_MAX, 10**20]))):
            assert_same(dml.eye_like(x, k, dtype=dtype), ref_eye(shape, k, dtype))
            # The dtype defaults to the input's.
            assert_same(dml.eye_like(x.astype(dtype), k), ref_eye(shape, k, dtype))


def test_eye_like_onnx_examples():
    # ONNX's EyeLike tests: with_dtype, off_diagonal, populate_off_main_diagonal.
    assert_same(dml.eye_like(np.zeros((4, 5), np.int32), dtype=np.float64), np.eye(4, 5))
    assert_same(dml.eye_like(np.zeros((5, 10), np.int32), k=1, dtype=np.float32), np.eye(5, 10, 1, np.float32))
    assert_same(dml.eye_like(np.zeros((3, 4), np.float16), k=-1), np.eye(3, 4, -1, np.float16))


@pytest.mark.parametrize(
    "level, dtype",
    [("2_0", np.float32), ("2_0", np.float16), ("2_1", np.int8), ("4_0", np.uint32), ("5_1", np.int64)],
)
def test_eye_like_old_feature_levels(rng, level, dtype):
    dev = dml.Device(feature_level=level)
    for shape in [(3, 4), (2, 5, 3), (2, 2, 3, 3)]:
        assert_same(dml.eye_like(np.zeros(shape), 1, dtype=dtype, device=dev), ref_eye(shape, 1, dtype))


def test_eye_like_type_needs_level():
    with pytest.raises(DirectMLError) as e:
        dml.eye_like(np.zeros((2, 2)), dtype=np.int64, device=dml.Device(feature_level="5_0"))
    assert e.value.hresult == dml.E_INVALIDARG
    assert e.value.message == (
        "DIAGONAL_MATRIX: OutputTensor DataType INT64 (11) needs DML_FEATURE_LEVEL_5_1; this "
        "device emulates DML_FEATURE_LEVEL_5_0; create the device with feature level 5_1 or newer"
    )


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 2, 0, 3), (2, 1, 1, 0, 3)])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.uint64])
def test_empty(shape, dtype):
    a = np.zeros(shape, dtype)
    for r in (dml.trilu(a), dml.trilu(a, 2, upper=False), dml.eye_like(a), dml.eye_like(a, dtype=np.float32)):
        assert r.shape == shape
    assert dml.trilu(a).dtype == np.dtype(dtype)
    assert dml.trilu(a.astype(np.dtype(dtype).newbyteorder("S"))).dtype == np.dtype(dtype)  # native
    assert dml.eye_like(a).dtype == np.dtype(dtype)
    assert dml.eye_like(a, dtype=np.float32).dtype == np.float32
    if len(shape) > 4:
        # DirectML's operator exactly: 2 to 4 dimensions, empty or not.
        with pytest.raises(DirectMLError, match="DimensionCount is 5, must be 2 to 4"):
            dml.diagonal_matrix(shape, dtype, 0, 1)
        with pytest.raises(DirectMLError, match="DimensionCount is 1, must be 2 to 4"):
            dml.diagonal_matrix((0,), dtype, 0, 1)
        return
    r = dml.diagonal_matrix(shape, dtype, 0, 1)
    assert r.shape == shape and r.dtype == np.dtype(dtype)
    out = np.zeros(shape, dtype)
    assert dml.diagonal_matrix(None, None, 0, 1, input=a, out=out) is out


def test_value_conversion():
    assert_same(dml.diagonal_matrix((2, 2), np.int32, 0, 1, 10.9), np.array([[10, 0], [0, 10]], np.int32))
    assert_same(dml.diagonal_matrix((2, 2), np.float16, 0, 1, 0.1), np.eye(2, dtype=np.float16) * np.float16(0.1))
    assert_same(dml.diagonal_matrix((2, 2), np.uint64, 0, 1, 2**64 - 1), np.eye(2, dtype=np.uint64) * np.uint64(2**64 - 1))
    assert_same(dml.diagonal_matrix((2, 2), np.int64, 0, 1, -(2**63)), np.eye(2, dtype=np.int64) * np.int64(-(2**63)))
    assert_same(dml.diagonal_matrix((2, 3), bool, 0, 1, True), np.eye(2, 3, dtype=bool))
    assert_same(dml.diagonal_matrix((2, 2), np.float32, 0, 1, -0.0), np.full((2, 2), 0, np.float32) * np.array([[-1, 1], [1, -1]], np.float32))
    # bool takes value != 0 before any truncation, NaN as False.
    for v, want in [(0.5, True), (-0.3, True), (np.float32(0.25), True), (float("inf"), True), (float("nan"), False), (0.0, False)]:
        assert_same(dml.diagonal_matrix((2, 2), np.bool_, 0, 1, v), np.eye(2, dtype=bool) & want)
    # A Python integer beyond every float: ±inf, as a float too large rounds.
    for dtype in (np.float16, np.float32, np.float64):
        assert_same(dml.diagonal_matrix((1, 1), dtype, 0, 1, 10**400), np.full((1, 1), np.inf, dtype))
        assert_same(dml.diagonal_matrix((1, 1), dtype, 0, 1, -(10**400)), np.full((1, 1), -np.inf, dtype))
    # Not numbers: TypeError, for float and integer types alike.
    for v in (None, "5", b"3", [3], object()):
        for dtype in (np.float32, np.int32, np.bool_):
            with pytest.raises(TypeError, match="not a number"):
                dml.diagonal_matrix((1, 1), dtype, 0, 1, v)


def test_errors():
    with pytest.raises(DirectMLError) as e:
        dml.diagonal_matrix((5,), np.float32, 0, 1)
    assert e.value.hresult == dml.E_INVALIDARG
    assert e.value.function == "dmls_device_create_operator"
    assert e.value.message == "DIAGONAL_MATRIX1: OutputTensor DimensionCount is 1, must be 2 to 4"
    with pytest.raises(DirectMLError, match="DIAGONAL_MATRIX1: OutputTensor DimensionCount is 5, must be 2 to 4"):
        dml.diagonal_matrix((1, 2, 1, 2, 2), np.float32, 0, 1)
    with pytest.raises(DirectMLError) as e:
        dml.trilu(np.ones((2, 2), np.float32), device=dml.Device(feature_level="5_0"))
    assert e.value.message == (
        "DIAGONAL_MATRIX1 was introduced in DML_FEATURE_LEVEL_5_1; this device emulates DML_FEATURE_LEVEL_5_0; "
        "create the device with feature level 5_1 or newer"
    )
    with pytest.raises(ValueError, match="begin is 2147483648"):
        dml.diagonal_matrix((2, 2), np.float32, 2**31, 0)
    with pytest.raises(ValueError, match="end is -2147483649"):
        dml.diagonal_matrix((2, 2), np.float32, 0, -(2**31) - 1)
    with pytest.raises(ValueError, match="shape"):
        dml.diagonal_matrix((2, 3), np.float32, 0, 1, input=np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="dtype"):
        dml.diagonal_matrix((2, 2), np.float32, 0, 1, input=np.ones((2, 2), np.float64))
    with pytest.raises(TypeError, match="dtype"):
        dml.diagonal_matrix((2, 2), np.float32, 0, 1, out=np.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="read-only"):
        dml.diagonal_matrix((2, 2), np.float32, 0, 1, out=np.broadcast_to(np.float32(0), (2, 2)))
    for f in (lambda a: dml.trilu(a), lambda a: dml.eye_like(a), lambda a: dml.diagonal_matrix(None, None, 0, 1, input=a)):
        with pytest.raises(TypeError, match="complex128"):
            f(np.ones((2, 2), np.complex128))
        with pytest.raises(TypeError, match="string"):
            f(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(TypeError, match="complex64"):
        dml.eye_like(np.ones((2, 2)), dtype=np.complex64)
    for f in (dml.trilu, dml.eye_like):
        with pytest.raises(ValueError, match="needs at least 2"):
            f(np.ones(3))
        with pytest.raises(ValueError, match="needs at least 2"):
            f(np.float32(1))


def test_results_are_in_native_byte_order():
    other = ">" if np.little_endian else "<"
    a = np.arange(12, dtype=other + "f4").reshape(3, 4)
    for r in (
        dml.trilu(a),
        dml.eye_like(a),
        dml.eye_like(a, dtype=other + "i8"),
        dml.diagonal_matrix(None, None, 0, 1, input=a),
        dml.diagonal_matrix(a.shape, other + "u2", 0, 1),
    ):
        assert r.dtype.isnative
    np.testing.assert_array_equal(dml.trilu(a), np.triu(a))
    out = np.zeros((3, 4), other + "f4")
    dml.diagonal_matrix(None, None, 0, 1, 5, input=a, out=out)
    assert out.dtype == np.dtype(other + "f4")
    np.testing.assert_array_equal(out, np.where(np.eye(3, 4, dtype=bool), 5, a))
