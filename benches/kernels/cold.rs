//! Cold: calls that come one at a time, each after the device's workers have gone back to
//! sleep, as in a model whose NonZero or Trilu runs once per inference, milliseconds apart.
//! The `threads` table measures callers that call back to back (the workers stay awake in
//! their hot window); here every call finds them asleep, so the library either wakes them or
//! stays on the caller's thread.
//!
//! `cargo bench --bench kernels -- cold` runs the curve's five series at 2^16, 2^18, 2^20 and
//! 2^22 elements (`DMLS_COLD_MIN_LOG2`, `DMLS_COLD_MAX_LOG2`, every other octave) on devices of
//! 1, 2, 4, … threads up to the cores and on the default device. Each device makes
//! `DMLS_COLD_CALLS` (41) timed calls per point, each after a pause of `DMLS_COLD_GAP_US`
//! (1,000) microseconds, the devices taking turns call by call; the point is the median call
//! (the first calls of an octave, which the library uses to measure its rates, count too: a
//! process that calls once per inference pays for them). It prints the table and writes it as
//! CSV to `target/kernels-cold.csv` (`DMLS_COLD_CSV`).

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::curve::{fmt_time, median, series};
use crate::operators::{make_data, prepare};
use test_support::env_or;

pub fn run(filter: &Option<String>) {
    if filter.as_deref() != Some("cold") {
        return;
    }
    let calls = env_or("DMLS_COLD_CALLS", 41usize).max(1);
    let gap = Duration::from_micros(env_or("DMLS_COLD_GAP_US", 1000u64));
    let min_log2: u32 = env_or("DMLS_COLD_MIN_LOG2", 16);
    let max_log2: u32 = env_or("DMLS_COLD_MAX_LOG2", 22);
    let counts = crate::threads::counts();
    let devs = crate::threads::devices(&counts);
    println!(
        "\ncold calls (C API; the median of {calls} calls per device, each after {} µs without \
         calls; ratio: default over one thread):",
        gap.as_micros()
    );
    let mut head = format!("{:<20} {:>6}", "series", "size");
    for n in &counts {
        head += &format!(" {:>10}", format!("{n} thr"));
    }
    head += &format!(" {:>10} {:>7}", "default", "/1 thr");
    println!("{head}");
    let mut csv = format!(
        "# {}, {} logical CPUs\nseries,elements",
        crate::isa::cpu_name(),
        counts.last().unwrap()
    );
    for n in &counts {
        csv += &format!(",seconds_{n}thread");
    }
    csv += ",seconds_default\n";
    let mut rng = SmallRng::seed_from_u64(13);
    for s in series() {
        for k in (min_log2..=max_log2).step_by(2) {
            let kind = (s.kind)(vec![1u32 << (k / 2), 1u32 << (k - k / 2)]);
            let (mut data, _t) = make_data(&kind, &mut rng);
            let prepared: Vec<_> = devs.iter().map(|d| prepare(d, &kind, &mut data)).collect();
            let mut times: Vec<Vec<Duration>> = vec![vec![]; prepared.len()];
            for _ in 0..calls {
                for (i, p) in prepared.iter().enumerate() {
                    std::thread::sleep(gap);
                    let t = Instant::now();
                    p.run();
                    times[i].push(t.elapsed());
                }
            }
            let t: Vec<f64> = times.into_iter().map(|v| median(v).as_secs_f64()).collect();
            let mut line = format!("{:<20} {:>6}", s.name, format!("2^{k}"));
            for x in &t {
                line += &format!(" {:>10}", fmt_time(*x));
            }
            line += &format!(" {:>7.2}", t[t.len() - 1] / t[0]);
            println!("{line}");
            csv += &format!("{},{}", s.name, 1u64 << k);
            for x in &t {
                csv += &format!(",{x:.4e}");
            }
            csv += "\n";
        }
    }
    let path = std::env::var("DMLS_COLD_CSV").unwrap_or_else(|_| "target/kernels-cold.csv".into());
    match std::fs::write(&path, csv) {
        Ok(()) => println!("cold written to {path}"),
        Err(e) => eprintln!("could not write {path}: {e}"),
    }
}
