#!/usr/bin/env python3
"""Runs the kernel benchmark's workloads (benches/kernels/workloads.rs) through the C API
(ctypes over target/release/libdirectml_subset.so) beside numpy (argwhere, triu, tril, eye) and ONNX Runtime's CPU NonZero, Trilu and EyeLike,
and prints a table of times and ratios.

    python3 scripts/bench_peers.py            # all workloads
    python3 scripts/bench_peers.py u8 diag    # only workloads whose name contains a word
    python3 scripts/bench_peers.py --curve [--csv PATH] [WORD...]   # the cost curve's sizes

The curve mode measures only the peers (numpy.argwhere, numpy.triu, numpy.eye and ONNX
Runtime's NonZero, Trilu, EyeLike) on the series of `cargo bench --bench kernels -- curve`
(benches/kernels/curve.rs: the same names, shapes [2^(k/2), 2^(k-k/2)] for k from
DMLS_CURVE_MIN_LOG2 (8) to DMLS_CURVE_MAX_LOG2 (26), every DMLS_CURVE_STEP (1)), checks that
the two agree, and writes series, elements and their seconds per call as CSV to PATH (default
target/kernels-curve-peers.csv) for `scripts/plot_curve.py --peers`. It times batches of about
0.2 ms, numpy's and ONNX Runtime's alternating, like the Rust curve. ONNX Runtime runs a
one-node model per shape through an IOBinding made once: the input bound once, Trilu's and
EyeLike's output bound to an array made once, NonZero's allocated by ONNX Runtime (its size
is known only after the run). NonZero's numpy peer is argwhere, not nonzero: argwhere gives
the [count, rank] coordinate matrix that NONZERO_COORDINATES writes (it is nonzero's per-axis
index arrays stacked into one array), where nonzero gives one array per axis.

The first run makes a virtual environment in target/bench-venv and installs numpy,
onnxruntime and onnx into it with pip; later runs reuse it. The table mode runs
`cargo build --release --lib` first (a no-op when the library is up to date). DMLS_BENCH_REPS sets the
repetitions (default 9); each time is the median of them.

In the table, each peer does the operation in its own natural form: numpy and ONNX Runtime allocate their
outputs (ONNX Runtime's NonZero returns [rank, count] int64), while directml_subset writes into
buffers the caller made once, as DirectML does. Ratios are peer time / directml_subset time with
all threads: above 1 means directml_subset is faster.
"""

import ctypes
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "target", "bench-venv")
LIB = os.path.join(ROOT, "target", "release", "libdirectml_subset.so")


def ensure_venv():
    """Re-runs this script inside target/bench-venv, creating it first if needed."""
    py = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(py):
        print(f"making {VENV} (numpy, onnxruntime, onnx)", file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([py, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        subprocess.check_call(
            [py, "-m", "pip", "install", "--quiet", "numpy", "onnxruntime", "onnx"]
        )
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


def ensure_lib():
    """Builds the shared library (a no-op when it is up to date)."""
    target = os.path.join(ROOT, "target")
    env = {k: v for k, v in os.environ.items() if k != "CARGO_TARGET_DIR"}
    subprocess.check_call(
        ["cargo", "build", "--release", "--lib", "--quiet", "--target-dir", target], cwd=ROOT, env=env
    )


# --- The C API, as ctypes structs (see include/directml_subset.h). ---

FLOAT32, UINT32, UINT8 = 1, 3, 5
NONZERO_COORDINATES, DIAGONAL_MATRIX1 = 133, 163
TENSOR_TYPE_BUFFER = 1
BINDING_NONE, BINDING_BUFFER = 0, 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


class BufferTensorDesc(ctypes.Structure):
    _fields_ = [
        ("DataType", ctypes.c_uint32),
        ("Flags", ctypes.c_uint32),
        ("DimensionCount", ctypes.c_uint32),
        ("Sizes", ctypes.POINTER(ctypes.c_uint32)),
        ("Strides", ctypes.POINTER(ctypes.c_uint32)),
        ("TotalTensorSizeInBytes", ctypes.c_uint64),
        ("GuaranteedBaseOffsetAlignment", ctypes.c_uint32),
    ]


class TensorDesc(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_uint32), ("Desc", ctypes.c_void_p)]


class OperatorDesc(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_uint32), ("Desc", ctypes.c_void_p)]


class NonZeroDesc(ctypes.Structure):
    _fields_ = [
        ("InputTensor", ctypes.POINTER(TensorDesc)),
        ("OutputCountTensor", ctypes.POINTER(TensorDesc)),
        ("OutputCoordinatesTensor", ctypes.POINTER(TensorDesc)),
    ]


class ScalarUnion(ctypes.Union):
    _fields_ = [("Bytes", ctypes.c_uint8 * 8), ("Float32", ctypes.c_float), ("UInt64", ctypes.c_uint64)]


class Diagonal1Desc(ctypes.Structure):
    _fields_ = [
        ("InputTensor", ctypes.POINTER(TensorDesc)),
        ("OutputTensor", ctypes.POINTER(TensorDesc)),
        ("ValueDataType", ctypes.c_uint32),
        ("Value", ScalarUnion),
        ("DiagonalFillBegin", ctypes.c_int32),
        ("DiagonalFillEnd", ctypes.c_int32),
    ]


class BufferBinding(ctypes.Structure):
    _fields_ = [("Buffer", ctypes.c_void_p), ("Offset", ctypes.c_uint64), ("SizeInBytes", ctypes.c_uint64)]


class BindingDesc(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_uint32), ("Desc", ctypes.c_void_p)]


class DeviceDesc(ctypes.Structure):
    _fields_ = [("feature_level", ctypes.c_uint32), ("thread_count", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


class Dmls:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        lib = self.lib
        lib.dmls_device_create.restype = ctypes.c_int32
        lib.dmls_device_create_operator.restype = ctypes.c_int32
        lib.dmls_operator_execute.restype = ctypes.c_int32
        lib.dmls_calc_buffer_tensor_size.restype = ctypes.c_uint64
        lib.dmls_get_last_error_message.restype = ctypes.c_size_t
        self.keep = []

    def check(self, hr, what):
        if hr != 0:
            buf = ctypes.create_string_buffer(1024)
            self.lib.dmls_get_last_error_message(buf, 1024)
            raise RuntimeError(f"{what}: HRESULT {hr & 0xFFFFFFFF:#x}: {buf.value.decode()}")

    def device(self, threads):
        d = ctypes.c_void_p()
        desc = DeviceDesc(0, threads, 0)
        self.check(self.lib.dmls_device_create(ctypes.byref(desc), ctypes.byref(d)), "device")
        return d

    def tensor(self, dtype, sizes, strides=None):
        n = len(sizes)
        s = (ctypes.c_uint32 * n)(*sizes)
        st = (ctypes.c_uint32 * n)(*strides) if strides else None
        total = self.lib.dmls_calc_buffer_tensor_size(dtype, n, s, st)
        b = BufferTensorDesc(dtype, 0, n, s, st, total, 0)
        t = TensorDesc(TENSOR_TYPE_BUFFER, ctypes.cast(ctypes.pointer(b), ctypes.c_void_p))
        self.keep += [s, st, b, t]
        return t, total

    def operator(self, device, op_type, desc):
        od = OperatorDesc(op_type, ctypes.cast(ctypes.pointer(desc), ctypes.c_void_p))
        op = ctypes.c_void_p()
        self.check(self.lib.dmls_device_create_operator(device, ctypes.byref(od), ctypes.byref(op)), "create")
        return op

    def bindings(self, arrays):
        """DML_BINDING_DESCs for numpy arrays (None: DML_BINDING_TYPE_NONE)."""
        descs = (BindingDesc * max(1, len(arrays)))()
        for i, a in enumerate(arrays):
            if a is None:
                descs[i] = BindingDesc(BINDING_NONE, None)
                continue
            b = BufferBinding(a.ctypes.data, 0, a.nbytes)
            self.keep.append(b)
            descs[i] = BindingDesc(BINDING_BUFFER, ctypes.cast(ctypes.pointer(b), ctypes.c_void_p))
        self.keep.append(descs)
        return descs

    def runner(self, op, inputs, outputs):
        ins, outs = self.bindings(inputs), self.bindings(outputs)
        ni, no = len(inputs), len(outputs)
        f = self.lib.dmls_operator_execute

        def run():
            self.check(f(op, ni, ins, no, outs), "execute")

        return run


def timed(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def onnx_session(np, build):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    model = build(helper, TensorProto)
    model.opset_import[0].version = 14
    model.ir_version = 8
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    onnx.checker.check_model(model)
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


# --- Curve mode: numpy and ONNX Runtime on the sizes of the kernel benchmark's cost curve. ---

# The series of benches/kernels/curve.rs `series()`, by the same names: (name, operation, numpy
# element type, density of nonzero elements for NonZero).
CURVE_SERIES = [
    ("nonzero f32 d=0.5", "nonzero", "float32", 0.5),
    ("nonzero f32 d=0.01", "nonzero", "float32", 0.01),
    ("nonzero u8 d=0.1", "nonzero", "uint8", 0.1),
    ("diag1 f32 upper", "upper", "float32", None),
    ("diag1 f32 identity", "identity", "float32", None),
]


def per_call(fns, reps):
    """Median per-call seconds of each function (each called once already, as a warm-up): each
    is calibrated to batches of about 0.2 ms (one call when a call is longer), then the batches
    of the functions alternate, `reps` of each."""
    counts = []
    for fn in fns:
        one = 0.0
        for _ in range(2):
            t = time.perf_counter()
            fn()
            one = max(one, time.perf_counter() - t)
            if one >= 2e-4:
                break
        counts.append(max(1, min(100_000, int(2e-4 / max(one, 2e-8)))))
    times = [[] for _ in fns]
    for _ in range(reps):
        for fn, n, ts in zip(fns, counts, times):
            t = time.perf_counter()
            for _ in range(n):
                fn()
            ts.append((time.perf_counter() - t) / n)
    return [sorted(ts)[len(ts) // 2] for ts in times]


def curve_input(np, rng, op, dtype, density, shape):
    """The input of one curve point, generated like benches/kernels/operators.rs `make_data`:
    for NonZero each element is nonzero with the density and a tenth of the float zeros are
    -0.0 (which counts as zero); for Trilu random values. The nonzero value is 1 (the Rust
    benchmark sets the lowest byte, a denormal float: a normal value here so that no peer can
    pay for denormals). EyeLike reads only the shape of its input."""
    if op == "nonzero":
        u = rng.random(shape, dtype=np.float32)
        if dtype == "uint8":
            return (u < density).astype(np.uint8)
        a = (u < density).astype(np.float32)
        a[(u >= density) & (rng.random(shape, dtype=np.float32) < 0.1)] = np.float32(-0.0)
        return a
    if op == "upper":
        return rng.random(shape, dtype=np.float32) + np.float32(1)
    return np.zeros(shape, np.float32)


def curve_point(np, ort, rng, op, dtype, density, shape, reps):
    """(numpy seconds, ONNX Runtime seconds) per call for one shape, after checking that both
    give the same result."""
    a = curve_input(np, rng, op, dtype, density, shape)
    numpy_fn = {
        "nonzero": lambda: np.argwhere(a),
        "upper": lambda: np.triu(a),
        "identity": lambda: np.eye(shape[0], shape[1], dtype=np.float32),
    }[op]

    def build(helper, TP):
        elem = TP.UINT8 if dtype == "uint8" else TP.FLOAT
        if op == "nonzero":
            node, out = helper.make_node("NonZero", ["x"], ["y"]), (TP.INT64, [2, "count"])
        elif op == "upper":
            node, out = helper.make_node("Trilu", ["x"], ["y"], upper=1), (TP.FLOAT, list(shape))
        else:
            node, out = helper.make_node("EyeLike", ["x"], ["y"], dtype=TP.FLOAT), (TP.FLOAT, list(shape))
        g = helper.make_graph(
            [node],
            op,
            [helper.make_tensor_value_info("x", elem, list(shape))],
            [helper.make_tensor_value_info("y", *out)],
        )
        return helper.make_model(g)

    sess = onnx_session(np, build)
    io = sess.io_binding()
    io.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(a))
    if op == "nonzero":
        io.bind_output("y")  # shape known only after the run: ONNX Runtime allocates it
    else:
        io.bind_ortvalue_output("y", ort.OrtValue.ortvalue_from_numpy(np.empty(shape, np.float32)))
    ort_fn = lambda: sess.run_with_iobinding(io)

    want = numpy_fn()  # these calls are also the warm-up of the timing
    ort_fn()
    got = io.copy_outputs_to_cpu()[0]
    same = np.array_equal(got, want.T) if op == "nonzero" else np.array_equal(got, want)
    if not same:
        raise AssertionError(f"{op} {shape}: ONNX Runtime and numpy differ")
    del want, got
    return per_call([numpy_fn, ort_fn], reps)


def env_int(name, default):
    return int(os.environ.get(name, default))


def curve(args):
    """`--curve [--csv PATH] [WORD...]`: measures numpy and ONNX Runtime on the curve's sizes and
    writes a CSV (series, elements, numpy and onnxruntime seconds per call)."""
    import numpy as np
    import onnxruntime as ort

    path = os.path.join(ROOT, "target", "kernels-curve-peers.csv")
    if "--csv" in args:
        i = args.index("--csv")
        path = args[i + 1]
        args = args[:i] + args[i + 2:]
    filters = [w for w in args if w != "--curve"]
    reps = env_int("DMLS_BENCH_REPS", 9)
    lo, hi = env_int("DMLS_CURVE_MIN_LOG2", 8), env_int("DMLS_CURVE_MAX_LOG2", 26)
    step = env_int("DMLS_CURVE_STEP", 1)
    rng = np.random.default_rng(7)
    print(
        f"numpy {np.__version__} (argwhere, triu, eye), onnxruntime {ort.__version__} (CPU NonZero, "
        f"Trilu, EyeLike; intra-op threads: default), {os.cpu_count()} CPUs; 2^{lo}..2^{hi} "
        f"elements, every {step}; time per call, median of {reps} batches of about 0.2 ms",
        flush=True,
    )
    print(f"{'series':<22} {'elements':>9} {'numpy':>11} {'onnxruntime':>11}")
    rows = []
    start = time.perf_counter()
    for name, op, dtype, density in CURVE_SERIES:
        if filters and not any(w in name for w in filters):
            continue
        for k in range(lo, hi + 1, step):
            shape = (1 << (k // 2), 1 << (k - k // 2))
            t_np, t_ort = curve_point(np, ort, rng, op, dtype, density, shape, reps)
            rows.append((name, 1 << k, t_np, t_ort))
            print(f"{name:<22} {'2^' + str(k):>9} {fmt_seconds(t_np):>11} {fmt_seconds(t_ort):>11}", flush=True)
    with open(path, "w") as f:
        f.write("series,elements,numpy,onnxruntime\n")
        for name, e, t_np, t_ort in rows:
            f.write(f"{name},{e},{t_np:.4e},{t_ort:.4e}\n")
    print(f"peers' curve written to {path} ({time.perf_counter() - start:.1f} s)")


def fmt_seconds(s):
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e3:.3f} ms"


def main():
    ensure_venv()
    if "--curve" in sys.argv[1:]:
        return curve(sys.argv[1:])
    ensure_lib()
    import numpy as np
    import onnxruntime as ort

    reps = int(os.environ.get("DMLS_BENCH_REPS", "9"))
    filters = sys.argv[1:]
    dm = Dmls(LIB)
    devs = {"1": dm.device(1), "all": dm.device(0)}
    rng = np.random.default_rng(42)
    rows = []

    def nonzero(name, dtype, shape, density, transposed=False):
        base = rng.random(shape) < density
        if dtype == UINT8:
            a = base.astype(np.uint8)
        else:
            a = np.where(base, np.float32(1.5), np.float32(0.0)).astype(np.float32)
        x = a.T if transposed else a  # the logical input
        m, n = x.size, x.ndim
        if transposed:
            t_in, _ = dm.tensor(dtype, list(x.shape), [1, shape[0]])
        else:
            t_in, _ = dm.tensor(dtype, list(shape))
        t_count, _ = dm.tensor(UINT32, [1])
        t_coords, _ = dm.tensor(UINT32, [m, n])
        count = np.zeros(4, np.uint32)
        coords = np.zeros((m, n), np.uint32)
        times = {}
        for th, dev in devs.items():
            desc = NonZeroDesc(ctypes.pointer(t_in), ctypes.pointer(t_count), ctypes.pointer(t_coords))
            op = dm.operator(dev, NONZERO_COORDINATES, desc)
            run = dm.runner(op, [a], [count, coords])
            times["dmls " + th] = timed(run, reps)
        want = np.argwhere(x)
        assert count[0] == len(want) and (coords[: len(want)] == want).all(), name
        times["numpy"] = timed(lambda: np.argwhere(x), reps)
        elem = TensorProto_of(dtype)

        def build(helper, TP):
            nodes = []
            src = "x"
            if transposed:
                nodes.append(helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]))
                src = "xt"
            nodes.append(helper.make_node("NonZero", [src], ["y"]))
            g = helper.make_graph(
                nodes,
                "nz",
                [helper.make_tensor_value_info("x", elem(TP), list(a.shape))],
                [helper.make_tensor_value_info("y", TP.INT64, [n, "count"])],
            )
            return helper.make_model(g)

        sess = onnx_session(np, build)
        got = sess.run(None, {"x": a})[0]
        assert got.shape == (n, len(want)), name
        times["onnxruntime"] = timed(lambda: sess.run(None, {"x": a}), reps)
        rows.append((name, times))

    def diagonal(name, shape, kind):
        a = rng.random(shape, dtype=np.float32) + np.float32(1)
        out = np.zeros(shape, np.float32)
        t_out, _ = dm.tensor(FLOAT32, list(shape))
        t_in, _ = dm.tensor(FLOAT32, list(shape))
        begin, end, value, with_input = {
            "upper": (INT32_MIN, 0, 0.0, True),
            "lower": (1, INT32_MAX, 0.0, True),
            "identity": (0, 1, 1.0, False),
        }[kind]
        times = {}
        for th, dev in devs.items():
            v = ScalarUnion()
            v.Float32 = value
            desc = Diagonal1Desc(
                ctypes.pointer(t_in) if with_input else None,
                ctypes.pointer(t_out),
                FLOAT32,
                v,
                begin,
                end,
            )
            op = dm.operator(dev, DIAGONAL_MATRIX1, desc)
            run = dm.runner(op, [a if with_input else None], [out])
            times["dmls " + th] = timed(run, reps)
        peer = {
            "upper": lambda: np.triu(a),
            "lower": lambda: np.tril(a),
            "identity": lambda: np.eye(shape[-1], dtype=np.float32),
        }[kind]
        assert (out == peer()).all(), name
        times["numpy"] = timed(peer, reps)

        def build(helper, TP):
            if kind == "identity":
                node = helper.make_node("EyeLike", ["x"], ["y"], dtype=TP.FLOAT)
            else:
                node = helper.make_node("Trilu", ["x"], ["y"], upper=1 if kind == "upper" else 0)
            g = helper.make_graph(
                [node],
                "diag",
                [helper.make_tensor_value_info("x", TP.FLOAT, list(shape))],
                [helper.make_tensor_value_info("y", TP.FLOAT, list(shape))],
            )
            return helper.make_model(g)

        sess = onnx_session(np, build)
        assert (sess.run(None, {"x": a})[0] == out).all(), name
        times["onnxruntime"] = timed(lambda: sess.run(None, {"x": a}), reps)
        rows.append((name, times))

    workloads = [
        ("nonzero f32 256^3 d=0.5", lambda n: nonzero(n, FLOAT32, (256, 256, 256), 0.5)),
        ("nonzero f32 256^3 d=0.01", lambda n: nonzero(n, FLOAT32, (256, 256, 256), 0.01)),
        ("nonzero f32 256^3 d=0.99", lambda n: nonzero(n, FLOAT32, (256, 256, 256), 0.99)),
        ("nonzero u8 4096^2 d=0.1", lambda n: nonzero(n, UINT8, (4096, 4096), 0.1)),
        ("nonzero f32 4096^2 transposed d=0.5", lambda n: nonzero(n, FLOAT32, (4096, 4096), 0.5, True)),
        ("diag1 f32 4096^2 upper (triu)", lambda n: diagonal(n, (4096, 4096), "upper")),
        ("diag1 f32 4096^2 lower (tril)", lambda n: diagonal(n, (4096, 4096), "lower")),
        ("diag1 f32 [8,1024,1024] upper (triu)", lambda n: diagonal(n, (8, 1024, 1024), "upper")),
        ("diag1 f32 4096^2 identity (eye)", lambda n: diagonal(n, (4096, 4096), "identity")),
    ]
    print(
        f"numpy {np.__version__}, onnxruntime {ort.__version__}, {os.cpu_count()} CPUs, "
        f"median of {reps} runs; ratio = peer time / directml_subset (all threads) time"
    )
    for name, f in workloads:
        if filters and not any(w in name for w in filters):
            continue
        f(name)
        t = rows[-1][1]
        print(f"  {name}: " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in t.items()), flush=True)
    print()
    print("| workload | directml_subset 1 thread (ms) | directml_subset all threads (ms) | numpy (ms) | ONNX Runtime (ms) | numpy / dmls | ONNX Runtime / dmls |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, t in rows:
        d = t["dmls all"]
        print(
            f"| {name} | {t['dmls 1'] * 1e3:.2f} | {d * 1e3:.2f} | {t['numpy'] * 1e3:.2f} | "
            f"{t['onnxruntime'] * 1e3:.2f} | {t['numpy'] / d:.1f} | {t['onnxruntime'] / d:.1f} |"
        )


def TensorProto_of(dtype):
    return lambda TP: TP.UINT8 if dtype == UINT8 else TP.FLOAT


if __name__ == "__main__":
    main()
