#!/usr/bin/env bash
# The C/C++ binary package as a user gets it:
#
#   scripts/check_dist.sh [<source dir> [<build dir>]]
#
# The package of $DMLS_DIST_ARCH (x86_64, the default, or aarch64: then consumer/ is built
# with aarch64-linux-gnu-gcc and run under qemu-aarch64, as scripts/check_dist_aarch64.sh does).
#
# 1. Builds it with scripts/dist.sh dist into <build dir>/dist-out/ and checks its SHA-256 file.
# 2. Unpacks it under a path with a space in it, checks the layout (cmake/check_install.cmake:
#    the library with its SONAME and links, the static library, the headers, the CMake package,
#    the pkg-config file, the license files, README and CHANGELOG), that its CMake and
#    pkg-config files name no path of the machine that built it, that every version agrees with
#    Cargo.toml (cmake/check_version.cmake) and that the library exports the API's functions.
# 3. Builds consumer/ against it, unchanged: through find_package with CMAKE_PREFIX_PATH
#    (cmake/check_consumer.cmake: C shared, static and fully static, C++ shared, each run, and
#    the shared ones load the unpacked library) and through pkg-config with PKG_CONFIG_PATH
#    (cmake/check_pkg_config.sh: shared, then fully static, each run).
#
# ctest: tier check, timeout 900, locks dist
set -euo pipefail

# shellcheck source=scripts/dist_check_env.sh
. "$(dirname "$0")/dist_check_env.sh"
name="directml_subset-$version-$arch-linux-gnu"

echo "== scripts/dist.sh dist --arch $arch"
"$src/scripts/dist.sh" dist --out "$out" --arch "$arch"
(cd "$out" && sha256sum -c "$name.tar.gz.sha256")
built=$SECONDS

work="$build/dist-$arch test"
rm -rf "$work"
mkdir -p "$work"
tar -xzf "$out/$name.tar.gz" -C "$work"
prefix="$work/$name"
echo "== unpacked into $prefix"

echo "== layout"
cmake "-DPREFIX=$prefix" -DLIBDIR=lib -DINCLUDEDIR=include -DDOCDIR=. "-DVERSION=$version" \
    "-DSOURCE_DIR=$src" -P "$src/cmake/check_install.cmake"
# Relocatable: the package files find everything from where they are.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/directml_subset"
# (grep: 0 found, 1 none, 2 an error such as a missing directory, which must fail too.)
status=0
grep -rn -e "$src" -e "$build" -e "$cache" "$prefix/lib/cmake" "$prefix/lib/pkgconfig" "$prefix/include" || status=$?
if [ "$status" = 0 ]; then
    echo "FAIL: the files above name a path of the machine that built the package"
    exit 1
elif [ "$status" != 1 ]; then
    echo "FAIL: grep could not read the package's lib/cmake, lib/pkgconfig and include (status $status)"
    exit 1
fi
# Nor does the library (its dependencies' source paths are remapped from the cargo home on).
cargo_home=$(cd "${CARGO_HOME:-$HOME/.cargo}" && pwd)
for f in "$prefix/lib/libdirectml_subset.so.$version" "$prefix/lib/libdirectml_subset.a"; do
    [ -f "$f" ] || { echo "FAIL: no $f"; exit 1; }
    if grep -a -q -e "$src/" -e "$build/" -e "$cache/" -e "$cargo_home/" "$f"; then
        grep -a -o -e "$src/[[:graph:]]*" -e "$build/[[:graph:]]*" -e "$cache/[[:graph:]]*" \
            -e "$cargo_home/[[:graph:]]*" "$f" | head -n 3 || true
        echo "FAIL: $(basename "$f") names a path of the machine that built it (above)"
        exit 1
    fi
done
cmake "-DSOURCE_DIR=$src" "-DPREFIX=$prefix" -DLIBDIR=lib -DINCLUDEDIR=include \
    "-DPROJECT_VERSION=$version" -P "$src/cmake/check_version.cmake"
"$src/cmake/check_exports.sh" "$prefix/lib/libdirectml_subset.so" "$prefix/include/directml_subset.h"

echo "== consumer/ through find_package (CMAKE_PREFIX_PATH)"
cmake "-DSOURCE_DIR=$src/consumer" "-DBINARY_DIR=$work/consumer-find-package" "-DPREFIX=$prefix" \
    "-DGENERATOR=Unix Makefiles" "-DC_COMPILER=$cc" "-DCXX_COMPILER=$cxx" \
    "${cross_cmake[@]}" -P "$src/cmake/check_consumer.cmake"
if [ ${#qemu[@]} -gt 0 ]; then
    # (consumer/ leaves its ldd tests out when cross-compiled: the same, asked of the loader.)
    for t in consumer consumer_cpp; do
        loaded=$("${qemu[@]}" -E LD_TRACE_LOADED_OBJECTS=1 "$work/consumer-find-package/$t" |
            grep libdirectml_subset || true)
        echo "$t: $loaded"
        case "$loaded" in
            *"libdirectml_subset.so."*" => $prefix/lib/"*) ;;
            *) echo "FAIL: $t does not load the unpacked library from $prefix/lib"; exit 1 ;;
        esac
    done
fi

echo "== consumer/main.c through pkg-config (PKG_CONFIG_PATH)"
"$src/cmake/check_pkg_config.sh" "$src/consumer/main.c" "$prefix/lib/pkgconfig" \
    "$work/consumer-pkg-config" "$version" "$cc" "${qemu[@]}"

rm -rf "$work"
echo "check_dist: built in $((built - start)) s, checked in $((SECONDS - built)) s"
