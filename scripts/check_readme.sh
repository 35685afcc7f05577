#!/usr/bin/env bash
# Every code block of README.md works as written: the C and C++ programs compile and print what
# their comments say, the Python example gives the values its comments show, and the marked
# shell blocks (install to a custom prefix, the CMake and pkg-config routes, shared and fully
# static, linking straight against cargo's target/) run. See scripts/readme_blocks.py.
#
#   scripts/check_readme.sh [<source dir> [<build dir>]]
#
# ctest: tier test, timeout 600
set -euo pipefail
src=$(cd "${1:-.}" && pwd)
build=$(cd "${2:-$src/build}" && pwd)
# The CMake of this build (ctest's own directory), for the blocks that run cmake.
cmake_dir=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt")
if [ -n "$cmake_dir" ]; then
    PATH="$(dirname "$cmake_dir"):$PATH"
fi
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
exec python3 "$src/scripts/readme_blocks.py" "$src" "$build"
