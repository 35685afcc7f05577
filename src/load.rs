//! The machine's load, and the share of it a pool takes: how many workers an execution may
//! use when more threads want to run than the machine has CPUs (workers still on the team from
//! an earlier execution beyond the share take none of its parts: [`crate::team`]).
//!
//! When several processes (or several pools) each call all their workers, the threads add up
//! beyond the CPUs, and every parallel execution then waits for parts held by workers that lost
//! their CPU, while its wakes take time from the other processes' threads. Each pool therefore
//! keeps a **share**: the workers its executions may call, adapted to the machine's runnable
//! threads (Linux's `/proc/loadavg`, whose fourth field counts the threads running or ready to
//! run now), sampled at most once per [`SAMPLE_NS`] (5 ms) while the share is cut and once per
//! [`WHOLE_SAMPLE_NS`] (50 ms) while it is whole. When they exceed the online CPUs by more
//! than one, the share shrinks in proportion (times CPUs / runnable); by exactly one (a
//! passing thread), it stays; otherwise it grows by one worker per sample, up to the pool's
//! threads. In a simulation (the tests below), four processes of 16
//! threads on 16 CPUs that sample in turn settle at 16 or 17 threads together (two to seven
//! each), where each alone uses all 16; on two CPUs, four processes run on their callers. On
//! a 16-core Xeon, four processes calling NonZero back to back kept a median of 18 runnable
//! threads (one alone: 17), and made 0.71–0.78 of the calls at 2^20 elements that four given
//! their shares by hand made. (OpenMP's dynamic adjustment, `OMP_DYNAMIC`, likewise sizes a
//! team by the CPUs less the load average.)
//!
//! A machine that is not oversubscribed never shrinks a share, and where `/proc/loadavg` cannot
//! be read (other systems) the share stays whole. So does the share of a process that may run
//! on only some of the online CPUs (`taskset`, `numactl --cpunodebind`, a container's cpuset):
//! the runnable threads counted are the whole machine's, and those of other CPUs say nothing
//! of its own (one NUMA node's process would otherwise go serial on its idle node while
//! another node is oversubscribed). Its workers' own contention ([`crate::team`]) still
//! applies.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::kept::Kept;

/// The least time between two samples of the machine's load, per pool, while its share is cut:
/// it grows back by one worker per sample.
pub(crate) const SAMPLE_NS: u64 = 5_000_000;
/// The same while the share is whole (the machine was not oversubscribed at the last sample):
/// reading `/proc/loadavg` took about 4 µs, in the caller's execution; every 5 ms, it cost
/// executions at 2^14 elements (batches of 200 µs in the threads benchmark) a few percent.
pub(crate) const WHOLE_SAMPLE_NS: u64 = 50_000_000;

/// A pool's share of the machine: the workers its executions may call now.
pub(crate) struct Share {
    /// Workers an execution may call (at most the pool's helpers).
    helpers: AtomicUsize,
    /// When the load was last sampled for this share, in the team's clock's nanoseconds.
    sampled: AtomicU64,
}

impl Share {
    /// A whole share: `helpers` workers.
    pub fn new(helpers: usize) -> Share {
        Share {
            helpers: AtomicUsize::new(helpers),
            sampled: AtomicU64::new(0),
        }
    }

    /// The workers an execution may call now, of `max`.
    pub fn helpers(&self, max: usize) -> usize {
        self.helpers.load(Ordering::Relaxed).min(max)
    }

    /// Samples the machine's load if the last sample is [`SAMPLE_NS`] old at `now`
    /// ([`WHOLE_SAMPLE_NS`] while the share is whole; one caller does, the others go on) and
    /// adapts the share of at most `max` workers to it.
    pub fn update(&self, max: usize, now: u64) {
        let last = self.sampled.load(Ordering::Relaxed);
        let period = if self.helpers(max) < max {
            SAMPLE_NS
        } else {
            WHOLE_SAMPLE_NS
        };
        if now.saturating_sub(last) < period
            || self
                .sampled
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        if !load_applies() {
            return;
        }
        if let Some(runnable) = runnable_threads() {
            let helpers = self.helpers.load(Ordering::Relaxed).min(max);
            self.helpers.store(
                next_share(helpers, max, runnable, online_cpus()),
                Ordering::Relaxed,
            );
        }
    }
}

/// The next share of a pool that may call `helpers` of its `max` workers, when `runnable`
/// threads of the machine want to run on its `cpus` CPUs: in proportion when they exceed the
/// CPUs by more than one, the same with exactly one more, one more worker otherwise.
pub(crate) fn next_share(helpers: usize, max: usize, runnable: usize, cpus: usize) -> usize {
    if runnable > cpus + 1 {
        // Rounded to the nearest.
        (helpers * cpus + runnable / 2) / runnable
    } else if runnable > cpus {
        // One thread more than the CPUs (a kernel thread that woke up, another process's
        // thread passing by) is not worth a worker: on the 16-core Xeon a process alone
        // counted 16-17 runnable threads, and 17 cut its 15 workers to 14 in proportion. Nor
        // does it grow the share (several pools together hold there).
        helpers
    } else {
        (helpers + 1).min(max)
    }
}

/// The machine's online CPUs (all of them, not only those this process may use: the runnable
/// threads counted are the whole machine's).
fn online_cpus() -> usize {
    static CPUS: Kept = Kept::new();
    CPUS.get(|| {
        #[cfg(unix)]
        {
            // SAFETY: sysconf only reads a system value.
            let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
            if n > 0 {
                return n as u64;
            }
        }
        std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
    }) as usize
}

/// True when the machine's load decides this process's shares: it may run on every online CPU
/// (read once).
fn load_applies() -> bool {
    static APPLIES: Kept = Kept::new();
    APPLIES.get(|| u64::from(covers_the_machine(crate::cpus::affinity(), online_cpus()))) == 1
}

/// True when a process that may run on `affinity` CPUs (`None`: not known) runs on all of the
/// machine's `online` CPUs.
fn covers_the_machine(affinity: Option<usize>, online: usize) -> bool {
    affinity.is_none_or(|cpus| cpus >= online)
}

/// The threads running or ready to run on the machine now, from `/proc/loadavg` (Linux), or
/// `None` where it cannot be read.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn runnable_threads() -> Option<usize> {
    use std::io::Read;
    let mut buf = [0u8; 128];
    let mut file = std::fs::File::open("/proc/loadavg").ok()?;
    let n = file.read(&mut buf).ok()?;
    parse_runnable(core::str::from_utf8(&buf[..n]).ok()?)
}

/// `None`: other systems have no `/proc/loadavg` (on Windows the path would name a file on the
/// current drive, which under Wine is the Linux host's).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn runnable_threads() -> Option<usize> {
    None
}

/// The runnable threads of a `/proc/loadavg` line: the part before the slash of its fourth
/// field ("0.52 0.58 0.59 3/467 12345": 3).
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
fn parse_runnable(line: &str) -> Option<usize> {
    let field = line.split_ascii_whitespace().nth(3)?;
    field.split('/').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loadavg_lines_as_linux_writes_them() {
        assert_eq!(parse_runnable("0.52 0.58 0.59 3/467 12345\n"), Some(3));
        assert_eq!(parse_runnable("12.00 8.10 4.00 64/1002 7"), Some(64));
        assert_eq!(parse_runnable("0.52 0.58 0.59"), None);
        assert_eq!(parse_runnable("0.52 0.58 0.59 x/467 1"), None);
        assert_eq!(parse_runnable(""), None);
    }

    #[test]
    fn this_machine_reports_its_load() {
        if cfg!(any(target_os = "linux", target_os = "android"))
            && std::path::Path::new("/proc/loadavg").exists()
        {
            // This thread at least is running.
            assert!(runnable_threads().is_some_and(|n| n >= 1));
        }
        assert!(online_cpus() >= 1);
    }

    #[test]
    fn only_a_process_on_every_cpu_follows_the_machines_load() {
        assert!(covers_the_machine(Some(16), 16));
        assert!(covers_the_machine(None, 16));
        // Bound to one node of two: the other node's threads are not its load.
        assert!(!covers_the_machine(Some(8), 16));
    }

    #[test]
    fn a_share_shrinks_in_proportion_and_grows_by_one() {
        // 16 CPUs, 15 workers: no oversubscription, whole.
        assert_eq!(next_share(15, 15, 16, 16), 15);
        // Four processes of 16 threads: each shrinks to a quarter, rounded to the nearest.
        assert_eq!(next_share(15, 15, 64, 16), 4);
        // Then 16 runnable: one more each; 20 runnable: back.
        assert_eq!(next_share(3, 15, 16, 16), 4);
        assert_eq!(next_share(4, 15, 20, 16), 3);
        // One thread over the CPUs: held, neither cut nor grown.
        assert_eq!(next_share(15, 15, 17, 16), 15);
        assert_eq!(next_share(9, 15, 17, 16), 9);
        assert_eq!(next_share(1, 1, 3, 2), 1);
        assert_eq!(next_share(0, 1, 3, 2), 0);
        // Two over: in proportion.
        assert_eq!(next_share(15, 15, 18, 16), 13);
        // Two CPUs, four processes of two threads: on the callers alone, until the load falls.
        assert_eq!(next_share(1, 1, 8, 2), 0);
        assert_eq!(next_share(0, 1, 4, 2), 0);
        assert_eq!(next_share(0, 1, 2, 2), 1);
        assert_eq!(next_share(1, 1, 1, 2), 1);
    }

    #[test]
    fn a_pool_alone_keeps_its_workers_beside_a_passing_thread() {
        // One pool of 15 workers on 16 CPUs, and another thread runnable at every other
        // sample: the pool keeps all its workers.
        let mut share = 15;
        for round in 0..20 {
            let runnable = share + 1 + round % 2;
            share = next_share(share, 15, runnable, 16);
            assert_eq!(share, 15, "round {round}");
        }
        // Two threads besides it: it gives way, then grows back when they are gone.
        share = next_share(share, 15, 18, 16);
        assert_eq!(share, 13);
        for _ in 0..2 {
            share = next_share(share, 15, share + 1, 16);
        }
        assert_eq!(share, 15);
    }

    #[test]
    fn four_pools_settle_on_the_machine() {
        // Four pools of 15 workers on 16 CPUs, sampled in turn: together they settle within
        // a thread of the CPUs (each caller counts as one runnable thread), and each keeps
        // workers on average (the shares wander: a pool over the CPUs loses one, one under
        // them gains one).
        let mut shares = [15usize; 4];
        let mut sums = [0usize; 4];
        for round in 0..60 {
            for p in 0..4 {
                let runnable: usize = shares.iter().map(|h| h + 1).sum();
                shares[p] = next_share(shares[p], 15, runnable, 16);
            }
            if round >= 20 {
                let threads: usize = shares.iter().map(|h| h + 1).sum();
                assert!((16..=17).contains(&threads), "round {round}: {shares:?}");
                for p in 0..4 {
                    sums[p] += shares[p];
                }
            }
        }
        assert!(sums.iter().all(|&s| s >= 40), "{sums:?}");
    }

    #[test]
    fn a_share_samples_once_per_period() {
        let s = Share::new(7);
        assert_eq!(s.helpers(7), 7);
        assert_eq!(s.helpers(3), 3);
        // Whole: once per WHOLE_SAMPLE_NS.
        s.sampled.store(WHOLE_SAMPLE_NS, Ordering::Relaxed);
        s.update(7, 2 * WHOLE_SAMPLE_NS - 1);
        assert_eq!(s.sampled.load(Ordering::Relaxed), WHOLE_SAMPLE_NS);
        s.update(7, 2 * WHOLE_SAMPLE_NS);
        assert_eq!(s.sampled.load(Ordering::Relaxed), 2 * WHOLE_SAMPLE_NS);
        // Cut: once per SAMPLE_NS.
        s.sampled.store(SAMPLE_NS, Ordering::Relaxed);
        s.helpers.store(2, Ordering::Relaxed);
        // Too soon: nothing is read, nothing changes.
        s.update(7, SAMPLE_NS + 1);
        assert_eq!(s.helpers(7), 2);
        assert_eq!(s.sampled.load(Ordering::Relaxed), SAMPLE_NS);
        // Due: sampled now (the share follows this machine's load, whatever it is).
        s.update(7, 2 * SAMPLE_NS);
        assert_eq!(s.sampled.load(Ordering::Relaxed), 2 * SAMPLE_NS);
        assert!(s.helpers(7) <= 3);
    }
}
