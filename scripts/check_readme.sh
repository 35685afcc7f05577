#!/usr/bin/env bash
# The documentation stays true: every relative link of README.md, CHANGELOG.md, python/README.md,
# benches/README.md and docs/*.md leads to a file, and to a heading where it names one
# (scripts/doc_links.py);
# every code block of README.md, docs/*.md and python/README.md works as written: the C and C++
# programs compile and print what their comments say, the Python examples give the values
# their comments show, and the marked shell blocks (install to a custom prefix, the CMake and
# pkg-config routes, shared and fully static, linking straight against cargo's target/) run
# (scripts/readme_blocks.py).
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
status=0
python3 "$src/scripts/doc_links.py" "$src" || status=1
python3 "$src/scripts/readme_blocks.py" "$src" "$build" || status=1
exit $status
