# Sourced (not run) by scripts/check_sanitizers.sh and scripts/check_valgrind.sh: the
# directories of a check, and how they build each C/C++ test program (c_tests/test_*.c as C11,
# c_tests/test_*.cpp as C++17), named as ctest names them.

# check_dirs NAME [<source dir> [<build dir>]]: sets src and build (made), and out
# (<build dir>/NAME, made); enters src; puts cargo on PATH; CC and CXX default to cc and c++.
check_dirs() {
    local name=$1
    src=$(cd "${2:-.}" && pwd)
    build=$(mkdir -p "${3:-$src/build}" && cd "${3:-$src/build}" && pwd)
    out="$build/$name"
    mkdir -p "$out"
    cd "$src"
    export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
    CC=${CC:-cc}
    CXX=${CXX:-c++}
}

# c_test_sources: every C and C++ test program's source, relative to src.
c_test_sources() {
    local f
    for f in c_tests/test_*.c c_tests/test_*.cpp; do
        [ -e "$f" ] && echo "$f"
    done
}

# c_test_name SOURCE: the program's name (test_x; test_x_cpp for a .cpp).
c_test_name() {
    local name
    name=$(basename "$1")
    case "$1" in
        *.cpp) echo "${name%.*}_cpp" ;;
        *) echo "${name%.*}" ;;
    esac
}

# c_test_build SOURCE EXE: compiles SOURCE into EXE with the caller's arrays `flags` (before
# the source) and `libs` (after it).
c_test_build() {
    case "$1" in
        *.cpp) "$CXX" -std=c++17 "${flags[@]}" "$1" "${libs[@]}" -o "$2" ;;
        *) "$CC" -std=c11 "${flags[@]}" "$1" "${libs[@]}" -o "$2" ;;
    esac
}
