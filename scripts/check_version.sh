#!/usr/bin/env bash
# One version, one place: Cargo.toml's [package] version, which everything else follows.
#
#   scripts/check_version.sh [<source dir> [<build dir>]]
#
# Against the build tree (nothing installed), it must equal:
# - the header's DMLS_VERSION_MAJOR/MINOR/PATCH, the CMake project version, the CMake package's
#   version file and the pkg-config file's Version (cmake/check_version.cmake, which also checks
#   that the CMake package calls compatible exactly the versions that share the SONAME);
# - dmls_version() of the built library;
# - the SONAME: libdirectml_subset.so.0.MINOR before 1.0, .so.MAJOR from 1.0 on;
# - the Python package: the version its metadata gets (python/setup.py --version) and
#   directml_subset.__version__.
# (src/version.rs does not compile unless its numbers, which the header's macros come from,
# equal Cargo.toml's. The installed copy, the tarball and the wheel are checked the same way by
# the tests install_version, check_dist and check_wheel.)
# ctest: tier test, timeout 120
set -euo pipefail

src=$(cd "${1:-.}" && pwd)
build=$(cd "${2:-$src/build}" && pwd)
version=$(sed -n 's/^version *= *"\([0-9][0-9.]*\)".*/\1/p' "$src/Cargo.toml" | head -n1)
python=python3
[ -x "${VIRTUAL_ENV:-$src/.venv}/bin/python" ] && python="${VIRTUAL_ENV:-$src/.venv}/bin/python"
status=0
expect() { # what value
    if [ "$2" = "$version" ]; then
        echo "-- $1: $2"
    else
        echo "FAIL: $1 is '$2', Cargo.toml says '$version'"
        status=1
    fi
}

project_version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
cmake "-DSOURCE_DIR=$src" "-DPACKAGE_DIR=$build/package" "-DPROJECT_VERSION=$project_version" \
    -P "$src/cmake/check_version.cmake" || status=1

lib="$build/lib/libdirectml_subset.so.$version"
if [ ! -f "$lib" ]; then
    echo "FAIL: no $lib (is the library built, with the version of Cargo.toml?)"
    exit 1
fi
expect "dmls_version()" "$("$python" -c 'import ctypes, sys
f = ctypes.CDLL(sys.argv[1]).dmls_version
f.restype = ctypes.c_char_p
print(f().decode())' "$lib")"

major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
if [ "$major" = 0 ]; then want=libdirectml_subset.so.0.$minor; else want=libdirectml_subset.so.$major; fi
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$soname" = "$want" ]; then
    echo "-- SONAME: $soname"
else
    echo "FAIL: the SONAME is '$soname', expected $want for version $version"
    status=1
fi

expect "the Python package's metadata (setup.py --version)" \
    "$(cd "$src/python" && "$python" setup.py --version 2>/dev/null | tail -n1)"
expect "directml_subset.__version__" \
    "$(cd "$build" && DIRECTML_SUBSET_LIBRARY="$lib" PYTHONPATH="$src/python" PYTHONDONTWRITEBYTECODE=1 \
        "$python" -c 'import directml_subset; print(directml_subset.__version__)')"
exit $status
