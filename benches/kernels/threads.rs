//! Threads: the curve's five series from 2^12 to 2^26 elements on devices of 1, 2, 4, …
//! threads up to the cores (and the cores themselves) and on the default device, against two
//! floors: the best over those thread counts of a `memcpy` of (read + written) / 2 bytes (a
//! `memset` of the output without input) split over threads started once and kept hot on a
//! spin barrier, and the same copy through the library's own pool and team
//! (`Device::parallel_copy`), so that both what the machine can move and what a trip costs are
//! visible. Each device is measured as one caller alone on the machine calling back to back:
//! each of its batches starts once the workers of the device before it have left their team,
//! after untimed calls that wake its own (for 2 ms on two threads, 5 ms on sixteen:
//! `DMLS_BENCH_WARM_US`).
//!
//! `cargo bench --bench kernels -- threads` prints the table and writes it as CSV to
//! `target/kernels-threads.csv` (or `$DMLS_THREADS_CSV`); `DMLS_BENCH_REPS` sets the batches
//! per point (default 5 here), `DMLS_CURVE_MIN_LOG2` / `DMLS_CURVE_MAX_LOG2` the sizes,
//! `DMLS_THREADS_SERIES` the series (only those whose name contains it, e.g. `u8`).
//!
//! `cargo bench --bench kernels -- oversub` measures processes sharing the machine: NonZero
//! FLOAT32 at density 0.5 on the default device at 2^20, 2^22 and 2^24 elements, first one
//! process alone, then `DMLS_BENCH_PROCS` (default 4) at once, each calling for
//! `DMLS_OVERSUB_SECONDS` (default 2) seconds; it prints the calls per second of each and the
//! aggregate over the one process's, and the machine's runnable threads (`/proc/loadavg`,
//! sampled every 10 ms while they call): whether the pools' shares settle near the CPUs. Then
//! the same processes at once, each given its share of the CPUs by hand (`RAYON_NUM_THREADS`
//! = CPUs / processes, at least 1, as the performance page advises), for what the automatic
//! shares would reach at best on this machine.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::curve::{batch, calibrate, fmt_time, median, series};
use crate::operators::{make_data, prepare, PREFAULT};
use crate::workloads::{Coords, Kind};
use directml_subset::dml::DML_TENSOR_DATA_TYPE;
use test_support::{env_or, Buffer, Device};

/// The thread counts measured: 1, 2, 4, … up to the cores, and the cores.
pub fn counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut v: Vec<usize> = (0..)
        .map(|k| 1usize << k)
        .take_while(|&n| n <= cores)
        .collect();
    if *v.last().unwrap() != cores {
        v.push(cores);
    }
    v
}

/// A device per thread count of `counts`, then the default device.
pub fn devices(counts: &[usize]) -> Vec<Device> {
    counts
        .iter()
        .map(|&n| Device::with_threads(n as u32))
        .chain([Device::with_threads(0)])
        .collect()
}

/// A job for the hot threads: addresses and lengths as integers.
#[derive(Default)]
struct Job {
    dst: AtomicUsize,
    src: AtomicUsize,
    len: AtomicUsize,
}

/// `n` threads (the caller and `n - 1` others) kept hot on a spin barrier, which copy or fill
/// a buffer split in `n` parts.
struct Hot {
    n: usize,
    gen: Arc<AtomicU64>,
    done: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    job: Arc<Job>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// Copies (or, with `src` 0, zeroes) part `i` of `n` of the job.
fn do_part(job: &Job, i: usize, n: usize) {
    let len = job.len.load(Ordering::Relaxed);
    let part = len.div_ceil(n);
    let (s, e) = ((i * part).min(len), ((i + 1) * part).min(len));
    let dst = job.dst.load(Ordering::Relaxed) as *mut u8;
    let src = job.src.load(Ordering::Relaxed) as *const u8;
    // SAFETY: the job's buffers are `len` bytes, alive until every part is done (the caller
    // waits), and part i of them is this thread's alone.
    unsafe {
        if src.is_null() {
            core::ptr::write_bytes(dst.add(s), 0, e - s);
        } else {
            core::ptr::copy_nonoverlapping(src.add(s), dst.add(s), e - s);
        }
    }
}

impl Hot {
    fn new(n: usize) -> Hot {
        let gen = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let job = Arc::new(Job::default());
        let threads = (1..n)
            .map(|i| {
                let (gen, done, stop, job) = (gen.clone(), done.clone(), stop.clone(), job.clone());
                std::thread::spawn(move || {
                    let mut seen = 0;
                    loop {
                        let g = gen.load(Ordering::Acquire);
                        if g == seen {
                            if stop.load(Ordering::Relaxed) {
                                return;
                            }
                            core::hint::spin_loop();
                            continue;
                        }
                        seen = g;
                        do_part(&job, i, n);
                        done.fetch_add(1, Ordering::Release);
                    }
                })
            })
            .collect();
        Hot {
            n,
            gen,
            done,
            stop,
            job,
            threads,
        }
    }

    fn run(&self, dst: &mut [u8], src: Option<&[u8]>) {
        self.job
            .dst
            .store(dst.as_mut_ptr() as usize, Ordering::Relaxed);
        self.job
            .src
            .store(src.map_or(0, |s| s.as_ptr() as usize), Ordering::Relaxed);
        self.job.len.store(dst.len(), Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        self.gen.fetch_add(1, Ordering::Release);
        do_part(&self.job, 0, self.n);
        while self.done.load(Ordering::Acquire) < self.n - 1 {
            core::hint::spin_loop();
        }
        black_box(dst.as_ptr());
    }
}

impl Drop for Hot {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A batch of a device of `threads` threads that calls back to back, as one caller alone on
/// the machine would: first the workers of the device measured before leave (they stay on
/// their team for the hot window after its last call, 100 µs by default, and would take cores
/// from this one), then untimed calls (at least [`WARM_CALLS`], and with workers for
/// [`warm_up`]), then `n` timed.
///
/// The untimed calls wake this device's workers, and the library chooses the parallel path for
/// calls that follow each other, on workers then awake. A woken worker may take milliseconds
/// to reach a core of its own: a scheduler that packs threads (as some virtual machines' do)
/// queues it behind its waker until the load balancer moves it. After three untimed calls
/// alone, a batch of 0.2 ms measured that arrival more than the device (on two vCPUs that
/// pack, a pool of its own against the default device of as many threads: 0.68–1.43 at the
/// best of three runs per point from 2^16 elements; after 2 ms of calls, 0.87–1.06).
fn steady_batch(threads: usize, n: u32, f: &mut dyn FnMut()) -> Duration {
    std::thread::sleep(Duration::from_micros(env_or("DMLS_SPIN_US", 100u64) + 200));
    let warm = warm_up(threads);
    let t = Instant::now();
    let mut calls = 0;
    while calls < WARM_CALLS || t.elapsed() < warm {
        f();
        calls += 1;
    }
    batch(n, f)
}

/// Untimed calls before each batch of [`steady_batch`], at the least.
const WARM_CALLS: u32 = 3;

/// How long a device of `threads` threads calls untimed before a batch: none for one thread;
/// otherwise `DMLS_BENCH_WARM_US` (1,000) microseconds once, and once more per doubling of the
/// threads (each worker that joins wakes at most two more, so their wakes come in rounds): 2 ms
/// for two threads, 5 ms for sixteen.
pub fn warm_up(threads: usize) -> Duration {
    if threads < 2 {
        return Duration::ZERO;
    }
    let rounds = 1 + u64::from(threads.next_power_of_two().ilog2());
    Duration::from_micros(env_or("DMLS_BENCH_WARM_US", 1000u64) * rounds)
}

/// One point: the operator on each device, the floors.
struct Point {
    series: &'static str,
    elements: u64,
    bytes: usize,
    /// Per thread count, then the default device.
    op: Vec<f64>,
    /// Per thread count.
    hot: Vec<f64>,
    /// Per thread count, through the library's pool.
    pool: Vec<f64>,
}

/// This CPU's `pause` (`spin_loop`) and a read of the monotonic clock, in nanoseconds: the
/// fastest of five batches of each. Waiting threads of the library spin on `pause`, and it
/// reads the clock around executions: a clock source the vDSO cannot read costs a system call.
fn pause_and_clock_ns() -> (f64, f64) {
    let fastest = |f: &dyn Fn()| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..256 {
                    f();
                }
                t.elapsed().as_nanos() as f64 / 256.0
            })
            .fold(f64::INFINITY, f64::min)
    };
    (
        fastest(&core::hint::spin_loop),
        fastest(&|| {
            black_box(Instant::now());
        }),
    )
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

pub fn run(filter: &Option<String>) {
    if filter.as_deref() == Some("oversub") {
        return oversub();
    }
    if filter.as_deref() != Some("threads") {
        return;
    }
    let reps = env_or("DMLS_BENCH_REPS", 5usize);
    let min_log2: u32 = env_or("DMLS_CURVE_MIN_LOG2", 12);
    let max_log2: u32 = env_or("DMLS_CURVE_MAX_LOG2", 26);
    let counts = counts();
    let devs = devices(&counts);
    // The threads of each device: the default device's pool has one per logical CPU.
    let dev_threads: Vec<usize> = counts
        .iter()
        .copied()
        .chain([*counts.last().unwrap()])
        .collect();
    let pools: Vec<directml_subset::Device> = counts
        .iter()
        .map(|&n| {
            directml_subset::Device::new(&directml_subset::DeviceOptions {
                thread_count: n as u32,
                ..Default::default()
            })
            .expect("a device")
        })
        .collect();
    let (pause, clock) = pause_and_clock_ns();
    println!(
        "\nthis CPU: `pause` {pause:.1} ns, a clock read {clock:.1} ns (the fastest of five batches)"
    );
    println!(
        "\nthreads (C API; time per call, median of {reps} batches; floors: the best over {counts:?} \
         threads of a hot-thread memcpy of (read + written) / 2, and of the same through the \
         library's pool; ratios: default over the hot floor and over one thread):"
    );
    let mut head = format!("{:<20} {:>6}", "series", "size");
    for n in &counts {
        head += &format!(" {:>10}", format!("{n} thr"));
    }
    head += &format!(
        " {:>10} {:>10} {:>10} {:>7} {:>7}",
        "default", "hot floor", "pool floor", "/floor", "/1 thr"
    );
    println!("{head}");
    let mut rng = SmallRng::seed_from_u64(11);
    let mut points = vec![];
    let only: String = env_or("DMLS_THREADS_SERIES", String::new());
    for s in series()
        .into_iter()
        .filter(|s| s.name.contains(only.as_str()))
    {
        for k in min_log2..=max_log2 {
            let sizes = vec![1u32 << (k / 2), 1u32 << (k - k / 2)];
            let kind = (s.kind)(sizes);
            let memset = matches!(
                kind,
                Kind::Diag {
                    with_input: false,
                    ..
                }
            );
            let (mut data, _t) = make_data(&kind, &mut rng);
            let prepared: Vec<_> = devs.iter().map(|d| prepare(d, &kind, &mut data)).collect();
            let p0 = &prepared[0];
            p0.run();
            let written = p0.written_bytes();
            let total = p0.read + written;
            let bytes = if memset { written } else { total / 2 };
            let src = Buffer::filled(bytes.max(1), PREFAULT);
            let mut dst = Buffer::filled(bytes.max(1), PREFAULT);
            let src_opt = (!memset).then(|| &src.bytes()[..bytes]);
            // The hot floors, one thread count at a time (their threads spin while they exist).
            let hot: Vec<f64> = counts
                .iter()
                .map(|&n| {
                    let h = Hot::new(n);
                    let mut f = || h.run(&mut dst.bytes_mut()[..bytes], src_opt);
                    let calls = calibrate(&mut f);
                    median((0..reps).map(|_| batch(calls, &mut f)).collect()).as_secs_f64()
                })
                .collect();
            // The operator on every device and the pool floors, batches interleaved.
            let mut op_runs: Vec<Box<dyn FnMut() + '_>> = prepared
                .iter()
                .map(|p| Box::new(move || p.run()) as Box<dyn FnMut()>)
                .collect();
            let op_calls: Vec<u32> = op_runs.iter_mut().map(|f| calibrate(&mut **f)).collect();
            let copy = |d: &directml_subset::Device, dst: &mut Buffer| {
                d.parallel_copy(&mut dst.bytes_mut()[..bytes], src_opt)
                    .expect("copy")
            };
            let pool_calls: Vec<u32> = pools
                .iter()
                .map(|d| calibrate(&mut || copy(d, &mut dst)))
                .collect();
            let mut op_t: Vec<Vec<Duration>> = vec![vec![]; op_runs.len()];
            let mut pool_t: Vec<Vec<Duration>> = vec![vec![]; pools.len()];
            for _ in 0..reps {
                for (i, f) in op_runs.iter_mut().enumerate() {
                    op_t[i].push(steady_batch(dev_threads[i], op_calls[i], &mut **f));
                }
                for (i, d) in pools.iter().enumerate() {
                    pool_t[i].push(steady_batch(counts[i], pool_calls[i], &mut || {
                        copy(d, &mut dst)
                    }));
                }
            }
            let p = Point {
                series: s.name,
                elements: 1u64 << k,
                bytes: total,
                op: op_t.into_iter().map(|v| median(v).as_secs_f64()).collect(),
                hot,
                pool: pool_t
                    .into_iter()
                    .map(|v| median(v).as_secs_f64())
                    .collect(),
            };
            let mut line = format!("{:<20} {:>6}", p.series, format!("2^{k}"));
            for t in &p.op {
                line += &format!(" {:>10}", fmt_time(*t));
            }
            let default = *p.op.last().unwrap();
            line += &format!(
                " {:>10} {:>10} {:>7.2} {:>7.2}",
                fmt_time(min(&p.hot)),
                fmt_time(min(&p.pool)),
                default / min(&p.hot),
                default / p.op[0],
            );
            println!("{line}");
            points.push(p);
        }
    }
    write_csv(&counts, &points);
}

fn write_csv(counts: &[usize], points: &[Point]) {
    let path =
        std::env::var("DMLS_THREADS_CSV").unwrap_or_else(|_| "target/kernels-threads.csv".into());
    let cpu = crate::isa::cpu_name();
    let mut text = format!(
        "# {cpu}, {} logical CPUs\nseries,elements,bytes",
        counts.last().unwrap()
    );
    for n in counts {
        text += &format!(",seconds_{n}thread");
    }
    text += ",seconds_default";
    for n in counts {
        text += &format!(",hot_memcpy_{n}thread");
    }
    for n in counts {
        text += &format!(",pool_memcpy_{n}thread");
    }
    text += "\n";
    for p in points {
        text += &format!("{},{},{}", p.series, p.elements, p.bytes);
        for t in p.op.iter().chain(&p.hot).chain(&p.pool) {
            text += &format!(",{t:.4e}");
        }
        text += "\n";
    }
    match std::fs::write(&path, text) {
        Ok(()) => println!("threads written to {path}"),
        Err(e) => eprintln!("could not write {path}: {e}"),
    }
}

/// The child's side of `oversub`: NonZero FLOAT32 d=0.5 of 2^`DMLS_OVERSUB_LOG2` elements on the
/// default device, called from the start time (`DMLS_OVERSUB_START`, ms since the epoch) for
/// `DMLS_OVERSUB_SECONDS`; prints the calls per second, the calls' times (percentiles) and what
/// the process used of the machine meanwhile (CPU seconds per second: its threads that ran, on
/// average; involuntary context switches per second: how often one lost its CPU).
fn oversub_child(log2: u32) {
    let kind = nonzero_f32(log2);
    let mut rng = SmallRng::seed_from_u64(5);
    let (mut data, _t) = make_data(&kind, &mut rng);
    let dev = Device::with_threads(0);
    let p = prepare(&dev, &kind, &mut data);
    p.run();
    let start_ms: u128 = env_or("DMLS_OVERSUB_START", 0u64).into();
    let seconds: f64 = env_or("DMLS_OVERSUB_SECONDS", 2.0);
    loop {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        if now >= start_ms {
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let before = usage();
    let t = Instant::now();
    let mut times = Vec::with_capacity(1 << 16);
    let mut last = t;
    while last.duration_since(t).as_secs_f64() < seconds {
        p.run();
        let now = Instant::now();
        times.push(now.duration_since(last).as_secs_f64());
        last = now;
    }
    let wall = last.duration_since(t).as_secs_f64();
    let after = usage();
    println!("calls_per_second {}", times.len() as f64 / wall);
    times.sort_by(f64::total_cmp);
    let at = |q: usize| times[(times.len() - 1) * q / 100] * 1e6;
    println!(
        "call_us {:.1} {:.1} {:.1} {:.1}",
        at(10),
        at(50),
        at(90),
        at(99)
    );
    if let (Some((cpu0, cs0)), Some((cpu1, cs1))) = (before, after) {
        println!(
            "usage {:.2} {:.0}",
            (cpu1 - cpu0) / wall,
            (cs1 - cs0) as f64 / wall
        );
    }
}

/// This process's CPU seconds (user and system, all threads) and involuntary context switches
/// so far; `None` where `getrusage` is not there.
fn usage() -> Option<(f64, i64)> {
    #[cfg(unix)]
    {
        // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `u` is a valid, writable `rusage`; RUSAGE_SELF is a valid `who`.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } == 0 {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
            return Some((secs(u.ru_utime) + secs(u.ru_stime), u.ru_nivcsw as i64));
        }
    }
    None
}

fn nonzero_f32(log2: u32) -> Kind {
    Kind::NonZero {
        dt: DML_TENSOR_DATA_TYPE::FLOAT32,
        sizes: vec![1u32 << (log2 / 2), 1u32 << (log2 - log2 / 2)],
        strides: None,
        density: 0.5,
        coords: Coords::Packed,
    }
}

/// Runs `procs` children at once on 2^`log2` elements (with `RAYON_NUM_THREADS` set to
/// `threads`, if given); returns what each one reported, and the machine's runnable
/// threads (besides this one) sampled every 10 ms while they call (none where
/// `/proc/loadavg` cannot be read).
fn children(procs: usize, log2: u32, threads: Option<usize>) -> (Vec<Child>, Vec<usize>) {
    let exe = std::env::current_exe().expect("the benchmark's path");
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        + 1500;
    let kids: Vec<_> = (0..procs)
        .map(|_| {
            let mut child = std::process::Command::new(&exe);
            child
                .arg("oversub-child")
                .env("DMLS_OVERSUB_LOG2", log2.to_string())
                .env("DMLS_OVERSUB_START", start.to_string())
                .stdout(std::process::Stdio::piped());
            if let Some(n) = threads {
                child.env("RAYON_NUM_THREADS", n.to_string());
            }
            child.spawn().expect("start a child")
        })
        .collect();
    // Sample from a fifth of a second into the calls to a tenth of a second before their end.
    let seconds: f64 = env_or("DMLS_OVERSUB_SECONDS", 2.0);
    let epoch_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    };
    let (from, to) = (start + 200, start + (seconds * 1000.0) as u128 - 100);
    let mut runnable = vec![];
    while epoch_ms() < to {
        if epoch_ms() >= from {
            let line = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
            match line
                .split_ascii_whitespace()
                .nth(3)
                .and_then(|f| f.split('/').next())
                .and_then(|n| n.parse::<usize>().ok())
            {
                Some(n) => runnable.push(n.saturating_sub(1)),
                None => break,
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let calls = kids
        .into_iter()
        .map(|k| {
            let out = k.wait_with_output().expect("a child's output");
            let out = String::from_utf8_lossy(&out.stdout);
            let field = |name: &str| -> Vec<f64> {
                out.lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(|v| {
                        v.split_ascii_whitespace()
                            .filter_map(|x| x.parse().ok())
                            .collect()
                    })
                    .unwrap_or_default()
            };
            Child {
                calls: *field("calls_per_second ")
                    .first()
                    .expect("a child's calls per second"),
                call_us: field("call_us "),
                usage: field("usage "),
            }
        })
        .collect();
    (calls, runnable)
}

/// What one `oversub` child reported.
struct Child {
    /// Calls per second.
    calls: f64,
    /// Its calls' 10th, 50th, 90th and 99th percentile times, in microseconds.
    call_us: Vec<f64>,
    /// Its CPU seconds per second and involuntary context switches per second (empty where
    /// not measured).
    usage: Vec<f64>,
}

/// "calls p50 A µs (p90 B, p99 C) each; CPU D threads, E preemptions/s" over `kids` (the
/// median of their percentiles, the sum of their usage).
fn children_summary(kids: &[Child]) -> String {
    let median = |i: usize| {
        let mut v: Vec<f64> = kids
            .iter()
            .filter_map(|k| k.call_us.get(i).copied())
            .collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(f64::NAN)
    };
    let sum = |i: usize| kids.iter().filter_map(|k| k.usage.get(i)).sum::<f64>();
    format!(
        "calls p50 {:.0} µs (p10 {:.0}, p90 {:.0}, p99 {:.0}); {:.1} CPUs busy, {:.0} preemptions/s",
        median(1),
        median(0),
        median(2),
        median(3),
        sum(0),
        sum(1)
    )
}

/// "median M (10th percentile A, 90th B)" of the runnable threads sampled, or "not read".
fn runnable_summary(mut v: Vec<usize>) -> String {
    if v.is_empty() {
        return "not read".into();
    }
    v.sort_unstable();
    let at = |q: usize| v[(v.len() - 1) * q / 100];
    format!(
        "median {} (10th percentile {}, 90th {})",
        at(50),
        at(10),
        at(90)
    )
}

fn oversub() {
    let procs: usize = env_or("DMLS_BENCH_PROCS", 4);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = (cpus / procs.max(1)).max(1);
    println!(
        "\noversubscription: NonZero FLOAT32 d=0.5 on the default device, one process alone, then \
         {procs} at once ({cpus} logical CPUs), then {procs} at once with RAYON_NUM_THREADS={share} \
         each (their shares by hand); calls per second"
    );
    let calls = |v: &[f64]| v.iter().map(|c| c.round()).collect::<Vec<_>>();
    for log2 in [20, 22, 24] {
        let (one, one_runnable) = children(1, log2, None);
        let (many, many_runnable) = children(procs, log2, None);
        let (by_hand, hand_runnable) = children(procs, log2, Some(share));
        let rates = |v: &[Child]| v.iter().map(|c| c.calls).collect::<Vec<_>>();
        let alone = one[0].calls;
        let sum: f64 = many.iter().map(|c| c.calls).sum();
        let hand_sum: f64 = by_hand.iter().map(|c| c.calls).sum();
        println!(
            "2^{log2}: alone {alone:.0}/s; {procs} at once {:?} = {sum:.0}/s; aggregate / alone {:.2}",
            calls(&rates(&many)),
            sum / alone
        );
        println!(
            "  by hand: {:?} = {hand_sum:.0}/s, {:.2} of alone; automatic / by hand {:.2}",
            calls(&rates(&by_hand)),
            hand_sum / alone,
            sum / hand_sum
        );
        println!(
            "  runnable threads of the machine while they called: alone {}; {procs} at once {}; \
             by hand {}",
            runnable_summary(one_runnable),
            runnable_summary(many_runnable),
            runnable_summary(hand_runnable)
        );
        println!("  alone: {}", children_summary(&one));
        println!("  {procs} at once: {}", children_summary(&many));
        println!("  by hand: {}", children_summary(&by_hand));
    }
}

/// The entry point of an `oversub` child (`kernels oversub-child`), if this is one.
pub fn child() -> bool {
    if std::env::args().nth(1).as_deref() != Some("oversub-child") {
        return false;
    }
    oversub_child(env_or("DMLS_OVERSUB_LOG2", 20));
    true
}
