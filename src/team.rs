//! The team: how one execution's parts run on a pool's workers, with trips that cost about
//! what a `memcpy` of a few kilobytes costs.
//!
//! A rayon pool wakes its sleeping workers one after another (each woken worker wakes at most
//! two more), and a trip through it took 25–100 µs on 16 cores of a virtual machine, where the
//! work of a 2^16-element operator is 5–20 µs. So the kernels do not hand their parts to rayon
//! one call at a time. The caller publishes a job (a function of the part index and a part
//! count) in the pool's [`Team`], and every thread on the team, the caller included, claims
//! parts, one compare-and-swap each, until none is left; the caller then waits for the parts
//! still running elsewhere. The parts are dealt out in slots of consecutive parts, one per
//! thread the job can use (a worker takes a seat when it arrives and keeps it while it stays;
//! seats beyond the job's slots share them): each thread claims its own slot's parts first,
//! so it runs the same parts every execution and finds their data in its own cache, and then
//! helps with the others' slots. (Parts that wait for the parts before them, as NonZero's
//! large inputs do, are claimed in order instead.)
//!
//! Workers join the team through rayon, as many as the job can use (no more than its parts,
//! nor than the caller's share of a loaded machine: workers on the team beyond that share take
//! none of the job's parts, and leave the team at once) that are not already on it:
//! the caller calls two, and each worker that joins calls up to two more while the job has
//! parts left, so the caller pays for two wakes, not one per worker, and starts on its parts
//! at once. After its last part a worker stays on the team for a bounded **hot window**
//! (100 µs unless `DMLS_SPIN_US` says otherwise), watching for the next job with `pause`, so
//! that the next execution finds it awake; then it goes back to rayon, which puts it to sleep.
//! A process that executes once and then idles uses no CPU once the window (and rayon's own
//! short idle spin) is over.
//!
//! The window shrinks under contention, when more threads want to run than there are cores: a
//! worker that finds it was descheduled while it waited (the clock jumped between two of its
//! checks) leaves at once and marks the team contended for [`CONTENDED_NS`] (5 ms), during
//! which workers leave as soon as no part is left to claim, and the waits yield the core; so
//! does a team with more threads on it (the caller and the workers called) than the process
//! may use cores. (A pool of more threads than cores is not contended as such: its executions
//! call no more workers than the cores, [`crate::op::cost::parts_threads`], unless
//! `DMLS_PARALLEL=always` asks for them all.) A part claimed by a worker that is then
//! descheduled delays the whole execution, so parts are small (several per worker) and claimed one
//! at a time: the threads that run take the rest.
//!
//! One caller uses a team at a time. A second caller of the same pool meanwhile runs its parts
//! through rayon itself (the workers waiting on the team look for rayon's work while they
//! wait), so concurrent executions on one device never wait for each other's window.

use std::any::Any;
use std::cell::Cell;
use std::io::Write as _;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::kept::Kept;
use crate::load::Share;

/// A job: the function run once for each part index.
pub(crate) type Job<'a> = dyn Fn(usize) + Sync + 'a;

/// The most parts of one job on the team (a job of more runs through rayon).
pub(crate) const MAX_PARTS: usize = 1 << 16;
/// A slot's word: its next unclaimed part (17 bits, up to `MAX_PARTS`), the end of its parts
/// (17 bits), the job's generation (29 bits: a claim that read a word 2^29 jobs old could
/// succeed). The job's announcement has the same layout, with the slot count in place of the
/// next part and the part count as the end, and [`CAPPED`] in its top bit.
const NEXT_BITS: u32 = 17;
const COUNT_BITS: u32 = 17;
const FIELD_MASK: u64 = (1 << NEXT_BITS) - 1;
const GEN_SHIFT: u32 = NEXT_BITS + COUNT_BITS;
const GEN_MASK: u64 = (1 << 29) - 1;
/// In a job's announcement: the job may use fewer workers than the pool has (the pool's share
/// of a loaded machine, [`crate::load`]), so a worker on the team takes its parts only from a
/// seat within that share ([`Team::may_help`]).
const CAPPED: u64 = 1 << 63;

/// A word of generation `generation` with the fields `low` (next part, or slot count) and
/// `high` (end of the parts, or part count).
fn word(generation: u64, low: usize, high: usize) -> u64 {
    (generation << GEN_SHIFT) | ((high as u64) << NEXT_BITS) | low as u64
}

/// A word's two fields: (`low`, `high`).
fn fields(word: u64) -> (usize, usize) {
    (
        (word & FIELD_MASK) as usize,
        ((word >> NEXT_BITS) & FIELD_MASK) as usize,
    )
}

/// A word's generation.
fn generation(word: u64) -> u64 {
    (word >> GEN_SHIFT) & GEN_MASK
}

/// The parts of slot `slot` of `slots`, for a job of `parts` parts: consecutive runs as even as
/// they can be.
fn slot_parts(slot: usize, slots: usize, parts: usize) -> (usize, usize) {
    (slot * parts / slots, (slot + 1) * parts / slots)
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
/// The largest value of a field of 21 bits ([`Spin::pack`]).
const FIELD21: u64 = (1 << 21) - 1;
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
/// About how long a part waiting for a count being made on another thread (NonZero's parts,
/// [`Wait::for_count`]) looks with `pause` before it gives up the core between looks, in
/// nanoseconds. A count takes a few microseconds on a thread that runs. A wait longer than that
/// means its thread was descheduled, and spinning on then only keeps the core from it: with 64
/// threads on two cores, a 2^22-element NonZero took 18-28% less time with a wait of about
/// 12 µs than with one of about 93 µs, and 1.6-2.9 times as long with one of about 750 µs.
/// Giving the core up at once was slower too (16 and 64 threads: 1.7-3.8 times as long at
/// 2^20, 1.1-1.5 at 2^22): a count being made is seldom far from done.
const COUNT_SPIN_NS: f64 = 12_000.0;
/// Clock reads between two looks for rayon work (a second caller's parts).
const CLOCKS_PER_RAYON: u32 = 8;
/// Parts of a slot whose owner has started that a thread helping from the back leaves to the
/// owner (the next ones it would claim), on a team of at least [`LEAVE_FROM_THREADS`] threads:
/// a part run on another thread than the slot's finds its memory in the owner's cache, and on
/// 16 cores of an Intel Xeon such parts of a 2^17 to 2^22 element DIAGONAL_MATRIX1 took 2-4
/// times as long as the owner's own (12-20 of 64 parts per execution at 2^18, taken by threads
/// done with their own slots a part ahead of the owners). Under contention, or once the caller
/// has waited for them [`EAGER_AFTER_NS`] at most, helpers take any part.
const LEFT_TO_OWNER: usize = 2;
/// The fewest threads of a team whose helpers leave parts to the owners. On two vCPUs (AMD Zen
/// 4) a part took about as long on either thread, and a job's two slots are a quarter of it
/// each: leaving parts to a slower owner took DIAGONAL_MATRIX1 up to 1.2 times as long.
const LEAVE_FROM_THREADS: usize = 4;

/// The parts a helper leaves to a started owner on `threads` threads (a team's, or a job's
/// slots): [`LEFT_TO_OWNER`] from [`LEAVE_FROM_THREADS`] on, else none.
pub(crate) fn left_to_owner(threads: usize) -> usize {
    if threads >= LEAVE_FROM_THREADS {
        LEFT_TO_OWNER
    } else {
        0
    }
}
/// The longest a caller done with its parts waits for the parts left to their owners before
/// it takes them itself (an owner descheduled between two parts would keep them meanwhile):
/// as long as it took for as many parts of its own, up to this.
const EAGER_AFTER_NS: u64 = 20_000;

/// How a waiting thread spins on this CPU, from its measured `pause` (once per process).
#[derive(Clone, Copy, Debug, PartialEq)]
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
    fn get() -> Spin {
        static SPIN: Kept = Kept::new();
        Spin::unpack(SPIN.get(|| Spin::for_pause_ns(pause_ns()).pack()))
    }

    /// The three counts in one word of 63 bits, 21 bits each (each is at most 375,000: a look
    /// takes at least 2 ns).
    fn pack(self) -> u64 {
        let field = |v: u32| u64::from(v).min(FIELD21);
        field(self.pauses) | field(self.looks_per_clock) << 21 | field(self.wait_looks) << 42
    }

    fn unpack(word: u64) -> Spin {
        Spin {
            pauses: (word & FIELD21) as u32,
            looks_per_clock: (word >> 21 & FIELD21) as u32,
            wait_looks: (word >> 42 & FIELD21) as u32,
        }
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

    /// Looks of a part waiting for a count before it gives up the core between looks (about
    /// [`COUNT_SPIN_NS`], in the wait's looks).
    fn count_looks(&self) -> u32 {
        (f64::from(self.wait_looks) * COUNT_SPIN_NS / WAIT_SPIN_NS)
            .round()
            .max(1.0) as u32
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
    static NS: Kept = Kept::new();
    NS.get(|| match std::env::var("DMLS_SPIN_US") {
        Err(_) => DEFAULT_SPIN_US * 1000,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(us) if us <= MAX_SPIN_US => us * 1000,
            _ => {
                static WARNED: AtomicBool = AtomicBool::new(false);
                if !WARNED.swap(true, Ordering::Relaxed) {
                    // (Not `eprintln!`, which panics where standard error is closed: this may
                    // run on a worker, where a panic aborts the process.)
                    let _ = writeln!(
                        std::io::stderr(),
                        "directml_subset: DMLS_SPIN_US={v:?} is not a number of microseconds \
                         from 0 to {MAX_SPIN_US}; using {DEFAULT_SPIN_US}"
                    );
                }
                DEFAULT_SPIN_US * 1000
            }
        },
    })
}

/// Nanoseconds since about the first call in this process, plus one (never 0, which the
/// callers' stamps use for "never"; a monotonic clock). The first call's clock reading is kept
/// without a lock ([`Kept`]): threads that race each keep theirs until one is stored, and
/// their first readings may come out a few microseconds apart (saturating at 1).
pub(crate) fn now_ns() -> u64 {
    static BASE: Kept = Kept::new();
    let now = clock_ns();
    now.saturating_sub(BASE.get(|| now)).saturating_add(1)
}

/// A monotonic clock in nanoseconds from some fixed point.
#[cfg(unix)]
fn clock_ns() -> u64 {
    // SAFETY: an all-zero timespec is a valid value to be overwritten.
    let mut t: libc::timespec = unsafe { core::mem::zeroed() };
    // SAFETY: `t` is a writable timespec; CLOCK_MONOTONIC exists on every unix the library
    // builds for (it is what `Instant` reads there), so the call does not fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    (t.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(t.tv_nsec as u64)
}

/// A monotonic clock in nanoseconds from some fixed point (no fork here: a lock cannot be
/// inherited held).
#[cfg(not(unix))]
fn clock_ns() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

thread_local! {
    /// True on a worker while it is on a team (a worker that finds another team's join
    /// request while it looks for rayon work leaves that one at once).
    static ON_TEAM: Cell<bool> = const { Cell::new(false) };
}

/// A value alone on its cache lines (two: some CPUs fetch lines in pairs). The announcement,
/// which every waiting worker reads, each slot, which claims write, and the count of parts
/// done, which every part writes and the caller reads, would otherwise move between the cores'
/// caches together, each write costing every reader of the others a miss.
#[repr(align(128))]
struct Line<T>(T);

impl<T> core::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Which end of a slot a claim takes.
#[derive(Clone, Copy)]
enum Side {
    /// The next part (the slot's owner).
    Front,
    /// The last part, unless the owner has started (claimed past `first`, the slot's first
    /// part) and has at most `leave` parts left to claim.
    Back { first: usize, leave: usize },
}

/// The team of one rayon pool.
pub(crate) struct Team {
    /// The current job's announcement: its generation, part count and slot count ([`word`]).
    /// Waiting workers look at it for a new generation.
    state: Line<AtomicU64>,
    /// The current job's parts, split into slots of consecutive parts, one per seat that the job
    /// can use (seats beyond those wrap around and share slots): each slot's generation, end and
    /// next unclaimed part in one word ([`word`]), alone on its cache lines. A thread claims the
    /// parts of its own seat's slot first, from the front, then those left in the others, from the
    /// back. So from one execution to the next a thread runs the same parts, whose data its own
    /// cache holds from the last time (a part handed to whichever thread claims first meets its
    /// data in another core's cache), while the parts of a thread that is late or descheduled go to
    /// those that run. A claim is a compare-and-swap of the whole word, so a thread that read an
    /// older job's word can never claim a part of a newer one, and the end it checks is always that
    /// of the word it claims from.
    slots: Box<[Line<AtomicU64>]>,
    /// The current job: a `*const &Job`, valid while any of its parts is unfinished.
    job: AtomicPtr<()>,
    /// Parts of the current job finished.
    done: Line<AtomicUsize>,
    /// Workers on the team or on their way to it (called, not yet left). (This and `arrived`
    /// change as workers come and go: on lines of their own, they do not take from the threads
    /// that claim parts the line of the fields those read.)
    hot: Line<AtomicUsize>,
    /// Workers on the team: called and arrived, not yet left. A called worker may take a long
    /// time to arrive: a wake lands it in some core's run queue, and a scheduler that packs
    /// threads onto few cores puts it behind the caller, which then runs on without it (on a
    /// 2-vCPU virtual machine that packs threads, 99% of wakes landed on the waker's core,
    /// and a called worker arrived only after 2.8 ms of back-to-back executions).
    arrived: Line<AtomicUsize>,
    /// Workers the last job could use.
    wanted: AtomicUsize,
    /// Workers the last [`CAPPED`] job may use at most (the caller's share): the seats up to
    /// this one help it.
    cap: AtomicUsize,
    /// The seats taken: a worker takes the first free one when it arrives and keeps it until
    /// it leaves, and claims the parts of the slot of its seat first. The first seat is the
    /// caller's. (Seats, not the workers' indices in the pool: the workers on a team are
    /// whichever the calls woke, and with fixed homes a slot whose worker was not among them
    /// left its parts to be taken after another's, which doubled a job of one part per thread:
    /// measured on 16 cores.)
    seats: Mutex<Vec<bool>>,
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
    /// Parts left to a slot's owner by helpers ([`LEFT_TO_OWNER`], or 0).
    leave: usize,
    /// The workers an execution may call, adapted to the machine's load.
    share: Share,
}

impl Team {
    pub fn new(threads: usize) -> Team {
        // Measures the `pause` now, with the pool, not on an execution's path.
        Spin::get();
        Team {
            state: Line(AtomicU64::new(0)),
            slots: (0..threads.max(1))
                .map(|_| Line(AtomicU64::new(0)))
                .collect(),
            job: AtomicPtr::new(core::ptr::null_mut()),
            done: Line(AtomicUsize::new(0)),
            hot: Line(AtomicUsize::new(0)),
            arrived: Line(AtomicUsize::new(0)),
            wanted: AtomicUsize::new(0),
            cap: AtomicUsize::new(0),
            seats: Mutex::new((0..=threads).map(|seat| seat == 0).collect()),
            busy: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            contended_until: AtomicU64::new(0),
            panic: Mutex::new(None),
            threads,
            leave: left_to_owner(threads),
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

    /// True while a caller holds the team (its job's parts may still be running).
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// True while the team is contended, or while it has more threads (its caller and the
    /// workers called to it) than the process has cores.
    pub fn contended(&self) -> bool {
        self.contended_at(now_ns())
    }

    /// [`Team::contended`] at `now` ([`now_ns`]). (A pool of more threads than cores is not
    /// contended as such: its executions call no more workers than the cores, unless
    /// `DMLS_PARALLEL=always` asks for all of them, [`crate::op::cost::parts_threads`].)
    fn contended_at(&self, now: u64) -> bool {
        self.hot.load(Ordering::Relaxed) >= crate::cpus::parallelism()
            || self.contended_until.load(Ordering::Relaxed) > now
    }

    fn mark_contended(&self) {
        self.contended_until
            .store(now_ns() + CONTENDED_NS, Ordering::Relaxed);
    }

    /// Runs `job(i)` once for each `i` in `0..parts` on this thread and on up to `helpers` of
    /// `pool`'s workers, and returns when every part has finished. `in_order`: the parts are
    /// claimed in increasing order (one slot), for parts that wait for the parts before them;
    /// otherwise in a slot per thread. A panic of a part is resumed here once every part has
    /// finished. True when the job went through the team; false when it ran on this thread
    /// alone, or through rayon beside another caller that held the team.
    pub fn run(
        self: &Arc<Self>,
        pool: &rayon::ThreadPool,
        parts: usize,
        helpers: usize,
        in_order: bool,
        job: &Job<'_>,
    ) -> bool {
        if parts == 0 {
            return false;
        }
        if parts == 1 || helpers == 0 {
            (0..parts).for_each(job);
            return false;
        }
        if parts > MAX_PARTS
            || self
                .busy
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            // Another caller holds the team (or the job has more parts than its state can
            // count).
            run_beside(pool, parts, helpers, job);
            return false;
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
        let generation = (generation(self.state.load(Ordering::Relaxed)) + 1) & GEN_MASK;
        // Workers to call: as many as the parts can use, less those on the team already. The
        // caller wakes at most `FIRST_CALLS` itself and each worker that joins calls up to as
        // many more (`Team::recruit`), so that the caller starts on its parts after a wake or
        // two, not one per worker.
        let want = helpers.min(parts - 1).min(self.threads);
        // One slot per thread that may run: the caller and the workers wanted (one in all for
        // parts in order). The slots after these hold no part: every part of every earlier job
        // was claimed.
        let slots = if in_order {
            1
        } else {
            (want + 1).min(self.slots.len())
        };
        // Before the job's announcement, whose Release makes it seen by every worker that
        // sees the job (and recruits for it).
        self.wanted.store(want, Ordering::Relaxed);
        // Fewer helpers than the pool's workers but one (the caller is the other thread): the
        // workers still on the team from larger jobs must not all join this one.
        let capped = helpers + 1 < self.threads;
        if capped {
            self.cap.store(helpers, Ordering::Relaxed);
        }
        crate::trace::event(crate::trace::Step::Publish, parts);
        self.publish(generation, slots, parts, capped);
        let hot = self.hot.load(Ordering::Acquire);
        for _ in hot..want.min(hot + FIRST_CALLS) {
            self.hot.fetch_add(1, Ordering::AcqRel);
            let team = Arc::clone(self);
            pool.spawn(move || team.serve());
        }

        // Claim parts like any worker (the caller's slot is the first), then wait for those
        // running elsewhere.
        let mut pending = 0;
        // (Timed only where parts are left to their owners.)
        let timed = self.leave > 0;
        let start = if timed { now_ns() } else { 0 };
        let mut ran = 0u64;
        while self.claim_and_run(0, generation, &mut pending, false) {
            ran += 1;
        }
        let since = if timed { now_ns() } else { 0 };
        // As long as the parts left to their owners take them, at the caller's pace.
        let patience = (since.saturating_sub(start) / ran.max(1))
            .saturating_mul(self.leave as u64)
            .min(EAGER_AFTER_NS);
        let mut waited = Wait::new();
        let mut eager = !timed;
        while self.done.load(Ordering::Acquire) < parts {
            let now = now_ns();
            let contended = self.contended_at(now);
            if !eager && (contended || now.saturating_sub(since) >= patience) {
                // The parts left to owners that have not come back for them.
                eager = true;
                while self.claim_and_run(0, generation, &mut pending, true) {}
                continue;
            }
            waited.pause(contended);
        }
        crate::trace::event(crate::trace::Step::Done, parts);
        // Every part has finished: nothing refers to `job` any more.
        let panic = self.panic.lock().map(|mut p| p.take()).unwrap_or(None);
        if let Some(p) = panic {
            resume_unwind(p);
        }
        true
    }

    /// Publishes a job of `parts` parts in `slots` slots (the job itself stored before, and
    /// the workers it wants): a thread that sees a slot's word, or the announcement, sees the
    /// job. `capped`: only the workers in the seats within the caller's share (`cap`, stored
    /// before) take its parts ([`Team::may_help`]).
    fn publish(&self, generation: u64, slots: usize, parts: usize, capped: bool) {
        for (i, slot) in self.slots[..slots].iter().enumerate() {
            let (first, end) = slot_parts(i, slots, parts);
            slot.store(word(generation, first, end), Ordering::Release);
        }
        let cap = if capped { CAPPED } else { 0 };
        self.state
            .store(word(generation, slots, parts) | cap, Ordering::Release);
    }

    /// Whether the worker in seat `seat` may take parts of the job announced by `state`:
    /// always, unless the job is [`CAPPED`]; then only from the first seats, as many as the
    /// caller's share. The others (called by a larger job before it) leave the team, so the job
    /// runs on no more threads than the share, and the machine's other threads get the cores.
    /// (A seat's number is fixed while its worker stays, so the same workers help every capped
    /// job.)
    fn may_help(&self, state: u64, seat: usize) -> bool {
        // (The announcement's Acquire load orders the read of `cap`, stored before it: a later
        // job's value means this job has no part left, since a job is announced only after the
        // last one's parts have finished.)
        state & CAPPED == 0 || (seat > 0 && seat <= self.cap.load(Ordering::Relaxed))
    }

    /// Takes the first free seat (after the caller's); 0 (the caller's slot, shared) if none
    /// is free.
    fn take_seat(&self) -> usize {
        let Ok(mut seats) = self.seats.lock() else {
            return 0;
        };
        match seats.iter().position(|taken| !taken) {
            Some(seat) => {
                seats[seat] = true;
                seat
            }
            None => 0,
        }
    }

    /// Frees a seat that [`Team::take_seat`] gave (the caller's stays taken).
    fn leave_seat(&self, seat: usize) {
        if seat > 0 {
            if let Ok(mut seats) = self.seats.lock() {
                seats[seat] = false;
            }
        }
    }

    /// Claims one part of the job of generation `g` and runs it; false when none was left, or
    /// when the current job is another. `home`: the thread's slot (modulo the job's slot
    /// count), whose parts it claims first. `pending`: the parts of its own slot this thread
    /// has run and not yet counted done. They are counted together, once its slot has none
    /// left (before it looks at the others'), not one by one: every part's count would take
    /// the line of `done` from the others' caches and from the caller's, which reads it, and
    /// on 16 cores a job of 64 parts paid for that several times over. A part of another slot
    /// is counted done at once (the caller may be waiting for it alone). `eager`: parts of other
    /// slots are taken whatever their owners ([`Team::claim_of`]).
    fn claim_and_run(&self, home: usize, g: u64, pending: &mut usize, eager: bool) -> bool {
        let state = self.state.load(Ordering::Acquire);
        // (With parts of this thread not yet counted done, the job cannot have ended, so the
        // generation is still `g`.)
        if generation(state) != g {
            return false;
        }
        let Some((part, job, own)) =
            self.claim_of(state, home, eager, &mut || self.count_done(pending))
        else {
            return false;
        };
        // SAFETY: the claim succeeded, so the slot's word was still this job's with `part`
        // unclaimed: the job was published before that word (Release, read by the Acquire
        // load, or failed compare-and-swap, that gave the word before the job was read), and
        // its caller waits until this part is counted done before it returns and its `&Job`
        // goes away.
        let job = unsafe { *job.cast_const().cast::<&Job<'_>>() };
        crate::trace::event(crate::trace::Step::PartStart, part);
        run_part(job, part, &self.panic);
        crate::trace::event(crate::trace::Step::PartEnd, part);
        *pending += 1;
        if !own {
            self.count_done(pending);
        }
        true
    }

    /// Counts `pending` parts done (which have finished) and sets it to 0.
    fn count_done(&self, pending: &mut usize) {
        if *pending > 0 {
            self.done
                .fetch_add(core::mem::take(pending), Ordering::Release);
        }
    }

    /// [`Team::claim_of`] the job announced now.
    #[cfg(test)]
    fn claim(&self, home: usize) -> Option<(usize, *mut ())> {
        self.claim_of(self.state.load(Ordering::Acquire), home, true, &mut || {})
            .map(|(part, job, _)| (part, job))
    }

    /// Claims a part of the job announced by `state` (read with Acquire): the next of slot
    /// `home` (modulo the job's slots), else (after calling `before_others`) the last of the
    /// first slot after it that has one left, unless (not `eager`) that slot's owner has
    /// started on it and would claim it within its next `leave` ([`LEFT_TO_OWNER`]). Returns
    /// the part, the job (a `*const &Job`) published with the word it was claimed from, and
    /// whether it was of slot `home`; `None` when no slot had a part left to claim.
    fn claim_of(
        &self,
        state: u64,
        home: usize,
        eager: bool,
        before_others: &mut dyn FnMut(),
    ) -> Option<(usize, *mut (), bool)> {
        let (slots, parts) = fields(state);
        let slots = slots.clamp(1, self.slots.len());
        let home = home % slots;
        let g = generation(state);
        if let Some((part, job)) = self.claim_in(&self.slots[home], Side::Front, g) {
            return Some((part, job, true));
        }
        before_others();
        let leave = if eager { 0 } else { self.leave };
        (1..slots)
            .find_map(|k| {
                let j = (home + k) % slots;
                // (Where nothing is left to owners, their start does not matter.)
                let first = if leave > 0 {
                    slot_parts(j, slots, parts).0
                } else {
                    0
                };
                self.claim_in(&self.slots[j], Side::Back { first, leave }, g)
            })
            .map(|(part, job)| (part, job, false))
    }

    /// Claims a part of one slot of the job of generation `g`: its next or its last (`side`);
    /// `None` when it has none left (or, from the back, only those left to its owner), or holds
    /// a newer job's parts (whose slots this thread has not read: claimed from the back, a part
    /// of a job in order would be claimed before the parts it waits for; the thread finds that
    /// job at its next look).
    fn claim_in(&self, slot: &AtomicU64, side: Side, g: u64) -> Option<(usize, *mut ())> {
        let mut w = slot.load(Ordering::Acquire);
        loop {
            let (next, end) = fields(w);
            if next >= end || generation(w) != g {
                return None;
            }
            let front = match side {
                Side::Front => true,
                // The owner has claimed its first part: it claims the next ones itself.
                Side::Back { first, leave } if next > first && end - next <= leave => {
                    return None;
                }
                Side::Back { .. } => false,
            };
            // The job read here may be a newer one's (published after this word's job ended):
            // the claim below then fails, since the word has changed with it.
            let job = self.job.load(Ordering::Acquire);
            let (claimed, part) = if front {
                (w + 1, next)
            } else {
                (w - (1 << NEXT_BITS), end - 1)
            };
            match slot.compare_exchange_weak(w, claimed, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some((part, job)),
                Err(now) => w = now,
            }
        }
    }

    /// True when a slot of the current job has a part left to claim.
    fn parts_left(&self) -> bool {
        let (slots, _) = fields(self.state.load(Ordering::Acquire));
        self.slots[..slots.min(self.slots.len())]
            .iter()
            .any(|slot| {
                let (next, end) = fields(slot.load(Ordering::Acquire));
                next < end
            })
    }

    /// Calls up to [`FIRST_CALLS`] more workers while the team has fewer than the current job
    /// wanted and the job has parts left to claim (on a worker of the pool, whose
    /// `rayon::spawn` goes to that pool). Once its parts are claimed, no worker calls another,
    /// so the calls end with the job.
    fn recruit(self: &Arc<Self>) {
        for _ in 0..FIRST_CALLS {
            let mut hot = self.hot.load(Ordering::Acquire);
            loop {
                if !self.parts_left()
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
        // This worker's slot while it stays (the same parts every execution).
        let home = self.take_seat();
        // The last job whose parts this worker found all claimed: until the announcement
        // changes, a look reads one word.
        let mut seen = None;
        loop {
            let state = self.state.load(Ordering::Acquire);
            let g = generation(state);
            if seen != Some(g) {
                if !self.may_help(state, home) {
                    // Beyond the caller's share of a loaded machine: off the team at once. (A
                    // job that finds such workers on the team calls none in their place: its
                    // caller runs it with fewer workers, the next one calls them.)
                    break;
                }
                let mut pending = 0;
                // (No clock read where no part is left to owners.)
                let eager = self.leave == 0 || self.contended();
                if self.claim_and_run(home, g, &mut pending, eager) {
                    while self.claim_and_run(home, g, &mut pending, eager) {}
                    idle_since = Instant::now();
                    last = idle_since;
                    continue;
                }
                // (Read before the claims: a job announced since is looked at next time.)
                seen = Some(g);
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
        self.leave_seat(home);
        self.arrived.fetch_sub(1, Ordering::AcqRel);
        self.hot.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Runs `job(i)` for each `i` in `0..parts` on this thread and on up to `helpers` tasks spawned
/// in `pool` (its idle threads take them at once, and the team's waiting workers when they
/// look for rayon work), each claiming the next part from one counter: the parts are claimed
/// in increasing order, as a job in order needs, and no more threads run than the caller's
/// share. (Run as a rayon parallel iterator instead, a second caller's job used every thread of
/// the pool, and a thread that stole the second half of a job in order started with a part that
/// waits for every part before it, the first half's thread counting them one by one.)
/// As on the team, every part runs, and the first panic of a part is resumed here once all have.
fn run_beside(pool: &rayon::ThreadPool, parts: usize, helpers: usize, job: &Job<'_>) {
    let next = AtomicUsize::new(0);
    let panic = Mutex::new(None);
    let claim = || loop {
        let part = next.fetch_add(1, Ordering::Relaxed);
        if part >= parts {
            break;
        }
        run_part(job, part, &panic);
    };
    pool.in_place_scope(|scope| {
        for _ in 0..helpers.min(parts - 1) {
            scope.spawn(|_| claim());
        }
        claim();
    });
    if let Some(p) = panic.into_inner().unwrap_or(None) {
        resume_unwind(p);
    }
}

/// Runs part `part` of `job`, keeping its panic in `first` unless one is kept already
/// ([`keep_panic`]). Never unwinds: a panic out of here would end `Team::run`'s frame while other
/// threads may still read its job, or abort the process on a worker.
fn run_part(job: &Job<'_>, part: usize, first: &Mutex<Option<Box<dyn Any + Send>>>) {
    if let Err(p) = catch_unwind(AssertUnwindSafe(|| job(part))) {
        keep_panic(first, p);
    }
}

/// Keeps panic payload `p` in `first` unless one is kept already. Never unwinds: a payload not
/// kept is dropped inside `catch_unwind`; when that drop panics, the new payload is dropped the
/// same way, and after a few such rounds the last one is leaked.
pub(crate) fn keep_panic(first: &Mutex<Option<Box<dyn Any + Send>>>, p: Box<dyn Any + Send>) {
    let mut first = first.lock().unwrap_or_else(|e| e.into_inner());
    if first.is_none() {
        *first = Some(p);
        return;
    }
    drop(first);
    let mut p = p;
    for _ in 0..4 {
        match catch_unwind(AssertUnwindSafe(move || drop(p))) {
            Ok(()) => return,
            Err(again) => p = again,
        }
    }
    core::mem::forget(p);
}

/// A thread's wait for work done on other threads: `pause` at first, then the core is given
/// up between looks (at once when the caller says the team is contended), since the thread it
/// waits for may be waiting for this very core.
pub(crate) struct Wait {
    looks: u32,
    /// Looks with `pause` before the core is given up between looks.
    limit: u32,
    spin: Spin,
}

impl Wait {
    /// A caller's wait for the parts still running elsewhere: `pause` for about
    /// [`WAIT_SPIN_NS`].
    fn new() -> Wait {
        let spin = Spin::get();
        Wait {
            looks: 0,
            limit: spin.wait_looks,
            spin,
        }
    }

    /// A part's wait for a count being made on another thread: `pause` for about
    /// [`COUNT_SPIN_NS`].
    pub(crate) fn for_count() -> Wait {
        let spin = Spin::get();
        Wait {
            looks: 0,
            limit: spin.count_looks(),
            spin,
        }
    }

    /// One look's wait: `pause`, or the core given up (`contended`, or after the wait's
    /// looks with `pause`).
    pub(crate) fn pause(&mut self, contended: bool) {
        self.looks = self.looks.saturating_add(1);
        if contended || self.looks > self.limit {
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

    /// A panic payload whose drop panics too.
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("a payload's drop");
        }
    }

    #[test]
    fn a_part_never_unwinds_even_when_a_payload_panics_on_drop() {
        let first: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);
        let job = |_: usize| std::panic::panic_any(Bomb);
        // The first payload is kept, the second dropped: its drop panics, inside the part.
        run_part(&job, 0, &first);
        run_part(&job, 1, &first);
        let kept = first
            .into_inner()
            .unwrap()
            .expect("the first payload is kept");
        assert!(kept.is::<Bomb>());
        core::mem::forget(kept);
    }

    #[test]
    fn every_part_runs_once() {
        for threads in [2, 3, 8] {
            let pool = pool(threads);
            let team = Arc::new(Team::new(threads));
            for parts in [0, 1, 2, 5, 64, 1000] {
                for j in 0..20 {
                    let in_order = j % 2 == 1;
                    let runs: Vec<AtomicU32> = (0..parts).map(|_| AtomicU32::new(0)).collect();
                    let on_team = team.run(&pool, parts, threads - 1, in_order, &|i| {
                        runs[i].fetch_add(1, Ordering::Relaxed);
                    });
                    assert_eq!(on_team, parts > 1, "{threads} threads, {parts} parts");
                    assert!(
                        runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                        "{threads} threads, {parts} parts, in order {in_order}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_caller_returns_only_once_every_part_has_finished() {
        // Parts are counted done a slot at a time (and those taken from another slot one by
        // one): a count made too early would let the caller return while a part still runs.
        // Parts that take turns being slow, on more threads than this machine may have cores
        // (a worker descheduled mid-slot, its last parts taken by the others).
        for threads in [2, 4, 16] {
            let pool = pool(threads);
            let team = Arc::new(Team::new(threads));
            for j in 0..12 {
                let in_order = j % 2 == 1;
                let parts = 3 * threads + j;
                let finished: Vec<AtomicBool> =
                    (0..parts).map(|_| AtomicBool::new(false)).collect();
                team.run(&pool, parts, threads - 1, in_order, &|i| {
                    if (i + j) % 5 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(300));
                    }
                    finished[i].store(true, Ordering::Release);
                });
                for (i, f) in finished.iter().enumerate() {
                    assert!(
                        f.load(Ordering::Acquire),
                        "{threads} threads, {parts} parts, in order {in_order}: part {i} had \
                         not finished when the caller returned"
                    );
                }
            }
        }
    }

    #[test]
    fn a_thread_claims_its_own_slot_first_then_the_others_from_the_back() {
        let team = Team::new(4);
        // 10 parts in 4 slots: 0-1, 2-4, 5-6, 7-9.
        team.publish(1, 4, 10, false);
        let mut order = Vec::new();
        // Slot 2 is this thread's (6 modulo 4).
        while let Some((part, _)) = team.claim(6) {
            order.push(part);
        }
        assert_eq!(order, [5, 6, 9, 8, 7, 1, 0, 4, 3, 2]);
        // The next job's slots hold its own parts, whatever the last one left.
        team.publish(2, 3, 3, false);
        assert_eq!(team.claim(0).map(|c| c.0), Some(0));
        assert_eq!(team.claim(0).map(|c| c.0), Some(1));
        assert!(team.parts_left());
        assert_eq!(team.claim(4).map(|c| c.0), Some(2));
        assert!(!team.parts_left());
        assert_eq!(team.claim(1), None);
    }

    #[test]
    fn a_helper_leaves_an_owner_that_has_started_its_next_parts() {
        let team = Team::new(4);
        // 16 parts in 4 slots: 0-3, 4-7, 8-11, 12-15.
        team.publish(1, 4, 16, false);
        let claim = |home: usize, eager: bool| {
            let state = team.state.load(Ordering::Acquire);
            team.claim_of(state, home, eager, &mut || {}).map(|c| c.0)
        };
        // Slot 1's owner takes its first part; the owners of slots 2 and 3 have not started.
        assert_eq!(claim(1, false), Some(4));
        // Slot 0's thread: its own parts, then slot 1's last (leaving 5 and 6 to its owner),
        // then slots 2 and 3 from the back.
        let order: Vec<usize> = std::iter::from_fn(|| claim(0, false)).collect();
        assert_eq!(order, [0, 1, 2, 3, 7, 11, 10, 9, 8, 15, 14, 13, 12]);
        // Eager, the parts left to slot 1's owner too.
        let order: Vec<usize> = std::iter::from_fn(|| claim(0, true)).collect();
        assert_eq!(order, [6, 5]);
    }

    #[test]
    fn a_caller_takes_the_parts_left_to_a_slow_owner() {
        // Two slots of four parts; the caller's take 2 ms each (time for the worker to come),
        // part 4, the worker's first, 50 ms. The caller leaves the owner parts 5 and 6 only for
        // a while, then runs them itself.
        let pool = pool(2);
        // (Two threads leave no parts to owners, unless told to.)
        let mut team = Team::new(2);
        team.leave = LEFT_TO_OWNER;
        let team = Arc::new(team);
        for _ in 0..3 {
            let caller = std::thread::current().id();
            let ran: Vec<Mutex<Option<std::thread::ThreadId>>> =
                (0..8).map(|_| Mutex::new(None)).collect();
            team.run(&pool, 8, 1, false, &|i| {
                let ms = match i {
                    0..4 => 2,
                    4 => 50,
                    _ => 0,
                };
                std::thread::sleep(std::time::Duration::from_millis(ms));
                *ran[i].lock().unwrap() = Some(std::thread::current().id());
            });
            for (i, thread) in ran.iter().enumerate().skip(5) {
                assert_eq!(*thread.lock().unwrap(), Some(caller), "part {i}");
            }
        }
    }

    #[test]
    fn parts_in_order_may_wait_for_the_parts_before_them() {
        // Each part waits until the part before it has finished (as NonZero's parts wait for
        // the counts before them): claimed in slots, a thread could wait for a part that
        // nobody has claimed, while the thread whose slot holds it waits too.
        for threads in [2, 4, 8] {
            let pool = pool(threads);
            let team = Arc::new(Team::new(threads));
            for _ in 0..20 {
                let done: Vec<AtomicBool> = (0..64).map(|_| AtomicBool::new(false)).collect();
                team.run(&pool, 64, threads - 1, true, &|i| {
                    while i > 0 && !done[i - 1].load(Ordering::Acquire) {
                        std::thread::yield_now();
                    }
                    done[i].store(true, Ordering::Release);
                });
                assert!(done.iter().all(|d| d.load(Ordering::Relaxed)));
            }
        }
    }

    #[test]
    fn a_claim_never_takes_a_part_of_a_job_it_has_not_read() {
        // A thread read the announcement of a job of two slots; the next job, in order (one
        // slot), is published before it looks at the slots: from the back it would claim that
        // job's last part first, before the parts that part waits for.
        let team = Team::new(2);
        team.publish(1, 2, 2, false);
        assert_eq!(team.claim(0).map(|c| c.0), Some(0));
        assert_eq!(team.claim(1).map(|c| c.0), Some(1));
        let state = team.state.load(Ordering::Acquire);
        team.publish(2, 1, 8, false);
        let slot = &team.slots[0];
        let back = Side::Back { first: 0, leave: 0 };
        assert_eq!(team.claim_in(slot, back, generation(state)), None);
        // A thread that reads the new announcement claims from the front.
        assert_eq!(team.claim(1).map(|c| c.0), Some(0));
    }

    #[test]
    fn workers_take_the_first_free_seat() {
        let team = Team::new(3);
        assert_eq!(team.take_seat(), 1);
        assert_eq!(team.take_seat(), 2);
        assert_eq!(team.take_seat(), 3);
        // All taken: the caller's slot.
        assert_eq!(team.take_seat(), 0);
        team.leave_seat(2);
        team.leave_seat(0);
        assert_eq!(team.take_seat(), 2);
        assert_eq!(team.take_seat(), 0);
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
            team.run(&pool, parts, 3, false, &|i| {
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
        let on_team = team.run(&pool, MAX_PARTS + 5, 1, false, &|i| {
            sum.fetch_add(i as u64, Ordering::Relaxed);
        });
        assert!(
            !on_team,
            "more parts than a state counts went through the team"
        );
        let n = (MAX_PARTS + 5) as u64;
        assert_eq!(sum.load(Ordering::Relaxed), n * (n - 1) / 2);
    }

    #[test]
    fn a_job_beside_a_busy_team_keeps_its_order_and_its_share() {
        // Another caller holds the team: the job runs beside it. Its parts are still claimed
        // in increasing order (when part i starts, at most one part before it, claimed by the
        // other thread, has not started yet), and on no more threads than the caller and its
        // one helper.
        let pool = pool(4);
        let team = Arc::new(Team::new(4));
        team.busy.store(true, Ordering::Relaxed);
        for _ in 0..5 {
            let started = AtomicUsize::new(0);
            let behind = AtomicUsize::new(0);
            let threads = Mutex::new(Vec::new());
            let on_team = team.run(&pool, 48, 1, true, &|i| {
                let before = started.fetch_add(1, Ordering::AcqRel);
                behind.fetch_max(i.saturating_sub(before), Ordering::Relaxed);
                let me = std::thread::current().id();
                let mut seen = threads.lock().unwrap();
                if !seen.contains(&me) {
                    seen.push(me);
                }
                drop(seen);
                std::thread::sleep(std::time::Duration::from_micros(300));
            });
            assert!(!on_team, "a job beside the team counted as one through it");
            assert_eq!(started.load(Ordering::Relaxed), 48);
            assert!(
                behind.load(Ordering::Relaxed) <= 1,
                "a part started ahead of its order"
            );
            assert!(
                threads.lock().unwrap().len() <= 2,
                "more threads than the share"
            );
        }
        team.busy.store(false, Ordering::Relaxed);
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
                        team.run(pool, 37, 3, false, &|i| {
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
            team.run(&pool, 50, 2, false, &|i| {
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
        team.run(&pool, 10, 2, false, &|i| {
            sum.fetch_add(i as u64, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 45);
        // The same beside a team that another caller holds.
        team.busy.store(true, Ordering::Relaxed);
        let runs = AtomicU32::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            team.run(&pool, 50, 2, true, &|i| {
                runs.fetch_add(1, Ordering::Relaxed);
                if i % 7 == 0 {
                    panic!("part {i}");
                }
            })
        }));
        team.busy.store(false, Ordering::Relaxed);
        assert!(r.is_err());
        assert_eq!(runs.load(Ordering::Relaxed), 50);
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
        team.run(&pool, 4, 1, false, &|_| {
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
    fn a_team_is_contended_by_its_threads_not_by_its_pools_size() {
        // A team of a pool of 64 threads, on a machine of fewer CPUs, with none of its workers
        // called: not contended (its executions call no more workers than CPUs). With as many
        // workers called as the process has CPUs (more threads than CPUs, with the caller's):
        // contended.
        let team = Team::new(64);
        let cpus = crate::cpus::parallelism();
        if cpus >= 64 {
            eprintln!("a_team_is_contended_by_its_threads: skipped on {cpus} CPUs");
            return;
        }
        assert!(!team.contended());
        team.hot.store(cpus - 1, Ordering::Relaxed);
        assert!(!team.contended(), "as many threads as CPUs");
        team.hot.store(cpus, Ordering::Relaxed);
        assert!(team.contended(), "more threads than CPUs");
    }

    #[test]
    fn every_worker_joins_a_long_job() {
        // The caller calls two workers, which call the others: all eight threads take parts
        // of a job that lasts long enough (its parts sleep, so this holds on any core count).
        let pool = pool(7);
        let team = Arc::new(Team::new(7));
        let ids = Mutex::new(std::collections::HashSet::new());
        team.run(&pool, 200, 7, false, &|_| {
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
            assert!(near(spin.count_looks(), COUNT_SPIN_NS), "{pause_ns} ns");
        }
        let measured = pause_ns();
        assert!(measured.is_finite() && measured >= 0.0, "{measured}");
    }

    #[test]
    fn workers_on_the_team_beyond_a_jobs_share_take_none_of_its_parts() {
        // A job of three helpers brings the pool's workers onto the team; the jobs after it
        // may use one (the pool's share of a loaded machine, crate::load), and run on no
        // more threads than the caller and one worker, although the others were on the team
        // in their window when they were announced. Their parts spin, so that the workers on
        // the team see them. (On two cores a team of four is contended, so its workers leave
        // soon after each job and this seldom fails without the cap; on four cores or more it
        // fails at once. The next test checks the rule itself on any machine.)
        let pool = pool(4);
        let team = Arc::new(Team::new(4));
        let spin = |us: u64| {
            let t = Instant::now();
            while t.elapsed().as_micros() < u128::from(us) {
                core::hint::spin_loop();
            }
        };
        let mut most = 0;
        for j in 0..1000 {
            let helpers = if j % 50 == 0 { 3 } else { 1 };
            let ids = Mutex::new(std::collections::HashSet::new());
            team.run(&pool, 32, helpers, false, &|_| {
                ids.lock().unwrap().insert(std::thread::current().id());
                spin(if helpers == 3 { 200 } else { 10 });
            });
            let threads = ids.into_inner().unwrap().len();
            if helpers == 1 {
                most = most.max(threads);
            }
        }
        assert!(most <= 2, "a job of one helper ran on {most} threads");
    }

    #[test]
    fn a_capped_job_takes_workers_only_from_the_seats_within_its_share() {
        let pool = pool(4);
        let team = Arc::new(Team::new(4));
        // Fewer helpers than the pool's workers but one: capped; as many: not.
        team.run(&pool, 8, 1, false, &|_| {});
        let state = team.state.load(Ordering::Acquire);
        assert_ne!(state & CAPPED, 0, "one helper of four workers");
        assert_eq!(fields(state), (2, 8));
        assert!(team.may_help(state, 1));
        assert!(!team.may_help(state, 2) && !team.may_help(state, 4));
        // A worker without a seat of its own (it shares the caller's) takes none either.
        assert!(!team.may_help(state, 0));
        // The share, not the parts: a job of two parts wants one worker, but a worker in the
        // share's second seat may still take a part whose owner is late.
        team.run(&pool, 2, 2, false, &|_| {});
        let state = team.state.load(Ordering::Acquire);
        assert_ne!(state & CAPPED, 0, "two helpers of four workers");
        assert!(team.may_help(state, 1) && team.may_help(state, 2));
        assert!(!team.may_help(state, 3));
        team.run(&pool, 8, 3, false, &|_| {});
        let state = team.state.load(Ordering::Acquire);
        assert_eq!(state & CAPPED, 0, "three helpers of four workers");
        assert!((0..=4).all(|seat| team.may_help(state, seat)));
        // The flag is not part of the generation that claims compare (a team without
        // workers: those of the pool above may still be on theirs).
        let team = Team::new(4);
        team.publish(GEN_MASK, 1, 3, true);
        let state = team.state.load(Ordering::Acquire);
        assert_eq!(generation(state), GEN_MASK);
        assert_eq!(team.claim(0).map(|c| c.0), Some(0));
    }

    #[test]
    fn workers_leave_after_the_window() {
        let pool = pool(3);
        let team = Arc::new(Team::new(3));
        team.run(&pool, 8, 2, false, &|_| {});
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
