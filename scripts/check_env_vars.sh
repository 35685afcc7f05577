#!/usr/bin/env bash
# docs/environment.md lists every environment variable of the project's own (DMLS_*,
# DIRECTML_SUBSET_*) and RAYON_NUM_THREADS that the code reads, and nothing else: fails when
# the library, a test, a benchmark, a script or ./dev reads one that the page lacks, or the
# page lists one that nothing reads.
#
# What counts as a read:
# - in Rust, Python, C and C++ files: the name as a whole string literal ("DMLS_SIMD"), the
#   only way those languages name a variable to read (std::env::var, os.environ, getenv, or
#   a helper such as test_support::env_or); names the C header defines (DMLS_DEVICE_FLAG_*,
#   DMLS_VERSION_*, ...) are API identifiers, not variables, and are left out;
# - in shell scripts (scripts/*.sh, ./dev, .ci/run): an expansion, $NAME or ${NAME...};
# - in CMake files: $ENV{NAME}.
# What counts as listed: a table row of docs/environment.md whose first cell is the name in
# backticks (| `DMLS_SIMD` | ...).
#
#   scripts/check_env_vars.sh [<source dir> [<build dir>]]
#
# ctest: tier test, timeout 60
set -euo pipefail
src=$(cd "${1:-.}" && pwd)
exec python3 - "$src" <<'EOF'
import os
import re
import sys

src = sys.argv[1]
NAME = r"(?:DMLS_[A-Z0-9_]*[A-Z0-9]|DIRECTML_SUBSET_[A-Z0-9_]*[A-Z0-9]|RAYON_[A-Z0-9_]*[A-Z0-9])"
LITERAL = re.compile(r"[\"'](" + NAME + r")[\"']")
SHELL = re.compile(r"\$\{?(" + NAME + r")\b")
CMAKE = re.compile(r"\$ENV\{(" + NAME + r")\}")
SKIP_DIRS = {".git", "build", ".venv", "__pycache__", "corpus", "node_modules"}
PAGE = os.path.join("docs", "environment.md")


def kind(rel):
    base = os.path.basename(rel)
    if base.endswith((".rs", ".py", ".c", ".h", ".cpp", ".hpp")):
        return LITERAL
    if base.endswith(".sh") or rel in ("dev", os.path.join(".ci", "run")):
        return SHELL
    if base.endswith(".cmake") or base == "CMakeLists.txt":
        return CMAKE
    return None


api = set()
for root, _, files in os.walk(os.path.join(src, "include")):
    for f in files:
        api |= set(re.findall(r"#define\s+(" + NAME + r")\b", open(os.path.join(root, f), encoding="utf-8").read()))

read = {}
for root, dirs, files in os.walk(src):
    dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("target"))
    for f in sorted(files):
        rel = os.path.relpath(os.path.join(root, f), src)
        pattern = kind(rel)
        if pattern is None:
            continue
        text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
        for name in pattern.findall(text):
            if name not in api:
                read.setdefault(name, []).append(rel)

row = re.compile(r"^\|\s*`(" + NAME + r")`\s*\|")
listed = {}
for number, line in enumerate(open(os.path.join(src, PAGE), encoding="utf-8"), 1):
    m = row.match(line)
    if m:
        if m.group(1) in listed:
            print(f"{PAGE}:{number}: {m.group(1)} is listed twice (first on line {listed[m.group(1)]})")
            listed["?"] = 0
        listed.setdefault(m.group(1), number)

failures = 0
for name in sorted(set(read) - set(listed)):
    failures += 1
    where = ", ".join(sorted(set(read[name])))
    print(f"{name} is read by {where} but {PAGE} does not list it: add a row | `{name}` | ... |")
for name in sorted(set(listed) - set(read) - {"?"}):
    failures += 1
    print(f"{PAGE}:{listed[name]}: {name} is listed, but no code reads it: remove the row")
failures += "?" in listed
print(f"{len(read)} variables read, {len(listed) - ('?' in listed)} listed, {failures} problems")
sys.exit(1 if failures else 0)
EOF
