#!/usr/bin/env bash
# Builds every C and C++ test (c_tests/test_*.c, c_tests/test_*.cpp) with AddressSanitizer and
# UndefinedBehaviorSanitizer, links it against a static library that is itself compiled with
# AddressSanitizer, and runs each one.
#
#   scripts/check_sanitizers.sh [<source dir> [<build dir>]]
#
# The library is built with `-Zsanitizer=address` (unstable; the stable toolchain accepts it
# with RUSTC_BOOTSTRAP=1, as the fuzz build does) for the host target, in <build dir>/asan-cargo
# (shared with scripts/check_asan_rust.sh), so every load and store of the library's Rust code
# is checked, not only the C side's. A probe first proves that: a program hands the library a
# freed array, and ASan must report the read inside the library. UBSan checks the C side.
# See docs/robustness.md.
#
# ctest: tier check, timeout 900, locks asan-cargo
set -euo pipefail
. "$(dirname "$0")/c_test_programs.sh"
check_dirs sanitizers "$@"

host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
    x86_64-unknown-linux-gnu | aarch64-unknown-linux-gnu) ;;
    *) echo "SKIP: rustc's AddressSanitizer is not set up here for $host"; exit 77 ;;
esac
target_dir="$build/asan-cargo"

start=$SECONDS
echo "== cargo build --release --lib with -Zsanitizer=address (target dir $target_dir)"
RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zsanitizer=address" \
    cargo build --release --lib --quiet --target "$host" --target-dir "$target_dir"
lib="$target_dir/$host/release/libdirectml_subset.a"
test -f "$lib" || { echo "no $lib" >&2; exit 1; }

# Can this compiler link a sanitized program at all? (libasan/libubsan come with gcc.)
probe="$out/probe"
printf 'int main(void) { return 0; }\n' > "$probe.c"
if ! "$CC" -fsanitize=address,undefined "$probe.c" -o "$probe" 2>"$probe.log"; then
    echo "SKIP: $CC cannot build with -fsanitize=address,undefined:" >&2
    cat "$probe.log" >&2
    exit 77
fi

# The library is instrumented: a read of freed memory inside it must be reported.
cat >"$probe.c" <<'PROBE'
#include "directml_subset.h"
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    UINT *sizes = malloc(4 * sizeof(UINT));
    if (sizes == NULL) return 0;
    for (int i = 0; i < 4; ++i) sizes[i] = 2;
    free(sizes);
    printf("%llu\n", (unsigned long long)dmls_calc_buffer_tensor_size(
                         DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL));
    return 0;
}
PROBE
"$CC" -std=c11 -g -fsanitize=address -I"$src/include" "$probe.c" "$lib" -lpthread -ldl -lm \
    -o "$probe" 2>"$probe.log" || { cat "$probe.log"; echo "FAIL: the probe does not build"; exit 1; }
if "$probe" >"$probe.log" 2>&1 || ! grep -q 'heap-use-after-free' "$probe.log" \
        || ! grep -q 'directml_subset' "$probe.log"; then
    cat "$probe.log"
    echo "FAIL: the library is not instrumented (no ASan report from inside it)"
    exit 1
fi
echo "ok   probe: ASan reports a use after free inside the library"

flags=(-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
       -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests")
libs=("$lib" -lpthread -ldl -lm)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:detect_invalid_pointer_pairs=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

passed=0
failed=0
failures=()
for test_src in $(c_test_sources); do
    name=$(c_test_name "$test_src")
    if [ "$name" = test_fork ]; then
        # GCC's AddressSanitizer runtime (libasan of GCC 12) does not lock its allocator across
        # fork(): when another thread holds one of its size-class locks at the fork, the child's
        # first thread to allocate from that class waits forever (seen under load: the new
        # pool's threads blocked in SizeClassAllocator64::GetFromAllocator). glibc's malloc,
        # which real programs use, is fork-safe, so test_fork runs plainly under ctest and
        # under Valgrind instead (docs/robustness.md).
        echo "skip $test_src: GCC's libasan allocator is not fork-safe (runs under ctest and Valgrind)"
        continue
    fi
    exe="$out/$name"
    if ! c_test_build "$test_src" "$exe" >"$exe.build.log" 2>&1; then
        echo "FAIL $test_src: does not build with sanitizers (see $exe.build.log)"
        cat "$exe.build.log"
        failed=$((failed + 1))
        failures+=("$test_src (build)")
        continue
    fi
    # Run from a scratch directory, as ctest runs the tests from the build tree.
    if (cd "$out" && "$exe") >"$exe.log" 2>&1; then
        echo "ok   $test_src"
        passed=$((passed + 1))
    else
        echo "FAIL $test_src (log: $exe.log)"
        tail -n 60 "$exe.log"
        failed=$((failed + 1))
        failures+=("$test_src")
    fi
done

echo "sanitizers: ASan+UBSan over ${passed}+${failed} C/C++ test programs, library with ASan, in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
