#!/usr/bin/env bash
# Runs the C/C++ tests (c_tests/test_*.c, test_*.cpp) and the Rust integration tests that
# finish in reasonable time under Valgrind memcheck: no memory error and no definite leak.
#
#   scripts/check_valgrind.sh [<source dir> [<build dir>]]
#
# Rust tests run from release builds (`cargo test --release`, as ctest's cargo_test builds
# them, in its target directory <build dir>/cargo/test): tests/panic.rs, tests/edges/ and
# tests/concurrency.rs (DMLS_STRESS_SCALE=1).
# Valgrind serialises threads, so the concurrency tests still interleave operators across
# threads, but never truly in parallel; --fair-sched=yes makes it hand the CPU round in turn,
# so a thread that loops until another thread acts (tests/concurrency.rs's
# release_the_device_while_its_operators_run, test_fork's busy thread) cannot starve that other
# thread (with Valgrind's default scheduler it can, for many minutes). Each program gets
# $DMLS_VALGRIND_TIMEOUT seconds (default 300; the slowest, test_fork, takes about 30 s), then it fails as
# hung and is killed (SIGTERM, SIGKILL 10 s later: a starved program does not act on SIGTERM).
# Suppressions: scripts/valgrind.supp (each one says why). See docs/robustness.md.
#
# ctest: tier check, timeout 1200
set -euo pipefail
. "$(dirname "$0")/c_test_programs.sh"
# shellcheck source=scripts/lock.sh
. "$(dirname "$0")/lock.sh"
check_dirs valgrind "$@"

target_dir="${CARGO_TARGET_DIR:-$build/cargo}"
limit="${DMLS_VALGRIND_TIMEOUT:-300}"
start=$SECONDS

if ! command -v valgrind >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing valgrind with apt-get"
    dmls_apt_install valgrind || true
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind is not installed and cannot be installed here"
    exit 77
fi

vg=(valgrind --tool=memcheck --fair-sched=yes --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite --show-leak-kinds=definite
    --suppressions="$src/scripts/valgrind.supp" --num-callers=30)

# The tests' build in a directory of its own, as ctest's cargo_test has it (cmake/RustTests.cmake:
# a build with the test-only feature in the library's directory would replace the library's).
test_dir="$target_dir/test"
echo "== cargo build --release --lib (target dir $target_dir); cargo test --release --no-run (target dir $test_dir)"
CARGO_TARGET_DIR="$target_dir" cargo build --release --lib --quiet
lib="$target_dir/release/libdirectml_subset.a"
rust_tests=(panic edges concurrency)
test_args=()
for t in "${rust_tests[@]}"; do test_args+=(--test "$t"); done
CARGO_TARGET_DIR="$test_dir" cargo test --release --no-run --quiet "${test_args[@]}" \
    --message-format=json >"$out/cargo-tests.json"

passed=0
failed=0
failures=()
# run NAME COMMAND...: runs COMMAND under memcheck from $out, for at most $limit seconds.
run() {
    local name=$1
    shift
    local t0=$SECONDS status=0
    (cd "$out" && exec timeout --kill-after=10 "$limit" "${vg[@]}" --log-file="$out/$name.vg.log" "$@") \
        >"$out/$name.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        echo "ok   $name ($((SECONDS - t0)) s)"
        passed=$((passed + 1))
    else
        if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
            echo "FAIL $name: still running after $limit s under Valgrind (hung?): killed"
        fi
        echo "FAIL $name (logs: $out/$name.vg.log, $out/$name.log)"
        tail -n 60 "$out/$name.vg.log"
        tail -n 20 "$out/$name.log"
        failed=$((failed + 1))
        failures+=("$name")
    fi
}

flags=(-g -O1 -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests")
libs=("$lib" -lpthread -ldl -lm)
for test_src in $(c_test_sources); do
    name=$(c_test_name "$test_src")
    exe="$out/$name"
    c_test_build "$test_src" "$exe"
    if [ "$name" = test_fork ]; then
        # Forked children inherit blocks that only the parent's other threads (which do not
        # exist in a child: the busy test thread, the parent's worker pools, left alone by
        # design) referred to, so memcheck calls them lost when a child exits. Memory errors
        # still fail, in the parent and in every child (the child's exit code becomes 99 and
        # the parent counts that). Leaks are not checked for test_fork anywhere (the sanitizer
        # check leaves it out); the other C tests check the same paths without a fork.
        vg_saved=("${vg[@]}")
        vg+=(--errors-for-leak-kinds=none)
        run "$name" "$exe"
        vg=("${vg_saved[@]}")
    else
        run "$name" "$exe"
    fi
done

for t in "${rust_tests[@]}"; do
    exe=$(python3 - "$out/cargo-tests.json" "$t" <<'PY'
import json, sys
path, name = sys.argv[1], sys.argv[2]
for line in open(path):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") \
            and m["target"]["name"] == name and "test" in m["target"]["kind"]:
        print(m["executable"])
PY
)
    if [ -z "$exe" ]; then
        echo "FAIL rust:$t: no test executable found"
        failed=$((failed + 1))
        failures+=("rust:$t")
        continue
    fi
    # One test thread keeps Valgrind's output readable; the tests start their own threads.
    DMLS_STRESS_SCALE=1 run "rust_$t" "$exe" --test-threads=2
done

echo "valgrind: memcheck over $((passed + failed)) programs in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
