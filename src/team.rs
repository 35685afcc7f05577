//! The team: how one execution's parts run on a pool's workers, with trips that cost about
//! what a `memcpy` of a few kilobytes costs.
//!
//! A rayon pool wakes its sleeping workers one after another (each woken worker wakes at most
//! two more), and a trip through it took 25–100 µs on 16 cores of a virtual machine, where the
//! work of a 2^16-element operator is 5–20 µs. So the kernels do not hand their parts to rayon
//! one call at a time. The caller publishes a job (a function of the part index and a part
//! count) in the pool's [`Team`], and every thread on the team, the caller included, claims
//! parts with one atomic operation until none is left; the caller then waits for the parts
//! still running elsewhere.
//!
//! Workers join the team through rayon, as many as the job can use (no more than its parts)
//! that are not already on it: the caller calls two, and each worker that joins calls up to
//! two more while the job has parts left, so the caller pays for two wakes, not one per
//! worker, and starts on its parts at once. After its last
//! part a worker stays on the team for a bounded **hot window** (100 µs unless
//! `DMLS_SPIN_US` says otherwise), waiting on the job counter with `pause`, so that the next
//! execution finds it awake; then it goes back to rayon, which puts it to sleep. A process that
//! executes once and then idles uses no CPU once the window (and rayon's own short idle spin)
//! is over.
//!
//! The window shrinks under contention, when more threads want to run than there are cores:
//! a worker that finds it was descheduled while it waited (the clock jumped between two of its
//! checks), or that runs on a pool with more threads than the process may use cores, leaves at
//! once and marks the team contended for [`CONTENDED_NS`] (5 ms), during which workers leave as soon
//! as no part is left to claim, and the waits yield the core. A part claimed by a worker that
//! is then descheduled delays the whole execution, so parts are small (several per worker)
//! and claimed one at a time: the threads that run take the rest.
//!
//! One caller uses a team at a time. A second caller of the same pool meanwhile runs its parts
//! through rayon itself (the workers waiting on the team look for rayon's work while they
//! wait), so concurrent executions on one device never wait for each other's window.

use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rayon::prelude::*;

use crate::load::Share;

/// A job: the function run once for each part index.
pub(crate) type Job<'a> = dyn Fn(usize) + Sync + 'a;

/// The most parts of one job on the team (a job of more runs through rayon).
pub(crate) const MAX_PARTS: usize = 1 << 16;
/// The job state's fields: the next unclaimed part (17 bits, up to `MAX_PARTS`), the part count
/// (17 bits), the generation (30 bits: a claim that read a state 2^30 jobs old could succeed).
const NEXT_BITS: u32 = 17;
const COUNT_BITS: u32 = 17;
const FIELD_MASK: u64 = (1 << NEXT_BITS) - 1;
const GEN_SHIFT: u32 = NEXT_BITS + COUNT_BITS;

/// The state of a job of generation `generation` with `parts` parts, none claimed.
fn job_state(generation: u64, parts: usize) -> u64 {
    (generation << GEN_SHIFT) | ((parts as u64) << NEXT_BITS)
}

/// A job state's next unclaimed part and part count.
fn next_and_count(state: u64) -> (usize, usize) {
    (
        (state & FIELD_MASK) as usize,
        ((state >> NEXT_BITS) & FIELD_MASK) as usize,
    )
}

/// The hot window when `DMLS_SPIN_US` is not set, in microseconds. A cold trip (waking the
/// workers through rayon) cost 25–100 µs on 16 cores of a virtual machine: waiting about as
/// long as a cold trip costs before sleeping is the classic bound for spinning (it never
/// costs more than twice the better of the two choices).
const DEFAULT_SPIN_US: u64 = 100;
/// The longest window `DMLS_SPIN_US` may ask for: one second.
const MAX_SPIN_US: u64 = 1_000_000;
/// A wait between two clock reads (a few microseconds apart) longer than this means the thread
/// was descheduled for another: the scheduler's time slices are a millisecond or more, while
/// an interrupt, or the host of a virtual machine taking the core back for a moment, costs tens
/// of microseconds, which should not end the window.
const DESCHEDULED_NS: u64 = 200_000;
/// How long a team stays contended after a worker found it was descheduled.
const CONTENDED_NS: u64 = 5_000_000;
/// Workers that the caller of a job, and then each worker that joins, calls at most (a call
/// wakes a sleeping thread: a system call, and on a virtual machine an interrupt to another
/// virtual CPU). For fifteen workers the caller makes two calls, and each round of workers
/// that wake doubles those awake.
const FIRST_CALLS: usize = 2;
/// About how long the `pause` instructions between two looks at a shared word take, in
/// nanoseconds. A `pause` takes a few nanoseconds on some CPUs and 20–60 on others (Intel
/// lengthened it from about 10 to about 140 cycles with Skylake; 22.7 ns on AMD Zen 5): a fixed
/// count of them would make a thread that waits notice a new job or a finished part up to a
/// microsecond late on one CPU and spin on the shared word on another. So the count is set
/// from this CPU's measured `pause` ([`Spin`]).
const LOOK_NS: f64 = 25.0;
/// About how often a worker in its hot window reads the clock, in nanoseconds (for the
/// window's end, and to notice that it was descheduled).
const CLOCK_NS: f64 = 5_000.0;
/// About how long a caller waiting for parts running elsewhere looks with `pause` before it
/// gives up the core between looks, in nanoseconds.
const WAIT_SPIN_NS: f64 = 750_000.0;
/// Clock reads between two looks for rayon work (a second caller's parts).
const CLOCKS_PER_RAYON: u32 = 8;

/// How a waiting thread spins on this CPU, from its measured `pause` (once per process).
struct Spin {
    /// `pause` instructions between two looks (about [`LOOK_NS`]; at least one).
    pauses: u32,
    /// Looks between two clock reads of a worker in its window (about [`CLOCK_NS`]).
    looks_per_clock: u32,
    /// Looks of a waiting caller before it gives up the core between looks (about
    /// [`WAIT_SPIN_NS`]).
    wait_looks: u32,
}

impl Spin {
    fn get() -> &'static Spin {
        static SPIN: OnceLock<Spin> = OnceLock::new();
        SPIN.get_or_init(|| Spin::for_pause_ns(pause_ns()))
    }

    /// The spin for a CPU whose `pause` takes `pause_ns` nanoseconds.
    fn for_pause_ns(pause_ns: f64) -> Spin {
        let pause_ns = pause_ns.clamp(0.25, 1_000.0);
        let pauses = (LOOK_NS / pause_ns).round().clamp(1.0, 64.0);
        // A look also loads the word and loops: a few nanoseconds more than its pauses.
        let look_ns = pauses * pause_ns + 2.0;
        Spin {
            pauses: pauses as u32,
            looks_per_clock: (CLOCK_NS / look_ns).round().max(1.0) as u32,
            wait_looks: (WAIT_SPIN_NS / look_ns).round().max(1.0) as u32,
        }
    }

    /// One look's `pause`s.
    #[inline]
    fn pause(&self) {
        for _ in 0..self.pauses {
            core::hint::spin_loop();
        }
    }
}

/// This CPU's `pause` (`core::hint::spin_loop`), in nanoseconds: the fastest of five batches
/// of 64 (a batch interrupted or descheduled is slower, never faster). About 10 µs once per
/// process, when its first team is made.
fn pause_ns() -> f64 {
    const BATCH: u32 = 64;
    (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..BATCH {
                core::hint::spin_loop();
            }
            t.elapsed().as_nanos() as f64 / f64::from(BATCH)
        })
        .fold(f64::INFINITY, f64::min)
}

/// The hot window in nanoseconds, from `DMLS_SPIN_US` (microseconds, 0 to 1,000,000; read
/// once). A value that is not such a number is reported once on standard error and the
/// default used.
pub(crate) fn window_ns() -> u64 {
    static NS: OnceLock<u64> = OnceLock::new();
    *NS.get_or_init(|| match std::env::var("DMLS_SPIN_US") {
        Err(_) => DEFAULT_SPIN_US * 1000,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(us) if us <= MAX_SPIN_US => us * 1000,
            _ => {
                eprintln!(
                    "directml_subset: DMLS_SPIN_US={v:?} is not a number of microseconds from 0 \
                     to {MAX_SPIN_US}; using {DEFAULT_SPIN_US}"
                );
                DEFAULT_SPIN_US * 1000
            }
        },
    })
}

/// Nanoseconds since the first call in this process (a monotonic clock).
pub(crate) fn now_ns() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

thread_local! {
    /// True on a worker while it is on a team (a worker that finds another team's join
    /// request while it looks for rayon work leaves that one at once).
    static ON_TEAM: Cell<bool> = const { Cell::new(false) };
}

/// A value alone on its cache lines (two: some CPUs fetch lines in pairs). The job state,
/// which every waiting worker reads and every claim writes, and the count of parts done, which
/// every part writes and the caller reads, would otherwise move between the cores' caches
/// together, each write costing every reader of the other a miss.
#[repr(align(128))]
struct Line<T>(T);

impl<T> core::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// The team of one rayon pool.
pub(crate) struct Team {
    /// The current job's generation, part count and next unclaimed part, in one word
    /// ([`job_state`]). A claim is a compare-and-swap of the whole word, so a thread that read
    /// an older job's state can never claim a part of a newer one, and the part count it checks
    /// is always that of the state it claims from.
    state: Line<AtomicU64>,
    /// The current job: a `*const &Job`, valid while any of its parts is unfinished.
    job: AtomicPtr<()>,
    /// Parts of the current job finished.
    done: Line<AtomicUsize>,
    /// Workers on the team or on their way to it (called, not yet left).
    hot: AtomicUsize,
    /// Workers on the team: called and arrived, not yet left. A called worker may take a long
    /// time to arrive: a wake lands it in some core's run queue, and a scheduler that packs
    /// threads onto few cores puts it behind the caller, which then runs on without it (on a
    /// 2-vCPU virtual machine that packs threads, 99% of wakes landed on the waker's core,
    /// and a called worker arrived only after 2.8 ms of back-to-back executions).
    arrived: AtomicUsize,
    /// Workers the last job could use.
    wanted: AtomicUsize,
    /// A caller holds the team.
    busy: AtomicBool,
    /// The pool is gone: workers leave.
    closed: AtomicBool,
    /// Until when (in [`now_ns`] nanoseconds) the team is contended.
    contended_until: AtomicU64,
    /// The first panic of a part of the current job, for the caller to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The pool's threads.
    threads: usize,
    /// The workers an execution may call, adapted to the machine's load.
    share: Share,
}

impl Team {
    pub fn new(threads: usize) -> Team {
        // Measures the `pause` now, with the pool, not on an execution's path.
        Spin::get();
        Team {
            state: Line(AtomicU64::new(0)),
            job: AtomicPtr::new(core::ptr::null_mut()),
            done: Line(AtomicUsize::new(0)),
            hot: AtomicUsize::new(0),
            arrived: AtomicUsize::new(0),
            wanted: AtomicUsize::new(0),
            busy: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            contended_until: AtomicU64::new(0),
            panic: Mutex::new(None),
            threads,
            share: Share::new(threads),
        }
    }

    /// True when at least `helpers` workers (or the pool's threads, if fewer) are on the team,
    /// within their hot window, and no caller holds it: a job now would find them awake.
    /// Workers called but not arrived do not count: a job would wait for them as for a wake.
    /// (Under contention workers leave after each job, so the count falls to 0 by itself.)
    pub fn hot(&self, helpers: usize) -> bool {
        let want = helpers.min(self.threads);
        want > 0
            && self.arrived.load(Ordering::Relaxed) >= want
            && !self.busy.load(Ordering::Relaxed)
    }

    /// True when at least `helpers` workers (or the pool's threads, if fewer) have been called
    /// and have not left, whether or not they have arrived: a job now would call no other
    /// (the called ones count as on their way).
    pub fn called(&self, helpers: usize) -> bool {
        self.hot.load(Ordering::Relaxed) >= helpers.min(self.threads)
    }

    /// The pool's share of the machine ([`crate::load`]).
    pub fn share(&self) -> &Share {
        &self.share
    }

    /// Tells the workers on the team to leave (the pool is being dropped).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    /// True while the team is contended, or always when its pool has more threads than the
    /// process has cores.
    pub fn contended(&self) -> bool {
        self.threads > crate::cpus::parallelism()
            || self.contended_until.load(Ordering::Relaxed) > now_ns()
    }

    fn mark_contended(&self) {
        self.contended_until
            .store(now_ns() + CONTENDED_NS, Ordering::Relaxed);
    }

    /// Runs `job(i)` once for each `i` in `0..parts` on this thread and on up to `helpers` of
    /// `pool`'s workers, and returns when every part has finished. A panic of a part is
    /// resumed here once every part has finished.
    pub fn run(
        self: &Arc<Self>,
        pool: &rayon::ThreadPool,
        parts: usize,
        helpers: usize,
        job: &Job<'_>,
    ) {
        if parts == 0 {
            return;
        }
        if parts == 1 || helpers == 0 {
            (0..parts).for_each(job);
            return;
        }
        if parts > MAX_PARTS
            || self
                .busy
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            // Another caller holds the team (or the job has more parts than its state can
            // count): rayon runs this job (on workers that wait on the team too, which look for
            // rayon work while they wait).
            pool.install(|| (0..parts).into_par_iter().for_each(job));
            return;
        }
        // Releases the team however this function ends.
        struct Release<'t>(&'t Team);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.busy.store(false, Ordering::Release);
            }
        }
        let _release = Release(self);

        let job_ref: &Job<'_> = job;
        let ptr = (&raw const job_ref).cast_mut().cast::<()>();
        self.job.store(ptr, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        let generation = ((self.state.load(Ordering::Relaxed) >> GEN_SHIFT) + 1) & ((1 << 30) - 1);
        // Publishes the job: a thread that sees this state sees the job.
        self.state
            .store(job_state(generation, parts), Ordering::Release);

        // Workers to call: as many as the parts can use, less those on the team already. The
        // caller wakes at most `FIRST_CALLS` itself and each worker that joins calls up to as
        // many more (`Team::recruit`), so that the caller starts on its parts after a wake or
        // two, not one per worker.
        let want = helpers.min(parts - 1).min(self.threads);
        self.wanted.store(want, Ordering::Relaxed);
        let hot = self.hot.load(Ordering::Acquire);
        for _ in hot..want.min(hot + FIRST_CALLS) {
            self.hot.fetch_add(1, Ordering::AcqRel);
            let team = Arc::clone(self);
            pool.spawn(move || team.serve());
        }

        // Claim parts like any worker, then wait for those running elsewhere.
        while self.claim_and_run() {}
        let mut waited = Wait::new();
        while self.done.load(Ordering::Acquire) < parts {
            waited.pause(self.contended());
        }
        // Every part has finished: nothing refers to `job` any more.
        let panic = self.panic.lock().map(|mut p| p.take()).unwrap_or(None);
        if let Some(p) = panic {
            resume_unwind(p);
        }
    }

    /// Claims one part of the current job and runs it; false when none was left.
    fn claim_and_run(&self) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            let (part, parts) = next_and_count(s);
            if part >= parts {
                return false;
            }
            // The job read here may be a newer one's (published after this state's job ended):
            // the claim below then fails, since the state has changed with it.
            let job = self.job.load(Ordering::Acquire);
            match self
                .state
                .compare_exchange_weak(s, s + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    // SAFETY: the claim succeeded, so the state was still this job's with
                    // `part` unclaimed: the job was published before that state (Release,
                    // read through the Acquire of the claim), and its caller waits until this
                    // part is counted done before it returns and its `&Job` goes away.
                    let job = unsafe { *job.cast_const().cast::<&Job<'_>>() };
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| job(part))) {
                        if let Ok(mut first) = self.panic.lock() {
                            first.get_or_insert(p);
                        }
                    }
                    self.done.fetch_add(1, Ordering::Release);
                    return true;
                }
                Err(now) => s = now,
            }
        }
    }

    /// Calls up to [`FIRST_CALLS`] more workers while the team has fewer than the current job
    /// wanted and the job has parts left to claim (on a worker of the pool, whose
    /// `rayon::spawn` goes to that pool). Once its parts are claimed, no worker calls another,
    /// so the calls end with the job.
    fn recruit(self: &Arc<Self>) {
        for _ in 0..FIRST_CALLS {
            let mut hot = self.hot.load(Ordering::Acquire);
            loop {
                let s = self.state.load(Ordering::Acquire);
                let (next, count) = next_and_count(s);
                let parts_left = next < count;
                if !parts_left
                    || hot >= self.wanted.load(Ordering::Relaxed)
                    || self.closed.load(Ordering::Acquire)
                {
                    return;
                }
                match self.hot.compare_exchange_weak(
                    hot,
                    hot + 1,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => break,
                    Err(now) => hot = now,
                }
            }
            let team = Arc::clone(self);
            rayon::spawn(move || team.serve());
        }
    }

    /// A worker on the team: runs parts while there are any, then waits for the next job
    /// for the hot window (or leaves at once under contention), then returns to rayon.
    fn serve(self: &Arc<Self>) {
        if ON_TEAM.get() {
            // Found while looking for rayon work on a team already: this thread is on one.
            self.hot.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        ON_TEAM.set(true);
        self.arrived.fetch_add(1, Ordering::AcqRel);
        self.recruit();
        let window = window_ns();
        let spin = Spin::get();
        let mut idle_since = Instant::now();
        let mut last = idle_since;
        let mut looks = 0u32;
        let mut clocks = 0u32;
        loop {
            if self.claim_and_run() {
                while self.claim_and_run() {}
                idle_since = Instant::now();
                last = idle_since;
                continue;
            }
            if self.closed.load(Ordering::Acquire) {
                break;
            }
            spin.pause();
            looks += 1;
            if looks < spin.looks_per_clock {
                continue;
            }
            looks = 0;
            let now = Instant::now();
            if now.duration_since(last).as_nanos() as u64 > DESCHEDULED_NS {
                // Another thread had this core: leave it to those that work.
                self.mark_contended();
                break;
            }
            last = now;
            if now.duration_since(idle_since).as_nanos() as u64 >= window || self.contended() {
                break;
            }
            clocks += 1;
            if clocks == CLOCKS_PER_RAYON {
                clocks = 0;
                // A second caller's job may be waiting in rayon for these workers.
                if matches!(rayon::yield_now(), Some(rayon::Yield::Executed)) {
                    idle_since = Instant::now();
                    last = idle_since;
                }
            }
        }
        ON_TEAM.set(false);
        self.arrived.fetch_sub(1, Ordering::AcqRel);
        self.hot.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A caller's wait for the parts still running elsewhere: `pause` at first (for about
/// [`WAIT_SPIN_NS`]), then the core is given up between looks (at once under contention),
/// since a part may be waiting for this very core.
struct Wait {
    looks: u32,
    spin: &'static Spin,
}

impl Wait {
    fn new() -> Wait {
        Wait {
            looks: 0,
            spin: Spin::get(),
        }
    }

    fn pause(&mut self, contended: bool) {
        self.looks = self.looks.saturating_add(1);
        if contended || self.looks > self.spin.wait_looks {
            std::thread::yield_now();
        } else {
            self.spin.pause();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn every_part_runs_once() {
        for threads in [2, 3, 8] {
            let pool = pool(threads);
            let team = Arc::new(Team::new(threads));
            for parts in [0, 1, 2, 5, 64, 1000] {
                for _ in 0..20 {
                    let runs: Vec<AtomicU32> = (0..parts).map(|_| AtomicU32::new(0)).collect();
                    team.run(&pool, parts, threads - 1, &|i| {
                        runs[i].fetch_add(1, Ordering::Relaxed);
                    });
                    assert!(
                        runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                        "{threads} threads, {parts} parts"
                    );
                }
            }
        }
    }

    #[test]
    fn back_to_back_jobs_of_other_sizes() {
        // A worker that read the state of a finished job while the next, larger one was being
        // published must not claim a part of it under the old state.
        let pool = pool(4);
        let team = Arc::new(Team::new(4));
        for j in 0..5000usize {
            let parts = [2, 64, 3, 17][j % 4];
            let runs: Vec<AtomicU32> = (0..parts).map(|_| AtomicU32::new(0)).collect();
            team.run(&pool, parts, 3, &|i| {
                runs[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "job {j}: {:?}",
                runs.iter()
                    .map(|r| r.load(Ordering::Relaxed))
                    .collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn more_parts_than_a_state_counts() {
        let pool = pool(2);
        let team = Arc::new(Team::new(2));
        let sum = AtomicU64::new(0);
        team.run(&pool, MAX_PARTS + 5, 1, &|i| {
            sum.fetch_add(i as u64, Ordering::Relaxed);
        });
        let n = (MAX_PARTS + 5) as u64;
        assert_eq!(sum.load(Ordering::Relaxed), n * (n - 1) / 2);
    }

    #[test]
    fn concurrent_callers_share_a_team() {
        let pool = pool(4);
        let team = Arc::new(Team::new(4));
        let total = AtomicU64::new(0);
        std::thread::scope(|s| {
            for c in 0..4u64 {
                let (team, pool, total) = (&team, &pool, &total);
                s.spawn(move || {
                    for _ in 0..200 {
                        let sum = AtomicU64::new(0);
                        team.run(pool, 37, 3, &|i| {
                            sum.fetch_add(i as u64 + c, Ordering::Relaxed);
                        });
                        assert_eq!(sum.load(Ordering::Relaxed), 666 + 37 * c);
                        total.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 800);
    }

    #[test]
    fn a_panic_reaches_the_caller_after_every_part() {
        let pool = pool(3);
        let team = Arc::new(Team::new(3));
        let runs = AtomicU32::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            team.run(&pool, 50, 2, &|i| {
                runs.fetch_add(1, Ordering::Relaxed);
                if i == 7 {
                    panic!("part 7");
                }
            })
        }));
        assert!(r.is_err());
        assert_eq!(runs.load(Ordering::Relaxed), 50);
        // The team is usable again.
        let sum = AtomicU64::new(0);
        team.run(&pool, 10, 2, &|i| {
            sum.fetch_add(i as u64, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 45);
    }

    #[test]
    fn a_called_worker_is_hot_once_it_arrives() {
        // The pool's one thread is held, so the worker called by a job cannot arrive: the
        // caller runs every part, and the team is calling, not hot, until the thread is free.
        let pool = pool(1);
        let team = Arc::new(Team::new(1));
        let (hold, held) = std::sync::mpsc::channel::<()>();
        let (started, start) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            started.send(()).unwrap();
            let _ = held.recv();
        });
        start.recv().unwrap();
        let caller = std::thread::current().id();
        let ran = AtomicU32::new(0);
        team.run(&pool, 4, 1, &|_| {
            assert_eq!(std::thread::current().id(), caller);
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 4);
        assert!(team.called(1));
        assert!(!team.hot(1));
        hold.send(()).unwrap();
        // The worker arrives and waits out its window (or leaves at once if this machine
        // counts as contended), then leaves: hot until then, and neither called nor hot after.
        let t = Instant::now();
        while team.called(1) {
            assert!(t.elapsed().as_secs() < 10, "the worker never left");
            std::thread::yield_now();
        }
        assert!(!team.hot(1));
    }

    #[test]
    fn every_worker_joins_a_long_job() {
        // The caller calls two workers, which call the others: all eight threads take parts
        // of a job that lasts long enough (its parts sleep, so this holds on any core count).
        let pool = pool(7);
        let team = Arc::new(Team::new(7));
        let ids = Mutex::new(std::collections::HashSet::new());
        team.run(&pool, 200, 7, &|_| {
            ids.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(2));
        });
        assert_eq!(ids.lock().unwrap().len(), 8);
    }

    #[test]
    fn a_look_takes_about_the_same_time_whatever_the_pause() {
        // A few nanoseconds (older Intel), 22.7 (AMD Zen 5), 40-60 (Intel from Skylake on).
        for pause_ns in [0.1, 3.0, 8.0, 22.7, 45.0, 60.0, 2_000.0] {
            let spin = Spin::for_pause_ns(pause_ns);
            let look_ns = f64::from(spin.pauses) * pause_ns.clamp(0.25, 1_000.0);
            assert!(spin.pauses >= 1, "{pause_ns} ns");
            assert!(
                spin.pauses == 1 || look_ns <= 2.0 * LOOK_NS,
                "{pause_ns} ns: {} pauses",
                spin.pauses
            );
            assert!(
                spin.pauses == 64 || look_ns >= LOOK_NS / 2.0,
                "{pause_ns} ns: {} pauses",
                spin.pauses
            );
            let near = |looks: u32, target: f64| {
                let t = f64::from(looks) * (look_ns + 2.0);
                looks == 1 || (t > target * 0.9 && t < target * 1.1)
            };
            assert!(near(spin.looks_per_clock, CLOCK_NS), "{pause_ns} ns");
            assert!(near(spin.wait_looks, WAIT_SPIN_NS), "{pause_ns} ns");
        }
        let measured = pause_ns();
        assert!(measured.is_finite() && measured >= 0.0, "{measured}");
    }

    #[test]
    fn workers_leave_after_the_window() {
        let pool = pool(3);
        let team = Arc::new(Team::new(3));
        team.run(&pool, 8, 2, &|_| {});
        let t = Instant::now();
        while team.hot.load(Ordering::Acquire) > 0 {
            assert!(
                t.elapsed().as_secs() < 10,
                "workers still on the team 10 s after the job"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
