#!/usr/bin/env bash
# Prepares the kernel benchmark for a machine that has no Rust (a many-core server lent for a
# measurement): builds it here and writes target/carry/ with
#
#   kernels   the benchmark's executable (needs only the C library)
#   run.sh    runs `kernels threads` (as measured, then with DMLS_PARALLEL=always, so that the
#             parallel paths' own cost shows beside the library's choice) and `kernels oversub`
#             there and writes their tables and CSVs under $OUT (default: target/carry/out)
#
# Then, on the other machine, from a copy of the tree that holds target/carry/:
#   bash target/carry/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
exe=$(cargo bench --bench kernels --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*kernels-[^"]*\)".*/\1/p' | tail -n1)
[ -x "$exe" ] || { echo "bench_carry: no benchmark executable built" >&2; exit 1; }
mkdir -p target/carry
cp "$exe" target/carry/kernels
cat > target/carry/run.sh <<'RUN'
#!/usr/bin/env bash
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
{ nproc; grep -m1 'model name' /proc/cpuinfo; } > "$out/machine.txt"
DMLS_THREADS_CSV="$out/threads.csv" "$here/kernels" threads 2>&1 | tee "$out/threads.txt"
DMLS_PARALLEL=always DMLS_THREADS_CSV="$out/threads-forced.csv" "$here/kernels" threads \
    > "$out/threads-forced.txt" 2>&1
"$here/kernels" oversub 2>&1 | tee "$out/oversub.txt"
RUN
chmod +x target/carry/run.sh
echo "target/carry/ is ready: $(du -sh target/carry | cut -f1); run target/carry/run.sh there"
