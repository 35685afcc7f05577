#!/bin/sh
# Runs the Python package's tests against a built library, without installing the package:
#
#     python/run_tests.sh path/to/libdirectml_subset.so [tests/FILE.py] [pytest arguments...]
#
# With tests/FILE.py (a path under python/tests) it runs that file alone, else every test.
# Uses `python3` from PATH, which needs numpy and pytest (python/requirements-test.txt lists
# them). The project's ctest calls this from the repository root. Exits nonzero on failure.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 path/to/libdirectml_subset.so [pytest arguments...]" >&2
    exit 2
fi
lib=$1
shift
if [ ! -f "$lib" ]; then
    echo "$0: $lib does not exist (build it with: cargo build --release)" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
libdir=$(cd "$(dirname "$lib")" && pwd)
DIRECTML_SUBSET_LIBRARY="$libdir/$(basename "$lib")"
export DIRECTML_SUBSET_LIBRARY
# The package from this source tree, ahead of any installed copy.
PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
# No bytecode or cache files in the source tree.
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
cd "$here"
tests=tests
case "${1:-}" in
    tests/*)
        tests=$1
        shift
        ;;
esac
exec python3 -m pytest -p no:cacheprovider -q "$tests" "$@"
