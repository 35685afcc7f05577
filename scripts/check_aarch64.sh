#!/usr/bin/env bash
# The library on 64-bit Arm Linux (aarch64-unknown-linux-gnu), cross-built here and run under
# qemu-user: the whole Rust suite (`cargo test --release`: the unit and integration tests; doc tests
# are not cross-built) and every C/C++ test program (c_tests/test_*.c, test_*.cpp) linked against the
# aarch64 static library. There the kernels run their portable code, the code of every CPU
# that is not x86-64.
#
#   scripts/check_aarch64.sh [<source dir> [<build dir>]]
#
# Needs, on an x86-64 Linux host: the Rust target (`rustup target add aarch64-unknown-linux-gnu`,
# done here when rustup can), aarch64-linux-gnu-gcc and -g++ with their C library, and
# qemu-aarch64 (as root these come from apt-get: gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
# qemu-user). Without them it prints SKIP and exits 77.
#
# One Rust test is left out: tests/simd_env.rs's dmls_simd_values starts its own executable
# again, and qemu-user cannot start an Arm program from an Arm program unless the kernel's
# binfmt_misc knows qemu (then it runs too). Its subject, reading DMLS_SIMD, is the same on
# every architecture. (tests/kernels.rs and tests/threads.rs start themselves again only on
# x86-64, for its other SIMD levels.) One C program is left out too: test_fork, whose forked
# children qemu-user itself aborts in (see below). The target directory is
# <build dir>/aarch64-cargo; each run gets $DMLS_AARCH64_TIMEOUT seconds (default 600).
#
# ctest: tier check, timeout 1800
set -euo pipefail
. "$(dirname "$0")/c_test_programs.sh"
check_dirs aarch64 "$@"

target=aarch64-unknown-linux-gnu
target_dir="$build/aarch64-cargo"
sysroot=/usr/aarch64-linux-gnu
limit="${DMLS_AARCH64_TIMEOUT:-600}"
start=$SECONDS

case "$(uname -m)-$(uname -s)" in
    x86_64-Linux) ;;
    *) echo "SKIP: the aarch64 check cross-builds from x86-64 Linux, not $(uname -m) $(uname -s)"; exit 77 ;;
esac

# The cross tools.
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v aarch64-linux-gnu-g++ >/dev/null ||
        ! command -v qemu-aarch64 >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu and qemu-user with apt-get"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross \
            qemu-user) >/dev/null 2>&1 || true
    fi
fi
for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed and cannot be installed here"
        exit 77
    fi
done
if [ ! -d "$sysroot/lib" ]; then
    echo "SKIP: no aarch64 C library in $sysroot (libc6-dev-arm64-cross)"
    exit 77
fi

# The Rust target.
std_installed() { compgen -G "$(rustc --print target-libdir --target "$target")/libstd-*.rlib" >/dev/null; }
if ! std_installed && command -v rustup >/dev/null; then
    echo "== rustup target add $target"
    rustup target add "$target" >/dev/null 2>&1 || true
fi
if ! std_installed; then
    echo "SKIP: the Rust standard library for $target is not installed and rustup cannot add it"
    exit 77
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $sysroot"
export QEMU_LD_PREFIX=$sysroot

passed=0
failed=0
failures=()

# 1. The Rust suite.
skip=()
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    skip=(--skip dmls_simd_values)
    echo "NOTE: no binfmt_misc entry for qemu-aarch64: tests/simd_env.rs's dmls_simd_values is left out"
fi
echo "== cargo test --release --target $target (target dir $target_dir; tests run under qemu-aarch64)"
t0=$SECONDS
status=0
timeout --kill-after=10 "$limit" cargo test --release --target "$target" --target-dir "$target_dir" \
    --no-fail-fast --lib --bins --tests -- "${skip[@]}" >"$out/cargo-test.log" 2>&1 || status=$?
grep -E '^(test result|     Running|error|failures)|panicked|FAILED' "$out/cargo-test.log" || true
if [ "$status" -eq 0 ] && grep -q '^test result: ok' "$out/cargo-test.log"; then
    echo "ok   cargo test on $target ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
else
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "FAIL: still running after $limit s: killed"
    fi
    echo "FAIL cargo test on $target (log: $out/cargo-test.log)"
    tail -n 40 "$out/cargo-test.log"
    failed=$((failed + 1))
    failures+=("cargo test")
fi

# 2. The C and C++ test programs against the aarch64 static library.
cargo build --release --lib --target "$target" --target-dir "$target_dir" --quiet
lib="$target_dir/$target/release/libdirectml_subset.a"
CC=aarch64-linux-gnu-gcc
CXX=aarch64-linux-gnu-g++
flags=(-O1 -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests")
libs=("$lib" -lpthread -ldl -lm)
for test_src in $(c_test_sources); do
    name=$(c_test_name "$test_src")
    exe="$out/$name"
    if [ "$name" = test_fork ]; then
        # qemu-user (7.2, Debian 12's) aborts in a child forked from a process with threads
        # (an assertion in its own code), so the program cannot pass under it; the fork
        # handling it tests is the same code on every architecture, tested natively.
        echo "skip $name: qemu-user cannot run a child forked from a process with threads"
        continue
    fi
    t0=$SECONDS
    if ! c_test_build "$test_src" "$exe" >"$out/$name.build.log" 2>&1; then
        echo "FAIL $name: does not build for $target"
        tail -n 20 "$out/$name.build.log"
        failed=$((failed + 1))
        failures+=("$name")
        continue
    fi
    status=0
    (cd "$out" && exec timeout --kill-after=10 "$limit" qemu-aarch64 -L "$sysroot" "$exe") \
        >"$out/$name.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        echo "ok   $name ($((SECONDS - t0)) s)"
        passed=$((passed + 1))
    else
        echo "FAIL $name: exit status $status (log: $out/$name.log)"
        tail -n 30 "$out/$name.log"
        failed=$((failed + 1))
        failures+=("$name")
    fi
done

echo "aarch64: $((passed + failed)) runs under qemu-aarch64 in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
