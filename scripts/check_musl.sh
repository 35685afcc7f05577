#!/usr/bin/env bash
# The library on musl libc, the C library of Alpine Linux and of fully static Rust programs:
# the whole Rust suite (`cargo test --release --lib --tests`: the unit and integration tests,
# the kernels at every SIMD level) built for x86_64-unknown-linux-musl and run here natively,
# then every C and C++ test program (c_tests/test_*.c, test_*.cpp, test_fork included) linked
# statically against that target's static library by Zig's compilers for x86_64-linux-musl,
# which bring their own musl, libunwind and libc++, and run. Rust's musl target leaves the
# unwinder to the final link (`--print native-static-libs`: -lunwind -lc), so the programs
# link with -lunwind.
#
#   scripts/check_musl.sh [<source dir> [<build dir>]]
#
# Needs an x86-64 Linux host, Rust's standard library for x86_64-unknown-linux-musl (`rustup
# target add x86_64-unknown-linux-musl`, done here when rustup can) and Zig, installed from
# PyPI into the virtual environment ($VIRTUAL_ENV, default .venv/) with the other tools of
# python/requirements-dist.txt, as `./dev dist` installs them. Without them it prints SKIP and
# exits 77. The target directory is <build dir>/musl-cargo; each program gets
# $DMLS_MUSL_TIMEOUT seconds (default 600 for the Rust suite, 300 for a C program).
#
# ctest: tier check, timeout 1200, locks none
set -euo pipefail
. "$(dirname "$0")/c_test_programs.sh"
. "$(dirname "$0")/cross_setup.sh"
# shellcheck source=scripts/test_log.sh
. "$(dirname "$0")/test_log.sh"
check_dirs musl "$@"

target=x86_64-unknown-linux-musl
target_dir="$build/musl-cargo"
venv="${VIRTUAL_ENV:-$src/.venv}"
start=$SECONDS

case "$(uname -m)-$(uname -s)" in
    x86_64-Linux) ;;
    *) echo "SKIP: the musl check runs on x86-64 Linux, not $(uname -m) $(uname -s)"; exit 77 ;;
esac
if ! cross_rust_std "$target"; then
    echo "SKIP: the Rust standard library for $target is not installed and rustup cannot add it"
    exit 77
fi
if ! dist_python_tools "$src" "$venv" || ! "$venv/bin/python" -m ziglang version >/dev/null 2>&1; then
    echo "SKIP: no Zig in $venv (python/requirements-dist.txt)"
    exit 77
fi
# Zig's C and C++ compilers for musl, as one word each (c_test_build calls "$CC" and "$CXX").
for tool in cc c++; do
    printf '#!/bin/sh\nexec %q -m ziglang %s -target x86_64-linux-musl "$@"\n' \
        "$venv/bin/python" "$tool" >"$out/zig-$tool"
    chmod +x "$out/zig-$tool"
done
CC=$out/zig-cc
CXX=$out/zig-c++

passed=0
failed=0
failures=()
# pass WHAT: counts a run that passed. fail WHAT WHY [LOG LINES]: counts one that failed, says
# why, and shows the last LINES of LOG.
pass() {
    echo "ok   musl: $1 ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
}
fail() {
    echo "FAIL musl: $1$2"
    if [ $# -ge 4 ]; then tail -n "$4" "$3"; fi
    failed=$((failed + 1))
    failures+=("$1")
}

# 1. The Rust suite, run natively: the target links its programs statically with musl.
echo "== cargo test --release --target $target (target dir $target_dir)"
t0=$SECONDS
status=0
timeout --kill-after=10 "${DMLS_MUSL_TIMEOUT:-600}" cargo test --release --target "$target" \
    --target-dir "$target_dir" --no-fail-fast --lib --tests >"$out/cargo-test.log" 2>&1 || status=$?
dmls_test_summary "$out/cargo-test.log"
if [ "$status" -eq 0 ] && grep -q '^test result: ok' "$out/cargo-test.log"; then
    pass "cargo test"
else
    fail "cargo test" ", exit status $status (log: $out/cargo-test.log)" "$out/cargo-test.log" 40
fi

# 2. The C and C++ test programs against the target's static library, statically linked.
cargo build --release --lib --target "$target" --target-dir "$target_dir" --quiet 2>&1 |
    grep -v -e 'dropping unsupported crate type' -e '^$' || true
lib="$target_dir/$target/release/libdirectml_subset.a"
test -f "$lib" || { echo "FAIL: no $lib"; exit 1; }
flags=(-O1 -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests")
libs=("$lib" -lunwind -lpthread -lm)
for test_src in $(c_test_sources); do
    name=$(c_test_name "$test_src")
    exe="$out/$name"
    t0=$SECONDS
    if ! c_test_build "$test_src" "$exe" >"$out/$name.build.log" 2>&1; then
        fail "$name" " does not build" "$out/$name.build.log" 20
        continue
    fi
    # Linked statically with musl: no program interpreter (a glibc loader would mean the host's
    # C library came in).
    interpreter=$(readelf -l "$exe" | grep "program interpreter" || true)
    if [ -n "$interpreter" ]; then
        fail "$name" " is not statically linked: $interpreter"
        continue
    fi
    status=0
    (cd "$out" && exec timeout --kill-after=10 "${DMLS_MUSL_TIMEOUT:-300}" "$exe") \
        >"$out/$name.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        pass "$name"
    else
        fail "$name" ", exit status $status (log: $out/$name.log)" "$out/$name.log" 30
    fi
done

echo "musl: $((passed + failed)) runs in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
