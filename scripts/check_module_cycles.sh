#!/usr/bin/env bash
# Fails when two modules of src/ import from each other (directly or around a loop): the rule
# docs/architecture.md states, checked by scripts/module_cycles.py.
#
#   scripts/check_module_cycles.sh [<source dir> [<build dir>]]
#
# ctest: tier test, timeout 60
set -euo pipefail
src=${1:-$(dirname "$0")/..}
exec python3 "$src/scripts/module_cycles.py" "$src/src"
