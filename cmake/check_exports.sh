#!/usr/bin/env bash
# The shared library's dynamic symbol table defines exactly the dmls_ functions of the C API
# (the README's API table), the header declares exactly those functions, and the library is
# marked never to be unloaded (DF_1_NODELETE: its worker threads outlive a dlclose; build.rs).
# Usage: check_exports.sh <libdirectml_subset.so> <directml_subset.h>
set -euo pipefail
lib=$1
header=$2

expected=$(printf '%s\n' \
    dmls_calc_buffer_tensor_size \
    dmls_device_check_feature_support \
    dmls_device_create \
    dmls_device_create_operator \
    dmls_device_release \
    dmls_get_last_error_message \
    dmls_operator_execute \
    dmls_operator_release \
    dmls_version | LC_ALL=C sort)

# Every defined dynamic symbol, of any kind (functions, data, weak...).
exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | LC_ALL=C sort -u)
# Every function the header declares (a dmls_ name followed by an opening parenthesis).
declared=$(grep -oE '\bdmls_[a-z_]+\(' "$header" | tr -d '(' | LC_ALL=C sort -u)

status=0
if [ "$exported" != "$expected" ]; then
    echo "The dynamic symbols of $lib differ from the API:"
    diff <(echo "$expected") <(echo "$exported") | sed 's/^/  /' || true
    status=1
fi
if [ "$declared" != "$expected" ]; then
    echo "The functions declared in $header differ from the API:"
    diff <(echo "$expected") <(echo "$declared") | sed 's/^/  /' || true
    status=1
fi
if ! readelf -d "$lib" | grep 'Flags:.*NODELETE' >/dev/null; then
    echo "$lib is not marked NODELETE (-z nodelete): dlclose could unload it under its threads"
    status=1
fi
if [ "$status" = 0 ]; then
    echo "$lib exports exactly the $(echo "$expected" | wc -l) dmls_ functions of the API, and is marked NODELETE"
fi
exit "$status"
