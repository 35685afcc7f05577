#!/usr/bin/env python3
"""Checks runs of the threads benchmark against the many-core targets, best of the runs per point.

    cargo bench --bench kernels -- threads      # one run; DMLS_THREADS_CSV=FILE names its CSV
    cargo bench --bench kernels -- oversub      # four processes against one; keep its output
    python3 scripts/threads_targets.py RUN.csv [RUN.csv ...] [--oversub OUT.txt ...]
                                       [--best BEST.csv]

Every run must come from the same machine. For each point (series, size) and device the fastest
of the runs is kept (the method of the targets: interference only slows a run down); --best
writes that table in the benchmark's own CSV format. The bound of a point is the fastest hot
`memcpy` over the thread counts measured. Standard library only.

The targets (default device, NONZERO_COORDINATES f32 at both densities, UINT8 d=0.1,
DIAGONAL_MATRIX1 upper and identity):

- default / bound: NonZero f32 <= 3 from 2^18 elements and <= 1.5 from 2^23; UINT8 <= 4 and
  <= 2; upper and identity <= 2 from 2^18 and <= 1.2 from 2^22;
- at 2^24, every series at least 8x faster than one thread, or within 1.2x of the bound;
- default / one thread <= 1.05 at every size measured (run the benchmark with
  DMLS_CURVE_MIN_LOG2=8 to cover 2^8 on);
- a device with a pool of its own of as many threads as the cores within 1.10 of the default
  device (which shares the process-wide pool of as many threads), from 2^16 on;
- with --oversub, four processes at once keep >= 0.75 of one process's throughput at every
  size (each file is one run of `oversub`; each run is checked). Two INFO lines follow, not
  targets: four processes given their shares by hand against one alone (what the machine
  allows), and the automatic shares against those.

Prints a table per series and one line per target, PASS or FAIL with the worst point (NONE
where no point was measured); exits 0 (1 with this text on a wrong command line).
"""

import csv
import re
import sys
from collections import OrderedDict

NONZERO_F32 = ("nonzero f32 d=0.5", "nonzero f32 d=0.01")
UINT8 = ("nonzero u8 d=0.1",)
DIAG = ("diag1 f32 upper", "diag1 f32 identity")

# (series, from log2, at most default / bound)
BOUND_TARGETS = (
    [(s, 18, 3.0) for s in NONZERO_F32]
    + [(s, 23, 1.5) for s in NONZERO_F32]
    + [(s, 18, 4.0) for s in UINT8]
    + [(s, 23, 2.0) for s in UINT8]
    + [(s, 18, 2.0) for s in DIAG]
    + [(s, 22, 1.2) for s in DIAG]
)


def read_run(path):
    """The run's CPU line and its rows: {(series, elements): {column: seconds}}, columns in order."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    cpu = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("#") else ""
    body = [l for l in lines if not l.startswith("#")]
    reader = csv.DictReader(body)
    columns = reader.fieldnames
    rows = OrderedDict()
    for r in reader:
        try:
            row = {"bytes": int(r["bytes"])}
            for c in columns[3:]:
                row[c] = float(r[c])
            rows[(r["series"], int(r["elements"]))] = row
        except (TypeError, ValueError):
            print(f"warning: {path}: an incomplete row skipped: {r}")
    return cpu, columns, rows


def best_of(runs):
    """Per point and column, the fastest of the runs that measured it."""
    cpu, columns, best = runs[0]
    best = OrderedDict((k, dict(v)) for k, v in best.items())
    for other_cpu, other_columns, rows in runs[1:]:
        if other_columns != columns:
            sys.exit("threads_targets: the runs measured different thread counts")
        if other_cpu != cpu:
            print(f"warning: runs from different CPUs: {cpu!r} and {other_cpu!r}")
        for key, row in rows.items():
            if key not in best:
                best[key] = dict(row)
                continue
            for c, v in row.items():
                if c != "bytes":
                    best[key][c] = min(best[key][c], v)
    # In the benchmark's order (series as first met, sizes ascending), whichever run a point
    # first came from.
    series = list(OrderedDict.fromkeys(s for s, _ in best))
    order = sorted(best, key=lambda k: (series.index(k[0]), k[1]))
    return cpu, columns, OrderedDict((k, best[k]) for k in order)


def thread_counts(columns):
    return [int(m.group(1)) for c in columns if (m := re.fullmatch(r"seconds_(\d+)thread", c))]


def log2(n):
    return n.bit_length() - 1


def write_best(path, cpu, columns, best, runs):
    with open(path, "w", newline="") as f:
        f.write(f"# {cpu} (fastest of {runs} runs per point)\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for (series, elements), row in best.items():
            w.writerow(
                [series, elements, row["bytes"]] + [f"{row[c]:.4e}" for c in columns[3:]]
            )


def read_oversub(path):
    """{log2: (aggregate / alone, by hand / alone or None, automatic / by hand or None)} of one
    run of `kernels oversub` (the by-hand line follows its size's line)."""
    found, size = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"2\^(\d+):.*aggregate / alone ([0-9.]+)", line)
            if m:
                size = int(m.group(1))
                found[size] = (float(m.group(2)), None, None)
                continue
            m = re.match(r"\s+by hand:.* ([0-9.]+) of alone; automatic / by hand ([0-9.]+)", line)
            if m and size in found:
                found[size] = (found[size][0], float(m.group(1)), float(m.group(2)))
    return found


class Check:
    def __init__(self, name):
        self.name = name
        self.worst = None  # (excess, text)
        self.points = 0
        self.failed = 0

    def add(self, excess, text):
        """excess > 1 fails; the worst (largest) is reported."""
        self.points += 1
        if excess > 1.0:
            self.failed += 1
        if self.worst is None or excess > self.worst[0]:
            self.worst = (excess, text)

    def line(self):
        if self.points == 0:
            return f"NONE  {self.name}: no point measured"
        verdict = "FAIL" if self.failed else "PASS"
        return (
            f"{verdict}  {self.name}: {self.failed} of {self.points} points fail; "
            f"worst {self.worst[1]}"
        )


def main(argv):
    csvs, oversubs, best_path = [], [], None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--oversub", "--best") and i + 1 == len(argv):
            sys.exit(__doc__)
        if a == "--oversub":
            oversubs.append(argv[i + 1])
            i += 2
        elif a == "--best":
            best_path = argv[i + 1]
            i += 2
        elif a.startswith("-"):
            sys.exit(__doc__)
        else:
            csvs.append(a)
            i += 1
    if not csvs and not oversubs:
        sys.exit(__doc__)
    checks = []
    if csvs:
        cpu, columns, best = best_of([read_run(p) for p in csvs])
        counts = thread_counts(columns)
        cores = max(counts)
        print(f"{cpu}; fastest of {len(csvs)} run(s) per point; thread counts {counts}")
        if best_path:
            write_best(best_path, cpu, columns, best, len(csvs))
            print(f"best of the runs written to {best_path}")
        bound_checks = OrderedDict()
        for s, k, limit in BOUND_TARGETS:
            bound_checks[(s, k)] = (Check(f"{s}: default / bound <= {limit} from 2^{k}"), limit)
        at24 = Check("2^24: one thread / default >= 8, or default / bound <= 1.2")
        vs_one = Check("default / one thread <= 1.05 at every size")
        own = Check(f"own pool of {cores} threads / default <= 1.10 from 2^16")
        last_series = None
        for (series, elements), row in best.items():
            if series != last_series:
                print(f"\n{series}")
                print(f"  {'size':>6} {'default':>11} {'bound':>11} {'/bound':>7} {'/1 thr':>7} "
                      f"{'1 thr/':>7} {'own/def':>7}")
                last_series = series
            k = log2(elements)
            default = row["seconds_default"]
            one = row["seconds_1thread"]
            mine = row[f"seconds_{cores}thread"]
            bound = min(row[f"hot_memcpy_{n}thread"] for n in counts)
            over_bound, over_one, speedup = default / bound, default / one, one / default
            print(f"  {'2^' + str(k):>6} {default:11.4e} {bound:11.4e} {over_bound:7.2f} "
                  f"{over_one:7.2f} {speedup:7.2f} {mine / default:7.2f}")
            at = f"{series} 2^{k}"
            for (s, frm), (check, limit) in bound_checks.items():
                if s == series and k >= frm:
                    check.add(over_bound / limit, f"{over_bound:.2f} ({at})")
            if k == 24:
                excess = min(8.0 / speedup, over_bound / 1.2)
                at24.add(excess, f"{speedup:.2f}x, {over_bound:.2f} of the bound ({at})")
            vs_one.add(over_one / 1.05, f"{over_one:.2f} ({at})")
            if k >= 16:
                own.add(mine / default / 1.10, f"{mine / default:.2f} ({at})")
        checks += [c for c, _ in bound_checks.values()] + [at24, vs_one, own]
    # Not targets: four processes given their shares of the CPUs by hand bound what the
    # automatic shares can reach (where four working sets outgrow the last-level cache, for
    # instance, they fall below 0.75 however the CPUs are shared).
    by_hand, auto = {}, {}
    if oversubs:
        over = Check("four processes / one alone >= 0.75 (each run, each size)")
        for path in oversubs:
            for k, (ratio, hand, a) in sorted(read_oversub(path).items()):
                over.add(0.75 / ratio if ratio > 0 else float("inf"), f"{ratio:.2f} (2^{k}, {path})")
                if hand is not None:
                    by_hand.setdefault(k, []).append(hand)
                    auto.setdefault(k, []).append(a)
        checks.append(over)
    print()
    for c in checks:
        print(c.line())

    def ranges(d):
        return "; ".join(f"2^{k} {min(v):.2f}-{max(v):.2f}" for k, v in sorted(d.items()))

    if by_hand:
        print(f"INFO  four processes given their shares by hand / one alone: {ranges(by_hand)}")
        print(f"INFO  four processes, automatic shares / shares by hand: {ranges(auto)}")


if __name__ == "__main__":
    main(sys.argv[1:])
