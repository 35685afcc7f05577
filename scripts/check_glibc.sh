#!/usr/bin/env bash
# The shipped shared library runs on the glibc its packages claim: the highest GLIBC_ symbol
# version that `objdump -T` lists for the copy in the wheel and the copy in the tarball is at
# most 2.17 (the manylinux_2_17 tag; RHEL/CentOS 7 and every later common distribution).
#
#   scripts/check_glibc.sh [<source dir> [<build dir>]]
#
# Builds both packages with scripts/dist.sh into <build dir>/dist-out/ (nothing is rebuilt when
# they are up to date) and reads the libraries out of them. For contrast it prints what the
# development build (built on this machine's glibc) needs, when there is one.
#
# ctest: tier check, timeout 900, locks dist
set -euo pipefail

src=$(cd "${1:-.}" && pwd)
build=$(mkdir -p "${2:-$src/build}" && cd "${2:-$src/build}" && pwd)
out="$build/dist-out"
export DMLS_DIST_BUILD_DIR="$build/dist"
baseline=2.17
version=$(sed -n 's/^version *= *"\([0-9][0-9.]*\)".*/\1/p' "$src/Cargo.toml" | head -n1)
python="${VIRTUAL_ENV:-$src/.venv}/bin/python"

"$src/scripts/dist.sh" dist --out "$out" >/dev/null
"$src/scripts/dist.sh" wheel --out "$out" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$out/directml_subset-$version-x86_64-linux-gnu.tar.gz" -C "$work" \
    "directml_subset-$version-x86_64-linux-gnu/lib/libdirectml_subset.so.$version"
"$python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("directml_subset/libdirectml_subset.so", sys.argv[2])' \
    "$out/directml_subset-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl" "$work"

newest() { # the highest GLIBC_x.y[.z] the library's dynamic symbols need
    objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -u -t. -k1,1n -k2,2n -k3,3n | tail -n1
}
at_most() { # $1 <= $2 as versions
    [ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n1)" = "$2" ]
}

status=0
for lib in "$work/directml_subset-$version-x86_64-linux-gnu/lib/libdirectml_subset.so.$version" \
    "$work/directml_subset/libdirectml_subset.so"; do
    v=$(newest "$lib")
    if [ -z "$v" ]; then
        echo "FAIL: objdump -T lists no GLIBC_ version in ${lib#"$work/"}"
        status=1
    elif at_most "$v" "$baseline"; then
        echo "ok: ${lib#"$work/"} needs GLIBC_$v at most (baseline $baseline)"
    else
        echo "FAIL: ${lib#"$work/"} needs GLIBC_$v, above the baseline $baseline:"
        objdump -T "$lib" | grep -F "GLIBC_$v" | head
        status=1
    fi
done
dev="$build/lib/libdirectml_subset.so"
if [ -e "$dev" ]; then
    echo "(the development build $dev, linked on this machine's glibc, needs GLIBC_$(newest "$dev"))"
fi
exit $status
