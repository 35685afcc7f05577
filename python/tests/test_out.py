"""`out=`: results written into the caller's own arrays (a caller that reuses them pays what a C
caller pays: no allocation, no first touch of fresh pages), and the arrays refused."""

import sys

import numpy as np
import pytest

import directml_subset as dml
from directml_subset import _arrays, _nonzero, _tensor
from _util import ALL_TYPES, strict_device, values

OTHER_ORDER = ">" if sys.byteorder == "little" else "<"


@pytest.fixture
def no_temporaries(monkeypatch):
    """Fails a call that allocates a result of its own or uses the scratch rows, so a test sees
    the library write straight into `out`."""

    def refuse(*args, **kwargs):
        raise AssertionError("allocated a temporary although out= was given")

    # `_arrays._empty` in every module of the package that allocates results with it.
    users = [m for name, m in sorted(sys.modules.items())
             if name.startswith("directml_subset.") and getattr(m, "_empty", None) is _arrays._empty]
    assert {m.__name__ for m in users} >= {"directml_subset._api", "directml_subset._diagonal"}
    for m in users:
        monkeypatch.setattr(m, "_empty", refuse)
    monkeypatch.setattr(_nonzero._Scratch, "rows", refuse)
    monkeypatch.setattr(_tensor, "alloc_result", refuse)


def unaligned(shape, dtype):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = np.zeros(n + 16, np.uint8)
    off = 1 if raw.ctypes.data % 2 == 0 else 0
    return raw[off : off + n].view(dtype).reshape(shape)


# ---------------------------------------------------------------------------------------------
# trilu, eye_like, diagonal_matrix: `out` of the result's shape and type, any layout


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: np.dtype(t).name)
def test_contiguous_out_is_written_directly(rng, dtype, no_temporaries):
    # Sizes in bytes that are multiples of 4, so DirectML's rounded-up total is the array.
    for shape in [(4, 7), (3, 4, 6), (2, 2, 3, 5), (2, 1, 2, 3, 4)]:
        a = values(rng, dtype, shape)
        h, w = shape[-2:]
        for k in (0, int(rng.integers(-h, w + 1))):
            out = np.empty_like(a)
            assert dml.trilu(a, k, out=out) is out
            np.testing.assert_array_equal(out, np.triu(a, k))
            assert dml.trilu(a, k, upper=False, out=out) is out
            np.testing.assert_array_equal(out, np.tril(a, k))
            assert dml.eye_like(a, k, out=out) is out
            np.testing.assert_array_equal(out, np.broadcast_to(np.eye(h, w, k, dtype), shape))
        if len(shape) <= 4:
            out = np.empty(shape, dtype)
            assert dml.diagonal_matrix(None, None, -1, 2, value=1, out=out) is out
            top = np.arange(w)[None, :] - np.arange(h)[:, None]
            np.testing.assert_array_equal(out, np.broadcast_to(((top >= -1) & (top < 2)).astype(dtype), shape))


def out_layouts(rng, shape, dtype):
    """`out` arrays of `shape` and `dtype` in layouts the library cannot always write as they
    are (those go through a temporary)."""
    dtype = np.dtype(dtype)
    big = np.empty(tuple(s * 2 + 1 for s in shape), dtype)
    yield "fortran", np.empty(shape, dtype, order="F")
    yield "strided", big[tuple(slice(1, 1 + 2 * s, 2) for s in shape)]
    yield "reversed", np.empty(shape, dtype)[..., ::-1]
    yield "other byte order", np.empty(shape, dtype.newbyteorder(OTHER_ORDER))
    yield "unaligned", unaligned(shape, dtype)
    yield "transposed", np.empty(shape[::-1], dtype).T


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int16, np.float32, np.float64], ids=lambda t: np.dtype(t).name)
def test_out_in_any_layout_gets_the_result(rng, dtype):
    for shape in [(6, 9), (2, 3, 4, 5), (2, 2, 1, 3, 4)]:
        a = values(rng, dtype, shape)
        h, w = shape[-2:]
        k = int(rng.integers(-h, w + 1))
        for name, out in out_layouts(rng, shape, dtype):
            sentinel = out.copy()
            assert dml.trilu(a, k, out=out) is out, name
            np.testing.assert_array_equal(out, np.triu(a, k), err_msg=name)
            out[...] = sentinel
            assert dml.eye_like(a, k, out=out) is out, name
            np.testing.assert_array_equal(out, np.broadcast_to(np.eye(h, w, k, dtype), shape), err_msg=name)


def test_trilu_in_place_and_overlapping(rng):
    a = values(rng, np.float32, (7, 8), density=1.0)
    want = np.triu(a, 1)
    same = a.copy()
    assert dml.trilu(same, 1, out=same) is same  # in place
    np.testing.assert_array_equal(same, want)
    # `out` overlapping the input one row further on: the result goes through a temporary.
    buf = np.zeros((8, 8), np.float32)
    buf[:7] = a
    x, out = buf[:7], buf[1:]
    got = dml.trilu(x, 1, out=out)
    assert got is out
    np.testing.assert_array_equal(out, want)
    # Five dimensions, in place through the merged view.
    b = values(rng, np.int32, (2, 3, 1, 4, 5), density=1.0)
    want = np.tril(b, -1)
    assert dml.trilu(b, -1, upper=False, out=b) is b
    np.testing.assert_array_equal(b, want)


def test_out_whose_elements_share_memory(rng):
    """An `out` whose elements share memory (a zero stride), which the library rejects as an
    output: the result goes through a temporary and is assigned as numpy assigns it."""
    from numpy.lib.stride_tricks import as_strided

    a = values(rng, np.float32, (3, 3), density=1.0)

    def shared():
        return as_strided(np.zeros(3, np.float32), (3, 3), (0, 4), writeable=True)

    for call, ref in [
        (lambda out: dml.trilu(a, out=out), np.triu(a)),
        (lambda out: dml.diagonal_matrix((3, 3), np.float32, 0, 1, 2.0, out=out), np.eye(3, dtype=np.float32) * 2),
        (lambda out: dml.diagonal_matrix(None, None, 0, 1, 2.0, input=a, out=out), np.where(np.eye(3, dtype=bool), 2, a)),
        (lambda out: dml.eye_like(a, out=out), np.eye(3, dtype=np.float32)),
    ]:
        want = shared()
        want[...] = ref
        out = shared()
        assert call(out) is out
        np.testing.assert_array_equal(out, want)


def test_eye_like_out_below_level_4_0(no_temporaries):
    dev = dml.Device(feature_level="3_0")
    out = np.full((4, 5), 9, np.int8)
    assert dml.eye_like(np.zeros((4, 5)), -1, np.int8, device=dev, out=out) is out
    np.testing.assert_array_equal(out, np.eye(4, 5, -1, np.int8))
    assert dev.eye_like(np.zeros((4, 5)), 2, np.int8, out=out) is out
    np.testing.assert_array_equal(out, np.eye(4, 5, 2, np.int8))
    dev.close()


def test_out_bound_by_the_rounded_up_total():
    # A 3x3 uint8 out owning exactly 9 bytes: DirectML's total is 12, so the library cannot
    # write it directly, and the result goes through a temporary.
    x = np.arange(1, 10, dtype=np.uint8).reshape(3, 3)
    out = np.frombuffer(bytearray(9), np.uint8).reshape(3, 3)
    assert dml.trilu(x, out=out) is out
    np.testing.assert_array_equal(out, np.triu(x))
    assert dml.eye_like(x, out=out) is out
    np.testing.assert_array_equal(out, np.eye(3, dtype=np.uint8))
    in_place = np.frombuffer(bytearray(x.tobytes()), np.uint8).reshape(3, 3)
    assert dml.trilu(in_place, -1, upper=False, out=in_place) is in_place
    np.testing.assert_array_equal(in_place, np.tril(x, -1))


@pytest.mark.parametrize("call", ["trilu", "eye_like"])
def test_wrong_out_is_refused(call):
    x = np.ones((3, 4), np.float32)
    f = getattr(dml, call)
    with pytest.raises(ValueError, match=rf"{call}: out has shape \(4, 3\), expected \(3, 4\)"):
        f(x, out=np.empty((4, 3), np.float32))
    with pytest.raises(TypeError, match=rf"{call}: out has dtype float64, expected float32"):
        f(x, out=np.empty((3, 4), np.float64))
    with pytest.raises(TypeError, match=rf"{call}: out must be a numpy array, not list"):
        f(x, out=[[0] * 4] * 3)
    ro = np.empty((3, 4), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=rf"{call}: out is read-only"):
        f(x, out=ro)
    # Empty inputs: checked too, and the (empty) out is returned.
    e = np.empty((0, 4), np.float32)
    assert f(np.zeros((0, 4), np.float32), out=e) is e
    with pytest.raises(ValueError, match="out has shape"):
        f(np.zeros((0, 4), np.float32), out=np.empty((4, 0), np.float32))


def test_eye_like_out_takes_the_requested_type():
    out = np.empty((2, 3), np.int16)
    assert dml.eye_like(np.zeros((2, 3), np.float32), dtype=np.int16, out=out) is out
    np.testing.assert_array_equal(out, np.eye(2, 3, dtype=np.int16))
    with pytest.raises(TypeError, match="expected int16"):
        dml.eye_like(np.zeros((2, 3), np.float32), dtype=np.int16, out=np.empty((2, 3), np.float32))


# ---------------------------------------------------------------------------------------------
# NONZERO_COORDINATES: `out` holds the worst case; the result is a view of its first rows


def test_nonzero_coordinates_into_out(rng, no_temporaries):
    for shape in [(40, 50), (3, 4, 5, 6), (1, 7)]:
        a = values(rng, np.float32, shape, density=0.4)
        ndim = len(shape)
        for columns in range(ndim, 0, -1) if shape[0] == 1 else [ndim]:
            out = np.full((a.size, columns), 7, np.uint32)
            got = dml.nonzero_coordinates(a, columns, out=out)
            want = np.argwhere(a)[:, ndim - columns :]
            assert got.base is out and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            # Rows past the count are left alone.
            assert (out[len(want) :] == 7).all()


def test_onnx_nonzero_into_out(rng, no_temporaries):
    for shape in [(40, 50), (2, 3, 4, 5, 6, 2, 2, 3), (9,)]:
        a = values(rng, np.int8, shape, density=0.3)
        out = np.empty((a.ndim, a.size), np.int64, order="F")
        got = dml.onnx_nonzero(a, out=out)
        assert got.base is out
        np.testing.assert_array_equal(got, np.array(np.nonzero(a)).reshape(a.ndim, -1))
        assert got.dtype == np.int64


def test_onnx_nonzero_out_on_the_other_paths(rng):
    # A strict device (UINT32 rows converted), more than 8 dimensions (merged, then unravelled),
    # a 0-d input and an empty one: the result lands in `out` all the same.
    a = values(rng, np.float32, (6, 7), density=0.5)
    out = np.empty((2, 42), np.int64, order="F")
    got = dml.onnx_nonzero(a, device=strict_device(), out=out)
    assert got.base is out
    np.testing.assert_array_equal(got, np.array(np.nonzero(a)))
    b = values(rng, np.uint8, (2,) * 9 + (3,), density=0.5)
    out = np.empty((10, b.size), np.int64, order="F")
    got = dml.onnx_nonzero(b, out=out)
    assert got.base is out
    np.testing.assert_array_equal(got, np.array(np.nonzero(b)))
    out = np.empty((0, 1), np.int64, order="F")
    assert dml.onnx_nonzero(np.float32(3), out=out).shape == (0, 1)
    assert dml.onnx_nonzero(np.float32(0), out=out).shape == (0, 0)
    out = np.empty((2, 0), np.int64, order="F")
    assert dml.onnx_nonzero(np.zeros((0, 3)), out=out) is out


def test_nonzero_out_on_empty_and_0d_inputs():
    out = np.empty((0, 2), np.uint32)
    assert dml.nonzero_coordinates(np.zeros((0, 3)), out=out) is out
    out = np.empty((1, 1), np.uint32)
    np.testing.assert_array_equal(dml.nonzero_coordinates(np.float64(2), out=out), [[0]])
    assert dml.nonzero_coordinates(np.float64(0), out=out).shape == (0, 1)


def test_wrong_nonzero_out_is_refused():
    x = np.ones((3, 4), np.float32)
    cases = [
        ("nonzero_coordinates", {}, np.empty((11, 2), np.uint32), ValueError, r"out has shape \(11, 2\), expected \(12, 2\)"),
        ("nonzero_coordinates", {"columns": 1}, np.empty((12, 2), np.uint32), ValueError, r"expected \(12, 1\)"),
        ("nonzero_coordinates", {}, np.empty((12, 2), np.int64), TypeError, "out has dtype int64, expected uint32"),
        ("nonzero_coordinates", {}, np.empty((12, 2), np.dtype(np.uint32).newbyteorder(OTHER_ORDER)), TypeError,
         "expected uint32 in native byte order"),
        ("nonzero_coordinates", {}, np.empty((12, 2), np.uint32, order="F"), ValueError, "must be C-contiguous and aligned"),
        ("nonzero_coordinates", {}, np.empty((12, 4), np.uint32)[:, ::2], ValueError, "must be C-contiguous"),
        ("nonzero_coordinates", {}, unaligned((12, 2), np.uint32), ValueError, "aligned"),
        ("nonzero_coordinates", {}, [[0, 0]] * 12, TypeError, "out must be a numpy array, not list"),
        ("onnx_nonzero", {}, np.empty((2, 12), np.int64), ValueError, "must be Fortran-contiguous and aligned"),
        ("onnx_nonzero", {}, np.empty((12, 2), np.int64, order="F"), ValueError, r"expected \(2, 12\)"),
        ("onnx_nonzero", {}, np.empty((2, 12), np.uint64, order="F"), TypeError, "expected int64"),
        ("onnx_nonzero", {}, unaligned((12, 2), np.int64).T, ValueError, "aligned"),
    ]
    for name, kwargs, out, error, message in cases:
        with pytest.raises(error, match=message):
            getattr(dml, name)(x, out=out, **kwargs)
    ro = np.empty((12, 2), np.uint32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="nonzero_coordinates: out is read-only"):
        dml.nonzero_coordinates(x, out=ro)
    # An out whose bytes hold the input too.
    buf = np.ones((12, 2), np.uint32)
    inside = buf.reshape(-1)[:12].view(np.float32).reshape(3, 4)
    with pytest.raises(ValueError, match="nonzero_coordinates: out overlaps x"):
        dml.nonzero_coordinates(inside, out=buf)
    fbuf = np.ones((2, 12), np.int64, order="F")
    finside = fbuf.reshape(-1, order="F")[:12].view(np.float64).reshape(3, 4)
    with pytest.raises(ValueError, match="onnx_nonzero: out overlaps x"):
        dml.onnx_nonzero(finside, out=fbuf)
    # The same on a strict device (which writes `out` itself from the library's UINT32 rows)
    # and for more dimensions than a tensor has (coordinates unravelled into `out`): `x` would
    # be overwritten with the result. Neither `x` nor `out` is touched.
    fbuf = np.ones((2, 12), np.int64, order="F")
    finside = fbuf.reshape(-1, order="F")[:6].view(np.float32).reshape(3, 4)
    before = fbuf.copy(order="F")
    with dml.Device() as strict:
        with pytest.raises(ValueError, match="onnx_nonzero: out overlaps x"):
            strict.onnx_nonzero(finside, out=fbuf)
    wide = np.ones((9, 128), np.int64, order="F")
    winside = wide.reshape(-1, order="F")[:64].view(np.int32).reshape((2,) * 7)
    with pytest.raises(ValueError, match="onnx_nonzero: out overlaps x"):
        dml.onnx_nonzero(winside.reshape((1, 2, 2, 2, 2, 2, 2, 2, 1)), out=wide)
    np.testing.assert_array_equal(fbuf, before)
    assert (wide == 1).all()
    # And where `x` is converted first (non-native byte order): the caller's `x` is `out`'s.
    buf = np.ones((12, 2), np.uint32)
    swapped = buf.reshape(-1)[:12].view(np.dtype(">f4")).reshape(3, 4)
    with pytest.raises(ValueError, match="nonzero_coordinates: out overlaps x"):
        dml.nonzero_coordinates(swapped, out=buf)
    fbuf = np.ones((2, 12), np.int64, order="F")
    fswapped = fbuf.reshape(-1, order="F")[:12].view(np.dtype(">f8")).reshape(3, 4)
    with pytest.raises(ValueError, match="onnx_nonzero: out overlaps x"):
        dml.onnx_nonzero(fswapped, out=fbuf)


def test_methods_take_out(rng):
    dev = dml.Device(extensions=True)
    a = values(rng, np.float32, (4, 5), density=0.5)
    out = np.empty((20, 2), np.uint32)
    np.testing.assert_array_equal(dev.nonzero_coordinates(a, out=out), np.argwhere(a))
    out = np.empty((2, 20), np.int64, order="F")
    np.testing.assert_array_equal(dev.onnx_nonzero(a, out=out), np.array(np.nonzero(a)))
    out = np.empty_like(a)
    assert dev.trilu(a, 1, out=out) is out and dev.eye_like(a, 1, out=out) is out
    np.testing.assert_array_equal(out, np.eye(4, 5, 1, np.float32))
    dev.close()


def test_masked_arrays_are_refused_where_their_values_are_read():
    x = np.ma.array([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [1, 0]], dtype=np.float32)
    for call, where, name in [
        (lambda: dml.onnx_nonzero(x), "onnx_nonzero", "x"),
        (lambda: dml.nonzero_coordinates(x), "nonzero_coordinates", "x"),
        (lambda: dml.trilu(x), "trilu", "x"),
        (lambda: dml.diagonal_matrix((2, 2), np.float32, 0, 1, input=x), "diagonal_matrix", "input"),
    ]:
        with pytest.raises(TypeError, match=f"{where}: {name} is a masked array"):
            call()
    # The filled values go through; eye_like reads only the shape.
    np.testing.assert_array_equal(dml.onnx_nonzero(x.filled(0)), np.array(np.nonzero(x)))
    np.testing.assert_array_equal(dml.eye_like(x), np.eye(2, dtype=np.float32))


def test_integer_arguments_name_the_function_when_they_are_not_integers():
    x = np.ones((3, 3), np.float32)
    for call, message in [
        (lambda: dml.trilu(x, k=1.0), "trilu: k must be an integer, not float"),
        (lambda: dml.eye_like(x, k=0.5), "eye_like: k must be an integer, not float"),
        (lambda: dml.diagonal_matrix((2, 2), np.float32, 0.0, 1), "diagonal_matrix: begin must be an integer"),
        (lambda: dml.diagonal_matrix((2, 2.0), np.float32, 0, 1), "diagonal_matrix: shape must be an integer"),
        (lambda: dml.nonzero_coordinates(x, columns=2.0), "nonzero_coordinates: columns must be an integer"),
        (lambda: dml.Device(threads=1.5), "Device: threads must be an integer, not float"),
    ]:
        with pytest.raises(TypeError, match=message):
            call()
    # numpy integers are integers.
    np.testing.assert_array_equal(dml.trilu(x, k=np.int64(1)), np.triu(x, 1))
