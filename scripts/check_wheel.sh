#!/usr/bin/env bash
# The Python wheel as a user gets it:
#
#   scripts/check_wheel.sh [<source dir> [<build dir>]]
#
# The wheel of $DMLS_DIST_ARCH (x86_64, the default, or aarch64: then tested under qemu-aarch64,
# as scripts/check_dist_aarch64.sh does; see the end of this comment).
#
# 1. Builds it with scripts/dist.sh wheel into <build dir>/dist-out/ (auditwheel confirms its
#    manylinux_2_17_ARCH tag there).
# 2. Checks its contents: the package, the bundled library, the license files, the metadata
#    (version = Cargo.toml's, summary, license, Requires-Python, numpy, classifiers).
# 3. Installs it with pip into a fresh virtual environment, with numpy and the test
#    requirements from PyPI, and runs the Python tests (python/tests) against that installed
#    copy, with no cargo on PATH, no DIRECTML_SUBSET_LIBRARY and no PYTHONPATH: the package must
#    load the library it bundles, and report Cargo.toml's version.
#
# For another CPU than this machine's, step 3 runs Debian's Python for that CPU under qemu-user
# (scripts/cross_setup.sh's cross_python) with the wheel and the test requirements installed by
# pip for that CPU (--platform, --target) into a directory on its PYTHONPATH. Left out there:
# tests/test_fork.py (qemu-user aborts in a child forked from a process with threads, as
# scripts/check_cross.sh says) and test_reuse.py's test that starts the interpreter again
# (qemu-user follows that only where binfmt_misc knows qemu).
#
# ctest: tier check, timeout 1200, locks dist
set -euo pipefail

# shellcheck source=scripts/dist_check_env.sh
. "$(dirname "$0")/dist_check_env.sh"
python="${VIRTUAL_ENV:-$src/.venv}/bin/python"

echo "== scripts/dist.sh wheel --arch $arch"
"$src/scripts/dist.sh" wheel --out "$out" --arch "$arch"
wheel="$out/directml_subset-$version-py3-none-manylinux_2_17_$arch.manylinux2014_$arch.whl"
[ -f "$wheel" ] || { echo "FAIL: no $wheel"; exit 1; }
built=$SECONDS

echo "== the wheel's contents and metadata"
"$python" - "$wheel" "$version" "$arch" <<'EOF'
import sys
import zipfile
from email.parser import Parser

path, version, arch = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []
with zipfile.ZipFile(path) as z:
    names = set(z.namelist())
    info = f"directml_subset-{version}.dist-info"
    for need in [
        "directml_subset/__init__.py",
        "directml_subset/libdirectml_subset.so",
        "directml_subset/py.typed",
        f"{info}/licenses/LICENSE-MIT",
        f"{info}/licenses/LICENSE-APACHE",
        f"{info}/METADATA",
        f"{info}/WHEEL",
        f"{info}/RECORD",
    ]:
        if need not in names:
            failures.append(f"missing {need}")
    stray = sorted(n for n in names if not n.startswith(("directml_subset/", info + "/")))
    if stray:
        failures.append(f"files outside the package and its metadata: {stray}")
    wheel = Parser().parsestr(z.read(f"{info}/WHEEL").decode())
    tags = sorted(wheel.get_all("Tag") or [])
    if wheel["Root-Is-Purelib"] != "false" or tags != [
        f"py3-none-manylinux2014_{arch}",
        f"py3-none-manylinux_2_17_{arch}",
    ]:
        failures.append(f"WHEEL: Root-Is-Purelib {wheel['Root-Is-Purelib']}, Tags {tags}")
    meta = Parser().parsestr(z.read(f"{info}/METADATA").decode())
    expect = {
        "Name": "directml_subset",
        "Version": version,
        "License-Expression": "MIT OR Apache-2.0",
        "Requires-Python": ">=3.9",
    }
    for key, want in expect.items():
        if meta[key] != want:
            failures.append(f"METADATA {key}: {meta[key]!r}, expected {want!r}")
    if not meta["Summary"]:
        failures.append("METADATA has no Summary")
    if not any(r.startswith("numpy") for r in meta.get_all("Requires-Dist") or []):
        failures.append("METADATA does not require numpy")
    classifiers = meta.get_all("Classifier") or []
    for want in ["Operating System :: POSIX :: Linux", "Programming Language :: Python :: 3"]:
        if want not in classifiers:
            failures.append(f"METADATA lacks the classifier {want!r}")
    if len(meta.get_payload()) < 200:
        failures.append("METADATA has no long description")
for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"{path}: {len(names)} files, metadata as expected")
EOF

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ${#qemu[@]} -eq 0 ]; then
    echo "== a fresh virtual environment, the wheel installed with pip"
    "$python" -m venv "$work/venv"
    site=$work/venv
    "$site/bin/python" -m pip install --quiet --disable-pip-version-check --progress-bar off \
        "$wheel" -r "$src/python/requirements-test.txt"
    py=(python)
    # pytest (not python -m pytest, which would put the working directory first on sys.path).
    pytest=(pytest)
    path=$site/bin
else
    # shellcheck source=scripts/cross_setup.sh
    . "$src/scripts/cross_setup.sh"
    cross_python "$arch" || exit 77
    site=$work/site
    echo "== the wheel installed with pip for $arch (Python $cross_python_version) into $site"
    "$python" -m pip install --quiet --disable-pip-version-check --progress-bar off \
        --target "$site" --only-binary=:all: --implementation cp \
        --python-version "$cross_python_version" --abi "cp${cross_python_version/./}" \
        --platform "manylinux_2_17_$arch" --platform "manylinux2014_$arch" \
        --platform "manylinux_2_28_$arch" \
        "$wheel" -r "$src/python/requirements-test.txt"
    py=("qemu-$arch" -L "$cross_python_root" -E "PYTHONPATH=$site"
        "$cross_python_root/usr/bin/python$cross_python_version")
    pytest=("${py[@]}" -m pytest --ignore "$src/python/tests/test_fork.py"
        --deselect tests/test_reuse.py::test_importing_the_source_folder_says_it_shadows_the_package)
    path=
fi
installed=$SECONDS

# PATH without any directory that holds cargo (nor rustc).
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -n "$d" ] && [ ! -e "$d/cargo" ] && [ ! -e "$d/rustc" ] && path=${path:+$path:}$d
done
run() {
    env -u DIRECTML_SUBSET_LIBRARY -u PYTHONPATH -u CARGO -u VIRTUAL_ENV PATH="$path" \
        PYTHONDONTWRITEBYTECODE=1 "$@"
}
if run sh -c 'command -v cargo'; then
    echo "FAIL: cargo is still on PATH"
    exit 1
fi

# From a directory outside the source tree, so that the installed copy is the one imported.
cd "$work"
run "${py[@]}" -c '
import importlib.metadata, pathlib, sys
import directml_subset as d
version, site = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
lib = pathlib.Path(d.LIBRARY_PATH).resolve()
print(f"directml_subset {d.__version__} from {lib}")
assert site in lib.parents, f"{lib} is not the copy installed in {site}"
assert d.__version__ == version, (d.__version__, version)
assert importlib.metadata.version("directml_subset") == version
import numpy as np
assert d.onnx_nonzero(np.eye(3)).tolist() == [[0, 1, 2], [0, 1, 2]]
' "$version" "$site"

echo "== the Python tests against the installed wheel"
run "${pytest[@]}" -p no:cacheprovider -q "$src/python/tests"
echo "check_wheel: built in $((built - start)) s, installed in $((installed - built)) s," \
    "tested in $((SECONDS - installed)) s"
