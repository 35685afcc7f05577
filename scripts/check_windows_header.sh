#!/usr/bin/env bash
# The header on Windows: with MinGW-w64's cross compiler, when the machine has one, compile
# (no link) c_tests/header_only.c as C99 and C11 and c_tests/test_layout.c (DirectML's sizes
# and offsets, static-asserted) against <windows.h>, with and without WIN32_LEAN_AND_MEAN,
# warnings as errors; with MinGW's C++ compiler also c_tests/header_only.cpp and
# c_tests/directml_client.cpp. Run as root without MinGW-w64, it installs it with apt-get
# (gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64, about 100 MB); where it cannot, it prints SKIP
# and exits 77, and ctest lists it as skipped.
#
#   scripts/check_windows_header.sh [<source dir> [<build dir>]]
#
# ctest: tier check, timeout 600, locks none
set -euo pipefail

src=$(cd "${1:-.}" && pwd)
# shellcheck source=scripts/lock.sh
. "$src/scripts/lock.sh"
cc=x86_64-w64-mingw32-gcc
cxx=x86_64-w64-mingw32-g++
if ! command -v "$cc" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing MinGW-w64 with apt-get"
    dmls_apt_install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 || true
fi
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "SKIP: no MinGW-w64 cross compiler ($cc) to compile the header against <windows.h>"
    exit 77
fi
count=0
compile() { # compiler, flags...
    echo "== $*"
    "$@" -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests" -fsyntax-only
    count=$((count + 1))
}
for lean in "" -DWIN32_LEAN_AND_MEAN; do
    compile "$cc" -std=c99 $lean "$src/c_tests/header_only.c"
    compile "$cc" -std=c11 $lean "$src/c_tests/header_only.c"
    compile "$cc" -std=c11 $lean "$src/c_tests/test_layout.c"
    if command -v "$cxx" >/dev/null 2>&1; then
        compile "$cxx" -std=c++11 $lean "$src/c_tests/header_only.cpp"
        compile "$cxx" -std=c++17 $lean "$src/c_tests/directml_client.cpp"
    fi
done
command -v "$cxx" >/dev/null 2>&1 || echo "NOTE: no $cxx: the C++ files were not compiled"
echo "windows header: $count compiles passed"
