# Sourced by scripts/check_wheel.sh and scripts/check_dist.sh with their arguments
# ([<source dir> [<build dir>]]): sets src, build, out (where scripts/dist.sh writes the
# artifacts), version (Cargo.toml's) and start, and builds in <build dir>/dist.
src=$(cd "${1:-.}" && pwd)
build=$(mkdir -p "${2:-$src/build}" && cd "${2:-$src/build}" && pwd)
out="$build/dist-out"
export DMLS_DIST_BUILD_DIR="$build/dist"
version=$(sed -n 's/^version *= *"\([0-9][0-9.]*\)".*/\1/p' "$src/Cargo.toml" | head -n1)
start=$SECONDS
