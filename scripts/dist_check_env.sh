# Sourced by scripts/check_wheel.sh and scripts/check_dist.sh with their arguments
# ([<source dir> [<build dir>]]): sets src, build, out (where scripts/dist.sh writes the
# artifacts), version (Cargo.toml's) and start, and builds in <build dir>/dist; arch
# ($DMLS_DIST_ARCH: x86_64, the default, or aarch64), and for a CPU that is not this machine's
# cc, cxx and qemu (an array: the qemu-user that runs its programs here, with QEMU_LD_PREFIX
# exported; empty for this machine's CPU) and cross_cmake
# (check_consumer.cmake's arguments for it).
src=$(cd "${1:-.}" && pwd)
build=$(mkdir -p "${2:-$src/build}" && cd "${2:-$src/build}" && pwd)
out="$build/dist-out"
export DMLS_DIST_BUILD_DIR="$build/dist"
version=$(sed -n 's/^version *= *"\([0-9][0-9.]*\)".*/\1/p' "$src/Cargo.toml" | head -n1)
start=$SECONDS
arch=${DMLS_DIST_ARCH:-x86_64}
cc=cc
cxx=c++
qemu=()
cross_cmake=()
case "$arch" in
    x86_64 | aarch64) ;;
    *) echo "FAIL: DMLS_DIST_ARCH is $arch; known: x86_64 aarch64"; exit 1 ;;
esac
if [ "$arch" != "$(uname -m)" ]; then
    cc=$arch-linux-gnu-gcc
    cxx=$arch-linux-gnu-g++
    # (qemu-user finds the programs' loader and C library under QEMU_LD_PREFIX: its -L.)
    export QEMU_LD_PREFIX=/usr/$arch-linux-gnu
    qemu=("qemu-$arch")
    cross_cmake=("-DSYSTEM_PROCESSOR=$arch" "-DEMULATOR=qemu-$arch")
fi
