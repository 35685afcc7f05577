//! Timestamps of the parallel paths' steps, with the cargo feature `trace` (off in every normal
//! build; without it `event` is empty and compiles to nothing): when a caller publishes a job
//! on its team, when each of the job's parts starts and ends and on which thread, when
//! NONZERO_COORDINATES' parts are counted and their first row is known, and when the caller
//! sees every part done. For the kernel benchmark's `trace` mode (`cargo bench --bench kernels
//! --features trace --target-dir target/trace -- trace`), which tells where a parallel
//! execution's time goes on a machine with many cores: the workers' arrival, the parts' work,
//! NonZero's wait for the counts before each part, the caller's wait for the last part.
//!
//! Each event costs a clock read and an uncontended lock of the thread's own buffer (60 ns or
//! so), so a traced execution takes a little longer than an untraced one.

/// A step of a parallel execution.
#[cfg_attr(not(feature = "trace"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The caller publishes a job on its team (`arg`: its part count).
    Publish,
    /// A thread starts a part of the job (`arg`: the part).
    PartStart,
    /// A thread ends a part of the job (`arg`: the part).
    PartEnd,
    /// NONZERO_COORDINATES: a part of the input is counted (`arg`: the part).
    Counted,
    /// NONZERO_COORDINATES: a part's first row is known, and its write starts (`arg`: the part).
    Prefixed,
    /// NONZERO_COORDINATES: a part's rows are written (`arg`: the part).
    Written,
    /// The caller has seen every part of its job done.
    Done,
    /// A program's call into the library starts (recorded by the program with `record`).
    Enter,
    /// A program's call into the library returns (recorded by the program with `record`).
    Leave,
}

/// One step, on one thread.
#[cfg_attr(not(feature = "trace"), allow(dead_code))]
#[derive(Clone, Copy, Debug)]
pub struct Event {
    /// Nanoseconds since the process's first event.
    pub ns: u64,
    /// The thread (numbered in the order of their first events).
    pub thread: u32,
    /// What happened.
    pub step: Step,
    /// The part, or the part count.
    pub arg: u32,
}

/// Records `step` on this thread, now.
#[cfg(not(feature = "trace"))]
#[inline(always)]
pub(crate) fn event(_step: Step, _arg: usize) {}

#[cfg(feature = "trace")]
pub(crate) use on::event;
#[cfg(feature = "trace")]
pub use on::{record, take};

#[cfg(feature = "trace")]
mod on {
    use super::{Event, Step};
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::{Arc, Mutex, OnceLock};
    use std::time::Instant;

    /// The events a thread recorded and nobody has taken yet.
    type Buffer = Arc<Mutex<Vec<Event>>>;

    /// The time of the first event.
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    /// Every thread's buffer.
    static ALL: Mutex<Vec<Buffer>> = Mutex::new(Vec::new());
    /// The number the next thread to record gets.
    static NEXT: AtomicU32 = AtomicU32::new(0);
    /// Events a buffer holds without growing (growing mid-execution would cost the thread).
    const CAPACITY: usize = 1 << 16;

    thread_local! {
        static MINE: (u32, Buffer) = {
            let buffer = Arc::new(Mutex::new(Vec::with_capacity(CAPACITY)));
            if let Ok(mut all) = ALL.lock() {
                all.push(Arc::clone(&buffer));
            }
            (NEXT.fetch_add(1, Ordering::Relaxed), buffer)
        };
    }

    /// Records `step` on this thread, now.
    pub(crate) fn event(step: Step, arg: usize) {
        let ns = EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64;
        let _ = MINE.try_with(|(thread, buffer)| {
            if let Ok(mut b) = buffer.lock() {
                b.push(Event {
                    ns,
                    thread: *thread,
                    step,
                    arg: u32::try_from(arg).unwrap_or(u32::MAX),
                });
            }
        });
    }

    /// Records `step` on this thread, now, for a program that traces its calls into the
    /// library beside the library's own steps ([`Step::Enter`], [`Step::Leave`]).
    pub fn record(step: Step, arg: usize) {
        event(step, arg);
    }

    /// Every event recorded since the last call, in time order; the buffers are emptied.
    pub fn take() -> Vec<Event> {
        let mut events = vec![];
        if let Ok(all) = ALL.lock() {
            for buffer in all.iter() {
                if let Ok(mut b) = buffer.lock() {
                    events.append(&mut b);
                    b.reserve(CAPACITY);
                }
            }
        }
        events.sort_by_key(|e| e.ns);
        events
    }
}
