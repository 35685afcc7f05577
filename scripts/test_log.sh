# What a check prints of a `cargo test` log: each binary's result, the errors, and each panic
# with its message (the lines after libtest's "panicked at FILE:LINE:", where the assertion's
# text is). Sourced by the check scripts:
#
#   . scripts/test_log.sh
#   dmls_test_summary LOG [EXTRA]   # EXTRA: a regular expression of more lines to show

dmls_test_summary() {
    local pattern='^(test result|error)|FAILED'
    if [ -n "${2:-}" ]; then
        pattern="$pattern|$2"
    fi
    awk -v pattern="$pattern" '
        left > 0 { print; left--; next }
        /panicked at/ { print; left = 3; next }
        $0 ~ pattern { print }
    ' "$1" || true
}
