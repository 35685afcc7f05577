#!/usr/bin/env bash
# Prepares the kernel benchmark for a machine that has no Rust (a many-core server lent for a
# measurement): builds it here and writes target/carry/ with
#
#   kernels             the benchmark's executable (needs only the C library)
#   threads_targets.py  checks the runs against the many-core targets (Python 3, standard library)
#   run.sh              runs, within DMLS_CARRY_SECONDS (default 480) and in this order while
#                       time is left: `kernels threads` from 2^8 elements (run 1), `kernels
#                       oversub` (run 1), `kernels threads` (runs 2 to 4), the same with
#                       DMLS_PARALLEL=always (the parallel paths' own cost beside the library's
#                       choice), `kernels oversub` (run 2); then the targets' check, best of the
#                       threads runs per point. Everything goes under $OUT (default:
#                       target/carry/out): threads-N.csv/.txt, threads-best.csv, threads-forced.*,
#                       oversub-N.txt, targets.txt, machine.txt, steps.txt (each step's seconds).
#
# Then, on the other machine, from a copy of the tree that holds target/carry/:
#   bash target/carry/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
exe=$(cargo bench --bench kernels --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*kernels-[^"]*\)".*/\1/p' | tail -n1)
[ -x "$exe" ] || { echo "bench_carry: no benchmark executable built" >&2; exit 1; }
mkdir -p target/carry
cp "$exe" target/carry/kernels
cp scripts/threads_targets.py target/carry/
cat > target/carry/run.sh <<'RUN'
#!/usr/bin/env bash
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
budget=${DMLS_CARRY_SECONDS:-480}
mkdir -p "$out"
{ nproc; grep -m1 'model name' /proc/cpuinfo; grep -m1 'cpu family' /proc/cpuinfo;
  grep -m1 '^model' /proc/cpuinfo; } > "$out/machine.txt"
t0=$(date +%s)
longest=0
# step NAME CMD...: runs CMD if the longest step so far still fits in the budget.
step() {
    local name=$1; shift
    local now; now=$(date +%s)
    if (( now - t0 + longest > budget )); then
        echo "$name skipped: $((now - t0)) s of $budget used" | tee -a "$out/steps.txt"
        return
    fi
    "$@"
    local took=$(( $(date +%s) - now ))
    (( took > longest )) && longest=$took
    echo "$name: $took s" | tee -a "$out/steps.txt"
}
threads() {
    DMLS_CURVE_MIN_LOG2=8 DMLS_THREADS_CSV="$out/threads-$1.csv" "$here/kernels" threads \
        > "$out/threads-$1.txt" 2>&1
}
forced() {
    DMLS_PARALLEL=always DMLS_CURVE_MIN_LOG2=8 DMLS_THREADS_CSV="$out/threads-forced.csv" \
        "$here/kernels" threads > "$out/threads-forced.txt" 2>&1
}
oversub() { "$here/kernels" oversub > "$out/oversub-$1.txt" 2>&1; }
step "threads run 1" threads 1
step "oversub run 1" oversub 1
for n in 2 3 4; do step "threads run $n" threads $n; done
step "threads forced" forced
step "oversub run 2" oversub 2
runs=$(ls "$out"/threads-[0-9].csv 2>/dev/null)
overs=$(for f in "$out"/oversub-[0-9].txt; do [ -f "$f" ] && echo --oversub "$f"; done)
# shellcheck disable=SC2086
python3 "$here/threads_targets.py" $runs $overs --best "$out/threads-best.csv" \
    > "$out/targets.txt" 2>&1
cat "$out/targets.txt" "$out"/oversub-[0-9].txt
RUN
chmod +x target/carry/run.sh
echo "target/carry/ is ready: $(du -sh target/carry | cut -f1); run target/carry/run.sh there"
