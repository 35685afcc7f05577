#!/usr/bin/env bash
# The Python wheel as a user gets it:
#
#   scripts/check_wheel.sh [<source dir> [<build dir>]]
#
# 1. Builds it with scripts/dist.sh wheel into <build dir>/dist-out/ (auditwheel confirms its
#    manylinux_2_17_x86_64 tag there).
# 2. Checks its contents: the package, the bundled library, the license files, the metadata
#    (version = Cargo.toml's, summary, license, Requires-Python, numpy, classifiers).
# 3. Installs it with pip into a fresh virtual environment, with numpy and the test
#    requirements from PyPI, and runs the Python tests (python/tests) against that installed
#    copy, with no cargo on PATH, no DIRECTML_SUBSET_LIBRARY and no PYTHONPATH: the package must
#    load the library it bundles, and report Cargo.toml's version.
#
# ctest: tier check, timeout 1200
set -euo pipefail

# shellcheck source=scripts/dist_check_env.sh
. "$(dirname "$0")/dist_check_env.sh"
python="${VIRTUAL_ENV:-$src/.venv}/bin/python"

echo "== scripts/dist.sh wheel"
"$src/scripts/dist.sh" wheel --out "$out"
wheel="$out/directml_subset-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
[ -f "$wheel" ] || { echo "FAIL: no $wheel"; exit 1; }
built=$SECONDS

echo "== the wheel's contents and metadata"
"$python" - "$wheel" "$version" <<'EOF'
import sys
import zipfile
from email.parser import Parser

path, version = sys.argv[1], sys.argv[2]
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
        "py3-none-manylinux2014_x86_64",
        "py3-none-manylinux_2_17_x86_64",
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

echo "== a fresh virtual environment, the wheel installed with pip"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
venv="$work/venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --progress-bar off \
    "$wheel" -r "$src/python/requirements-test.txt"
installed=$SECONDS

# PATH without any directory that holds cargo (nor rustc).
path=$venv/bin
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -n "$d" ] && [ ! -e "$d/cargo" ] && [ ! -e "$d/rustc" ] && path=$path:$d
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
run python -c '
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
' "$version" "$venv"

echo "== the Python tests against the installed wheel"
# pytest (not python -m pytest, which would put the working directory first on sys.path).
run pytest -p no:cacheprovider -q "$src/python/tests"
echo "check_wheel: built in $((built - start)) s, installed in $((installed - built)) s," \
    "tested in $((SECONDS - installed)) s"
