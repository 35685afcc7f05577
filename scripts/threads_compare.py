#!/usr/bin/env python3
"""Compares builds' `threads` tables (the fastest run per point of each, as
`threads_targets.py --best` writes them): per series and size, each build's default device
over the first build's, and each build's default device over its own hot floor.

    python3 scripts/threads_compare.py BASE.csv OTHER.csv [OTHER.csv ...] [--names A,B,...]

The names default to the files' names. The last lines give, per series and build, the geometric
mean of its time over the first build's from 2^16 elements (the sizes the parallel paths run).
Python 3, standard library only (it runs on the machines `scripts/bench_carry.sh` carries it to).
"""

import csv
import math
import os
import sys


def load(path):
    """{(series, elements): (default seconds, hot floor seconds)} of one `threads` table."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    head, rows = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(head)}
    hot = [i for name, i in col.items() if name.startswith("hot_memcpy_")]
    table = {}
    for r in rows:
        floor = min(float(r[i]) for i in hot if r[i])
        table[(r[0], int(r[1]))] = (float(r[col["seconds_default"]]), floor)
    return table


def main(argv):
    names = None
    if "--names" in argv:
        i = argv.index("--names")
        names = argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2 :]
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    names = names or [os.path.basename(p).removesuffix(".csv") for p in argv]
    if len(names) != len(argv):
        print("threads_compare: one name per table", file=sys.stderr)
        return 2
    tables = [load(p) for p in argv]
    base = tables[0]
    print(
        "default device over "
        + names[0]
        + "'s (and over its own hot floor), fastest run per point"
    )
    print(
        f"{'series':22} {'size':>5} {names[0] + ' /floor':>16}"
        + "".join(f" {n + ' /base':>16} {'/floor':>7}" for n in names[1:])
    )
    logs = {}
    for key in sorted(base, key=lambda k: (k[0], k[1])):
        series, m = key
        d0, f0 = base[key]
        line = f"{series:22} 2^{m.bit_length() - 1:<3} {d0 / f0:16.2f}"
        for n, t in zip(names[1:], tables[1:]):
            if key not in t:
                line += f" {'-':>16} {'-':>7}"
                continue
            d, f = t[key]
            line += f" {d / d0:16.3f} {d / f:7.2f}"
            if m >= 1 << 16:
                logs.setdefault((series, n), []).append(math.log(d / d0))
        print(line)
    print()
    print("geometric mean of the time over " + names[0] + "'s, from 2^16 elements")
    for (series, n), v in sorted(logs.items()):
        print(f"{series:22} {n:>16} {math.exp(sum(v) / len(v)):7.3f} ({len(v)} sizes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
