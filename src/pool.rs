//! The threads a device runs on ([`Threads`]), what an execution may use of them
//! ([`Workers`]), and worker pools that survive `fork()`.
//!
//! After `fork()` the child holds a copy of every pool of its parent, but none of the pool's
//! threads: a job sent to such a pool waits forever, and its locks may be held by threads that
//! no longer exist. So every pool here is tagged with the fork generation it was built in, a
//! counter that a `pthread_atfork` child handler increments in each new child. A pool of an
//! older generation is never touched again: not used, not dropped (dropping wakes its threads,
//! whose sleep locks may be held by a dead thread); it is leaked, and a new pool is built
//! lazily on the first parallel execution in the child. Checking costs an acquire and a relaxed
//! atomic load and a compare, and only executions large enough to consider a parallel path
//! check at all.
//!
//! The process-wide pool (devices with `thread_count` 0) is the library's own [`LazyPool`],
//! not rayon's global pool, which can be neither replaced nor reset after a fork.
//!
//! No lock of the library is held across calls into it, so none can be inherited locked: the
//! pools are swapped with compare-and-swap, the error message is thread-local.

use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cpus;
use crate::error::{Error, Result};
use crate::team::{Job, Team};

/// The most worker threads a device may ask for.
pub const DMLS_MAX_THREAD_COUNT: u32 = 1024;

/// The threads of one device, as its `thread_count` asks.
pub(crate) struct Threads(Source);

enum Source {
    /// 0: the process-wide pool, [`SHARED`].
    Shared,
    /// 1: the calling thread only.
    Serial,
    /// n: this device's own pool (rebuilt in a forked child).
    Own(LazyPool),
}

impl Threads {
    /// The threads for a device's `thread_count` (at most [`DMLS_MAX_THREAD_COUNT`], which the
    /// device checks). A pool of its own is started now, so that a device that cannot have its
    /// threads is never created.
    pub fn new(thread_count: u32) -> Result<Threads> {
        Ok(Threads(match thread_count {
            0 => Source::Shared,
            1 => Source::Serial,
            n => {
                let own = LazyPool::new(n as usize);
                own.get()
                    .map_err(|e| Error::OutOfMemory(e.message().to_string()))?;
                Source::Own(own)
            }
        }))
    }

    /// The number of threads an execution may use.
    pub fn count(&self) -> usize {
        match &self.0 {
            Source::Shared => SHARED.threads(),
            Source::Serial => 1,
            Source::Own(p) => p.threads(),
        }
    }

    /// What one execution may use.
    pub fn workers(&self) -> Workers<'_> {
        let pool = match &self.0 {
            Source::Shared => Some(&SHARED),
            Source::Serial => None,
            Source::Own(p) => Some(p),
        };
        Workers {
            threads: self.count(),
            pool,
        }
    }
}

/// The threads an execution may use. Kernels call [`Workers::parts`] only on their parallel path,
/// so small operators never wake a pool (nor build one).
#[derive(Clone, Copy)]
pub(crate) struct Workers<'a> {
    pub threads: usize,
    pool: Option<&'a LazyPool>,
}

impl<'a> Workers<'a> {
    /// `threads` workers without a pool: `parts` runs on the caller's thread (for tests of the
    /// scheduling decisions).
    #[cfg(test)]
    pub fn without_pool(threads: usize) -> Workers<'static> {
        Workers {
            threads,
            pool: None,
        }
    }

    /// These workers cut to their pool's share of the machine ([`crate::load`]): as many as
    /// the share allows now (1: the caller alone). `now` (the clock, when this choice looks
    /// at it) samples the machine's load first if a sample is due. Starts nothing.
    pub fn within_share(self, now: Option<u64>) -> Self {
        match self.team() {
            Some(team) => {
                let share = team.share();
                if let Some(now) = now {
                    share.update(self.threads - 1, now);
                }
                self.at_most(share.helpers(self.threads - 1))
            }
            _ => self,
        }
    }

    /// These workers, with at most `helpers` besides the caller.
    pub fn at_most(self, helpers: usize) -> Self {
        Workers {
            threads: self.threads.min(helpers + 1),
            pool: self.pool,
        }
    }

    /// True when the workers an execution would call are on the team now (within their hot
    /// window) and no other caller holds it, so that a parallel execution would find them
    /// awake. Starts nothing.
    pub fn hot(&self) -> bool {
        self.team().is_some_and(|team| team.hot(self.threads - 1))
    }

    /// True when every worker an execution would call is called already, on the team or on
    /// its way to it (see [`crate::team::Team::called`]), so that a parallel execution now
    /// would wake none. Starts nothing.
    pub fn called(&self) -> bool {
        self.team()
            .is_some_and(|team| team.called(self.threads - 1))
    }

    /// The team an execution's workers would join: that of the pool, where there is one,
    /// already running, and more than one thread to use. Starts nothing.
    fn team(&self) -> Option<&'a Team> {
        match self.pool {
            Some(pool) if self.threads > 1 => pool.peek().map(|slot| &*slot.team),
            _ => None,
        }
    }

    /// True while the team of this execution's pool is contended (its workers found more
    /// threads than cores wanting to run, and leave after each job). Starts nothing; reads the
    /// clock.
    pub fn contended(&self) -> bool {
        self.pool
            .and_then(|pool| pool.peek())
            .is_some_and(|slot| slot.team.contended())
    }

    /// Runs `job(i)` once for each part `i` in `0..parts`, on this thread and on as many of
    /// the device's workers as the parts can use (see [`crate::team`]), and returns when all
    /// have finished. Each thread runs the same parts from one execution to the next where it
    /// can, so a part must never wait for another part that may not have started (it may wait
    /// for work that a running part does, as NonZero's slots wait for counts being made). A
    /// one-thread device runs them in order on this thread. Fails (before running any part)
    /// only when the pool has to be started, first in this process, and its threads cannot be.
    pub fn parts(&self, parts: usize, job: &Job<'_>) -> Result<()> {
        self.run(parts, false, job).map(|_| ())
    }

    /// [`Workers::parts`] with the parts claimed in increasing order, for parts that wait for
    /// parts before them: a part is claimed only after every part before it, so what it waits
    /// for is running.
    pub fn parts_in_order(&self, parts: usize, job: &Job<'_>) -> Result<()> {
        self.run(parts, true, job).map(|_| ())
    }

    /// [`Workers::parts`] or [`Workers::parts_in_order`]; true when the job went through the
    /// team.
    fn run(&self, parts: usize, in_order: bool, job: &Job<'_>) -> Result<bool> {
        match self.pool {
            Some(pool) if self.threads > 1 && parts > 1 => {
                let slot = pool.get()?;
                Ok(slot
                    .team
                    .run(&slot.pool, parts, self.threads - 1, in_order, job))
            }
            _ => {
                (0..parts).for_each(job);
                Ok(false)
            }
        }
    }

    /// One trip through the team, timed: an empty job of one part per thread (starting the
    /// pool first if it is not running). `None` where there is no team to go through: one
    /// thread, or a pool that cannot be started. `Some(None)` where another caller holds the
    /// team: no trip is made then (it would run through rayon beside that caller, a trip of
    /// another kind, with tasks for the workers running that caller's parts), or, where the
    /// other caller took the team just now, the trip ran beside it. (Workers without a pool,
    /// which only tests make, time the caller running every part.)
    pub fn trip(&self) -> Option<Option<Duration>> {
        if self.threads < 2 {
            return None;
        }
        if self.team().is_some_and(Team::busy) {
            return Some(None);
        }
        let t = Instant::now();
        let on_team = self
            .run(self.threads, false, &|i| {
                core::hint::black_box(i);
            })
            .ok()?;
        Some((on_team || self.pool.is_none()).then(|| t.elapsed()))
    }

    /// Runs `f(i, chunk)` for each chunk of `chunk` elements of `data` (the last may be
    /// shorter) as the parts of one job ([`Workers::parts`]).
    pub fn for_each_chunk<T: Send>(
        &self,
        data: &mut [T],
        chunk: usize,
        f: &(dyn Fn(usize, &mut [T]) + Sync),
    ) -> Result<()> {
        let chunk = chunk.max(1);
        let len = data.len();
        let base = SendPtr(data.as_mut_ptr());
        self.parts(len.div_ceil(chunk), &|i| {
            let start = i * chunk;
            let n = chunk.min(len - start);
            // SAFETY: `parts` runs each index once, so chunk i (elements start .. start + n
            // of `data`, in bounds since i < len / chunk rounded up) is borrowed by one part
            // only, and `data` stays mutably borrowed until all parts have finished.
            let part = unsafe { core::slice::from_raw_parts_mut(base.at(start), n) };
            f(i, part)
        })
    }
}

/// A pointer into a slice that the parts of one job share, each using its own elements.
struct SendPtr<T>(*mut T);

impl<T> SendPtr<T> {
    fn at(&self, i: usize) -> *mut T {
        self.0.wrapping_add(i)
    }
}

// SAFETY: parts use disjoint elements through it (see `Workers::for_each_chunk`), and those
// are `Send`.
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// The fork generation: incremented in the child of every `fork()` once a pool exists.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Whether the `pthread_atfork` handler is registered: 0 not yet, 1 yes.
static ATFORK: AtomicU8 = AtomicU8::new(0);

#[cfg(unix)]
extern "C" fn after_fork_in_child() {
    // Runs in the child, which has a single thread at this point: only an atomic add here
    // (async-signal-safe).
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// Registers the fork handler once, before the first pool is built. Two threads racing here may
/// both register it; the generation then moves by two per fork, which is as good as one (only
/// inequality matters).
fn watch_forks() -> Result<()> {
    if ATFORK.load(Ordering::Acquire) == 1 {
        return Ok(());
    }
    #[cfg(unix)]
    {
        // SAFETY: pthread_atfork only records the three function pointers; the child handler
        // is a plain function that lives as long as the library (a Rust library is never
        // unloaded while its pools run), and NULL prepare/parent handlers are allowed.
        let rc = unsafe { libc::pthread_atfork(None, None, Some(after_fork_in_child)) };
        if rc != 0 {
            return Err(Error::OutOfMemory(format!(
                "could not register the fork handler of the worker pools (pthread_atfork: {rc})"
            )));
        }
    }
    ATFORK.store(1, Ordering::Release);
    Ok(())
}

/// Keeps the library loaded for the rest of the process once it has threads: a program that
/// unloads it (`FreeLibrary`, `dlclose`) while its workers sleep or wait hot, or while a
/// released pool's threads are still leaving, would have them run code that is gone. On
/// Windows the module is pinned (`GetModuleHandleExW` with `GET_MODULE_HANDLE_EX_FLAG_PIN`;
/// `FreeLibrary` then succeeds and unloads nothing); on ELF systems the shared library is
/// linked with `-z nodelete` (build.rs), which does the same for `dlclose`.
fn stay_loaded() {
    #[cfg(windows)]
    {
        static PINNED: AtomicU8 = AtomicU8::new(0);
        if PINNED.swap(1, Ordering::AcqRel) == 0 {
            #[link(name = "kernel32")]
            unsafe extern "system" {
                fn GetModuleHandleExW(
                    flags: u32,
                    module_name: *const u16,
                    module: *mut *mut core::ffi::c_void,
                ) -> i32;
            }
            const GET_MODULE_HANDLE_EX_FLAG_PIN: u32 = 0x1;
            const GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS: u32 = 0x4;
            let mut module = core::ptr::null_mut();
            // SAFETY: with FROM_ADDRESS the name is read as an address inside the module to
            // find (this function's code, in the DLL or in the program that linked the static
            // library), not as a string; `module` is a writable pointer. A failure leaves
            // things as they were (the module can be unloaded), which is all it could do.
            unsafe {
                GetModuleHandleExW(
                    GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                    stay_loaded as *const u16,
                    &mut module,
                )
            };
        }
    }
}

/// A rayon pool, its team and the fork generation whose threads it has.
struct Slot {
    generation: u64,
    pool: rayon::ThreadPool,
    team: Arc<Team>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        // Workers waiting on the team leave now rather than at the end of their window.
        self.team.close();
    }
}

/// A pool of `threads` workers, built on first use and rebuilt in a forked child.
struct LazyPool {
    /// 0: the process-wide default ([`default_threads`]).
    threads: usize,
    /// The current slot: null before the first build. A slot is freed only by `Drop` (and only
    /// when it belongs to this process's generation); slots replaced after a fork are leaked,
    /// so a reference to any slot lives as long as the `LazyPool`.
    slot: AtomicPtr<Slot>,
}

impl LazyPool {
    /// A pool of `threads` workers (0: the process-wide default), not built yet.
    pub const fn new(threads: usize) -> LazyPool {
        LazyPool {
            threads,
            slot: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    /// The number of workers.
    pub fn threads(&self) -> usize {
        match self.threads {
            0 => default_threads(),
            n => n,
        }
    }

    /// The pool, built now if this process has none yet (first use, or first use after a
    /// fork). Fails only when the threads cannot be started.
    #[inline]
    pub fn get(&self) -> Result<&Slot> {
        match self.peek() {
            Some(slot) => Ok(slot),
            None => self.build(self.slot.load(Ordering::Acquire)),
        }
    }

    /// The pool if this process has built one, else `None` (builds nothing).
    #[inline]
    pub fn peek(&self) -> Option<&Slot> {
        let slot = self.slot.load(Ordering::Acquire);
        if slot.is_null() {
            return None;
        }
        // SAFETY: a non-null slot came from `Box::into_raw` in `build` and is freed only by
        // `drop`, which cannot run while `self` is borrowed; the Acquire load pairs with the
        // Release of the compare-exchange that published it.
        let slot = unsafe { &*slot };
        (slot.generation == GENERATION.load(Ordering::Relaxed)).then_some(slot)
    }

    #[cold]
    fn build(&self, mut seen: *mut Slot) -> Result<&Slot> {
        watch_forks()?;
        stay_loaded();
        let threads = self.threads();
        let generation = GENERATION.load(Ordering::Relaxed);
        if !seen.is_null() {
            // SAFETY: as in `peek` (`seen` was loaded from the slot with Acquire).
            let other = unsafe { &*seen };
            if other.generation == generation {
                // Another thread built it since this one looked: replacing it would leak it
                // while that thread uses it.
                return Ok(other);
            }
        }
        // Started with the process's CPUs, not only those of a calling thread that its host
        // pinned to one (see crate::cpus).
        let pool = cpus::with_process_cpus(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("directml_subset-{i}"))
                .build()
        })
        .map_err(|e| {
            Error::OutOfMemory(format!("could not start {threads} worker threads: {e}"))
        })?;
        let team = Arc::new(Team::new(threads));
        let new = Box::into_raw(Box::new(Slot {
            generation,
            pool,
            team,
        }));
        loop {
            match self
                .slot
                .compare_exchange(seen, new, Ordering::AcqRel, Ordering::Acquire)
            {
                // The slot replaced, if any, is of an older generation: leaked on purpose.
                // SAFETY: `new` was published above and is freed only by `drop`.
                Ok(_) => return Ok(unsafe { &*new }),
                Err(current) => {
                    // SAFETY: as in `get`.
                    let other = unsafe { &*current };
                    if other.generation == generation {
                        // Another thread of this process built one first: use it, and drop
                        // ours (its threads exist, so dropping it is safe).
                        // SAFETY: `new` never got published; this is its only owner.
                        drop(unsafe { Box::from_raw(new) });
                        return Ok(other);
                    }
                    seen = current;
                }
            }
        }
    }
}

impl Drop for LazyPool {
    fn drop(&mut self) {
        let slot = *self.slot.get_mut();
        if slot.is_null() {
            return;
        }
        // SAFETY: `&mut self`: no other reference to the slot exists.
        let current = unsafe { (*slot).generation } == GENERATION.load(Ordering::Relaxed);
        if current {
            // SAFETY: the slot came from `Box::into_raw` and nothing else frees it.
            drop(unsafe { Box::from_raw(slot) });
        }
        // Otherwise the pool's threads belong to a parent process: leaked (see the module
        // doc).
    }
}

/// The process-wide pool of the devices created with `thread_count` 0.
static SHARED: LazyPool = LazyPool::new(0);

/// Threads of the process-wide pool: `RAYON_NUM_THREADS` when it is set to a positive number
/// (as for rayon's own global pool), otherwise one per logical core of the process (not only
/// of a calling thread pinned to fewer: [`cpus::parallelism`]). Computed once.
fn default_threads() -> usize {
    static THREADS: AtomicUsize = AtomicUsize::new(0);
    let n = THREADS.load(Ordering::Relaxed);
    if n != 0 {
        return n;
    }
    let n = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(cpus::parallelism)
        .min(DMLS_MAX_THREAD_COUNT as usize);
    THREADS.store(n, Ordering::Relaxed);
    n
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_trip_beside_a_caller_that_holds_the_team_is_not_one_through_it() {
        assert_eq!(Workers::without_pool(1).trip(), None);
        let threads = Threads::new(4).expect("a pool of 4");
        let workers = threads.workers();
        assert!(matches!(workers.trip(), Some(Some(_))));
        // Another caller holds the team: two parts that wait (the other workers stay free
        // for rayon's tasks).
        let (started, release) = (AtomicUsize::new(0), AtomicBool::new(false));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                workers
                    .parts(2, &|_| {
                        started.fetch_add(1, Ordering::AcqRel);
                        while !release.load(Ordering::Acquire) {
                            std::thread::yield_now();
                        }
                    })
                    .expect("the holder's job");
            });
            let t = Instant::now();
            while started.load(Ordering::Acquire) == 0 {
                assert!(t.elapsed().as_secs() < 10, "the holder's job never started");
                std::thread::yield_now();
            }
            let beside = workers.trip();
            release.store(true, Ordering::Release);
            assert_eq!(
                beside,
                Some(None),
                "a trip while another caller holds the team"
            );
        });
        assert!(matches!(workers.trip(), Some(Some(_))));
    }

    #[test]
    fn a_pool_started_by_a_pinned_thread_has_the_process_cpus() {
        // A host that pins its threads (an inference runtime's intra-op pool) calls
        // from one of them: the pool's workers still get every CPU of the process.
        let Some((cpus, per_worker)) = crate::cpus::pinned(|| {
            let pool = LazyPool::new(2);
            let slot = pool.get().expect("a pool");
            slot.pool.broadcast(|_| crate::cpus::thread_cpus())
        }) else {
            return; // one CPU: nothing to pin away from
        };
        if !crate::cpus::main_has(cpus) {
            return; // the whole process is confined
        }
        assert_eq!(per_worker, vec![cpus; 2]);
    }
}
