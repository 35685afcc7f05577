# Sourced (not run) by scripts/check_cross.sh, scripts/check_dist_aarch64.sh,
# scripts/check_wheel.sh, scripts/check_musl.sh and scripts/dist.sh: what building for another
# Linux target (another CPU, or musl libc) and running its programs (under qemu-user, for another
# CPU) needs on an x86-64 Debian or Ubuntu host.

# shellcheck source=scripts/lock.sh
. "$(dirname "${BASH_SOURCE[0]}")/lock.sh"

cross_debian_arch() { # arch: Debian's name for it
    case "$1" in
        aarch64) echo arm64 ;;
        *) echo "$1" ;;
    esac
}

# cross_setup ARCH: installs what ARCH needs where it can; says SKIP and fails where it cannot.
cross_setup() {
    local arch=$1 target=$1-unknown-linux-gnu tool
    if ! command -v "$arch-linux-gnu-gcc" >/dev/null || ! command -v "$arch-linux-gnu-g++" >/dev/null ||
            ! command -v "qemu-$arch" >/dev/null || [ ! -d "/usr/$arch-linux-gnu/lib" ]; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "== installing the $arch cross compilers and qemu-user with apt-get"
            dmls_apt_install "gcc-$arch-linux-gnu" "g++-$arch-linux-gnu" \
                "libc6-dev-$(cross_debian_arch "$arch")-cross" qemu-user || true
        fi
    fi
    for tool in "$arch-linux-gnu-gcc" "$arch-linux-gnu-g++" "qemu-$arch"; do
        if ! command -v "$tool" >/dev/null; then
            echo "SKIP: $tool is not installed and cannot be installed here"
            return 1
        fi
    done
    if [ ! -d "/usr/$arch-linux-gnu/lib" ]; then
        echo "SKIP: no $arch C library in /usr/$arch-linux-gnu (libc6-dev-$(cross_debian_arch "$arch")-cross)"
        return 1
    fi
    if ! cross_rust_std "$target"; then
        echo "SKIP: the Rust standard library for $target is not installed and rustup cannot add it"
        return 1
    fi
}

# cross_rust_std TARGET: Rust's standard library for TARGET, added with rustup where it is
# missing and rustup can; fails where it is still missing.
cross_rust_std() {
    local target=$1
    std_installed() { compgen -G "$(rustc --print target-libdir --target "$target")/libstd-*.rlib" >/dev/null; }
    if ! std_installed && command -v rustup >/dev/null; then
        echo "== rustup target add $target"
        dmls_locked rustup rustup target add "$target" >/dev/null 2>&1 || true
    fi
    std_installed
}

# dist_python_tools SRC VENV: the Python tools of python/requirements-dist.txt (Zig, auditwheel,
# setuptools) in the virtual environment VENV, installed from PyPI when the requirements changed
# since the last install; fails, saying why, where VENV is not a virtual environment.
dist_python_tools() {
    local src=$1 venv=$2 stamp=$2/.directml_subset-dist-ready
    if [ ! -x "$venv/bin/python" ]; then
        echo "no virtual environment at $venv (./dev makes .venv/)" >&2
        return 1
    fi
    if [ "$(cat "$stamp" 2>/dev/null)" != "$(cat "$src/python/requirements-dist.txt")" ]; then
        echo "== installing Zig, auditwheel and setuptools (python/requirements-dist.txt) into $venv"
        dmls_locked tools "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            --progress-bar off -r "$src/python/requirements-dist.txt" || return 1
        cp "$src/python/requirements-dist.txt" "$stamp"
    fi
}

# cross_python ARCH: Debian's own Python 3 for ARCH, unpacked (not installed) into
# $DMLS_CROSS_PYTHON_DIR (default ~/.cache/directml_subset/python-ARCH) for `qemu-ARCH -L`:
# apt-get downloads the interpreter, its standard library and the C libraries they and numpy's
# wheels load, with a package state of its own (the system's package lists and dpkg's
# architectures are left as they are; the system's sources must carry ARCH, as Debian's
# deb.debian.org does). Sets cross_python_root (the tree) and cross_python_version (3.N). Says
# SKIP and fails where it cannot.
cross_python() {
    local arch=$1 darch dir log apt ver
    darch=$(cross_debian_arch "$arch")
    dir=${DMLS_CROSS_PYTHON_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/directml_subset/python-$arch}
    cross_python_root=$dir/root
    if [ ! -f "$dir/ready" ]; then
        if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
            echo "SKIP: no apt-get here to download Debian's Python for $arch"
            return 1
        fi
        echo "== Debian's Python for $arch into $dir (apt-get download, first run only)"
        rm -rf "$dir"
        mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/root"
        log=$dir/apt.log
        apt=(apt-get -q -o "Dir::State=$dir/state" -o "Dir::State::status=/dev/null"
            -o "Dir::Cache=$dir/cache" -o "APT::Architecture=$darch" -o "APT::Architectures::=$darch"
            -o Debug::NoLocking=1)
        if ! "${apt[@]}" update >"$log" 2>&1; then
            echo "SKIP: apt-get cannot read the $darch package lists (log: $log)"
            return 1
        fi
        # The distribution's python3 names its version: python3.N-minimal.
        ver=$(apt-cache -o "Dir::State=$dir/state" -o "Dir::State::status=/dev/null" \
            -o "Dir::Cache=$dir/cache" -o "APT::Architecture=$darch" show python3-minimal 2>>"$log" |
            grep -o 'python3\.[0-9]*-minimal' | head -n1 | sed 's/^python\(3\.[0-9]*\)-minimal$/\1/')
        if [ -z "$ver" ] ||
            ! (cd "$dir/debs" && "${apt[@]}" download "python$ver-minimal" "libpython$ver-minimal" \
                "libpython$ver-stdlib" libffi8 libc6 zlib1g libexpat1 libgcc-s1 libstdc++6) >>"$log" 2>&1; then
            echo "SKIP: apt-get cannot download Debian's Python for $darch (log: $log)"
            return 1
        fi
        local deb
        for deb in "$dir"/debs/*.deb; do
            dpkg -x "$deb" "$dir/root"
        done
        echo "$ver" >"$dir/ready"
    fi
    cross_python_version=$(cat "$dir/ready")
}
