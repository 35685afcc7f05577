#!/usr/bin/env bash
# Prepares the kernel benchmark for a machine that has no Rust (a many-core server borrowed for a
# measurement): builds it here and writes target/carry/ with
#
#   kernels             the benchmark's executable (needs only the C library)
#   kernels-trace       the same with the library's timestamps (`--features trace`), for its
#                       `trace` mode
#   idle                the test that a process uses no CPU after the hot window
#   kernels-base        with a BASE commit: the same benchmark built from that commit, to
#                       measure a change against it on the same machine in the same call
#   kernels-NAME        with more commits after BASE (variants to choose between): each one's
#                       benchmark, NAME its branch or tag name, else its short hash; or, for a
#                       file NAME.patch (benches/variants/), this commit with that patch;
#                       trace-base, trace-NAME: the same with `--features trace`, where that
#                       commit has the feature; builds.txt: each NAME and its commit
#   threads_targets.py  checks the runs against the many-core targets (Python 3, standard library)
#   threads_compare.py  with a BASE: each build's default device over the base's, per point
#   run.sh              runs, within DMLS_CARRY_SECONDS (default 480) and in this order while
#                       time is left: `kernels threads` from 2^8 elements (run 1), `kernels
#                       oversub` (run 1), the idle test, `kernels bare` (the bare AVX-512
#                       loops, about 1 s), `kernels isa` (one thread's NonZero at AVX-512 and
#                       AVX2, about 40 s), `kernels cold`, `kernels-trace trace` (the library's
#                       choice, then DMLS_PARALLEL=always), `kernels threads` (runs 2 to 4), the
#                       same with DMLS_PARALLEL=always (the parallel paths' own cost beside the
#                       library's choice), `kernels oversub` (run 2); then the targets' check,
#                       best of the threads runs per point. With kernels-base (and variants):
#                       three rounds of `threads` runs, one of each build per round, then one
#                       `oversub` of each, a `cold` of this build and of the base, the idle
#                       test, `kernels bare`, `kernels isa`, a `trace` of each build that has one, and a
#                       check of each.
#                       Everything goes, after each step,
#                       into $OUT/results.tar.gz (default: target/carry/out; one file, since a
#                       borrowed machine may send back only a few): threads-N.csv/.txt,
#                       threads-best.csv, threads-forced.*, oversub-N.txt, cold.csv/.txt,
#                       trace.csv/.txt, trace-forced.csv/.txt,
#                       bare.txt, isa.csv/.txt, targets.txt (the same with -base or -NAME for the other builds),
#                       compare.txt (with a base: each build's default device over the base's),
#                       idle.txt, machine.txt, steps.txt (each step's seconds). The `threads`
#                       runs start at 2^8 elements, or at DMLS_CURVE_MIN_LOG2, and end at
#                       DMLS_CURVE_MAX_LOG2 (26): a comparison of several builds fits the time
#                       better between, say, 2^14 and 2^22.
#
#   scripts/bench_carry.sh [BASE [COMMIT|PATCH...]]   BASE: a commit to build kernels-base from;
#                                               COMMIT: variants built beside it; PATCH: a
#                                               NAME.patch file, this commit with it applied
#
# Then, on the other machine, from a copy of the tree that holds target/carry/:
#   bash target/carry/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
exe=$(cargo bench --bench kernels --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*kernels-[^"]*\)".*/\1/p' | tail -n1)
[ -x "$exe" ] || { echo "bench_carry: no benchmark executable built" >&2; exit 1; }
rm -rf target/carry
mkdir -p target/carry
cp "$exe" target/carry/kernels
# (In a target directory of its own: built with the feature in target/, the library would
# replace target/release's.)
trace_exe=$(cargo bench --bench kernels --features trace --target-dir target/trace --no-run \
        --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*kernels-[^"]*\)".*/\1/p' | tail -n1)
[ -x "$trace_exe" ] || { echo "bench_carry: no traced benchmark built" >&2; exit 1; }
cp "$trace_exe" target/carry/kernels-trace
idle=$(cargo test --release --test idle --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*idle-[^"]*\)".*/\1/p' | tail -n1)
[ -x "$idle" ] || { echo "bench_carry: no idle test built" >&2; exit 1; }
cp "$idle" target/carry/idle
cp scripts/threads_targets.py scripts/threads_compare.py target/carry/
# build_at COMMIT NAME [PATCH]: the benchmark at COMMIT (with PATCH applied, when given) as
# target/carry/kernels-NAME, and with the trace feature as target/carry/trace-NAME where that
# commit has it.
build_at() {
    local commit=$1 name=$2 patch=${3:-} tree exe
    tree=$(mktemp -d)
    git worktree add -q --detach "$tree" "$commit"
    if [ -n "$patch" ] && ! git -C "$tree" apply "$patch"; then
        git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
        echo "bench_carry: $patch does not apply at $commit" >&2
        exit 1
    fi
    exe=$( (cd "$tree" && CARGO_TARGET_DIR="$root/target/carry-build" \
        cargo bench --bench kernels --no-run --message-format=json \
            2>"$root/target/carry-build-$name.log" || true) |
        sed -n 's/.*"executable":"\([^"]*kernels-[^"]*\)".*/\1/p' | tail -n1)
    if [ -x "$exe" ]; then
        cp "$exe" "target/carry/kernels-$name"
        exe=$( (cd "$tree" && CARGO_TARGET_DIR="$root/target/carry-build-trace" \
            cargo bench --bench kernels --features trace --no-run --message-format=json \
                2>>"$root/target/carry-build-$name.log" || true) |
            sed -n 's/.*"executable":"\([^"]*kernels-[^"]*\)".*/\1/p' | tail -n1)
        if [ -x "$exe" ]; then cp "$exe" "target/carry/trace-$name"; fi
    fi
    git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
    [ -x "target/carry/kernels-$name" ] || {
        echo "bench_carry: no benchmark built at $commit (see target/carry-build-$name.log)" >&2
        exit 1
    }
    echo "$name $commit${patch:+ + ${patch#"$root"/}}" >> target/carry/builds.txt
}
if [ $# -ge 1 ]; then
    build_at "$(git rev-parse --verify "$1^{commit}")" base
    shift
    for ref in "$@"; do
        if [ -f "$ref" ] && [[ "$ref" == *.patch ]]; then
            # A variant kept as a patch (benches/variants/): this commit with it applied.
            name=$(basename "$ref" .patch | tr -c 'A-Za-z0-9._\n-' '_')
            build_at "$(git rev-parse HEAD)" "$name" "$(cd "$(dirname "$ref")" && pwd)/$(basename "$ref")"
            continue
        fi
        commit=$(git rev-parse --verify "$ref^{commit}")
        name=$(git rev-parse --abbrev-ref "$ref" 2>/dev/null | tr -c 'A-Za-z0-9._\n-' '_')
        case "$name" in ""|HEAD|base|trace|forced|"$commit") name=$(git rev-parse --short "$commit") ;; esac
        build_at "$commit" "$name"
    done
fi
cat > target/carry/run.sh <<'RUN'
#!/usr/bin/env bash
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
final=${OUT:-$here/out}
out=$(mktemp -d)
budget=${DMLS_CARRY_SECONDS:-480}
mkdir -p "$final"
pack() { tar -C "$out" -czf "$final/results.tar.gz" .; }
# The CPU, and what decides where woken threads run: the kernel, its scheduler parameters
# (a virtual machine's kernel may pack threads onto few CPUs), a CPU quota, the CPUs allowed;
# and the clock source (the library reads the clock around executions: a source the vDSO
# cannot read, such as hpet or acpi_pm, costs a system call per read); CPU 0's caches and the
# CPUs sharing each (NONZERO's slots are sized from the L2's share per CPU).
{ nproc; grep -m1 'model name' /proc/cpuinfo; grep -m1 'cpu family' /proc/cpuinfo;
  grep -m1 '^model' /proc/cpuinfo; echo "kernel $(uname -r)";
  echo "sched: $(tr ' ' '\n' < /proc/cmdline | grep -i -e sched -e isolcpus -e nohz -e idle | tr '\n' ' ')";
  echo "cpu.max: $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo none)";
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)";
  grep -m1 Cpus_allowed_list /proc/self/status;
  for c in /sys/devices/system/cpu/cpu0/cache/index*; do
      [ -d "$c" ] || continue
      echo "cache L$(cat "$c/level") $(cat "$c/type") $(cat "$c/size") shared by CPUs $(cat "$c/shared_cpu_list")"
  done 2>/dev/null; } > "$out/machine.txt"
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
    pack
}
threads() {  # threads EXE RUN
    DMLS_CURVE_MIN_LOG2=${DMLS_CURVE_MIN_LOG2:-8} DMLS_THREADS_CSV="$out/threads$2.csv" \
        "$here/$1" threads > "$out/threads$2.txt" 2>&1
}
forced() {
    DMLS_PARALLEL=always DMLS_CURVE_MIN_LOG2=${DMLS_CURVE_MIN_LOG2:-8} \
        DMLS_THREADS_CSV="$out/threads-forced.csv" \
        "$here/kernels" threads > "$out/threads-forced.txt" 2>&1
}
oversub() { "$here/$1" oversub > "$out/oversub$2.txt" 2>&1; }  # oversub EXE RUN
cold() { DMLS_COLD_CSV="$out/cold$2.csv" "$here/$1" cold > "$out/cold$2.txt" 2>&1; }  # cold EXE SUFFIX
idle() { "$here/idle" --nocapture > "$out/idle.txt" 2>&1; }
bare() { "$here/kernels" bare > "$out/bare.txt" 2>&1; }  # one thread's AVX-512 floor, about 1 s
# One thread's NonZero at AVX-512 and at AVX2 side by side (whether the dispatch, measured on
# AMD, holds on this CPU), about 40 s.
isa() {
    DMLS_ISA_LEVELS=avx512,avx2 DMLS_ISA_SERIES=nonzero DMLS_ISA_CSV="$out/isa.csv" \
        "$here/kernels" isa > "$out/isa.txt" 2>&1
}
trace() {  # trace SUFFIX [ENV...]: the steps of parallel executions (of trace-NAME for -NAME)
    local suffix=$1 exe=kernels-trace; shift
    case "$suffix" in -forced|"") ;; *) exe=trace$suffix ;; esac
    [ -x "$here/$exe" ] || return 0
    env "$@" DMLS_TRACE_CSV="$out/trace$suffix.csv" "$here/$exe" trace \
        > "$out/trace$suffix.txt" 2>&1
}
shopt -s nullglob
check() {  # check SUFFIX: the targets of threads-N$SUFFIX.csv and oversub-N$SUFFIX.txt
    local args=("$out"/threads-[0-9]"$1".csv) f
    for f in "$out"/oversub-[0-9]"$1".txt; do args+=(--oversub "$f"); done
    if [ ${#args[@]} -eq 0 ]; then
        echo "no run finished" > "$out/targets$1.txt"
        return
    fi
    python3 "$here/threads_targets.py" "${args[@]}" --best "$out/threads-best$1.csv" \
        > "$out/targets$1.txt" 2>&1
}
if [ -f "$here/builds.txt" ]; then
    # This build ("") and the others (-base, -NAME), alternating.
    others=$(cut -d' ' -f1 "$here/builds.txt")
    for n in 1 2 3; do
        step "threads run $n" threads kernels "-$n"
        for b in $others; do step "threads run $n ($b)" threads "kernels-$b" "-$n-$b"; done
    done
    step "oversub run 1" oversub kernels -1
    for b in $others; do step "oversub run 1 ($b)" oversub "kernels-$b" "-1-$b"; done
    step "cold" cold kernels ""
    step "cold (base)" cold kernels-base -base
    step "idle" idle
    step "bare" bare
    step "isa" isa
    step "trace" trace ""
    for b in $others; do step "trace ($b)" trace "-$b"; done
    check ""
    echo "== this build"; grep '^\(PASS\|FAIL\|NONE\|no run\)' "$out/targets.txt"
    while read -r b commit; do
        check "-$b"
        echo "== $b ($commit)"
        grep '^\(PASS\|FAIL\|NONE\|no run\)' "$out/targets-$b.txt"
    done < "$here/builds.txt"
    # Each build against the base, point by point (the fastest run of each).
    tables=("$out/threads-best-base.csv" "$out/threads-best.csv") names=base,this
    for b in $others; do
        if [ "$b" != base ]; then tables+=("$out/threads-best-$b.csv") names+=",$b"; fi
    done
    if [ -f "${tables[0]}" ] && [ -f "${tables[1]}" ]; then
        python3 "$here/threads_compare.py" "${tables[@]}" --names "$names" \
            > "$out/compare.txt" 2>&1
        tail -n 20 "$out/compare.txt"
    fi
else
    step "threads run 1" threads kernels -1
    step "oversub run 1" oversub kernels -1
    step "idle" idle
    step "bare" bare
    step "isa" isa
    step "cold" cold kernels ""
    step "trace" trace ""
    step "trace forced" trace -forced DMLS_PARALLEL=always
    for n in 2 3 4; do step "threads run $n" threads kernels "-$n"; done
    step "threads forced" forced
    step "oversub run 2" oversub kernels -2
    check ""
    cat "$out/targets.txt"
fi
pack
# (The steps that did not fit in the time left have no file.)
if [ -f "$out/idle.txt" ]; then grep -h -e "test result" -e "^pools of" "$out/idle.txt" || true; fi
for f in "$out"/oversub-*.txt "$out"/cold*.txt "$out"/trace*.txt; do if [ -f "$f" ]; then cat "$f"; fi; done
echo "everything is in $final/results.tar.gz"
RUN
chmod +x target/carry/run.sh
echo "target/carry/ is ready: $(du -sh target/carry | cut -f1); run target/carry/run.sh there"
