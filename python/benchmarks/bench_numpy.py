"""directml_subset's Python package beside numpy, with the C API's own time for reference.

    DIRECTML_SUBSET_LIBRARY=target/release/libdirectml_subset.so PYTHONPATH=python \
        python3 python/benchmarks/bench_numpy.py [--quick] [--runs N]

For each case and size: numpy's time, the package's time, and the C API's time for the same
operator and layout (the package's cached operator, run by one ``dmls_operator_execute``
through ctypes into a preallocated, already-touched output: what a C caller that keeps its
buffers pays, plus the ctypes call). "overhead" is package − C API; "× C API" their ratio.

Each time is the median of ``--runs`` runs (default 7); a run times a batch of calls (about
20 ms) and divides. Wall-clock time (``time.perf_counter``); results vary with the machine's
load, so say the conditions with the numbers.
"""

import argparse
import platform
import statistics
import time

import numpy as np

import directml_subset as dml
from directml_subset import _core


def per_call(f, runs, budget=0.02):
    f()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        dt = time.perf_counter() - t0
        if dt >= budget / 4 or n >= 1 << 20:
            break
        n *= 4
    n = max(1, int(n * budget / max(dt, 1e-9)))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


def fmt(t):
    if t < 1e-3:
        return f"{t * 1e6:.1f} µs"
    return f"{t * 1e3:.2f} ms"


def last_op(dev, kind):
    ops = [op for key, op in dev._ops.items() if key[0] == kind]
    return ops[-1]


def c_api_nonzero(dev, x, dtype_out):
    """The cached NONZERO_COORDINATES operator of `x`'s layout, run into kept buffers."""
    dml.nonzero_coordinates(x, device=dev) if dtype_out == np.uint32 else dml.onnx_nonzero(x, device=dev)
    op = last_op(dev, _core.C.DML_OPERATOR_NONZERO_COORDINATES)
    coords = np.zeros((x.size, x.ndim), dtype_out)
    count = np.zeros(2, np.uint64)
    a, c, o = x.ctypes.data, count.ctypes.data, coords.ctypes.data
    keep = (x, coords, count)  # alive as long as the closure
    return lambda: op.run(a, c, o) or keep


def c_api_trilu(dev, x):
    dml.trilu(x, device=dev)
    op = last_op(dev, _core.C.DML_OPERATOR_DIAGONAL_MATRIX1)
    out = np.zeros_like(x)
    a, o = x.ctypes.data, out.ctypes.data
    keep = (x, out)
    return lambda: op.run(a, o) or keep


def c_api_eye(dev, x):
    dml.eye_like(x, device=dev)
    op = last_op(dev, _core.C.DML_OPERATOR_DIAGONAL_MATRIX)
    out = np.zeros_like(x)
    o = out.ctypes.data
    return lambda: op.run(o) or out


def c_api_diagonal(dev, shape):
    dml.diagonal_matrix(shape, np.float32, 0, 1, 7, device=dev)
    op = last_op(dev, _core.C.DML_OPERATOR_DIAGONAL_MATRIX1)
    out = np.zeros(shape, np.float32)
    o = out.ctypes.data
    return lambda: op.run(o) or out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    sizes = [(2, 4), (8, 8), (16, 16), (32, 32), (64, 64), (256, 256), (1024, 1024), (2048, 2048), (4096, 4096)]
    if args.quick:
        sizes = [(2, 4), (32, 32), (256, 256), (2048, 2048)]
    dev = dml.default_device()
    rng = np.random.default_rng(1)
    print(f"directml_subset {dml.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{platform.machine()}, {time.strftime('%Y-%m-%d %H:%M %Z')}; median of {args.runs} runs")
    print()
    print("| call | shape | numpy | directml_subset | C API | overhead | × C API |")
    print("| --- | --- | --- | --- | --- | --- | --- |")

    def row(name, shape, t_np, t_pkg, t_c):
        print(f"| {name} | {shape[0]}×{shape[1]} | {t_np} | {fmt(t_pkg)} | {fmt(t_c)} | "
              f"{fmt(max(t_pkg - t_c, 0.0))} | {t_pkg / t_c:.2f} |", flush=True)

    for shape in sizes:
        x = np.where(rng.random(shape) < 0.5, rng.random(shape, np.float32) + 1, 0).astype(np.float32)
        t_np = per_call(lambda: np.nonzero(x), args.runs)
        t_pkg = per_call(lambda: dml.onnx_nonzero(x), args.runs)
        t_c = per_call(c_api_nonzero(dev, x, np.int64), args.runs)
        row("NonZero f32, density 0.5: `np.nonzero` / `onnx_nonzero`", shape, fmt(t_np), t_pkg, t_c)
    for shape in sizes:
        x = np.where(rng.random(shape) < 0.5, rng.random(shape, np.float32) + 1, 0).astype(np.float32)
        t_np = per_call(lambda: np.argwhere(x), args.runs)
        t_pkg = per_call(lambda: dml.nonzero_coordinates(x), args.runs)
        t_c = per_call(c_api_nonzero(dev, x, np.uint32), args.runs)
        row("NONZERO_COORDINATES f32, density 0.5: `np.argwhere` / `nonzero_coordinates`", shape, fmt(t_np), t_pkg, t_c)
    for shape in sizes:
        x = rng.random(shape, np.float32)
        t_np = per_call(lambda: np.triu(x), args.runs)
        t_pkg = per_call(lambda: dml.trilu(x), args.runs)
        t_c = per_call(c_api_trilu(dev, x), args.runs)
        row("Trilu f32 upper: `np.triu` / `trilu`", shape, fmt(t_np), t_pkg, t_c)
    eye_sizes = [(4, 4), (64, 64), (1024, 1024), (4096, 4096)]
    if args.quick:
        eye_sizes = [(4, 4), (2048, 2048)]
    for shape in eye_sizes:
        x = np.zeros(shape, np.float32)
        t_np = per_call(lambda: np.eye(*shape, dtype=np.float32), args.runs)
        t_pkg = per_call(lambda: dml.eye_like(x), args.runs)
        t_c = per_call(c_api_eye(dev, x), args.runs)
        row("EyeLike f32: `np.eye` / `eye_like`", shape, fmt(t_np), t_pkg, t_c)
    for shape in eye_sizes:
        t_pkg = per_call(lambda: dml.diagonal_matrix(shape, np.float32, 0, 1, 7), args.runs)
        t_c = per_call(c_api_diagonal(dev, shape), args.runs)
        row("DIAGONAL_MATRIX1 f32, no input: `diagonal_matrix`", shape, "", t_pkg, t_c)


if __name__ == "__main__":
    main()
