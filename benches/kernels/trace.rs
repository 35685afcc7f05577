//! Trace: where a parallel execution's time goes, step by step, for a machine with many cores.
//! The `threads` table gives each device's time per call; this mode breaks the default device's
//! parallel executions down with the library's own timestamps (cargo feature `trace`,
//! `src/trace.rs`): when each worker starts its first part after the caller published the job,
//! how long each thread works, when NONZERO_COORDINATES' last part is counted, how long its parts
//! wait for the counts before them, when the last part ends, how long the caller takes to see
//! that, how many of the input's parts another thread read than in the execution before
//! (their input is then in another core's cache), how many of NONZERO_COORDINATES' parts are
//! written by another thread than the one that counted them and what such a write costs against
//! one where the part was counted, and how long the call took before the job's publication and
//! after its end (the benchmark records `Enter` and `Leave` around each call).
//!
//! `cargo bench --bench kernels --features trace --target-dir target/trace -- trace` (a target
//! directory of its own, so that the library built with the feature never replaces
//! `target/release`'s) runs the curve's five series at 2^16, 2^18, 2^20 and 2^22 elements
//! (`DMLS_TRACE_LOG2`, a comma-separated list) on the default device, or on a device of
//! `DMLS_TRACE_THREADS` threads, with `DMLS_PARALLEL=always` where it should run parallel
//! whatever the library measures (the trace has only parallel executions).
//! Per point: untimed calls as `threads` makes before a batch, then `DMLS_TRACE_CALLS` (40)
//! traced calls back to back. It prints the median over the traced executions of each step and
//! writes every event of the first `DMLS_TRACE_CSV_CALLS` (8) executions per point to
//! `target/kernels-trace.csv` (`DMLS_TRACE_CSV`): series, elements, execution, thread (0: the
//! caller), step, part (for `Publish` and `Done`, the job's part count), nanoseconds after the
//! job's publication. An execution is a job on the device's team: the library's own measurement
//! of a trip through its workers (five empty jobs at a pool's first choice, and again while the
//! measurement is provisional) is one too, with no NonZero steps, so the count of parallel
//! executions may exceed the calls.
//!
//! The events cost about a clock read and an uncontended lock each, so traced executions take a
//! little longer than the `threads` table's.

/// Runs the mode when asked for; built without the feature, says how to build it.
pub fn run(filter: &Option<String>) {
    if filter.as_deref() != Some("trace") {
        return;
    }
    #[cfg(feature = "trace")]
    traced::run();
    #[cfg(not(feature = "trace"))]
    println!(
        "trace: build the benchmark with the library's timestamps: \
         cargo bench --bench kernels --features trace --target-dir target/trace -- trace"
    );
}

#[cfg(feature = "trace")]
mod traced {
    use std::collections::BTreeMap;
    use std::time::Instant;

    use directml_subset::trace::{record, take, Event, Step};
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    use crate::curve::series;
    use crate::operators::{make_data, prepare};
    use test_support::{env_or, Device};

    /// One parallel execution's steps, in microseconds after its publication (`None`: the step
    /// did not happen, e.g. a count in DIAGONAL_MATRIX1).
    struct Steps {
        /// Publication to the caller seeing every part done.
        total: f64,
        /// Threads that ran at least one part, the caller included.
        joined: usize,
        /// The workers' first part start: median and last.
        arrive_med: Option<f64>,
        arrive_max: Option<f64>,
        /// Time in parts per thread: the busiest thread and the mean over those that joined.
        busy_max: f64,
        busy_mean: f64,
        /// NonZero: the last part counted.
        counted: Option<f64>,
        /// NonZero: the longest time a thread spent, before a part's write, since its own last
        /// step (its last count, or its last write): the wait for the counts before that part
        /// (the look-back). A thread that counts a slot of parts and then writes them waits
        /// once, between its last count and its first write.
        wait_max: Option<f64>,
        /// The last part's end.
        end: f64,
        /// The caller's `Done` after the last part's end.
        done_lag: f64,
        /// The benchmark's call into the library before the job's publication (the call's
        /// validation, the choice of path, the job's setup), and after the caller's `Done`
        /// (its return); `None` for a job published outside a traced call.
        before: Option<f64>,
        after: Option<f64>,
        /// NonZero: the share of the input's parts written by another thread than the one that
        /// counted them (their input is in another core's cache), and the median time of
        /// such a write over that of a part written where it was counted.
        away: Option<f64>,
        away_cost: Option<f64>,
        /// Parts in the job.
        parts: u32,
        /// The thread that first read each part of the input: NonZero's counting thread per
        /// input part, else the thread that ran each part of the job (threads as recorded,
        /// the same from one execution to the next).
        readers: BTreeMap<u32, u32>,
    }

    /// The share of the parts read by another thread than in the execution before (`None`
    /// where the two jobs differ, as a trip the library measures does from an operator's, or
    /// have no part in common): a part read by the same thread again finds its input in that
    /// core's cache.
    fn moved(before: &Steps, now: &Steps) -> Option<f64> {
        if before.parts != now.parts {
            return None;
        }
        let common: Vec<bool> = now
            .readers
            .iter()
            .filter_map(|(p, t)| before.readers.get(p).map(|b| b != t))
            .collect();
        (!common.is_empty())
            .then(|| common.iter().filter(|&&m| m).count() as f64 / common.len() as f64)
    }

    /// An event of one execution: the thread (0: the caller), the step, the part, the
    /// nanoseconds after the job's publication.
    type Row = (u32, Step, u32, u64);

    fn us(ns: u64, from: u64) -> f64 {
        ns.saturating_sub(from) as f64 / 1e3
    }

    /// Splits `events` into executions (a `Publish` to the same thread's next `Done`) and sums
    /// each up; the events of each execution are returned too, threads renumbered from the
    /// caller (0) on.
    fn executions(events: &[Event]) -> Vec<(Steps, Vec<Row>)> {
        let mut out = vec![];
        let mut i = 0;
        while i < events.len() {
            let p = events[i];
            if p.step != Step::Publish {
                i += 1;
                continue;
            }
            let Some(d) = events[i + 1..]
                .iter()
                .position(|e| e.step == Step::Done && e.thread == p.thread)
                .map(|k| i + 1 + k)
            else {
                break;
            };
            let t0 = p.ns;
            let within = &events[i..=d];
            // The traced call around the job: the caller's last `Enter` before it and first
            // `Leave` after it, with no other job of that thread's in between.
            let mine = |e: &&Event| e.thread == p.thread;
            let before = events[..i]
                .iter()
                .rev()
                .filter(mine)
                .find(|e| matches!(e.step, Step::Enter | Step::Leave | Step::Done))
                .filter(|e| e.step == Step::Enter)
                .map(|e| us(t0, e.ns));
            let after = events[d + 1..]
                .iter()
                .filter(mine)
                .find(|e| matches!(e.step, Step::Enter | Step::Leave | Step::Publish))
                .filter(|e| e.step == Step::Leave)
                .map(|e| us(e.ns, events[d].ns));
            let mut ids: BTreeMap<u32, u32> = BTreeMap::new();
            ids.insert(p.thread, 0);
            let mut first_start: BTreeMap<u32, u64> = BTreeMap::new();
            let mut open: BTreeMap<(u32, u32), u64> = BTreeMap::new();
            let mut busy: BTreeMap<u32, u64> = BTreeMap::new();
            // Each thread's last NonZero step (a count or a write).
            let mut last_step: BTreeMap<u32, u64> = BTreeMap::new();
            let mut counted = None::<u64>;
            let mut counters: BTreeMap<u32, u32> = BTreeMap::new();
            let mut runners: BTreeMap<u32, u32> = BTreeMap::new();
            let mut wait_max = None::<u64>;
            // Each input part's writer and its write's time (from its prefix to its end).
            let mut prefixed: BTreeMap<u32, u64> = BTreeMap::new();
            let mut writes: Vec<(u32, u32, u64)> = vec![];
            let mut end = t0;
            let mut rows = vec![];
            for e in within {
                let next = ids.len() as u32;
                let id = *ids.entry(e.thread).or_insert(next);
                rows.push((id, e.step, e.arg, e.ns - t0));
                match e.step {
                    Step::PartStart => {
                        runners.insert(e.arg, e.thread);
                        first_start.entry(e.thread).or_insert(e.ns);
                        open.insert((e.thread, e.arg), e.ns);
                    }
                    Step::PartEnd => {
                        if let Some(s) = open.remove(&(e.thread, e.arg)) {
                            *busy.entry(e.thread).or_default() += e.ns - s;
                        }
                        end = end.max(e.ns);
                    }
                    Step::Counted => {
                        counters.insert(e.arg, e.thread);
                        last_step.insert(e.thread, e.ns);
                        counted = Some(counted.map_or(e.ns, |c| c.max(e.ns)));
                    }
                    Step::Written => {
                        last_step.insert(e.thread, e.ns);
                        if let Some(&s) = prefixed.get(&e.arg) {
                            writes.push((e.arg, e.thread, e.ns.saturating_sub(s)));
                        }
                    }
                    Step::Prefixed => {
                        prefixed.insert(e.arg, e.ns);
                        if let Some(&c) = last_step.get(&e.thread) {
                            let w = e.ns.saturating_sub(c);
                            wait_max = Some(wait_max.map_or(w, |m| m.max(w)));
                        }
                    }
                    _ => {}
                }
            }
            let mut arrivals: Vec<f64> = first_start
                .iter()
                .filter(|(t, _)| **t != p.thread)
                .map(|(_, &s)| us(s, t0))
                .collect();
            arrivals.sort_by(f64::total_cmp);
            let joined = first_start.len();
            let (mut here, mut there) = (vec![], vec![]);
            for &(p, t, ns) in &writes {
                if counters.get(&p) == Some(&t) {
                    here.push(ns as f64);
                } else {
                    there.push(ns as f64);
                }
            }
            let away = (!writes.is_empty()).then(|| there.len() as f64 / writes.len() as f64);
            let away_cost = match (median(there), median(here)) {
                (Some(t), Some(h)) if h > 0.0 => Some(t / h),
                _ => None,
            };
            let busy_total: u64 = busy.values().sum();
            let steps = Steps {
                total: us(events[d].ns, t0),
                joined,
                arrive_med: (!arrivals.is_empty()).then(|| arrivals[arrivals.len() / 2]),
                arrive_max: arrivals.last().copied(),
                busy_max: busy.values().max().map_or(0.0, |&b| b as f64 / 1e3),
                busy_mean: busy_total as f64 / 1e3 / joined.max(1) as f64,
                counted: counted.map(|c| us(c, t0)),
                wait_max: wait_max.map(|w| w as f64 / 1e3),
                end: us(end, t0),
                done_lag: us(events[d].ns, end),
                away,
                away_cost,
                before,
                after,
                parts: p.arg,
                readers: if counters.is_empty() {
                    runners
                } else {
                    counters
                },
            };
            out.push((steps, rows));
            i = d + 1;
        }
        out
    }

    fn median(mut v: Vec<f64>) -> Option<f64> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(v[v.len() / 2])
    }

    /// The widths of the printed table's columns.
    macro_rules! row {
        () => {
            "{:<20} {:>5} {:>6} {:>5} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>6} {:>6} {:>7} {:>7}"
        };
    }

    fn cell(v: Option<f64>) -> String {
        v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
    }

    pub fn run() {
        let calls = env_or("DMLS_TRACE_CALLS", 40usize).max(1);
        let csv_calls = env_or("DMLS_TRACE_CSV_CALLS", 8usize);
        let threads = env_or("DMLS_TRACE_THREADS", 0u32);
        let sizes: String = env_or("DMLS_TRACE_LOG2", "16,18,20,22".to_string());
        let sizes: Vec<u32> = sizes
            .split(',')
            .filter_map(|s| s.trim().parse().ok())
            .filter(|&k| (8..=28).contains(&k))
            .collect();
        let path: String = env_or("DMLS_TRACE_CSV", "target/kernels-trace.csv".to_string());
        let dev = Device::with_threads(threads);
        let dev_threads = if threads == 0 {
            rayon::current_num_threads()
        } else {
            threads as usize
        };
        println!(
            "\ntrace ({} device, {dev_threads} threads, {calls} traced calls per point; medians \
             over the parallel executions, µs after the job's publication; arrive: the workers' \
             first part start, median and last; busy: time in parts, busiest thread and mean; \
             counted: NonZero's last count; wait: the longest wait of a thread before a part's \
             write, since its own last count or write (the counts before the part); end: the \
             last part's end; lag: the caller's sight of it; moved: the share of the input's \
             parts read by another thread than in the execution before; away: NonZero's share of \
             the input's parts written by another thread than their count's, and ×: such a \
             write's time over that of one where the part was counted; before and after: the \
             call's time before the publication and after the caller's sight of the end):",
            if threads == 0 { "default" } else { "own" }
        );
        println!(
            row!(),
            "series",
            "size",
            "par",
            "parts",
            "threads",
            "total",
            "arrive",
            "last",
            "busy max",
            "mean",
            "counted",
            "wait",
            "end",
            "lag",
            "moved",
            "away",
            "×",
            "before",
            "after"
        );
        let mut csv = format!(
            "# {}, {dev_threads} threads\nseries,elements,execution,thread,step,part,ns\n",
            crate::isa::cpu_name()
        );
        let mut rng = SmallRng::seed_from_u64(17);
        for s in series() {
            for &k in &sizes {
                let kind = (s.kind)(vec![1u32 << (k / 2), 1u32 << (k - k / 2)]);
                let (mut data, _t) = make_data(&kind, &mut rng);
                let p = prepare(&dev, &kind, &mut data);
                let warm = crate::threads::warm_up(dev_threads);
                let t = Instant::now();
                let mut n = 0;
                while n < 3 || t.elapsed() < warm {
                    p.run();
                    n += 1;
                }
                take();
                for _ in 0..calls {
                    record(Step::Enter, 0);
                    p.run();
                    record(Step::Leave, 0);
                }
                let ex = executions(&take());
                let col = |f: &dyn Fn(&Steps) -> Option<f64>| {
                    median(ex.iter().filter_map(|(s, _)| f(s)).collect())
                };
                println!(
                    row!(),
                    s.name,
                    format!("2^{k}"),
                    format!("{}/{calls}", ex.len()),
                    cell(col(&|s| Some(f64::from(s.parts)))),
                    cell(col(&|s| Some(s.joined as f64))),
                    cell(col(&|s| Some(s.total))),
                    cell(col(&|s| s.arrive_med)),
                    cell(col(&|s| s.arrive_max)),
                    cell(col(&|s| Some(s.busy_max))),
                    cell(col(&|s| Some(s.busy_mean))),
                    cell(col(&|s| s.counted)),
                    cell(col(&|s| s.wait_max)),
                    cell(col(&|s| Some(s.end))),
                    cell(col(&|s| Some(s.done_lag))),
                    cell(median(
                        ex.windows(2)
                            .filter_map(|w| moved(&w[0].0, &w[1].0))
                            .collect()
                    )),
                    cell(col(&|s| s.away)),
                    cell(col(&|s| s.away_cost)),
                    cell(col(&|s| s.before)),
                    cell(col(&|s| s.after)),
                );
                for (x, (_, rows)) in ex.iter().take(csv_calls).enumerate() {
                    for (thread, step, part, ns) in rows {
                        csv += &format!(
                            "{},{},{x},{thread},{step:?},{part},{ns}\n",
                            s.name,
                            1u64 << k
                        );
                    }
                }
            }
        }
        match std::fs::write(&path, csv) {
            Ok(()) => println!("trace written to {path}"),
            Err(e) => println!("trace: could not write {path}: {e}"),
        }
    }
}
