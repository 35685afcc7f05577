#!/usr/bin/env bash
# The library on Windows (x86-64), cross-built here with MinGW-w64 and run under Wine:
# `cargo clippy -D warnings` for the Windows target (the code only Windows compiles), the whole
# Rust suite (`cargo test --release --lib --tests`), the DLL's exports (exactly the C API's
# functions), every C/C++ test program (c_tests/test_*.c, test_*.cpp) built by MinGW-w64
# twice, against the DLL (through its import library) and against the static library, and the
# programs written with DirectML's names, alone and beside a stand-in of DirectML.h
# (c_tests/directml_client.cpp, hpp_beside_directml.cpp), and a program that unloads the DLL
# after its pools ran (c_tests/unload.c), each run; examples/*.c built as docs/building.md
# shows; and the Windows package (scripts/dist.sh dist --os windows) with consumer/ built against
# it through CMake's find_package and through pkg-config; and MSVC: DirectML's layouts, the header
# beside the stand-in of DirectML.h, and a program built against the package through find_package
# and its MSVC import library, with clang-cl and lld-link.
#
#   scripts/check_windows.sh [<source dir> [<build dir>]]
#
# Needs, on an x86-64 Linux host: Rust's standard library for x86_64-pc-windows-gnu (`rustup
# target add`, done here when rustup can), MinGW-w64's C and C++ compilers with POSIX threads
# (x86_64-w64-mingw32-gcc-posix, -g++-posix: C++'s std::thread), Wine (wine64) and LLVM's clang,
# lld-link, llvm-dlltool, llvm-lib, llvm-rc and llvm-mt (any version from 14). As root these come
# from apt-get (gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 llvm clang lld). Without them it
# prints SKIP and exits 77.
#
# Left out under Wine: the C program test_fork (Windows has no fork). (The header's check,
# header-check/, is not in the library's suite: the header is the same for every target and
# checked by ./dev test.) Wine 8.0 has no bcryptprimitives.dll, which Rust's standard
# library needs (Windows has it from Windows 10): where the Wine prefix lacks it, the check
# builds scripts/wine/bcryptprimitives.c into a stand-in on WINEPATH. The Wine prefix is
# $DMLS_WINE_PREFIX (default ~/.cache/directml_subset/wine; made on the first run, about 10 s),
# the target directory <build dir>/windows-cargo; each run gets $DMLS_WINDOWS_TIMEOUT seconds
# (default 600).
#
# ctest: tier check, timeout 1800, locks none
set -euo pipefail
. "$(dirname "$0")/c_test_programs.sh"
. "$(dirname "$0")/cross_setup.sh"
# shellcheck source=scripts/test_log.sh
. "$(dirname "$0")/test_log.sh"
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
# find_llvm NAME: LLVM's tool NAME, unversioned or as Debian names a version's (NAME-14 ...).
find_llvm() {
    local v
    for v in "" -21 -20 -19 -18 -17 -16 -15 -14; do
        command -v "$1$v" && return 0
    done
    return 1
}
llvm_tools=(clang lld-link llvm-dlltool llvm-lib llvm-rc llvm-mt)
have_llvm() { local t; for t in "${llvm_tools[@]}"; do find_llvm "$t" >/dev/null || return 1; done; }
if ! command -v "$CC" >/dev/null || ! command -v "$CXX" >/dev/null || ! find_wine >/dev/null || ! have_llvm; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing MinGW-w64, Wine and LLVM (clang, lld) with apt-get"
        dmls_apt_install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 llvm clang lld || true
    fi
fi
for tool in "$CC" "$CXX"; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed and cannot be installed here (gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64)"
        exit 77
    fi
done
for tool in "${llvm_tools[@]}"; do
    if ! find_llvm "$tool" >/dev/null; then
        echo "SKIP: LLVM's $tool is not installed and cannot be installed here (Debian: llvm clang lld)"
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
# Wine's server. By default it exits a few seconds after its last program, and the next
# program starts a new one. Twice in a few runs a program died with "wine client error:0:
# recvmsg: Connection reset by peer", its server gone from under it; so one server runs for
# the whole check (-p: persistent) and is stopped with it.
wineserver=""
for candidate in "${wine%/*}/wineserver" "${wine%/*}/wineserver64" "$(command -v wineserver || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
        wineserver=$candidate
        break
    fi
done
stop_wine() { if [ -n "$wineserver" ]; then "$wineserver" -k >/dev/null 2>&1 || true; fi; }
trap stop_wine EXIT
echo "== $("$wine" --version 2>/dev/null || echo wine) (prefix $WINEPREFIX)"
if [ -n "$wineserver" ]; then
    "$wineserver" -p
else
    echo "NOTE: no wineserver found beside $wine: each program starts its own server"
fi
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
    --no-fail-fast --lib --tests >"$out/cargo-test.log" 2>&1 || status=$?
dmls_test_summary "$out/cargo-test.log"
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
# imports_of FILE: the DLLs a Windows program or DLL imports, on one line.
imports_of() { x86_64-w64-mingw32-objdump -p "$1" | sed -n 's/^\tDLL Name: //p' | tr '\n' ' '; }
# check_dll DLL LABEL: its exports are the header's functions, and it imports only Windows' own
# DLLs (no MinGW runtime DLL, libgcc or libwinpthread, to ship beside it).
check_dll() {
    local dll=$1 label=$2 exported imports
    exported=$(x86_64-w64-mingw32-objdump -p "$dll" |
        sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/p' | awk '/^\t\[/ { print $NF }' | LC_ALL=C sort -u)
    if [ -n "$declared" ] && [ "$exported" = "$declared" ]; then
        pass "$label exports exactly the $(echo "$declared" | wc -l) functions of the header"
    else
        fail "$label's exports differ from the header's functions"
        diff <(echo "$declared") <(echo "$exported") | sed 's/^/  /' || true
    fi
    imports=$(imports_of "$dll")
    if echo "$imports" | grep -iE 'libgcc|libwinpthread|libstdc' >/dev/null; then
        fail "$label imports a MinGW runtime DLL: $imports"
    else
        pass "$label imports only Windows' own DLLs: $imports"
    fi
}
check_dll "$rel/directml_subset.dll" directml_subset.dll

# check_program NAME WANT ARG BUILD...: builds $out/NAME.exe with the command BUILD... (which
# names that file), runs it under Wine in $run_dir ($out, where the DLL is, unless set; with the
# argument ARG when it is not empty), and passes when it exits 0 with WANT in its output (when
# WANT is not empty).
check_program() {
    local name=$1 want=$2 arg=$3 t0=$SECONDS status=0
    shift 3
    if ! "$@" >"$out/$name.build.log" 2>&1; then
        fail "$name does not build"
        tail -n 20 "$out/$name.build.log"
        return
    fi
    (cd "${run_dir:-$out}" && exec timeout --kill-after=10 "$limit" "$wine" "$name.exe" ${arg:+"$arg"}) \
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

# 8. The Windows package as a user gets it (scripts/dist.sh dist --os windows, built in
# <build dir>/dist-windows): unzipped under a path with a space, exactly the files it should
# hold, every version Cargo.toml's, no path of this machine, the DLL as in 3; then consumer/,
# unchanged, built against it through find_package (with cmake/mingw-w64-x86_64.cmake) and
# through pkg-config, shared and static, each program run under Wine with the package's bin/
# on WINEPATH (and MinGW's runtime DLLs, which a MinGW program built without -static needs, as
# on Windows from the toolchain's bin/ on PATH).
check_package() {
    local version name pkg_out work prefix expected found status imports
    version=$(sed -n 's/^version *= *"\([0-9][0-9.]*\)".*/\1/p' "$src/Cargo.toml" | head -n1)
    name="directml_subset-$version-x86_64-windows-gnu"
    pkg_out="$out/dist-out"
    echo "== scripts/dist.sh dist --os windows"
    if ! DMLS_DIST_BUILD_DIR="$build/dist" "$src/scripts/dist.sh" dist --os windows --out "$pkg_out" \
        >"$out/dist.log" 2>&1; then
        fail "scripts/dist.sh dist --os windows (log: $out/dist.log)"
        tail -n 30 "$out/dist.log"
        return
    fi
    if (cd "$pkg_out" && sha256sum -c --quiet "$name.zip.sha256"); then
        pass "$name.zip and its SHA-256 file"
    else
        fail "$name.zip does not match its SHA-256 file"
    fi
    work="$out/package test"
    rm -rf "$work"
    mkdir -p "$work"
    python3 -m zipfile -e "$pkg_out/$name.zip" "$work"
    prefix="$work/$name"
    expected=$(cd "$src" && {
        printf '%s\n' bin/directml_subset.dll lib/libdirectml_subset.dll.a lib/libdirectml_subset.a \
            lib/directml_subset.lib \
            lib/cmake/directml_subset/directml_subset-config.cmake \
            lib/cmake/directml_subset/directml_subset-config-version.cmake \
            lib/pkgconfig/directml_subset.pc include/directml_subset.h include/directml_subset.hpp \
            LICENSE-MIT LICENSE-APACHE README.md CHANGELOG.md
        ls include/directml_subset/*.hpp
    } | LC_ALL=C sort)
    found=$(cd "$prefix" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
    if [ "$found" = "$expected" ]; then
        pass "the package holds exactly its $(echo "$expected" | wc -l) files"
    else
        fail "the package's files differ from those expected (< expected, > found)"
        diff <(echo "$expected") <(echo "$found") | sed 's/^/  /' || true
    fi
    if cmake "-DSOURCE_DIR=$src" "-DPREFIX=$prefix" -DLIBDIR=lib -DINCLUDEDIR=include \
        "-DPROJECT_VERSION=$version" -P "$src/cmake/check_version.cmake" >"$out/package-version.log" 2>&1; then
        pass "the package's versions are Cargo.toml's ($version)"
    else
        fail "the package's versions (log: $out/package-version.log)"
        cat "$out/package-version.log"
    fi
    local cache cargo_home
    cache="${XDG_CACHE_HOME:-$HOME/.cache}/directml_subset"
    cargo_home=$(cd "${CARGO_HOME:-$HOME/.cargo}" && pwd)
    status=0
    grep -rl -a -e "$src/" -e "$build/" -e "$cache/" -e "$cargo_home/" "$prefix" >"$out/package-paths.log" || status=$?
    if [ "$status" = 1 ]; then
        pass "no file of the package names a path of this machine"
    else
        fail "files of the package name a path of this machine (or grep failed, status $status)"
        sed 's/^/  /' "$out/package-paths.log"
    fi
    check_dll "$prefix/bin/directml_subset.dll" "the package's directml_subset.dll"

    local runtime_dirs="" f
    for f in libstdc++-6.dll libgcc_s_seh-1.dll libwinpthread-1.dll; do
        f=$("$CXX" -print-file-name="$f")
        [ -f "$f" ] && runtime_dirs="$runtime_dirs;Z:${f%/*}"
    done
    local winepath=$WINEPATH
    export WINEPATH="$WINEPATH;Z:${prefix//\//\\}\\bin${runtime_dirs//\//\\}"
    echo "== consumer/ through find_package (CMAKE_PREFIX_PATH), cmake/mingw-w64-x86_64.cmake"
    if cmake "-DSOURCE_DIR=$src/consumer" "-DBINARY_DIR=$work/consumer-find-package" "-DPREFIX=$prefix" \
        "-DGENERATOR=Unix Makefiles" "-DC_COMPILER=$CC" "-DCXX_COMPILER=$CXX" \
        "-DTOOLCHAIN=$src/cmake/mingw-w64-x86_64.cmake" "-DEMULATOR=$wine" \
        -P "$src/cmake/check_consumer.cmake" >"$out/package-consumer.log" 2>&1; then
        pass "consumer/ through find_package: $(grep -oE 'tests passed out of [0-9]+' "$out/package-consumer.log" | tail -n1)"
        # The shared ones load the DLL (through the import library), the static ones do not.
        for f in consumer consumer_cpp consumer_static consumer_fully_static; do
            imports=$(imports_of "$work/consumer-find-package/$f.exe")
            case "$f:$imports" in
                consumer:*directml_subset.dll* | consumer_cpp:*directml_subset.dll*) pass "$f.exe loads directml_subset.dll" ;;
                consumer_*static:*directml_subset*) fail "$f.exe loads directml_subset.dll" ;;
                consumer_*static:*) pass "$f.exe holds the library: $imports" ;;
                *) fail "$f.exe does not load directml_subset.dll: $imports" ;;
            esac
        done
    else
        fail "consumer/ through find_package (log: $out/package-consumer.log)"
        tail -n 40 "$out/package-consumer.log"
    fi
    echo "== consumer/main.c through pkg-config (PKG_CONFIG_PATH)"
    local pc=${PKG_CONFIG:-pkg-config} cflags libs_shared libs_static
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig" PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
    if [ "$("$pc" --modversion directml_subset 2>&1)" != "$version" ]; then
        fail "pkg-config does not find directml_subset $version in the package"
    else
        cflags=$("$pc" --cflags directml_subset)
        libs_shared=$("$pc" --libs directml_subset)
        libs_static=$("$pc" --libs --static directml_subset)
        # (pkg-config writes a space in a path as "\ ", for a shell to read.)
        # (Run where they are, away from the DLL of 3 in $out: the package's comes from WINEPATH.)
        local run_dir=$work
        eval "set -- $cflags $libs_shared"
        check_program pkg-config-shared "consumer ok" "" "$CC" -std=c11 "${flags[@]}" \
            "-DDMLS_EXPECTED_VERSION=\"$version\"" "$src/consumer/main.c" "$@" -o "$work/pkg-config-shared.exe"
        eval "set -- $cflags $libs_static"
        check_program pkg-config-static "consumer ok" "" "$CC" -static -std=c11 "${flags[@]}" \
            "-DDMLS_EXPECTED_VERSION=\"$version\"" "$src/consumer/main.c" "$@" -o "$work/pkg-config-static.exe"
        for f in shared static; do
            if [ -f "$work/pkg-config-$f.exe" ]; then
                imports=$(imports_of "$work/pkg-config-$f.exe")
                if [ "$f" = shared ] && [[ "$imports" == *directml_subset.dll* ]]; then
                    pass "pkg-config-shared.exe loads directml_subset.dll"
                elif [ "$f" = static ] && ! echo "$imports" | grep -iE 'directml_subset|libgcc|libwinpthread|libstdc' >/dev/null; then
                    pass "pkg-config-static.exe needs no DLL but Windows' own: $imports"
                else
                    fail "pkg-config-$f.exe imports: $imports"
                fi
            fi
        done
    fi
    unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
    check_msvc "$prefix" "$work"
    export WINEPATH=$winepath
    rm -rf "$work"
}

# 9. MSVC (called from 8, with the unzipped package on WINEPATH). With clang-cl and lld-link,
# whose command lines are cl's and link.exe's and whose ABI and struct layouts are MSVC's, and
# stand-ins of <windows.h> and <wtypesbase.h> (no Windows SDK here):
# - c_tests/test_layout.c's static assertions, DirectML's sizes and offsets, as MSVC lays the
#   structs out, with and without WIN32_LEAN_AND_MEAN (compiled only);
# - the header in C++ after the stand-in of DirectML.h, and before it, where the compile must
#   stop with the header's message (its branch for compilers that are not GNU-like);
# - c_tests/msvc, built against the package through find_package, which must hand MSVC
#   lib/directml_subset.lib and no static library; the program must load directml_subset.dll,
#   and run.
check_msvc() {
    local prefix=$1 work=$2 tools="$out/msvc-tools" t lean status imports
    mkdir -p "$tools"
    # clang in cl's mode is clang under the name clang-cl.
    ln -sf "$(readlink -f "$(find_llvm clang)")" "$tools/clang-cl"
    for t in lld-link llvm-dlltool llvm-lib llvm-rc llvm-mt; do
        ln -sf "$(readlink -f "$(find_llvm "$t")")" "$tools/$t"
    done
    # (A file's path goes after --: clang-cl reads a word that starts with / as an option.)
    local cl=("$tools/clang-cl" --target=x86_64-pc-windows-msvc /nologo /W4 /WX /Zs
        "-I$src/c_tests/msvc/include" "-I$src/c_tests/directml_standin" "-I$src/include")
    echo "== MSVC: clang-cl, lld-link"
    for lean in "" /DWIN32_LEAN_AND_MEAN; do
        if "${cl[@]}" /std:c11 $lean /DDMLS_LAYOUT_ASSERTS_ONLY -- "$src/c_tests/test_layout.c" \
            >"$out/msvc-layout.log" 2>&1; then
            pass "MSVC's layouts: DirectML's sizes and offsets (test_layout.c, clang-cl${lean:+ $lean})"
        else
            fail "MSVC's layouts (test_layout.c, clang-cl${lean:+ $lean})"
            head -n 20 "$out/msvc-layout.log"
        fi
    done
    if "${cl[@]}" /TP /std:c++17 -- "$src/c_tests/msvc/beside_directml.cpp" >"$out/msvc-beside.log" 2>&1; then
        pass "MSVC: directml_subset.h after the stand-in of DirectML.h (C++)"
    else
        fail "MSVC: directml_subset.h after the stand-in of DirectML.h (C++)"
        head -n 20 "$out/msvc-beside.log"
    fi
    status=0
    "${cl[@]}" /TP /std:c++17 -- "$src/c_tests/msvc/order_reversed.cpp" >"$out/msvc-order.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ] && grep -m1 'error' "$out/msvc-order.log" |
        grep -qF 'directml_subset.h was included before DirectML.h: include DirectML.h first'; then
        pass "MSVC: directml_subset.h before DirectML.h stops the compile, naming the right order"
    else
        fail "MSVC: directml_subset.h before DirectML.h (status $status; the first error must name the order)"
        head -n 20 "$out/msvc-order.log"
    fi
    local msvc_build="$work/msvc-build"
    if cmake -S "$src/c_tests/msvc" -B "$msvc_build" --toolchain "$src/c_tests/msvc/toolchain.cmake" \
        -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix" "-DDMLS_CLANG_CL=$tools/clang-cl" \
        "-DDMLS_LLD_LINK=$tools/lld-link" "-DDMLS_LLVM_LIB=$tools/llvm-lib" \
        "-DDMLS_LLVM_RC=$tools/llvm-rc" "-DDMLS_LLVM_MT=$tools/llvm-mt" \
        "-DDMLS_LLVM_DLLTOOL=$tools/llvm-dlltool" >"$out/msvc-configure.log" 2>&1; then
        if grep -qF "the DLL through $prefix/lib/directml_subset.lib" "$out/msvc-configure.log"; then
            pass "find_package hands MSVC lib/directml_subset.lib and no static library"
        else
            fail "find_package does not hand MSVC lib/directml_subset.lib (log: $out/msvc-configure.log)"
            grep 'directml_subset' "$out/msvc-configure.log" | head -n 5
        fi
        local run_dir=$msvc_build
        check_program consumer_msvc "msvc consumer ok" "" cmake --build "$msvc_build"
        if [ -f "$msvc_build/consumer_msvc.exe" ]; then
            imports=$(imports_of "$msvc_build/consumer_msvc.exe")
            if [[ "$imports" == *directml_subset.dll* ]]; then
                pass "consumer_msvc.exe loads directml_subset.dll: $imports"
            else
                fail "consumer_msvc.exe does not load directml_subset.dll: $imports"
            fi
        fi
    else
        fail "c_tests/msvc does not configure with the package (log: $out/msvc-configure.log)"
        tail -n 30 "$out/msvc-configure.log"
    fi
}
check_package

echo "windows: $((passed + failed)) checks under Wine in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
