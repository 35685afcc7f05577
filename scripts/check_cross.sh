#!/usr/bin/env bash
# The library on other Linux CPUs, cross-built here and run under qemu-user: for each target,
# `cargo clippy -D warnings` (the code only other CPUs compile), the whole Rust suite (`cargo
# test --release`: the unit and integration tests; doc tests are not cross-built) and every
# C/C++ test program (c_tests/test_*.c, test_*.cpp) linked against that target's static
# library. There the kernels run their portable code, the code of every CPU that is not
# x86-64.
#
#   scripts/check_cross.sh [<source dir> [<build dir>]]
#
# Targets: $DMLS_CROSS_TARGETS, default "aarch64" (64-bit Arm, little-endian); "aarch64 s390x"
# adds IBM Z, big-endian (about 4 minutes more on 2 cores). Each needs, on an x86-64 Linux
# host: Rust's standard library for it (`rustup target add <arch>-unknown-linux-gnu`, done here
# when rustup can), <arch>-linux-gnu-gcc and -g++ with their C library, and qemu-<arch> (as
# root these come from apt-get: gcc-<arch>-linux-gnu g++-<arch>-linux-gnu
# libc6-dev-<debian arch>-cross qemu-user). Without them it prints SKIP and exits 77.
#
# Left out under qemu: tests/simd_env.rs's dmls_simd_values starts its own executable again,
# which qemu-user cannot follow unless the kernel's binfmt_misc knows qemu (then it runs); its
# subject, reading DMLS_SIMD, is the same on every CPU. (tests/kernels.rs and tests/threads.rs
# start themselves again only on x86-64, for its other SIMD levels.) And the C program
# test_fork, whose forked children qemu-user itself aborts in (see below). The target
# directory is <build dir>/cross-cargo; each run gets $DMLS_CROSS_TIMEOUT seconds (default 600).
#
# ctest: tier check, timeout 2400, locks none
set -euo pipefail
. "$(dirname "$0")/c_test_programs.sh"
. "$(dirname "$0")/cross_setup.sh"
# shellcheck source=scripts/test_log.sh
. "$(dirname "$0")/test_log.sh"
check_dirs cross "$@"

archs=(${DMLS_CROSS_TARGETS:-aarch64})
target_dir="$build/cross-cargo"
limit="${DMLS_CROSS_TIMEOUT:-600}"
start=$SECONDS

case "$(uname -m)-$(uname -s)" in
    x86_64-Linux) ;;
    *) echo "SKIP: the cross check builds from x86-64 Linux, not $(uname -m) $(uname -s)"; exit 77 ;;
esac

passed=0
failed=0
failures=()
skipped=0

# check ARCH: the Rust suite and the C/C++ programs for ARCH under qemu-ARCH.
check() {
    local arch=$1 target=$1-unknown-linux-gnu sysroot=/usr/$1-linux-gnu status t0 env_arch
    local dir="$out/$arch"
    mkdir -p "$dir"
    env_arch=$(echo "$target" | tr 'a-z-' 'A-Z_')
    export "CARGO_TARGET_${env_arch}_LINKER=$arch-linux-gnu-gcc"
    export "CARGO_TARGET_${env_arch}_RUNNER=qemu-$arch -L $sysroot"

    # 1. Lints: code that only other CPUs compile (the x86-64 kernels are left out there).
    echo "== cargo clippy --release --target $target --all-targets -- -D warnings"
    status=0
    cargo clippy --release --target "$target" --target-dir "$target_dir" --all-targets --quiet \
        -- -D warnings >"$dir/clippy.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        echo "ok   $arch: clippy"
        passed=$((passed + 1))
    else
        echo "FAIL $arch: clippy (log: $dir/clippy.log)"
        grep -E '^(warning|error)|-->' "$dir/clippy.log" | head -n 40 || true
        failed=$((failed + 1))
        failures+=("$arch: clippy")
    fi

    # 2. The Rust suite.
    local skip=()
    if [ ! -e "/proc/sys/fs/binfmt_misc/qemu-$arch" ]; then
        skip=(--skip dmls_simd_values)
        echo "NOTE: no binfmt_misc entry for qemu-$arch: tests/simd_env.rs's dmls_simd_values is left out"
    fi
    echo "== cargo test --release --target $target (target dir $target_dir; tests run under qemu-$arch)"
    t0=$SECONDS
    status=0
    timeout --kill-after=10 "$limit" cargo test --release --target "$target" --target-dir "$target_dir" \
        --no-fail-fast --lib --tests -- "${skip[@]}" >"$dir/cargo-test.log" 2>&1 || status=$?
    dmls_test_summary "$dir/cargo-test.log"
    if [ "$status" -eq 0 ] && grep -q '^test result: ok' "$dir/cargo-test.log"; then
        echo "ok   $arch: cargo test ($((SECONDS - t0)) s)"
        passed=$((passed + 1))
    else
        if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
            echo "FAIL $arch: cargo test still running after $limit s: killed"
        fi
        echo "FAIL $arch: cargo test (log: $dir/cargo-test.log)"
        tail -n 40 "$dir/cargo-test.log"
        failed=$((failed + 1))
        failures+=("$arch: cargo test")
    fi

    # 3. The C and C++ test programs against the target's static library.
    cargo build --release --lib --target "$target" --target-dir "$target_dir" --quiet
    local lib="$target_dir/$target/release/libdirectml_subset.a" test_src name exe
    CC=$arch-linux-gnu-gcc
    CXX=$arch-linux-gnu-g++
    flags=(-O1 -Wall -Wextra -Wpedantic -Werror -I"$src/include" -I"$src/c_tests")
    libs=("$lib" -lpthread -ldl -lm)
    for test_src in $(c_test_sources); do
        name=$(c_test_name "$test_src")
        exe="$dir/$name"
        if [ "$name" = test_fork ]; then
            # qemu-user (7.2, Debian 12's) aborts in a child forked from a process with
            # threads (an assertion in its own code), so the program cannot pass under it;
            # the fork handling it tests is the same code on every CPU, tested natively.
            echo "skip $arch: $name (qemu-user cannot run a child forked from a process with threads)"
            continue
        fi
        t0=$SECONDS
        if ! c_test_build "$test_src" "$exe" >"$dir/$name.build.log" 2>&1; then
            echo "FAIL $arch: $name does not build"
            tail -n 20 "$dir/$name.build.log"
            failed=$((failed + 1))
            failures+=("$arch: $name")
            continue
        fi
        status=0
        (cd "$dir" && exec timeout --kill-after=10 "$limit" "qemu-$arch" -L "$sysroot" "$exe") \
            >"$dir/$name.log" 2>&1 || status=$?
        if [ "$status" -eq 0 ]; then
            echo "ok   $arch: $name ($((SECONDS - t0)) s)"
            passed=$((passed + 1))
        else
            echo "FAIL $arch: $name, exit status $status (log: $dir/$name.log)"
            tail -n 30 "$dir/$name.log"
            failed=$((failed + 1))
            failures+=("$arch: $name")
        fi
    done
}

for arch in "${archs[@]}"; do
    case "$arch" in
        aarch64 | s390x) ;;
        *) echo "FAIL: DMLS_CROSS_TARGETS names $arch; known: aarch64 s390x"; exit 1 ;;
    esac
    if cross_setup "$arch"; then
        check "$arch"
    else
        skipped=$((skipped + 1))
    fi
done

echo "cross: ${archs[*]}: $((passed + failed)) runs under qemu in $((SECONDS - start)) s"
if [ "$failed" -gt 0 ]; then
    printf '  failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
if [ "$skipped" -eq "${#archs[@]}" ]; then
    exit 77 # nothing could run here: skipped, as the SKIP lines say
fi
