#!/usr/bin/env bash
# The library on Windows (x86-64), cross-built here with MinGW-w64 and run under Wine:
# `cargo clippy -D warnings` for the Windows target (the code only Windows compiles), the whole
# Rust suite (`cargo test --release --lib --tests`), the DLL's exports (exactly the C API's
# functions), every C/C++ test program (c_tests/test_*.c, test_*.cpp) built by MinGW-w64
# twice, against the DLL (through its import library) and against the static library, and the
# programs written with DirectML's names, alone and beside a stand-in of DirectML.h
# (c_tests/directml_client.cpp, hpp_beside_directml.cpp), and a program that unloads the DLL
# after its pools ran (c_tests/unload.c), each run; and examples/*.c built as
# docs/building.md shows.
#
#   scripts/check_windows.sh [<source dir> [<build dir>]]
#
# Needs, on an x86-64 Linux host: Rust's standard library for x86_64-pc-windows-gnu (`rustup
# target add`, done here when rustup can), MinGW-w64's C and C++ compilers with POSIX threads
# (x86_64-w64-mingw32-gcc-posix, -g++-posix: C++'s std::thread) and Wine (wine64). As root these
# come from apt-get (gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64). Without them it prints
# SKIP and exits 77.
#
# Left out under Wine: the Rust test header_is_up_to_date (it runs cargo and cbindgen, host
# tools; the header is the same for every target and checked by ./dev test) and the C program
# test_fork (Windows has no fork). Wine 8.0 has no bcryptprimitives.dll, which Rust's standard
# library needs (Windows has it from Windows 10): where the Wine prefix lacks it, the check
# builds scripts/wine/bcryptprimitives.c into a stand-in on WINEPATH. The Wine prefix is
# $DMLS_WINE_PREFIX (default ~/.cache/directml_subset/wine; made on the first run, about 10 s),
# the target directory <build dir>/windows-cargo; each run gets $DMLS_WINDOWS_TIMEOUT seconds
# (default 600).
#
# ctest: tier check, timeout 1800
set -euo pipefail
. "$(dirname "$0")/c_test_programs.sh"
. "$(dirname "$0")/cross_setup.sh"
check_dirs windows "$@"

target=x86_64-pc-windows-gnu
target_dir="$build/windows-cargo"
limit="${DMLS_WINDOWS_TIMEOUT:-600}"
start=$SECONDS
CC=x86_64-w64-mingw32-gcc-posix
CXX=x86_64-w64-mingw32-g++-posix

case "$(uname -m)-$(uname -s)" in
    x86_64-Linux) ;;
    *) echo "SKIP: the Windows check builds from x86-64 Linux, not $(uname -m) $(uname -s)"; exit 77 ;;
esac

find_wine() { command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; }; }
if ! command -v "$CC" >/dev/null || ! command -v "$CXX" >/dev/null || ! find_wine >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing MinGW-w64 and Wine with apt-get"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64) >/dev/null 2>&1 || true
    fi
fi
for tool in "$CC" "$CXX"; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed and cannot be installed here (gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64)"
        exit 77
    fi
done
if ! wine=$(find_wine); then
    echo "SKIP: Wine (wine64) is not installed and cannot be installed here"
    exit 77
fi
if ! cross_rust_std "$target"; then
    echo "SKIP: the Rust standard library for $target is not installed and rustup cannot add it"
    exit 77
fi

# Wine: a prefix of the check's own, quiet, without the Mono and Gecko installers. Outside
# the source tree: its drive Z: is a link to /, which cargo would walk when it scans the
# package's files.
export WINEPREFIX="${DMLS_WINE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/directml_subset/wine}"
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$WINEPREFIX"
# Wine's server outlives the last program by a few seconds: stop it with the check.
stop_wine() {
    local server
    for server in "${wine%/*}/wineserver" "${wine%/*}/wineserver64"; do
        if [ -x "$server" ]; then
            "$server" -k >/dev/null 2>&1 || true
            return
        fi
    done
}
trap stop_wine EXIT
echo "== $("$wine" --version 2>/dev/null || echo wine) (prefix $WINEPREFIX)"
timeout --kill-after=10 120 "$wine" cmd /c exit >/dev/null 2>&1 || true
dlls="$out/dlls"
mkdir -p "$dlls"
if [ ! -e "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ]; then
    echo "== this Wine has no bcryptprimitives.dll: building a stand-in (scripts/wine/bcryptprimitives.c)"
    "$CC" -O2 -Wall -Wextra -Werror -shared -o "$dlls/bcryptprimitives.dll" \
        "$src/scripts/wine/bcryptprimitives.c" -ladvapi32
fi
export WINEPATH="Z:${dlls//\//\\}" # Wine's path of the stand-in's directory

passed=0
failed=0
failures=()
pass() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); failures+=("$1"); }

# 1. Lints: code that only Windows compiles (no libc, no /proc).
echo "== cargo clippy --release --target $target --all-targets -- -D warnings"
status=0
cargo clippy --release --target "$target" --target-dir "$target_dir" --all-targets --quiet \
    -- -D warnings >"$out/clippy.log" 2>&1 || status=$?
if [ "$status" -eq 0 ]; then
    pass "clippy"
else
    fail "clippy (log: $out/clippy.log)"
    grep -E '^(warning|error)|-->' "$out/clippy.log" | head -n 40 || true
fi

# 2. The Rust suite under Wine.
echo "== cargo test --release --target $target (target dir $target_dir; tests run under Wine)"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$wine"
t0=$SECONDS
status=0
timeout --kill-after=10 "$limit" cargo test --release --target "$target" --target-dir "$target_dir" \
    --no-fail-fast --lib --tests -- --skip header_is_up_to_date >"$out/cargo-test.log" 2>&1 || status=$?
grep -E '^(test result|error)|panicked|FAILED' "$out/cargo-test.log" || true
if [ "$status" -eq 0 ] && grep -q '^test result: ok' "$out/cargo-test.log"; then
    pass "cargo test ($((SECONDS - t0)) s)"
else
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "cargo test was still running after $limit s: killed"
    fi
    fail "cargo test (log: $out/cargo-test.log)"
    tail -n 40 "$out/cargo-test.log"
fi

# 3. The DLL and its exports: exactly the functions the header declares.
cargo build --release --lib --target "$target" --target-dir "$target_dir" --quiet
rel="$target_dir/$target/release"
declared=$(grep -oE '\bdmls_[a-z_]+\(' "$src/include/directml_subset.h" | tr -d '(' | LC_ALL=C sort -u)
exported=$(x86_64-w64-mingw32-objdump -p "$rel/directml_subset.dll" |
    sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/p' | awk '/^\t\[/ { print $NF }' | LC_ALL=C sort -u)
if [ -n "$declared" ] && [ "$exported" = "$declared" ]; then
    pass "directml_subset.dll exports exactly the $(echo "$declared" | wc -l) functions of the header"
else
    fail "directml_subset.dll's exports differ from the header's functions"
    diff <(echo "$declared") <(echo "$exported") | sed 's/^/  /' || true
fi
# Windows' DLLs only: no MinGW runtime DLL (libgcc, libwinpthread) to ship beside it.
imports=$(x86_64-w64-mingw32-objdump -p "$rel/directml_subset.dll" | sed -n 's/^\tDLL Name: //p' | tr '\n' ' ')
if echo "$imports" | grep -qiE 'libgcc|libwinpthread|libstdc'; then
    fail "directml_subset.dll imports a MinGW runtime DLL: $imports"
else
    pass "directml_subset.dll imports only Windows' own DLLs: $imports"
fi

# check_program NAME WANT ARG BUILD...: builds $out/NAME.exe with the command BUILD... (which
# names that file), runs it under Wine in $out, where the DLL is (with the argument ARG when it
# is not empty), and passes when it exits 0 with WANT in its output (when WANT is not empty).
check_program() {
    local name=$1 want=$2 arg=$3 t0=$SECONDS status=0
    shift 3
    if ! "$@" >"$out/$name.build.log" 2>&1; then
        fail "$name does not build"
        tail -n 20 "$out/$name.build.log"
        return
    fi
    (cd "$out" && exec timeout --kill-after=10 "$limit" "$wine" "$name.exe" ${arg:+"$arg"}) \
        >"$out/$name.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ] && { [ -z "$want" ] || grep -qF "$want" "$out/$name.log"; }; then
        pass "$name ($((SECONDS - t0)) s)"
        grep -h '^NOTE' "$out/$name.log" || true
    else
        fail "$name, exit status $status${want:+, output wanted: $want} (log: $out/$name.log)"
        tail -n 30 "$out/$name.log"
    fi
}
cp "$rel/directml_subset.dll" "$out/"
implib="$rel/libdirectml_subset.dll.a"
flags=(-O1 -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests")

# 4. The C and C++ test programs, against the DLL and against the static library (with the
# system libraries `--print native-static-libs` names), each linked statically to MinGW's own
# runtime.
native=$(cargo rustc --release --lib --target "$target" --target-dir "$target_dir" --crate-type staticlib \
    --quiet -- --print native-static-libs 2>&1 | sed -n 's/.*native-static-libs: //p' | tail -n 1)
for kind in dll static; do
    if [ "$kind" = dll ]; then
        libs=("$implib" -static)
    else
        # shellcheck disable=SC2206 # the flags are words
        libs=("$rel/libdirectml_subset.a" $native -static)
    fi
    for test_src in $(c_test_sources); do
        name=$(c_test_name "$test_src")
        if [ "$name" != test_fork ]; then # Windows has no fork()
            check_program "$name-$kind" "" "" c_test_build "$test_src" "$out/$name-$kind.exe"
        fi
    done
done
echo "skip test_fork: Windows has no fork()"

# 5. FreeLibrary after the pools ran (c_tests/unload.c): the DLL stays loaded (pinned) and
# the process lives on.
check_program unload "" directml_subset.dll \
    "$CC" -std=c11 "${flags[@]}" c_tests/unload.c -static -o "$out/unload.exe"

# 6. DirectML's own names (c_tests/directml_client.cpp), alone and after the stand-in of
# DirectML.h, and the C++ wrapper after the stand-in, as ctest builds them on Linux.
standin=(-I"$src/c_tests/directml_standin")
cxx_program() { # name, source, flags before the project's
    local name=$1 source=$2
    shift 2
    check_program "$name" "" "" "$CXX" -std=c++17 "$@" "${flags[@]}" "$source" "$implib" -static -o "$out/$name.exe"
}
cxx_program directml_client c_tests/directml_client.cpp
cxx_program directml_client_beside_directml c_tests/directml_client.cpp -DDMLS_CLIENT_BESIDE_DIRECTML "${standin[@]}"
cxx_program hpp_beside_directml c_tests/hpp_beside_directml.cpp "${standin[@]}"

# 7. The examples, built as docs/building.md shows (the README's example through the DLL),
# with the output ctest expects of them on Linux.
check_program readme_example "count 4: (0,0) (0,3) (1,1) (1,3)" "" \
    x86_64-w64-mingw32-gcc examples/readme_example.c -I include "$implib" -o "$out/readme_example.exe"
check_program demo "All examples ran" "" \
    x86_64-w64-mingw32-gcc examples/demo.c -I include "$implib" -o "$out/demo.exe"

echo "windows: $((passed + failed)) checks under Wine in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
