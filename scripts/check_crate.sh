#!/usr/bin/env bash
# The crate as crates.io would get it:
#
#   scripts/check_crate.sh [<source dir> [<build dir>]]
#
# 1. `cargo package --list` holds what a crate user needs and nothing else: the manifest and
#    lock file, build.rs, every .rs file of src/ that git tracks, the crate's page
#    (docs/crate-readme.md), the license texts and the changelog (Cargo.toml's `include`).
# 2. `cargo publish --dry-run` passes: it packages the crate, builds it on its own from the
#    package, and checks the metadata crates.io requires, without uploading. Its only warnings
#    may be the test and bench targets that the package leaves out, and the dry run's own.
# Both run with --allow-dirty, so that they check the working tree as it is; a release runs
# them on a clean tree (docs/releasing.md).
#
# ctest: tier check, timeout 900
set -euo pipefail

src=$(cd "${1:-.}" && pwd)
build=$(mkdir -p "${2:-$src/build}" && cd "${2:-$src/build}" && pwd)
cd "$src"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# The library build's target directory: the verification build reuses its dependencies.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$build/cargo}"
status=0

echo "== cargo package --list"
cargo package --list --allow-dirty --quiet >"$build/crate-files.txt"
cat "$build/crate-files.txt"
allowed='^(Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|\.cargo_vcs_info\.json|build\.rs|src/.*\.rs|docs/crate-readme\.md|LICENSE-MIT|LICENSE-APACHE|CHANGELOG\.md)$'
if grep -Ev "$allowed" "$build/crate-files.txt"; then
    echo "FAIL: the files above are in the package, which a crate user does not need"
    status=1
fi
required=(Cargo.toml Cargo.lock build.rs docs/crate-readme.md LICENSE-MIT LICENSE-APACHE CHANGELOG.md)
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    mapfile -t sources < <(git -C "$src" ls-files 'src/*.rs')
    required+=("${sources[@]}")
fi
for f in "${required[@]}"; do
    if ! grep -qxF "$f" "$build/crate-files.txt"; then
        echo "FAIL: $f is not in the package"
        status=1
    fi
done

echo "== cargo publish --dry-run"
cargo publish --dry-run --allow-dirty 2>&1 | tee "$build/crate-publish.log"
unexpected=$(grep '^warning:' "$build/crate-publish.log" |
    grep -Ev '^warning: (ignoring (test|benchmark) `[^`]*` as `(tests|benches)/[^`]*` is not included in the published package|aborting upload due to dry run)$' || true)
if [ -n "$unexpected" ]; then
    echo "FAIL: cargo publish --dry-run warns:"
    echo "$unexpected"
    status=1
fi
[ $status = 0 ] && echo "check_crate: $(wc -l <"$build/crate-files.txt") files in the package; cargo publish --dry-run passes"
exit $status
