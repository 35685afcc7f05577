//! Scheduling: the serial path, and the parallel parts on the workers.

use core::sync::atomic::{AtomicU64, Ordering};
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use super::rows::{Emit, Writer};
use super::slots::{self, Count, PartWords, Slots, Write, COUNTED, POISONED, PREFIX, VALUE};
use super::source::Source;
use crate::cpus;
use crate::error::{Error, Result};
use crate::op::cost::{self, Bounds, Path, Rates};
use crate::op::kind::OpKind;
use crate::op::nonzero::NonZeroPlan;
use crate::op::simd::Word;
use crate::pool::Workers;
use crate::team::{keep_panic, MAX_PARTS};

const OP: &str = OpKind::NonZeroCoordinates.name();

/// Parts per worker of the parallel path, where the input is small enough for parts of less
/// than `PART_MAX`. More than one lets the threads that run take over the parts of one that is
/// descheduled (the machine may be shared), and evens out the threads' finishing times.
const PARTS_PER_WORKER: usize = 4;
/// The smallest part of the parallel path, in elements (a multiple of 64): a part pays a claim
/// (a shared cache line) and its walk's setup.
const PART_MIN: u64 = 1 << 12;
/// The largest part, in elements (512 KiB of FLOAT32, read a second time from the cache of the
/// core that counted it). Each part restarts the streams the hardware prefetches: on two vCPUs
/// (AMD Zen 5) parts of 2^15 elements took up to 1.15x the time of parts of 2^17 from 2^21
/// elements on, and parts of 2^18 (larger than the core's 1 MiB L2) lost at 2^24.
const PART_MAX: u64 = 1 << 17;
/// The parallel path runs in slots ([`parallel_slots`]) up to half of a CPU's own share of L2
/// cache in input bytes per thread ([`slots_max`]), so that a thread's parts stay in its core's
/// cache from their count to their write, and from one execution to the next; at least
/// `SLOTS_MIN` (512 KiB: measured on two vCPUs of an AMD Zen 5, 1 MiB of L2 each, where 1 and
/// 2 MiB did no better) and at most `SLOTS_CAP`.
const SLOTS_MIN: u64 = 512 << 10;
const SLOTS_CAP: u64 = 4 << 20;

/// The most input bytes per thread for which the parallel path runs in slots: half of a CPU's
/// share of L2 ([`cpus::l2_share`]; so 1 MiB where a CPU has a 2 MiB L2 to itself), within
/// `SLOTS_MIN ..= SLOTS_CAP`.
fn slots_max() -> u64 {
    match SLOTS_FORCED.load(Ordering::Relaxed) {
        0 => slots_for(cpus::l2_share()),
        bytes => bytes,
    }
}

/// [`slots_max`] for a CPU's share of L2 (`None`: not known).
fn slots_for(l2_share: Option<u64>) -> u64 {
    l2_share.map_or(SLOTS_MIN, |l2| (l2 / 2).clamp(SLOTS_MIN, SLOTS_CAP))
}

/// [`slots_max`] as a test set it (0: not set).
static SLOTS_FORCED: AtomicU64 = AtomicU64::new(0);

/// Runs the parallel path in slots up to `bytes` of input per thread, from now on in this
/// process, instead of up to half of this machine's L2 (for tests, which choose each path
/// by size whatever the machine).
pub(crate) fn force_slots_max(bytes: u64) {
    SLOTS_FORCED.store(bytes.max(64), Ordering::Relaxed);
}
/// The most threads one execution uses, its caller included (its parts are sized for as many;
/// far fewer fill a machine's memory bus).
const MAX_THREADS: usize = 256;
/// Inputs below the floor run serially; from it, as measured ([`cost`]). There is no ceiling
/// (a size from which the parallel path is always taken): a part is read twice (counted, then
/// written), and where one core nearly fills the memory bus (two vCPUs), one thread's single
/// pass can beat two threads at any size. On a machine with cores to spare the measured rates
/// choose the parallel path where it gains.
const PARALLEL: Bounds = Bounds {
    floor: 1 << 14,
    ceiling: u64::MAX,
};
/// Serial inputs below this many elements mask `SERIAL_WORDS` words at a time on the stack
/// (unless the source is tiled and wants whole pages of lines); larger ones a heap chunk.
const STACK_MAX: u64 = 1 << 17;
/// The serial and parallel paths' times per input element, one set per class of work: how the
/// input is read (packed, gathered, tiled) by its element size, by the coordinates' layout
/// (packed or not) and width. A gathered input or strided coordinates cost several times a
/// packed one per element, so rates measured on one class would choose wrongly for another.
static RATES: [Rates; 48] = [const { Rates::new() }; 48];

/// The class of rates for `src` and `plan`'s coordinates.
fn rates<U: Word>(src: &Source<'_, U>, plan: &NonZeroPlan) -> &'static Rates {
    let coords = usize::from(!plan.coords.packed) + 2 * usize::from(plan.coords.dtype.size() == 8);
    &RATES[src.class() * 16 + U::SIZE.trailing_zeros() as usize * 4 + coords]
}
/// Serial executions of fewer elements mask in one step, `SMALL_MAX / 64` words on the stack.
const SMALL_MAX: u64 = 1 << 12;
/// Elements the serial path masks at a time on the heap (larger inputs than `STACK_MAX`).
const SERIAL_CHUNK: u64 = 1 << 17;
/// Bitmask words the serial path works on at a time (on the stack): each chunk's walk pays a
/// setup and writes its last rows one at a time (the rows past its own are not its to write
/// ahead), so chunks much shorter than this cost more per element.
const SERIAL_WORDS: usize = 256;
/// Bitmask words a parallel part counts at a time (on the stack; the words are thrown away, so
/// a short step costs only its zeroing).
const COUNT_WORDS: usize = 64;

/// Masks and writes every element, serially or in parallel parts (only with a writer the
/// workers may share); returns the row count.
pub(super) fn drive<U: Word>(
    src: &Source<'_, U>,
    rows: Writer<'_>,
    plan: &NonZeroPlan,
    workers: Workers<'_>,
) -> Result<u64> {
    let m = plan.input.elements;
    let rates = rates(src, plan);
    // A single part has nothing to split: the parallel path would only add its trips. An input
    // from the floor has one part only where a tiled input's smallest part holds it all. (The
    // split is worked out only where the parallel path is chosen: its divisions cost a small
    // input 2-3%.)
    // Serial executions are timed only where a later choice may read their rate
    // (`cost::Path::Serial`): not below the floor, nor on a device of one thread, nor where
    // the writer cannot be shared (whose executions on many host threads at once would also
    // all write the rate's cache line).
    let (shared, timed) = match rows {
        Writer::Parallel(rows)
            if workers.threads > 1
                && m >= PARALLEL.floor
                && src.min_chunk().div_ceil(64) * 64 < m =>
        {
            // One trip through the workers.
            match cost::parallel_pays(m, &PARALLEL, rates, 1, workers) {
                Path::Parallel { hot, helpers } => {
                    let threads = cost::parts_threads(workers).min(MAX_THREADS);
                    let split = Split::new(m, threads, src.min_chunk());
                    debug_assert!(split.parts > 1, "{OP}: one part from the floor");
                    (Some((rows, split, hot, helpers)), false)
                }
                Path::Serial { timed } => (None, timed),
            }
        }
        _ => (None, false),
    };
    let Some((rows, split, hot, helpers)) = shared else {
        let rows = rows.on_this_thread();
        if let Some(input) = src.packed() {
            let t = timed.then(std::time::Instant::now);
            // SAFETY: these are the whole input's elements; this thread is the only writer.
            if let Some(count) = unsafe { rows.one_pass(input.range(0, m as usize), 0, 0) } {
                if let Some(t) = t {
                    rates.serial(m).record(m, t.elapsed());
                }
                return Ok(count);
            }
        }
        // Small inputs mask on the stack (no allocation); large ones a chunk at a time, as the
        // parallel path does.
        if m <= 64 {
            return Ok(serial(src, rows, m, &mut [0u64; 1]));
        }
        if m < SMALL_MAX {
            return Ok(serial(src, rows, m, &mut [0u64; SMALL_MAX as usize / 64]));
        }
        if m < STACK_MAX && src.min_chunk() == 0 {
            let words = &mut [0u64; SERIAL_WORDS];
            return Ok(cost::timed(timed, rates.serial(m), m, || {
                serial(src, rows, m, words)
            }));
        }
        let n = (SERIAL_CHUNK.max(src.min_chunk()).min(m.div_ceil(64) * 64) / 64) as usize;
        let mut heap = zeroed_words(n)
            .ok_or_else(|| Error::OutOfMemory(format!("{OP}: no memory for a bitmask chunk")))?;
        return Ok(cost::timed(timed, rates.serial(m), m, || {
            serial(src, rows, m, &mut heap)
        }));
    };

    let workers = workers.at_most(helpers.min(MAX_THREADS - 1));
    // Parts start on a bitmask word, so the words a part's count keeps are its own.
    assert_eq!(split.part % 64, 0, "{OP}: parts of whole bitmask words");
    let t = std::time::Instant::now();
    let total = if m * U::SIZE as u64 <= slots_max().saturating_mul(workers.threads as u64) {
        parallel_slots(src, rows, &split, workers)?
    } else {
        parallel(src, rows, &split, workers)?
    };
    rates.record_parallel(m, workers.threads, hot, t.elapsed());
    Ok(total)
}

/// How the parallel path splits an input: `parts` parts of `part` elements (the last shorter).
struct Split {
    m: u64,
    part: u64,
    parts: usize,
}

impl Split {
    /// Parts of PART_MIN to PART_MAX elements (at least `min_chunk`, a tiled input's pages of
    /// lines), PARTS_PER_WORKER per worker where the input is small enough, and no more than
    /// the team counts in one job.
    fn new(m: u64, threads: usize, min_chunk: u64) -> Split {
        let part = (m / (threads * PARTS_PER_WORKER) as u64 / 64 * 64)
            .clamp(PART_MIN, PART_MAX)
            .max(min_chunk.div_ceil(64) * 64)
            .max(m.div_ceil(MAX_PARTS as u64).div_ceil(64) * 64);
        Split {
            m,
            part,
            parts: m.div_ceil(part) as usize,
        }
    }

    /// The bitmask words of part `i` (parts start on a word): the first and the end.
    fn words(&self, i: usize) -> (usize, usize) {
        let (s, e) = self.range(i);
        ((s / 64) as usize, e.div_ceil(64) as usize)
    }

    /// The bitmask words of parts `first .. end` (0 for none).
    fn words_of(&self, first: usize, end: usize) -> usize {
        if first >= end {
            return 0;
        }
        self.words(end - 1).1 - self.words(first).0
    }

    /// The bitmask words of each part but the last, and of the last ([`PartWords`]).
    fn part_words(&self) -> (usize, usize) {
        (
            self.words_of(0, 1),
            self.words_of(self.parts - 1, self.parts),
        )
    }

    /// Elements of part `i`.
    fn range(&self, i: usize) -> (u64, u64) {
        let s = i as u64 * self.part;
        (s, (s + self.part).min(self.m))
    }
}

/// The parallel path for large inputs, in one trip through the workers with the parts claimed
/// in order: each part counts its nonzero elements into its bitmask (kept on its thread:
/// [`with_kept`]) and publishes the count, adds up the counts of the parts before it (looking
/// back from its predecessor until a part whose prefix is known: parts are claimed in order,
/// so those before it are counted or being counted), publishes its own prefix and writes its
/// rows from there ([`write_part`]: from its bitmask, or in one pass over its input, still in
/// the cache). No part waits for another's rows, only for the counts before its own.
fn parallel<U: Word>(
    src: &Source<'_, U>,
    rows: &(dyn Emit + Sync),
    split: &Split,
    workers: Workers<'_>,
) -> Result<u64> {
    let status: Vec<AtomicU64> = (0..split.parts).map(|_| AtomicU64::new(0)).collect();
    // A panic of a part is kept here (the part then marks itself poisoned, so that no part
    // waits for it) and resumed once every part has returned.
    let panic: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);
    // In order: a part waits for the counts of the parts before it.
    workers.parts_in_order(split.parts, &|i| {
        let (s, e) = split.range(i);
        let own = &status[i];
        with_kept(split.words_of(i, i + 1), kept_words(), |mut kept| {
            let Some(n) = count_part(src, s, e, kept.as_deref_mut(), &panic) else {
                own.store(POISONED, Ordering::Release);
                return;
            };
            crate::trace::event(crate::trace::Step::Counted, i);
            own.store(COUNTED | n, Ordering::Release);
            let Some(first) = look_back(&status, i) else {
                own.store(POISONED, Ordering::Release);
                return;
            };
            crate::trace::event(crate::trace::Step::Prefixed, i);
            own.store(PREFIX | (first + n), Ordering::Release);
            // SAFETY: this part's rows are first .. first + n (n nonzero elements in s .. e, as
            // counted, into `kept` if given; `first` those before s, from the counts of the
            // parts before it), which no other part writes.
            unsafe {
                write_part(
                    src,
                    rows,
                    s,
                    e,
                    first,
                    n,
                    kept.as_deref(),
                    true,
                    false,
                    &panic,
                )
            };
            crate::trace::event(crate::trace::Step::Written, i);
        });
    })?;
    if let Some(p) = panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
        resume_unwind(p);
    }
    Ok(status
        .last()
        .map_or(0, |s| s.load(Ordering::Acquire) & VALUE))
}

/// The parallel path for inputs of at most [`slots_max`] bytes per thread, in one trip through
/// the workers with the parts in a slot of consecutive parts per thread ([`Slots`]): each
/// thread counts its slot's parts (into their bitmask words, which the execution's threads
/// share: [`PartWords`], kept on the caller's thread), then writes them from those words or
/// from their input, in its own cache ([`write_part`]), and finds the same parts there at the
/// next execution (parts claimed in order go to whichever thread comes first, and meet their
/// data in another core's cache). A part written by another thread than its count's reads its
/// words, not its input. Larger inputs take [`parallel`]: a thread's parts would no longer be
/// in its cache when it writes them.
fn parallel_slots<U: Word>(
    src: &Source<'_, U>,
    rows: &(dyn Emit + Sync),
    split: &Split,
    workers: Workers<'_>,
) -> Result<u64> {
    let (each, last) = split.part_words();
    let needed = PartWords::needed(split.parts, each, last);
    with_kept(
        needed,
        execution_words(slots_max(), workers.threads),
        |kept| {
            let words = kept.and_then(|w| PartWords::new(w, split.parts, each, last));
            let slots = Slots::new(split.parts, workers.threads, words);
            // A panic of a part is kept here (the part is then poisoned, so that no part waits
            // for it) and resumed once every slot has returned.
            let panic: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);
            let count: &Count<'_> = &|i, words| {
                let (s, e) = split.range(i);
                count_part(src, s, e, words, &panic)
            };
            let write: &Write<'_> = &|i, first, n, words, here| {
                let (s, e) = split.range(i);
                // SAFETY: `Slots` calls this once per part, with `first` the rows of the parts
                // before it, `n` its count and `words` (if any) the words its count wrote: its
                // rows are first .. first + n, which no other part writes.
                unsafe { write_part(src, rows, s, e, first, n, words, here, true, &panic) };
            };
            // One slot per thread: each thread's own slot is the same from one execution to
            // the next.
            workers.parts(slots.slots(), &|k| slots.run(k, count, write))?;
            if let Some(p) = panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
                resume_unwind(p);
            }
            // No part panicked, so none is poisoned.
            Ok(slots.total().unwrap_or(0))
        },
    )
}

/// The most bitmask words a thread keeps for the parts it counts and then writes in
/// [`parallel`] ([`with_kept`]): the words of [`slots_max`] bytes of UINT8 twice over (128
/// KiB of words where that is 512 KiB); a caller's thread keeps those of a whole execution in
/// slots, up to as many per thread. A thread keeps as many as its largest execution (or part)
/// so far needed, for as long as it lives; growing them costs a zeroed allocation, once per
/// size.
fn kept_words() -> usize {
    kept_words_for(slots_max())
}

/// [`kept_words`] where [`slots_max`] is `slots_max`.
fn kept_words_for(slots_max: u64) -> usize {
    (slots_max / 64 * 2) as usize
}

/// The most bitmask words a caller keeps for an execution in slots on `threads` threads: as many
/// as the threads would keep for their parts ([`kept_words`]).
fn execution_words(slots_max: u64, threads: usize) -> usize {
    kept_words_for(slots_max).saturating_mul(threads)
}

thread_local! {
    /// This thread's words for the bitmasks of the parts it counts and then writes, or of the
    /// execution in slots it calls.
    static KEPT: core::cell::RefCell<Vec<u64>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with `words` words of this thread's scratch for bitmasks (at most `most`), or with
/// `None` where it has none to give (more words than that, or none free): the parts are then
/// masked again when they are written.
fn with_kept<R>(words: usize, most: usize, f: impl FnOnce(Option<&mut [u64]>) -> R) -> R {
    let mut f = Some(f);
    let done = if words == 0 || words > most {
        None
    } else {
        KEPT.try_with(|cell| {
            let mut kept = cell.try_borrow_mut().ok()?;
            if kept.len() < words {
                let more = words - kept.len();
                kept.try_reserve_exact(more).ok()?;
                kept.resize(words, 0);
            }
            let f = f.take()?;
            Some(f(Some(&mut kept[..words])))
        })
        .ok()
        .flatten()
    };
    match (done, f) {
        (Some(r), _) => r,
        (None, Some(f)) => f(None),
        // `f` is taken only where it runs.
        (None, None) => unreachable!("with_kept: the scratch was taken and nothing ran"),
    }
}

/// The nonzero elements of `start .. end`, masked into `words` (the part's bitmask, which its
/// write then walks) when given, else a step at a time with the words thrown away; `None`
/// when masking panicked (the panic is kept in `panic`).
fn count_part<U: Word>(
    src: &Source<'_, U>,
    start: u64,
    end: u64,
    words: Option<&mut [u64]>,
    panic: &Mutex<Option<Box<dyn Any + Send>>>,
) -> Option<u64> {
    let counted = catch_unwind(AssertUnwindSafe(|| match words {
        Some(words) => src.masks(start, end, words),
        None => with_words::<_, COUNT_WORDS, _>(src, start, end, |words| {
            masked_steps(src, start, end, words, |_, _, _| {})
        }),
    }));
    counted.map_err(|p| keep_panic(panic, p)).ok()
}

/// Writes the `n` rows of elements `start .. end` from row `first`, a panic kept in `panic`:
/// - where its count kept the part's bitmask `words`, from them: in the form of the one pass
///   where the writer has it and the part is dense enough ([`Emit::one_pass_words`]), else by
///   the walks ([`Emit::emit`]); but a packed input of 8 or 16 bits in one pass over the input
///   (below) where this thread counted the part (`here`: its input is in this core's cache);
/// - else in one pass over a packed input, where the writer has it;
/// - else masked again and walked.
///
/// (On 2 vCPUs of a Zen 5, 2^18 and 2^20 elements on two threads, the walks of the kept words
/// tied with the one pass over the input at densities 0.01 and 0.03; at 0.1, FLOAT32 took 0.92×
/// its time and UINT8 1.45×. The one pass's form over the words, on two threads of a Zen 4:
/// FLOAT32 at 0.5 0.61-0.87× the time of the one pass over the input from 2^14 to 2^21
/// elements, UINT8 at 0.1 1.05-1.1×.)
///
/// # Safety
/// `n` is the count of nonzero elements in `start .. end`, `first` the count before `start`,
/// `words` (if any) their bitmask, and no other thread writes rows `first .. first + n` while
/// this runs. (`in_slot`: the part is a slot's, [`parallel_slots`].)
#[allow(clippy::too_many_arguments)]
unsafe fn write_part<U: Word>(
    src: &Source<'_, U>,
    rows: &(dyn Emit + Sync),
    start: u64,
    end: u64,
    first: u64,
    n: u64,
    words: Option<&[u64]>,
    here: bool,
    in_slot: bool,
    panic: &Mutex<Option<Box<dyn Any + Send>>>,
) {
    if n == 0 {
        return;
    }
    let wrote = catch_unwind(AssertUnwindSafe(|| {
        // From the part's bitmask where its count kept one, but for packed inputs of 8 or 16
        // bits counted on this thread: their compare of 64 elements is one or two
        // instructions, which reading the words did not beat (see above). Except a part too
        // sparse for the one pass's compresses outside a slot: written a row at a time from
        // its input, it took 1.2-2.1x the walk of its words (UINT8 at densities 0.01 and
        // 0.04, 2^22 elements on two vCPUs of an AMD Zen 4), where in a slot (2^16-2^20) it
        // took 0.7-1.0x.
        #[cfg(target_arch = "x86_64")]
        let dense =
            || crate::op::simd::dispatch::compress_dense(n as usize, (end - start) as usize);
        // (Elsewhere the one pass writes nothing, and the words are walked whatever this says.)
        #[cfg(not(target_arch = "x86_64"))]
        let dense = || false;
        let packed = src
            .packed()
            .filter(|_| (U::SIZE <= 2 && here && (in_slot || dense())) || words.is_none());
        let done = match (packed, words) {
            // SAFETY: the caller's promise; the writer is shared only over a layout proven
            // disjoint, where distinct elements have distinct addresses.
            (Some(p), _) => unsafe {
                rows.one_pass(p.range(start as usize, end as usize), start, first)
            },
            // SAFETY: as above (`words` are the part's bitmask, with `n` set bits).
            (None, Some(words)) => unsafe {
                rows.one_pass_words(words, end - start, start, first, n)
            },
            (None, None) => None,
        };
        match (done, words) {
            (Some(written), _) => debug_assert_eq!(written, n),
            // SAFETY: the caller's promise (`words` are the part's bitmask, with `n` set
            // bits); the writer is shared only over a layout proven disjoint. (The whole
            // part's words at once: in chunks of `SERIAL_WORDS`, each walked for its own
            // density as the serial path does, the parts took up to a fifth longer.)
            (None, Some(words)) => unsafe { rows.emit(words, start, first, n) },
            (None, None) => with_words::<_, SERIAL_WORDS, _>(src, start, end, |words| {
                // SAFETY: as above.
                unsafe { serial_range(src, rows, start, end, first, words) };
            }),
        }
    }));
    if let Err(p) = wrote {
        keep_panic(panic, p);
    }
}

/// The rows of the parts before part `i` of [`parallel`] (counted or being counted:
/// [`slots::look_back`] over their status words, where 0 is a count being made). A part waits
/// only for a count that is not published yet, whose part was claimed before this one and is
/// running (never for a part not yet claimed, which could be waiting for this thread): with
/// `pause`, and after a while giving up the core, which that part's thread may need. `None`
/// when one of them is poisoned.
fn look_back(status: &[AtomicU64], i: usize) -> Option<u64> {
    slots::look_back(i, |j| status[j].load(Ordering::Acquire))
}

/// Words of scratch for masking a part's elements `start .. end` a step at a time: `W` words
/// on the stack (the steps then cover `64 × W` elements each), or, for a tiled input, the
/// whole part's bitmask on the heap (its steps should be its pages of lines; where that
/// memory cannot be had, the stack's words: slower steps, the same rows).
fn with_words<U: Word, const W: usize, R>(
    src: &Source<'_, U>,
    start: u64,
    end: u64,
    f: impl FnOnce(&mut [u64]) -> R,
) -> R {
    let n = ((end - start) as usize).div_ceil(64);
    match (src.min_chunk() > 0 && n > W)
        .then(|| zeroed_words(n))
        .flatten()
    {
        Some(mut heap) => f(&mut heap),
        None => f(&mut [0u64; W][..n.min(W)]),
    }
}

/// `n` zeroed words on the heap, or `None` where the memory cannot be had.
fn zeroed_words(n: usize) -> Option<Vec<u64>> {
    let mut heap = Vec::new();
    heap.try_reserve_exact(n).ok()?;
    heap.resize(n, 0);
    Some(heap)
}

/// Masks elements `start .. end` on this thread, `words.len()` words at a time, and calls
/// `f(at, words, count)` for each step that has set bits (its first element, its words, their
/// set bits); returns the set bits in all.
#[inline(always)]
fn masked_steps<U: Word>(
    src: &Source<'_, U>,
    start: u64,
    end: u64,
    words: &mut [u64],
    mut f: impl FnMut(u64, &[u64], u64),
) -> u64 {
    let step = 64 * words.len() as u64;
    let mut total = 0;
    let mut at = start;
    while at < end {
        let stop = (at + step).min(end);
        let words = &mut words[..((stop - at) as usize).div_ceil(64)];
        let count = src.masks(at, stop, words);
        if count > 0 {
            f(at, words, count);
            total += count;
        }
        at = stop;
    }
    total
}

/// Masks and writes elements `start .. end` on this thread, `words.len()` words at a time, from
/// row `first_row` on; returns the row count.
///
/// # Safety
/// `first_row` is the number of nonzero elements before `start`; no other thread writes the
/// rows of these elements while this call runs.
#[inline(always)]
unsafe fn serial_range<U: Word>(
    src: &Source<'_, U>,
    rows: &dyn Emit,
    start: u64,
    end: u64,
    first_row: u64,
    words: &mut [u64],
) -> u64 {
    let mut row = first_row;
    masked_steps(src, start, end, words, |at, words, count| {
        let len = words.len() as u64 * 64;
        // SAFETY: `count` is the words' set bits (masking them returned it), none past the
        // step's elements; these rows are the caller's to write. Dense steps in one pass from
        // their words, the others by the walks.
        unsafe {
            if rows
                .one_pass_words(words, len.min(end - at), at, row, count)
                .is_none()
            {
                rows.emit(words, at, row, count);
            }
        }
        row += count;
    })
}

/// Masks and writes every element on this thread, `words.len()` words at a time; returns the
/// row count.
#[inline(always)]
fn serial<U: Word>(src: &Source<'_, U>, rows: &dyn Emit, m: u64, words: &mut [u64]) -> u64 {
    // SAFETY: from the first element and row; this thread is the only writer.
    unsafe { serial_range(src, rows, 0, m, 0, words) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statuses(v: &[u64]) -> Vec<AtomicU64> {
        v.iter().map(|&s| AtomicU64::new(s)).collect()
    }

    #[test]
    fn look_back_adds_counts_to_the_first_known_prefix() {
        let s = statuses(&[
            PREFIX | 5,
            COUNTED | 3,
            PREFIX | 10,
            COUNTED | 2,
            COUNTED | 4,
            0,
        ]);
        assert_eq!(look_back(&s, 0), Some(0));
        assert_eq!(look_back(&s, 1), Some(5));
        assert_eq!(look_back(&s, 2), Some(8));
        // Part 2's prefix is known: the look-back stops there, not at part 0.
        assert_eq!(look_back(&s, 3), Some(10));
        assert_eq!(look_back(&s, 5), Some(16));
    }

    #[test]
    fn look_back_stops_at_a_poisoned_part() {
        let s = statuses(&[PREFIX | 5, POISONED, COUNTED | 2]);
        assert_eq!(look_back(&s, 1), Some(5));
        assert_eq!(look_back(&s, 2), None);
        assert_eq!(look_back(&s, 3), None);
    }

    #[test]
    fn look_back_waits_for_a_count_being_made() {
        let s = statuses(&[PREFIX | 7, 0, 0]);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                s[2].store(COUNTED | 1, Ordering::Release);
                std::thread::sleep(std::time::Duration::from_millis(20));
                s[1].store(COUNTED | 2, Ordering::Release);
            });
            assert_eq!(look_back(&s, 3), Some(10));
        });
    }

    #[test]
    fn slots_are_half_a_cpus_share_of_l2_within_their_bounds() {
        assert_eq!(slots_for(None), 512 << 10);
        assert_eq!(
            slots_for(Some(256 << 10)),
            512 << 10,
            "a small L2: at least 512 KiB"
        );
        assert_eq!(slots_for(Some(1 << 20)), 512 << 10, "AMD Zen 5: as before");
        assert_eq!(
            slots_for(Some(2 << 20)),
            1 << 20,
            "Intel Emerald Rapids: 1 MiB"
        );
        assert_eq!(slots_for(Some(3 << 20)), 3 << 19);
        assert_eq!(slots_for(Some(64 << 20)), 4 << 20, "at most 4 MiB");
    }

    #[test]
    fn a_thread_lends_its_kept_words_once_at_a_time_and_up_to_its_limit() {
        let most = kept_words();
        assert_eq!(with_kept(0, most, |w| w.map(|w| w.len())), None);
        assert_eq!(with_kept(most + 1, most, |w| w.map(|w| w.len())), None);
        let inner = with_kept(100, most, |w| {
            let w = w.expect("words to lend");
            assert_eq!(w.len(), 100);
            w.fill(7);
            // Lent already: a part run inside this one (none is) would mask again instead.
            with_kept(10, most, |inner| inner.is_none())
        });
        assert!(inner);
        // The same words again, as the last part left them (the count overwrites them).
        assert_eq!(
            with_kept(most, most, |w| w.map(|w| (w.len(), w[99]))),
            Some((most, 7))
        );
        // A larger limit (an execution's words in slots) lends more.
        assert_eq!(
            with_kept(most + 1, 2 * most, |w| w.map(|w| w.len())),
            Some(most + 1)
        );
    }

    #[test]
    fn an_execution_in_slots_has_room_for_every_parts_words() {
        // The largest inputs that run in slots (`drive`: at most `slots_max` bytes per thread)
        // of every element size, on 2 to 256 threads: their parts' words fit the caller's
        // kept words, so that no such execution counts without keeping its words.
        for slots_max in [SLOTS_MIN, 1 << 20, SLOTS_CAP] {
            for threads in [2usize, 3, 16, 64, 256] {
                for size in [1u64, 2, 4] {
                    let m = slots_max * threads as u64 / size;
                    let split = Split::new(m, threads, 0);
                    let (each, last) = split.part_words();
                    let needed = PartWords::needed(split.parts, each, last);
                    let most = execution_words(slots_max, threads);
                    assert!(
                        needed <= most,
                        "{m} elements of {size} bytes on {threads} threads: {needed} > {most}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_split_covers_the_input_in_at_most_a_jobs_parts() {
        for (m, threads, min_chunk) in [
            (1u64 << 14, 2, 0),
            (100_003, 16, 0),
            (1 << 20, 64, 0),
            (1 << 26, 2, 0),
            (3 << 20, 4, 70_000),
            (1 << 33, 16, 0),
            (1 << 14, 2, 1 << 14),
            (1 << 15, 4, 40_000),
            (1 << 15, 4, 32_700),
        ] {
            let split = Split::new(m, threads, min_chunk);
            // `drive` tells one part from several before it splits.
            assert_eq!(
                split.parts > 1,
                min_chunk.div_ceil(64) * 64 < m,
                "{m}, {min_chunk}"
            );
            assert!(
                split.parts <= MAX_PARTS,
                "{m} elements: {} parts",
                split.parts
            );
            assert_eq!(split.part % 64, 0);
            assert!(split.part >= min_chunk);
            let mut next = 0;
            for i in 0..split.parts {
                let (s, e) = split.range(i);
                assert!(s == next && e > s, "{m} elements, part {i}: {s}..{e}");
                next = e;
            }
            assert_eq!(next, m);
        }
    }
}
