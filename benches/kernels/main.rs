//! Kernel benchmark: every workload (`workloads.rs`) through the C API, with 1 thread and all threads,
//! against the memory bound measured in the same process.
//!
//! The bound of a workload is a two-thread `memcpy` of (bytes read + bytes written) / 2, or a
//! two-thread `memset` of the output for DIAGONAL_MATRIX1 without input. All buffers are
//! allocated, filled (pre-faulted) and reused. Operator and bound runs alternate, so both see the
//! same machine load; the table shows medians and the ratio of minimums and of medians.
//!
//! Run with `cargo bench --bench kernels`; `cargo bench --bench kernels -- FILTER` runs only the
//! workloads whose name contains FILTER; `DMLS_BENCH_REPS=N` sets the repetitions (default 15).
//!
//! The modules, by job: `workloads` (the table of workloads and targets), `operators` (each
//! workload's operator and buffers), `measure` (timing against the bound), `report` (the log
//! lines and the Markdown table), `small` (the small operators' latencies), `curve` (the cost
//! curve), `types` (the types and layouts table), `isa` (every SIMD level side by side), `threads` (thread counts and processes sharing the machine), `cold` (calls that find the workers asleep), `trace` (the steps of parallel executions, with the feature `trace`), `bare` (bare AVX-512 loops, a floor for the NonZero walk). The C API wrappers (devices, operators, tensor descs)
//! and the buffers come from the shared test helpers, `test_support` (test-support/).

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
// Bindings point into boxed values, so the boxes must stay boxes.
#![allow(clippy::vec_box)]

#[cfg(target_arch = "x86_64")]
mod bare;
#[cfg(target_arch = "x86_64")]
mod bare_u8;
mod cold;
mod curve;
mod isa;
mod measure;
mod operators;
mod report;
mod small;
mod threads;
mod trace;
mod types;
mod workloads;

use measure::{measure, Bound};
use operators::{make_data, prepare, PREFAULT};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use report::Row;
use small::small_latency;
use test_support::{env_or, Buffer, Device};
use workloads::{workloads, Kind};

fn main() {
    if threads::child() {
        return;
    }
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let reps: usize = env_or("DMLS_BENCH_REPS", 15);
    let mut rng = SmallRng::seed_from_u64(42);
    let devs = [
        (Device::with_threads(1), "1"),
        (Device::with_threads(0), "all"),
    ];
    println!(
        "directml_subset kernel benchmark: {} threads available, {reps} reps; bound = 2-thread \
         memcpy of (read + written) / 2 (memset of the output without input)",
        rayon::current_num_threads()
    );
    let mut rows = vec![];
    // One pair of bound buffers, as large as the largest workload needs.
    let mut bound: Option<Bound> = None;
    for w in workloads() {
        if filter
            .as_ref()
            .is_some_and(|f| !w.name.contains(f.as_str()))
        {
            continue;
        }
        let (mut data, _t) = make_data(&w.kind, &mut rng);
        let need = data.input.as_ref().map_or(0, |b| b.len())
            + data.outputs.iter().map(|b| b.len()).sum::<usize>();
        if bound.as_ref().is_none_or(|b| b.src.len() < need) {
            drop(bound.take());
            bound = Some(Bound {
                src: Buffer::filled(need, PREFAULT),
                dst: Buffer::filled(need, PREFAULT),
            });
        }
        let bound = bound.as_mut().unwrap();
        let memset = matches!(
            w.kind,
            Kind::Diag {
                with_input: false,
                ..
            }
        );
        for (dev, th) in &devs {
            let p = prepare(dev, &w.kind, &mut data);
            let m = measure(&p, bound, memset, reps);
            let row = Row {
                name: w.name.to_string(),
                threads: th,
                m,
                target: w.target,
            };
            println!("{}", row.line(false));
            rows.push(row);
        }
    }
    small_latency(&filter);
    curve::run(&filter, reps.min(11));
    types::run(&filter, reps.min(11));
    isa::run(&filter);
    threads::run(&filter);
    cold::run(&filter);
    trace::run(&filter);
    #[cfg(target_arch = "x86_64")]
    bare::run(&filter);
    if !rows.is_empty() {
        println!(
            "\n| workload | threads | time (ms, median) | GB/s | bound (ms, median) | time / bound (min / min) | time / bound (median of pairs) | target |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for r in &rows {
            println!("{}", r.line(true));
        }
    }
}
