"""directml_subset's Python package beside numpy and beside the C API it calls.

    DIRECTML_SUBSET_LIBRARY=target/release/libdirectml_subset.so PYTHONPATH=python \\
        python3 python/benchmarks/bench_numpy.py [--quick] [--runs N] [--repeat N]

Two tables, float32 inputs, NonZero at density 0.5:

1. numpy beside the package, 2×4 to 4096×4096: ``np.nonzero`` / ``onnx_nonzero``,
   ``np.argwhere`` / ``nonzero_coordinates``, ``np.triu`` / ``trilu``, ``np.eye`` /
   ``eye_like``, with the C API's time for the same call.
2. Large inputs (2048² and 4096²), for each of ``onnx_nonzero``, ``nonzero_coordinates``,
   ``trilu``, ``eye_like`` and ``diagonal_matrix``: the C API, the package as most callers
   use it (a new result each call), the package with ``out=`` (the caller's array, reused),
   their ratios to the C API, and what a new result costs by itself: the first touch of a
   fresh array of the result's size (``np.empty`` + writing every byte, then freeing it, as
   each call does) minus writing the same bytes into an array already touched.

"C API" is the operator the package cached for that call (same operator, types, sizes and
layout), run by one ``dmls_operator_execute`` through ctypes into a preallocated output that
was written before (pre-faulted): what a C caller that keeps its buffers pays, plus the
ctypes call.

Each time is the median of ``--runs`` runs (default 7); a run times a batch of calls (about
20 ms) and divides. The whole set is measured ``--repeat`` times (default 3) and each cell
shows the range over the repeats. Wall-clock time (``time.perf_counter``); results vary with
the machine's load, which is printed before and after.
"""

import argparse
import os
import platform
import statistics
import subprocess
import time

import numpy as np

import directml_subset as dml
from directml_subset._operators import _Prepared


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


def span(values, unit=fmt):
    """The range of `values` as text ("1.2 ms" or "1.2–1.4 ms")."""
    lo, hi = unit(min(values)), unit(max(values))
    if lo == hi:
        return lo
    a, b = lo.split(" ", 1), hi.split(" ", 1)
    if len(a) == 2 and len(b) == 2 and a[1] == b[1]:
        return f"{a[0]}–{b[0]} {a[1]}"
    return f"{lo}–{hi}"


def ratio(values):
    return span(values, lambda r: f"{r:.2f}")


def c_api(call, inputs, outputs):
    """The C API for what `call(device)` runs: the operator the package creates for it (on a
    device of its own, so it is the only one there), run by one `dmls_operator_execute`.
    Returns two calls: into kept, pre-faulted outputs, and into a new array (`np.empty`) for
    the last output each time (the result; the others kept)."""
    dev = dml.Device(extensions=True)
    call(dev)
    # The operator (a tiny NonZero also leaves its whole call cached beside it).
    (op,) = [v for v in dev._ops.values() if isinstance(v, _Prepared)]
    for o in outputs:
        o.fill(1)  # touched before timing
    addresses = [a.ctypes.data for a in inputs + outputs]
    keep = (dev, inputs, outputs)  # alive as long as the closures
    shape, dtype = outputs[-1].shape, outputs[-1].dtype

    def kept():
        op.run(*addresses)
        return keep

    def new():
        result = np.empty(shape, dtype)
        op.run(*addresses[:-1], result.ctypes.data)
        return result, keep

    return kept, new


def nonzero_input(rng, shape):
    return np.where(rng.random(shape) < 0.5, rng.random(shape, np.float32) + 1, 0).astype(np.float32)


class Case:
    """One function on one input: numpy's call, the package's (a new result, and into `out`),
    the C API's, and the bytes of the result."""

    def __init__(self, label, numpy_call, call, c_inputs, c_outputs, out, result_bytes, dev):
        self.name = label
        self.numpy_call = numpy_call
        self.call = lambda: call(dev)
        self.out_call = lambda: call(dev, out)
        self.c_call, self.c_new_call = c_api(call, c_inputs, c_outputs)
        self.result_bytes = result_bytes


def cases(dev, rng, shape, wanted):
    """The Case of each function in `wanted` on inputs of `shape`."""
    x = nonzero_input(rng, shape)
    y = rng.random(shape, np.float32)
    n, rank, nnz = x.size, x.ndim, int(np.count_nonzero(x))
    count = np.zeros(2, np.uint64)
    specs = {
        # function: (label, numpy's call, the package's call(device, out=None), the C API's
        # inputs and outputs, an `out`, the result's bytes)
        "onnx_nonzero": (
            "NonZero (`np.nonzero` / `onnx_nonzero`)",
            lambda: np.nonzero(x),
            lambda d, out=None: dml.onnx_nonzero(x, device=d, out=out),
            [x], [count, np.empty((n, rank), np.int64)], np.empty((rank, n), np.int64, order="F"), nnz * rank * 8,
        ),
        "nonzero_coordinates": (
            "NONZERO_COORDINATES (`np.argwhere` / `nonzero_coordinates`)",
            lambda: np.argwhere(x),
            lambda d, out=None: dml.nonzero_coordinates(x, device=d, out=out),
            [x], [count, np.empty((n, rank), np.uint32)], np.empty((n, rank), np.uint32), nnz * rank * 4,
        ),
        "trilu": (
            "Trilu upper (`np.triu` / `trilu`)",
            lambda: np.triu(y),
            lambda d, out=None: dml.trilu(y, device=d, out=out),
            [y], [np.empty_like(y)], np.empty_like(y), y.nbytes,
        ),
        "eye_like": (
            "EyeLike (`np.eye` / `eye_like`)",
            lambda: np.eye(*shape, dtype=np.float32),
            lambda d, out=None: dml.eye_like(y, device=d, out=out),
            [], [np.empty_like(y)], np.empty_like(y), y.nbytes,
        ),
        "diagonal_matrix": (
            "DIAGONAL_MATRIX1, no input (`diagonal_matrix`)",
            None,
            lambda d, out=None: dml.diagonal_matrix(shape, np.float32, 0, 1, 7, out=out, device=d),
            [], [np.empty_like(y)], np.empty_like(y), y.nbytes,
        ),
    }
    for function in wanted:
        yield Case(*specs[function], dev)


def first_touch(nbytes, runs):
    """What a new result of `nbytes` costs by itself: a fresh array written once and freed,
    minus writing an array already touched."""
    warm = np.empty(nbytes, np.uint8)
    warm.fill(1)
    fresh = per_call(lambda: np.empty(nbytes, np.uint8).fill(1), runs)
    return max(fresh - per_call(lambda: warm.fill(1), runs), 0.0)


def machine():
    model = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")), "")
    except OSError:
        pass
    thp = ""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            thp = f.read().strip()
    except OSError:
        pass
    try:
        from numpy._core.multiarray import _get_madvise_hugepage
    except ImportError:  # numpy 1
        from numpy.core.multiarray import _get_madvise_hugepage
    return (
        f"{os.cpu_count()} logical CPUs ({model or platform.processor() or platform.machine()}); "
        f"transparent hugepages: {thp or 'n/a'}; numpy hugepage madvise: {_get_madvise_hugepage()}"
    )


def loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "n/a"


NUMPY_FUNCTIONS = ["onnx_nonzero", "nonzero_coordinates", "trilu", "eye_like"]
ALL_FUNCTIONS = NUMPY_FUNCTIONS + ["diagonal_matrix"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sizes = [(2, 4), (8, 8), (16, 16), (32, 32), (64, 64), (256, 256), (1024, 1024), (2048, 2048), (4096, 4096)]
    large = [(2048, 2048), (4096, 4096)]
    if args.quick:
        sizes, large = [(2, 4), (32, 32), (256, 256), (2048, 2048)], [(2048, 2048)]
    dev = dml.default_device()
    print(f"directml_subset {dml.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(machine())
    print(f"load average before: {loadavg()}; each cell: range over {args.repeat} repeats of a median of {args.runs} runs")

    # Table 1: numpy, the package and the C API, small to large.
    t1 = {}
    # Table 2: large inputs, the C API, the package (new result / out=) and a new result's cost.
    t2 = {}
    for _ in range(args.repeat):
        rng = np.random.default_rng(1)
        for shape in sizes:
            for case in cases(dev, rng, shape, NUMPY_FUNCTIONS):
                row = t1.setdefault((case.name, shape), [[], [], []])
                row[0].append(per_call(case.numpy_call, args.runs))
                row[1].append(per_call(case.call, args.runs))
                row[2].append(per_call(case.c_call, args.runs))
        for shape in large:
            for case in cases(dev, rng, shape, ALL_FUNCTIONS):
                row = t2.setdefault((case.name, shape), [[], [], [], [], [], []])
                row[0].append(per_call(case.c_call, args.runs))
                row[1].append(per_call(case.c_new_call, args.runs))
                row[2].append(per_call(case.call, args.runs))
                row[3].append(per_call(case.out_call, args.runs))
                row[4].append(first_touch(case.result_bytes, args.runs))
                row[5].append(case.result_bytes)

    print()
    print("| call | shape | numpy | directml_subset | C API | × C API |")
    print("| --- | --- | --- | --- | --- | --- |")
    names = list(dict.fromkeys(name for name, _ in t1))
    for (name, shape), (t_np, t_pkg, t_c) in sorted(t1.items(), key=lambda kv: (names.index(kv[0][0]), kv[0][1])):
        label = name if shape == sizes[0] else ""
        ratios = [p / c for p, c in zip(t_pkg, t_c)]
        print(f"| {label} | {shape[0]}×{shape[1]} | {span(t_np)} | {span(t_pkg)} | {span(t_c)} | {ratio(ratios)} |")
    print()
    print("| function | shape | result | C API | C API, new output | package | × C API | package, `out=` | × C API "
          "| first touch of a new array of the result's size |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (name, shape), (t_c, t_c_new, t_pkg, t_out, touch, nbytes) in t2.items():
        fn = name.split("`")[-2]
        print(f"| `{fn}` | {shape[0]}×{shape[1]} | {nbytes[0] / 2**20:.0f} MB | {span(t_c)} | {span(t_c_new)} | "
              f"{span(t_pkg)} | {ratio([p / c for p, c in zip(t_pkg, t_c)])} | {span(t_out)} | "
              f"{ratio([o / c for o, c in zip(t_out, t_c)])} | {span(touch)} |")
    print()
    print(f"load average after: {loadavg()}")


if __name__ == "__main__":
    main()
