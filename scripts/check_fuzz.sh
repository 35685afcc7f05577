#!/usr/bin/env bash
# Coverage-guided fuzzing of the C API (fuzz/, a cargo-fuzz project) for a bounded time, plus the
# committed corpus as regression tests.
#
#   scripts/check_fuzz.sh [<source dir> [<build dir>]]
#
# 1. Installs cargo-fuzz when it is missing (`cargo install cargo-fuzz --locked` into a cache
#    directory, $DMLS_TOOLS_DIR, default ~/.cache/directml_subset/tools).
# 2. Builds the targets `api` and `create` with libFuzzer on the stable toolchain:
#    AddressSanitizer through RUSTC_BOOTSTRAP=1 (stable's sanitizer runtimes are unlocked that
#    way; DMLS_FUZZ_SANITIZER=none turns it off), falling back to `--sanitizer none` when that
#    build fails. The target directory is cached ($DMLS_FUZZ_TARGET_DIR, default
#    ~/.cache/directml_subset/fuzz-target) so later runs only rebuild what changed.
# 3. Replays fuzz/corpus/<target>/ once (regression; one process per target, one per input
#    only when that fails), then fuzzes each target for
#    $DMLS_FUZZ_SECONDS seconds (default 60), never more than $DMLS_FUZZ_BUDGET seconds of
#    fuzzing in all (default 180; each target gets its share), side by side when there is a
#    CPU for each, starting from the committed corpus plus what earlier runs
#    found ($build/fuzz-corpus). A crash leaves its input in $build/fuzz-artifacts/<target>/.
#
# When libFuzzer cannot be built or run here (an unsupported platform, cargo-fuzz not
# installable, the libFuzzer build failing), the corpus is still replayed with a plain stable
# `cargo test` in fuzz/ (no instrumentation), and the script then prints SKIP and exits 77
# (ctest: skipped) if the replay passed; with no C++ compiler it only skips.
#
# ctest: tier check, timeout 1800, locks none
set -euo pipefail

src=$(cd "${1:-.}" && pwd)
build=$(mkdir -p "${2:-$src/build}" && cd "${2:-$src/build}" && pwd)
cd "$src"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# shellcheck source=scripts/lock.sh
. "$src/scripts/lock.sh"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/directml_subset"
tools="${DMLS_TOOLS_DIR:-$cache/tools}"
target_dir="${DMLS_FUZZ_TARGET_DIR:-$cache/fuzz-target}"
per_target="${DMLS_FUZZ_SECONDS:-60}"
budget="${DMLS_FUZZ_BUDGET:-180}"
sanitizer="${DMLS_FUZZ_SANITIZER:-address}"
targets=(api create)
start=$SECONDS
mkdir -p "$tools" "$target_dir" "$build/fuzz-artifacts" "$build/fuzz-corpus"
export PATH="$tools/bin:$PATH"

replay_stable() {
    echo "== replaying the corpus with stable cargo test (no libFuzzer instrumentation)"
    (cd fuzz && CARGO_TARGET_DIR="$build/fuzz-stable" cargo test --release --test corpus)
}

skip_or_replay() { # reason
    echo "NOTE: $1"
    if replay_stable; then
        echo "fuzz: corpus replayed on stable in $((SECONDS - start)) s"
        # ctest lists the check as skipped: the corpus passed, but nothing was fuzzed.
        echo "SKIP: no fuzzing ($1); the corpus was replayed without libFuzzer instead"
        exit 77
    fi
    echo "FAIL: the corpus replay itself failed" >&2
    exit 1
}

host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
    x86_64-*-linux-gnu | aarch64-*-linux-gnu) ;;
    *) skip_or_replay "libFuzzer via cargo-fuzz is not set up for $host" ;;
esac
if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
    echo "SKIP: no C++ compiler to build libFuzzer (libfuzzer-sys)"
    exit 77
fi

# 1. cargo-fuzz.
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz into $tools (once; cached)"
    if ! dmls_locked tools cargo install cargo-fuzz --locked --root "$tools" --quiet; then
        skip_or_replay "cargo-fuzz could not be installed"
    fi
fi
echo "== $(cargo fuzz --version)"

# 2. Build.
build_targets() { # sanitizer
    if [ "$1" = none ]; then
        cargo fuzz build -O --sanitizer none --target-dir "$target_dir" --fuzz-dir fuzz
    else
        RUSTC_BOOTSTRAP=1 cargo fuzz build -O --sanitizer "$1" --target-dir "$target_dir" --fuzz-dir fuzz
    fi
}
t0=$SECONDS
if ! build_targets "$sanitizer" >"$build/fuzz-build.log" 2>&1; then
    tail -n 30 "$build/fuzz-build.log"
    if [ "$sanitizer" != none ]; then
        echo "NOTE: the $sanitizer build failed; building with --sanitizer none"
        sanitizer=none
        build_targets none >"$build/fuzz-build.log" 2>&1 || {
            tail -n 30 "$build/fuzz-build.log"
            skip_or_replay "the libFuzzer build failed"
        }
    else
        skip_or_replay "the libFuzzer build failed"
    fi
fi
echo "== built ${targets[*]} (sanitizer: $sanitizer) in $((SECONDS - t0)) s"
bin_dir="$target_dir/$host/release"

# 3. Regression: every committed input once. First all of a target's inputs in one process
# (fast); when that fails, each input in its own process so that every failing one is
# reported. Inputs that fail are left out of the fuzzing that follows (they would stop it at
# once); the check fails on them all the same.
common=(-timeout=20 -rss_limit_mb=4096)
failed=0
for t in "${targets[@]}"; do
    bin="$bin_dir/$t"
    seeds="$build/fuzz-seeds/$t"
    rm -rf "$seeds"
    mkdir -p "$seeds"
    n=$(find fuzz/corpus/"$t" -type f | wc -l)
    if "$bin" "${common[@]}" -runs=0 fuzz/corpus/"$t" >"$build/fuzz-replay.log" 2>&1; then
        cp fuzz/corpus/"$t"/* "$seeds/"
        echo "ok   $t: $n corpus inputs replayed"
        continue
    fi
    bad=0
    for f in fuzz/corpus/"$t"/*; do
        if "$bin" "${common[@]}" "$f" >"$build/fuzz-replay.log" 2>&1; then
            cp "$f" "$seeds/"
        else
            bad=$((bad + 1))
            echo "FAIL $t: $f breaks a promise:"
            grep -v '^INFO\|^ *#[0-9]\|^Running\|^Executed' "$build/fuzz-replay.log" | grep -v '^$' | head -n 12
        fi
    done
    failed=$((failed + 1))
    echo "FAIL $t: $bad of $n corpus inputs break a promise (all of them together failed too)"
done

# Each target gets min($per_target, $budget / targets) seconds. With a CPU per target (nproc)
# the targets fuzz side by side (each libFuzzer process is one thread), else one after another:
# the same fuzzing either way, half the wall time on two CPUs.
secs=$((budget / ${#targets[@]}))
[ "$secs" -gt "$per_target" ] && secs=$per_target
cpus=$(nproc 2>/dev/null || echo 1)
fuzz_one() { # target: fuzz it for $secs s; the report goes to $build/fuzz-<target>.report
    local t=$1 corpus="$build/fuzz-corpus/$1" report="$build/fuzz-$1.report"
    mkdir -p "$corpus" "$build/fuzz-artifacts/$t"
    if "$bin_dir/$t" "${common[@]}" -print_final_stats=1 -max_total_time="$secs" \
            -artifact_prefix="$build/fuzz-artifacts/$t/" "$corpus" "$build/fuzz-seeds/$t" \
            >"$build/fuzz-$t.log" 2>&1; then
        { grep -E '^stat::number_of_executed_units|^#[0-9]+ *DONE' "$build/fuzz-$t.log" | tail -n 2 || true
          echo "ok   $t: $(grep -c . <(ls "$corpus")) inputs in the working corpus"; } >"$report"
        return 0
    fi
    { grep -v '^#\|^INFO' "$build/fuzz-$t.log" | tail -n 80 || true
      echo "FAIL $t: the input that broke a promise is in $build/fuzz-artifacts/$t/"
      echo "     reproduce: (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run $t <that file>)"
      echo "     then add it to fuzz/corpus/$t/ so that it stays a regression test"; } >"$report"
    return 1
}
t0=$SECONDS
if [ "$secs" -lt 1 ]; then
    echo "== no fuzzing time in the budget ($budget s)"
elif [ "$cpus" -ge "${#targets[@]}" ]; then
    echo "== ${targets[*]}: fuzzing side by side for $secs s each ($cpus CPUs)"
    pids=()
    for t in "${targets[@]}"; do
        fuzz_one "$t" &
        pids+=($!)
    done
    for i in "${!targets[@]}"; do
        wait "${pids[$i]}" || failed=$((failed + 1))
        cat "$build/fuzz-${targets[$i]}.report"
    done
else
    for t in "${targets[@]}"; do
        echo "== $t: fuzzing for $secs s"
        fuzz_one "$t" || failed=$((failed + 1))
        cat "$build/fuzz-$t.report"
    done
fi
fuzzed=$((SECONDS - t0))

echo "fuzz: ${#targets[@]} targets, sanitizer $sanitizer, $secs s each, $fuzzed s of fuzzing, $((SECONDS - start)) s in all"
echo "$(( ${#targets[@]} * 2 - failed )) passed, $failed failed"
[ "$failed" -eq 0 ]
