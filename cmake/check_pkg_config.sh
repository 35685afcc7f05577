#!/usr/bin/env bash
# Builds consumer/main.c against an installed copy the way a Makefile would, with
#   cc main.c $(pkg-config --cflags --libs directml_subset)   (split by the shell: see below)
# and runs it (with the installed libdir on LD_LIBRARY_PATH), checking that the program loads
# the installed library through its SONAME; then links it fully statically, with
#   cc -static main.c $(pkg-config --cflags --libs --static directml_subset)
# and runs that, checking that it needs no shared library at all.
# Usage: check_pkg_config.sh <consumer/main.c> <prefix/lib/pkgconfig> <work dir> <version> [cc [qemu]]
# For another CPU's copy: cc compiles for it, and qemu (qemu-user for that CPU, with
# QEMU_LD_PREFIX set) runs its programs here.
set -euo pipefail
source=$1
export PKG_CONFIG_PATH=$2
work=$3
version=$4
cc=${5:-cc}
run=("${@:6:1}")
pkg_config=${PKG_CONFIG:-pkg-config}
# Only the installed copy may be found.
export PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH

mkdir -p "$work"
found=$("$pkg_config" --modversion directml_subset)
if [ "$found" != "$version" ]; then
    echo "pkg-config reports version $found, expected $version"
    exit 1
fi
# pkg-config writes a space inside a path as "\ ", for a shell to read: the shell that runs a
# Makefile's recipe, or eval here (so an installed copy under a path with spaces works too).
eval "libdir=$("$pkg_config" --variable=libdir directml_subset)"
echo "pkg-config: directml_subset $found, cflags: $("$pkg_config" --cflags directml_subset)," \
     "libs: $("$pkg_config" --libs directml_subset)"

eval "set -- $("$pkg_config" --cflags --libs directml_subset)"
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "-DDMLS_EXPECTED_VERSION=\"$version\"" \
    "$source" -o "$work/consumer" "$@"

LD_LIBRARY_PATH="$libdir" "${run[@]}" "$work/consumer"

# list_libs PROGRAM: the shared libraries it loads, as ldd lists them (another CPU's program:
# its own loader's list, asked for under qemu-user, which passes LD_LIBRARY_PATH on).
list_libs() {
    if [ ${#run[@]} -eq 0 ]; then
        LD_LIBRARY_PATH="$libdir" ldd "$1"
    else
        LD_LIBRARY_PATH="$libdir" "${run[@]}" -E LD_TRACE_LOADED_OBJECTS=1 "$1"
    fi
}

# The program must load the installed shared library through its SONAME: .so.0.MINOR before
# 1.0, .so.MAJOR from 1.0 on.
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
if [ "$major" = 0 ]; then soname=libdirectml_subset.so.0.$minor; else soname=libdirectml_subset.so.$major; fi
resolved=$(list_libs "$work/consumer" | grep 'libdirectml_subset' || true)
echo "ldd: $resolved"
case "$resolved" in
    *"$soname => $(cd "$libdir" && pwd -P)/"*) ;;
    *"$soname => $libdir/"*) ;;
    *)
        echo "the program does not load $soname from $libdir"
        exit 1
        ;;
esac

# Fully static: the static library, Libs.private, and glibc's static libraries (libc6-dev).
eval "set -- $("$pkg_config" --cflags --libs --static directml_subset)"
"$cc" -static -std=c11 -Wall -Wextra -Wpedantic -Werror "-DDMLS_EXPECTED_VERSION=\"$version\"" \
    "$source" -o "$work/consumer_static" "$@"
"${run[@]}" "$work/consumer_static"
command -v readelf >/dev/null || { echo "FAIL: readelf (binutils) is needed to check the static link"; exit 1; }
# (readelf's output captured first: a readelf that fails stops the check, not passes it.)
dynamic=$(readelf -d "$work/consumer_static")
headers=$(readelf -l "$work/consumer_static")
needed=$(grep -c NEEDED <<<"$dynamic" || true)
if [ "$needed" != 0 ] || grep -q INTERP <<<"$headers"; then
    echo "consumer_static is not a static executable:"
    readelf -d "$work/consumer_static" | grep NEEDED || true
    exit 1
fi
echo "consumer_static: fully static, no shared library needed"
