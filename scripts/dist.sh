#!/usr/bin/env bash
# Builds the binary packages, which run on any Linux with glibc 2.17 or newer, on x86_64 (the
# default) or on 64-bit Arm (--arch aarch64), and the C/C++ package for 64-bit Windows
# (--os windows):
#
#   scripts/dist.sh wheel [--out DIR] [--arch ARCH]   dist/directml_subset-VERSION-py3-none-manylinux_2_17_ARCH.manylinux2014_ARCH.whl
#   scripts/dist.sh dist  [--out DIR] [--arch ARCH]   dist/directml_subset-VERSION-ARCH-linux-gnu.tar.gz and .sha256
#   scripts/dist.sh dist  [--out DIR] --os windows    dist/directml_subset-VERSION-x86_64-windows-gnu.zip and .sha256
#   scripts/dist.sh lib   [--arch ARCH | --os windows]  only the library, in build/dist/lib/ (build/dist-aarch64/lib/, build/dist-windows/lib/)
#
# (build/dist/ is $DMLS_DIST_BUILD_DIR when that is set, with -aarch64 or -windows added: the
# checks build in their own tree.) (./dev wheel and ./dev dist run the first two, and pass --arch on.)
# Both hold one build of the library: cargo zigbuild --target ARCH-unknown-linux-gnu.2.17, which
# links it with Zig against glibc 2.17's symbol versions, through the project's CMake build
# configured in build/dist/ (so the SONAME, the install layout, the CMake package and the
# pkg-config file are the ones `cmake --install` makes). The tarball is that install tree,
# relocatable, with the license files, README and CHANGELOG at its top; the wheel is the Python
# package with the library bundled.
#
# Tools, installed on the first run: Zig and auditwheel from PyPI into the virtual environment
# (python/requirements-dist.txt), cargo-zigbuild from crates.io into $DMLS_TOOLS_DIR (default
# ~/.cache/directml_subset/tools, shared with the fuzzing check). The cargo target directory is
# cached as $DMLS_ZIGBUILD_TARGET_DIR (default ~/.cache/directml_subset/zigbuild-target), so a
# fresh clone rebuilds only the crate. Run it through ./dev (or with .venv/bin on PATH).
# For Windows it builds with cargo for x86_64-pc-windows-gnu and MinGW-w64 (Debian's
# gcc-mingw-w64-x86-64 and g++-mingw-w64-x86-64), through the CMake build configured with
# cmake/mingw-w64-x86_64.cmake in build/dist-windows/ (its cargo target directory inside it): the
# zip is that install tree, the DLL in bin/, with the license files, README and CHANGELOG at its
# top. It needs Rust's standard library for that target (`rustup target add
# x86_64-pc-windows-gnu`, done here when rustup can) and LLVM's llvm-dlltool (Debian: llvm), which
# makes the import library for MSVC programs, lib/directml_subset.lib; no Zig.
# For Arm it also needs Rust's standard library for aarch64 (`rustup target add
# aarch64-unknown-linux-gnu`, done here when rustup can) and a strip that reads Arm objects
# (aarch64-linux-gnu-strip, Debian's binutils-aarch64-linux-gnu, or llvm-strip).
set -euo pipefail

zigbuild_version=0.24.1
glibc=2.17

src=$(cd "$(dirname "$0")/.." && pwd)
usage() {
    echo "usage: scripts/dist.sh wheel|dist|lib [--out DIR] [--arch x86_64|aarch64] [--os linux|windows]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
what=$1
shift
out=$src/dist
arch=x86_64
os=linux
while [ $# -gt 0 ]; do
    case "$1" in
        --out)
            [ $# -ge 2 ] || usage
            out=$2
            shift 2
            ;;
        --arch)
            [ $# -ge 2 ] || usage
            arch=$2
            shift 2
            ;;
        --os)
            [ $# -ge 2 ] || usage
            os=$2
            shift 2
            ;;
        *) usage ;;
    esac
done
case "$what" in wheel | dist | lib) ;; *) usage ;; esac
case "$arch" in x86_64 | aarch64) ;; *) usage ;; esac
case "$os" in linux | windows) ;; *) usage ;; esac
if [ "$os" = windows ]; then
    [ "$arch" = x86_64 ] || { echo "dist.sh: the Windows package is for x86_64 only" >&2; exit 2; }
    [ "$what" != wheel ] || { echo "dist.sh: there is no Windows wheel (the Windows package is the C/C++ one: dist --os windows)" >&2; exit 2; }
fi
triple=$arch-unknown-linux-gnu
target=$triple.$glibc
# The wheel's platform tag: PEP 600's name and its older alias, which pip before 20.3 (Python
# 3.9.0 ships 20.2.3) knows and the newer name it does not; both mean glibc 2.17 on ARCH.
wheel_platform=manylinux_2_17_$arch.manylinux2014_$arch
audit_platform=manylinux_2_17_$arch
tarball_platform=$arch-linux-gnu

cache="${XDG_CACHE_HOME:-$HOME/.cache}/directml_subset"
tools="${DMLS_TOOLS_DIR:-$cache/tools}"
target_dir="${DMLS_ZIGBUILD_TARGET_DIR:-$cache/zigbuild-target}"
venv="${VIRTUAL_ENV:-$src/.venv}"
python="$venv/bin/python"
build="${DMLS_DIST_BUILD_DIR:-$src/build/dist}"
[ "$arch" = x86_64 ] || build=$build-$arch
[ "$os" = linux ] || build=$build-$os
export PATH="$tools/bin:$venv/bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

version=$(sed -n 's/^version *= *"\([0-9][0-9.]*\)".*/\1/p' "$src/Cargo.toml" | head -n1)
[ -n "$version" ] || { echo "dist.sh: no version in Cargo.toml" >&2; exit 1; }

# --- tools ---------------------------------------------------------------------------------
# shellcheck source=scripts/cross_setup.sh
. "$src/scripts/cross_setup.sh"
if [ "$os" = windows ]; then
    for tool in x86_64-w64-mingw32-gcc-posix x86_64-w64-mingw32-g++-posix; do
        command -v "$tool" >/dev/null ||
            { echo "dist.sh: no $tool: install MinGW-w64 (Debian: apt-get install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64)" >&2; exit 1; }
    done
    cross_rust_std x86_64-pc-windows-gnu ||
        { echo "dist.sh: Rust's standard library for x86_64-pc-windows-gnu is not installed (rustup target add x86_64-pc-windows-gnu)" >&2; exit 1; }
    # The MSVC import library (lib/directml_subset.lib) comes from LLVM's llvm-dlltool, under
    # any of the names the CMake build looks for.
    compgen -c llvm-dlltool | grep -E '^llvm-dlltool(-[0-9]+)?$' >/dev/null ||
        { echo "dist.sh: no llvm-dlltool, which makes the MSVC import library: install LLVM (Debian: apt-get install llvm)" >&2; exit 1; }
fi
[ "$os" = windows ] || dist_python_tools "$src" "$venv" || { echo "dist.sh: no Zig and auditwheel in $venv (run it through ./dev)" >&2; exit 1; }
if [ "$os" = linux ] && [ "$(cargo-zigbuild --version 2>/dev/null)" != "cargo-zigbuild $zigbuild_version" ]; then
    echo "dist.sh: installing cargo-zigbuild $zigbuild_version into $tools (first run only, a few minutes)"
    install_zigbuild() {
        CARGO_TARGET_DIR="$cache/tools-build" cargo install --quiet --locked --force \
            --version "$zigbuild_version" --root "$tools" cargo-zigbuild
        rm -rf "$cache/tools-build"
    }
    dmls_locked tools install_zigbuild
fi

cross_args=()
if [ "$os" = linux ] && [ "$arch" != "$(uname -m)" ]; then
    cross_rust_std "$triple" || { echo "dist.sh: Rust's standard library for $triple is not installed (rustup target add $triple)" >&2; exit 1; }
    # The static library's debug info is stripped by CMake's strip, which must read $arch objects.
    strip=$(command -v "$arch-linux-gnu-strip" || command -v llvm-strip || true)
    [ -n "$strip" ] || { echo "dist.sh: no strip for $arch objects: install binutils-$arch-linux-gnu (Debian) or LLVM" >&2; exit 1; }
    cross_args=("-DCMAKE_STRIP=$strip")
fi

# --- the library -----------------------------------------------------------------------------
# Only the library: no tests, no examples. The docs go to the top of the install tree. The
# dependencies' source paths that panic messages keep are written from the registry's folder
# on, without this machine's cargo home: the same commit gives the same library on any machine
# with the same toolchain.
# (CARGO_ENCODED_RUSTFLAGS, whose flags are separated by 0x1f, so that a cargo home with a
# space stays one flag; RUSTFLAGS or CARGO_ENCODED_RUSTFLAGS of the caller come first. Either
# takes the place of a cargo config's build.rustflags, which a shipped build should not take.)
cargo_home=$(cd "${CARGO_HOME:-$HOME/.cargo}" && pwd)
remap="--remap-path-prefix=$cargo_home=/cargo"
sep=$'\x1f'
if [ -n "${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
    CARGO_ENCODED_RUSTFLAGS="$CARGO_ENCODED_RUSTFLAGS$sep$remap"
elif [ -n "${RUSTFLAGS:-}" ]; then
    read -r -a user_flags <<<"$RUSTFLAGS"
    CARGO_ENCODED_RUSTFLAGS=$(IFS="$sep" && echo "${user_flags[*]}")"$sep$remap"
else
    CARGO_ENCODED_RUSTFLAGS=$remap
fi
export CARGO_ENCODED_RUSTFLAGS
unset RUSTFLAGS
mkdir -p "$build"
if [ "$os" = windows ]; then
    # The DLL, its import library and the static library, with MinGW-w64, and their install.
    cmake -S "$src" -B "$build" --toolchain "$src/cmake/mingw-w64-x86_64.cmake" \
        -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DDMLS_BUILD_EXAMPLES=OFF \
        -DDMLS_CARGO_TARGET=x86_64-pc-windows-gnu -DCMAKE_INSTALL_DOCDIR=. >"$build/configure.log" ||
        { cat "$build/configure.log" >&2; exit 1; }
    cmake --build "$build"
    [ -f "$build/lib/directml_subset.lib" ] ||
        { echo "dist.sh: the build made no MSVC import library ($build/configure.log says why)" >&2; exit 1; }
    echo "dist.sh: $build/lib/directml_subset.dll"
    [ "$what" = lib ] && exit 0
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    name="directml_subset-$version-x86_64-windows-gnu"
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    cmake --install "$build" --prefix "$stage/$name" >/dev/null
    # Reproducible: sorted names, every time the last commit's (or SOURCE_DATE_EPOCH), no
    # owners (a zip has none), the same compression.
    epoch=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || echo 0)}
    python3 - "$stage" "$name" "$epoch" "$out/$name.zip" <<'PY'
import os, sys, time, zipfile
stage, name, epoch, zip_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
when = time.gmtime(max(epoch, 315532800))[:6]  # a zip's times start in 1980
paths = []
for top, dirs, files in os.walk(os.path.join(stage, name)):
    paths += [os.path.join(top, f) for f in files]
with zipfile.ZipFile(zip_path + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for path in sorted(paths, key=lambda p: os.path.relpath(p, stage)):
        info = zipfile.ZipInfo(os.path.relpath(path, stage).replace(os.sep, "/"), when)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
        with open(path, "rb") as f:
            z.writestr(info, f.read(), compresslevel=9)
os.replace(zip_path + ".part", zip_path)
PY
    (cd "$out" && sha256sum "$name.zip" >"$name.zip.sha256")
    echo "dist.sh: $out/$name.zip"
    cat "$out/$name.zip.sha256"
    exit 0
fi
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DDMLS_BUILD_EXAMPLES=OFF -DDMLS_CARGO_SUBCOMMAND=zigbuild "-DDMLS_CARGO_TARGET=$target" \
    "-DDMLS_CARGO_TARGET_DIR=$target_dir" -DCMAKE_INSTALL_DOCDIR=. "${cross_args[@]}" >"$build/configure.log" ||
    { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build"
lib="$build/lib/libdirectml_subset.so.$version"

# The promise the packages' names make: no glibc symbol newer than the baseline.
# (readelf reads any CPU's ELF files; the host's objdump may not.)
newest=$(readelf --dyn-syms -W "$lib" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n1)
if [ "$(printf '%s\n%s\n' "$newest" "$glibc" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n1)" != "$glibc" ]; then
    echo "dist.sh: $lib needs GLIBC_$newest, newer than the baseline $glibc" >&2
    exit 1
fi
echo "dist.sh: $lib (newest glibc symbol version: GLIBC_$newest)"
[ "$what" = lib ] && exit 0

mkdir -p "$out"
out=$(cd "$out" && pwd)

# --- the wheel -------------------------------------------------------------------------------
if [ "$what" = wheel ]; then
    wheel="$out/directml_subset-$version-py3-none-$wheel_platform.whl"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # setup.py bundles the prebuilt library instead of running cargo, and tags the wheel.
    DIRECTML_SUBSET_PREBUILT_LIBRARY="$lib" DIRECTML_SUBSET_WHEEL_PLATFORM="$wheel_platform" \
        "$python" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
        --no-index --wheel-dir "$work" "$src/python"
    [ -f "$work/$(basename "$wheel")" ] || { ls "$work" >&2; echo "dist.sh: pip made no $(basename "$wheel")" >&2; exit 1; }
    # auditwheel reads the platform the bundled library allows; it must be the one claimed.
    # (Its report is wrapped at any space: compare it on one line.)
    "$python" -m auditwheel show "$work/$(basename "$wheel")" >"$work/show.txt"
    if ! tr -s ' \n' '  ' <"$work/show.txt" |
        grep -q "consistent with the following platform tag: \"$audit_platform\""; then
        cat "$work/show.txt" >&2
        echo "dist.sh: auditwheel does not confirm $audit_platform" >&2
        exit 1
    fi
    mv "$work/$(basename "$wheel")" "$wheel"
    echo "dist.sh: $wheel (auditwheel: $audit_platform)"
    exit 0
fi

# --- the tarball -----------------------------------------------------------------------------
name="directml_subset-$version-$tarball_platform"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage/$name" >/dev/null
# Reproducible: sorted names, no owners, every time the last commit's (or SOURCE_DATE_EPOCH).
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || echo 0)}
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -C "$stage" -cf - "$name" | gzip -9n >"$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "dist.sh: $out/$name.tar.gz"
cat "$out/$name.tar.gz.sha256"
