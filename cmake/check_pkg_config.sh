#!/usr/bin/env bash
# Builds consumer/main.c against an installed copy the way a Makefile would, with
#   cc main.c $(pkg-config --cflags --libs directml_subset)
# and runs it (with the installed libdir on LD_LIBRARY_PATH), checking that the program loads
# the installed libdirectml_subset.so.MAJOR; then links it fully statically, with
#   cc -static main.c $(pkg-config --cflags --libs --static directml_subset)
# and runs that, checking that it needs no shared library at all.
# Usage: check_pkg_config.sh <consumer/main.c> <prefix/lib/pkgconfig> <work dir> <version> [cc]
set -euo pipefail
source=$1
export PKG_CONFIG_PATH=$2
work=$3
version=$4
cc=${5:-cc}
pkg_config=${PKG_CONFIG:-pkg-config}
# Only the installed copy may be found.
export PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH

mkdir -p "$work"
found=$("$pkg_config" --modversion directml_subset)
if [ "$found" != "$version" ]; then
    echo "pkg-config reports version $found, expected $version"
    exit 1
fi
libdir=$("$pkg_config" --variable=libdir directml_subset)
echo "pkg-config: directml_subset $found, cflags: $("$pkg_config" --cflags directml_subset)," \
     "libs: $("$pkg_config" --libs directml_subset)"

# shellcheck disable=SC2046 # word splitting of pkg-config's output is intended
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "-DDMLS_EXPECTED_VERSION=\"$version\"" \
    "$source" -o "$work/consumer" $("$pkg_config" --cflags --libs directml_subset)

LD_LIBRARY_PATH="$libdir" "$work/consumer"

# The program must load the installed shared library.
resolved=$(LD_LIBRARY_PATH="$libdir" ldd "$work/consumer" | grep 'libdirectml_subset' || true)
echo "ldd: $resolved"
case "$resolved" in
    *"libdirectml_subset.so.${version%%.*} => $(cd "$libdir" && pwd -P)/"*) ;;
    *"libdirectml_subset.so.${version%%.*} => $libdir/"*) ;;
    *)
        echo "the program does not load libdirectml_subset.so.${version%%.*} from $libdir"
        exit 1
        ;;
esac

# Fully static: the static library, Libs.private, and glibc's static libraries (libc6-dev).
# shellcheck disable=SC2046 # word splitting of pkg-config's output is intended
"$cc" -static -std=c11 -Wall -Wextra -Wpedantic -Werror "-DDMLS_EXPECTED_VERSION=\"$version\"" \
    "$source" -o "$work/consumer_static" $("$pkg_config" --cflags --libs --static directml_subset)
"$work/consumer_static"
needed=$(readelf -d "$work/consumer_static" 2>/dev/null | grep -c NEEDED || true)
if [ "$needed" != 0 ] || readelf -l "$work/consumer_static" | grep -q INTERP; then
    echo "consumer_static is not a static executable:"
    readelf -d "$work/consumer_static" | grep NEEDED || true
    exit 1
fi
echo "consumer_static: fully static, no shared library needed"
