#!/usr/bin/env bash
# Builds every C and C++ test (c_tests/test_*.c, c_tests/test_*.cpp) with AddressSanitizer and
# UndefinedBehaviorSanitizer against the static library, and runs each one.
#
#   scripts/check_sanitizers.sh [<source dir> [<build dir>]]
#
# The library itself is Rust, built by cargo without instrumentation (Rust's own sanitizers
# need a nightly compiler). ASan still watches every heap block the library allocates or frees
# (malloc/free are intercepted), so leaks, double frees and frees of foreign pointers in the
# library are caught, and every access the C tests make (canaries, guard bytes, the arrays they
# hand over) is checked. UBSan checks the C side. See docs/robustness.md.
set -euo pipefail

src=$(cd "${1:-.}" && pwd)
build=$(mkdir -p "${2:-$src/build}" && cd "${2:-$src/build}" && pwd)
out="$build/sanitizers"
mkdir -p "$out"
cd "$src"

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
target_dir="${CARGO_TARGET_DIR:-$build/cargo}"
CC=${CC:-gcc}
CXX=${CXX:-g++}

start=$SECONDS
echo "== cargo build --release --lib (target dir $target_dir)"
CARGO_TARGET_DIR="$target_dir" cargo build --release --lib --quiet
lib="$target_dir/release/libdirectml_subset.a"
test -f "$lib" || { echo "no $lib" >&2; exit 1; }

# Can this compiler link a sanitized program at all? (libasan/libubsan come with gcc.)
probe="$out/probe"
printf 'int main(void) { return 0; }\n' > "$probe.c"
if ! "$CC" -fsanitize=address,undefined "$probe.c" -o "$probe" 2>"$probe.log"; then
    echo "SKIP: $CC cannot build with -fsanitize=address,undefined:" >&2
    cat "$probe.log" >&2
    exit 0
fi

flags=(-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
       -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests")
libs=("$lib" -lpthread -ldl -lm)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:detect_invalid_pointer_pairs=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

passed=0
failed=0
failures=()
shopt -s nullglob
for test_src in c_tests/test_*.c c_tests/test_*.cpp; do
    name=$(basename "$test_src")
    name=${name%.*}
    case "$test_src" in
        *.c) exe="$out/$name"; compile=("$CC" -std=c11 "${flags[@]}" "$test_src" "${libs[@]}" -o "$exe") ;;
        *) exe="$out/${name}_cpp"; compile=("$CXX" -std=c++17 "${flags[@]}" "$test_src" "${libs[@]}" -o "$exe") ;;
    esac
    if ! "${compile[@]}" >"$exe.build.log" 2>&1; then
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

echo "sanitizers: ASan+UBSan over ${passed}+${failed} C/C++ test programs in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
