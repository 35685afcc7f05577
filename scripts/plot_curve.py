#!/usr/bin/env python3
"""Draws the kernel benchmark's cost curve as an SVG chart (log-log), with no dependencies.

    cargo bench --bench kernels -- curve        # writes target/kernels-curve.csv
    python3 scripts/bench_peers.py --curve      # writes target/kernels-curve-peers.csv
    python3 scripts/plot_curve.py [CSV] [SVG] [--peers PEERS_CSV] [--note TEXT]

Defaults: target/kernels-curve.csv -> docs/kernel-curve.svg. One panel per series: the
library's time per call on the default device (all threads, solid) and the bound (the faster
of a one- and a two-thread memcpy of the same bytes, dashed), against the number of elements;
the label at the top left gives the largest time / bound ratio from 2^14 elements on.
With --peers, the CSV of `scripts/bench_peers.py --curve` (series, elements, numpy and
onnxruntime seconds per call) adds numpy (red, dashed, circles) and ONNX Runtime (green,
dotted, squares) to the panels of the same names; the label at the bottom right gives their
time over the library's at the largest size both measured.
"""

import csv
import math
import sys
from collections import OrderedDict

COLORS = {"library": "#1f6fb4", "bound": "#444444", "numpy": "#d62728", "onnxruntime": "#2ca02c"}


def read(path):
    series = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            p = {
                "elements": int(row["elements"]),
                "library": float(row["seconds_all"]),
                "bound": min(float(row["memcpy_1thread"]), float(row["memcpy_2thread"])),
                "target": float(row["target"]),
            }
            series.setdefault(row["series"], []).append(p)
    return series


PEERS = ("numpy", "onnxruntime")


def read_peers(path):
    """Series name -> points with the peers' seconds per call (a peer may be missing)."""
    series = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            p = {"elements": int(row["elements"])}
            for peer in PEERS:
                if row.get(peer):
                    p[peer] = float(row[peer])
            series.setdefault(row["series"], []).append(p)
    return series


# Line style per curve: dashes and the marker drawn at every point (None: no marker).
STYLE = {"bound": ("5,4", None), "numpy": ("7,3", "circle"), "onnxruntime": ("2,2", "square"), "library": ("", None)}


def marker(kind, x, y, color):
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" fill="{color}"/>'
    return f'<rect x="{x - 2.4:.1f}" y="{y - 2.4:.1f}" width="4.8" height="4.8" fill="{color}"/>'


def curve(out, key, pts):
    """A polyline of (x, y) in the style of `key`, with its markers."""
    dash, mark = STYLE[key]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
    style = f' stroke-dasharray="{dash}"' if dash else ""
    width = 2 if key in ("library", "bound") else 1.5
    out.append(f'<polyline points="{path}" fill="none" stroke="{COLORS[key]}" stroke-width="{width}"{style}/>')
    if mark:
        out.extend(marker(mark, x, y, COLORS[key]) for x, y in pts)


def panel(out, name, points, peers, x0, y0, w, h, tmin, tmax):
    """One chart at (x0, y0) of size w x h; times in [tmin, tmax] seconds, log scale; `peers`:
    the peers' points of this series (may be empty)."""
    emin = min(p["elements"] for p in points + peers)
    emax = max(p["elements"] for p in points + peers)
    lx = lambda e: x0 + (math.log2(e) - math.log2(emin)) / max(1e-9, math.log2(emax) - math.log2(emin)) * w
    ly = lambda t: y0 + h - (math.log10(t) - math.log10(tmin)) / (math.log10(tmax) - math.log10(tmin)) * h
    out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#bbb"/>')
    # Grid: every power of ten in time, every 2^2 in elements.
    d = math.floor(math.log10(tmin))
    while 10.0**d <= tmax:
        t = 10.0**d
        if t >= tmin:
            y = ly(t)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="#eee"/>')
            label = {-9: "1 ns", -8: "10 ns", -7: "100 ns", -6: "1 µs", -5: "10 µs", -4: "100 µs",
                     -3: "1 ms", -2: "10 ms", -1: "100 ms", 0: "1 s", 1: "10 s"}.get(d, f"1e{d} s")
            out.append(f'<text x="{x0 - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{label}</text>')
        d += 1
    k = int(math.log2(emin))
    while 2**k <= emax:
        x = lx(2**k)
        out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + h}" stroke="#f2f2f2"/>')
        out.append(f'<text x="{x:.1f}" y="{y0 + h + 13}" font-size="10" text-anchor="middle">2^{k}</text>')
        k += 2
    for key in ("bound", "numpy", "onnxruntime", "library"):
        pts = [(lx(p["elements"]), ly(p[key])) for p in (peers if key in PEERS else points) if key in p]
        if pts:
            curve(out, key, pts)
    worst = max((p["library"] / p["bound"] for p in points if p["elements"] >= 2**14), default=float("nan"))
    target = points[0]["target"]
    out.append(f'<text x="{x0 + 6}" y="{y0 + 15}" font-size="12" font-weight="bold">{name}</text>')
    out.append(f'<text x="{x0 + 6}" y="{y0 + 29}" font-size="10">from 2^14: worst time / bound {worst:.2f} (target ≤ {target:g})</text>')
    library = {p["elements"]: p["library"] for p in points}
    both = [p for p in peers if p["elements"] in library and all(k in p for k in PEERS)]
    if both:
        p = max(both, key=lambda p: p["elements"])
        lib = library[p["elements"]]
        out.append(
            f'<text x="{x0 + w - 6}" y="{y0 + h - 8}" font-size="10" text-anchor="end">at 2^{int(math.log2(p["elements"]))}: '
            f'numpy {times(p["numpy"] / lib)}×, ONNX Runtime {times(p["onnxruntime"] / lib)}× the library\'s time</text>'
        )


def times(x):
    """A ratio with two significant digits, without an exponent (108, not 1.1e+02)."""
    return f"{x:.2g}" if x < 10 else f"{x:.0f}"


def main(argv):
    note = ""
    if "--note" in argv:
        i = argv.index("--note")
        note = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    peers = OrderedDict()
    if "--peers" in argv:
        i = argv.index("--peers")
        peers = read_peers(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    src = argv[1] if len(argv) > 1 else "target/kernels-curve.csv"
    dst = argv[2] if len(argv) > 2 else "docs/kernel-curve.svg"
    series = read(src)
    if not series:
        sys.exit(f"{src}: no points")
    for name in peers:
        if name not in series:
            print(f"peers: series {name!r} is not in {src}; not drawn", file=sys.stderr)
    peers = {name: pts for name, pts in peers.items() if name in series}
    times = [p[k] for pts in series.values() for p in pts for k in ("library", "bound")]
    times += [p[k] for pts in peers.values() for p in pts for k in PEERS if k in p]
    tmin = 10.0 ** math.floor(math.log10(min(times)))
    tmax = 10.0 ** math.ceil(math.log10(max(times)))
    cols, pw, ph, mx, my = 2, 420, 260, 70, 50
    rows = (len(series) + cols - 1) // cols
    width, height = cols * (pw + mx) + 20, rows * (ph + my) + 70
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           '<text x="10" y="18" font-size="14" font-weight="bold">directml_subset: time per call against the memory bound'
           f'{", numpy and ONNX Runtime" if peers else ""} (log-log)</text>',
           f'<text x="10" y="34" font-size="11">{note}</text>']
    legend = [("library (all threads)", "library"), ("bound: faster of 1- and 2-thread memcpy", "bound")]
    for key, text in (("numpy", "numpy"), ("onnxruntime", "ONNX Runtime (CPU)")):
        if any(key in p for pts in peers.values() for p in pts):
            legend.append((text, key))
    x = 10
    for text, key in legend:
        curve(out, key, [(x, 48), (x + 12, 48), (x + 24, 48)] if STYLE[key][1] else [(x, 48), (x + 24, 48)])
        out.append(f'<text x="{x + 28}" y="52" font-size="11">{text}</text>')
        x += 52 + 6.6 * len(text)
    for i, (name, pts) in enumerate(series.items()):
        r, c = divmod(i, cols)
        panel(out, name, pts, peers.get(name, []), mx + c * (pw + mx), 70 + r * (ph + my), pw, ph, tmin, tmax)
    out.append("</svg>")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"{dst}: {len(series)} series from {src}")


if __name__ == "__main__":
    main(sys.argv)
