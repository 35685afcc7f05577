#!/usr/bin/env bash
# The whole Rust test suite (unit, integration and doc tests) with the library and the tests
# compiled with AddressSanitizer (and LeakSanitizer, on by default with it).
#
#   scripts/check_asan_rust.sh [<source dir> [<build dir>]]
#
# `-Zsanitizer=address` is unstable; the stable toolchain ships the sanitizer runtimes and accepts
# it with RUSTC_BOOTSTRAP=1, as the fuzz build does. `--target <host>` keeps build scripts and
# proc-macros (which run inside cargo, not in the tests) uninstrumented. The target directory
# is <build dir>/asan-cargo, shared with scripts/check_sanitizers.sh's instrumented library.
# Any report is a failure (ASan aborts the test binary). See docs/robustness.md.
#
# ctest: tier check, timeout 1200, locks asan-cargo
set -euo pipefail
# shellcheck source=scripts/test_log.sh
. "$(dirname "$0")/test_log.sh"

src=$(cd "${1:-.}" && pwd)
build=$(mkdir -p "${2:-$src/build}" && cd "${2:-$src/build}" && pwd)
cd "$src"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
    x86_64-unknown-linux-gnu | aarch64-unknown-linux-gnu) ;;
    *) echo "SKIP: rustc's AddressSanitizer is not set up here for $host"; exit 77 ;;
esac

start=$SECONDS
export RUSTC_BOOTSTRAP=1
export RUSTFLAGS="-Zsanitizer=address"
export RUSTDOCFLAGS="-Zsanitizer=address"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1"
echo "== cargo test --release with -Zsanitizer=address (target dir $build/asan-cargo)"
set +e
cargo test --release --target "$host" --target-dir "$build/asan-cargo" >"$build/asan-rust.log" 2>&1
status=$?
set -e
dmls_test_summary "$build/asan-rust.log" '^(     Running|   Doc-tests)|AddressSanitizer|LeakSanitizer'
passed=$(grep -c '^test result: ok' "$build/asan-rust.log" || true)
if grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer' "$build/asan-rust.log"; then
    echo "FAIL: a sanitizer report (full log: $build/asan-rust.log):"
    grep -A40 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer' "$build/asan-rust.log" | head -n 80
    status=1
fi
echo "asan-rust: $passed test binaries passed under AddressSanitizer in $((SECONDS - start)) s"
if [ "$status" -ne 0 ]; then
    echo "0 passed, 1 failed"
    exit 1
fi
echo "1 passed, 0 failed"
