//! Scheduling: the serial path, and the parallel rounds of chunks on the workers.

use core::sync::atomic::{AtomicU64, Ordering};

use super::rows::{Emit, Writer};
use super::source::Source;
use crate::error::{Error, Result};
use crate::op::cost::{self, Bounds, Rates};
use crate::op::kind::OpKind;
use crate::op::nonzero::NonZeroPlan;
use crate::op::simd::Word;
use crate::pool::Workers;

const OP: &str = OpKind::NonZeroCoordinates.name();

/// Parts per worker in one round of the parallel path. More than one lets the threads that run
/// take over the parts of one that is descheduled (the machine may be shared).
const PARTS_PER_WORKER: usize = 4;
/// The smallest part of the parallel path, in elements (a multiple of 64): a part pays a claim
/// (a shared cache line) and its walk's setup.
const PART_MIN: u64 = 1 << 12;
/// The largest part, in elements: its bitmask, 512 words, is on the stack.
const PART_MAX: u64 = 1 << 15;
/// The most workers one execution uses.
const MAX_THREADS: usize = 256;
/// Inputs below the floor run serially; from it, as measured ([`cost`]). There is no ceiling
/// (a size from which the parallel path is always taken): with the AVX-512 one pass, one
/// thread took 0.3-0.8x the time of the two-pass parallel rounds on two threads from 2^22 to
/// 2^24 elements (AMD Zen 5, 2 vCPUs; UINT8 d=0.1 at 2^22: 117 against 394 µs), and a ceiling
/// at 2^22 forced the slower path there. On a machine with cores to spare the measured rates
/// choose the rounds where they gain.
const PARALLEL: Bounds = Bounds {
    floor: 1 << 14,
    ceiling: u64::MAX,
};
/// Serial inputs below this many elements mask `SERIAL_WORDS` words at a time on the stack
/// (unless the source is tiled and wants whole pages of lines); larger ones a heap chunk.
const STACK_MAX: u64 = 1 << 17;
/// The serial and parallel paths' times per input element (serial starting at 0.3 ns), one set
/// per class of work: how the input is read (packed, gathered, tiled) by its element size, by
/// the coordinates' layout (packed or not) and width. A gathered input or strided coordinates
/// cost several times a packed one per element, so rates measured on one class would choose
/// wrongly for another.
static RATES: [Rates<300>; 48] = [const { Rates::new() }; 48];

/// The class of rates for `src` and `plan`'s coordinates.
fn rates<U: Word>(src: &Source<'_, U>, plan: &NonZeroPlan) -> &'static Rates<300> {
    let coords = usize::from(!plan.coords.packed) + 2 * usize::from(plan.coords.dtype.size() == 8);
    &RATES[src.class() * 16 + U::SIZE.trailing_zeros() as usize * 4 + coords]
}
/// Serial executions of at least this many elements are timed for [`RATES`].
const TIMED_MIN: u64 = 1 << 12;
/// Elements the serial path masks at a time on the heap (larger inputs than `STACK_MAX`).
const SERIAL_CHUNK: u64 = 1 << 17;
/// Bitmask words the serial path works on at a time (on the stack): each chunk's walk pays a
/// setup and writes its last rows one at a time (the rows past its own are not its to write
/// ahead), so chunks much shorter than this cost more per element.
const SERIAL_WORDS: usize = 256;
/// Bitmask words a parallel part counts at a time (on the stack; the words are thrown away, so
/// a short step costs only its zeroing).
const COUNT_WORDS: usize = 64;

/// Masks and writes every element, serially or in parallel rounds (only with a writer the
/// workers may share); returns the row count.
pub(super) fn drive<U: Word>(
    src: &Source<'_, U>,
    rows: Writer<'_>,
    plan: &NonZeroPlan,
    workers: Workers<'_>,
) -> Result<u64> {
    let m = plan.input.elements;
    let rates = rates(src, plan);
    // A single part has nothing to split: the parallel path would only add its trips. (The
    // split is worked out only where there is a choice: its divisions cost a small input 2-3%.)
    let shared = match rows {
        Writer::Parallel(rows) if workers.threads > 1 && m >= PARALLEL.floor => {
            let split = Split::new(m, workers.threads.min(MAX_THREADS), src.min_chunk());
            (split.parts > 1 && cost::parallel_pays(m, &PARALLEL, rates, split.trips(), workers))
                .then_some((rows, split))
        }
        _ => None,
    };
    let Some((rows, split)) = shared else {
        let rows = rows.on_this_thread();
        if let Some(input) = src.packed() {
            // (A clock read costs about a fifth of a small execution: only timed sizes read it.)
            let t = (m >= TIMED_MIN).then(std::time::Instant::now);
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
        if m < TIMED_MIN {
            return Ok(serial(src, rows, m, &mut [0u64; TIMED_MIN as usize / 64]));
        }
        if m < STACK_MAX && src.min_chunk() == 0 {
            let words = &mut [0u64; SERIAL_WORDS];
            return Ok(cost::timed(rates.serial(m), m, || {
                serial(src, rows, m, words)
            }));
        }
        let n = (SERIAL_CHUNK.max(src.min_chunk()).min(m.div_ceil(64) * 64) / 64) as usize;
        let mut heap = Vec::new();
        heap.try_reserve_exact(n)
            .map_err(|_| Error::OutOfMemory(format!("{OP}: no memory for a bitmask chunk")))?;
        heap.resize(n, 0);
        return Ok(cost::timed(rates.serial(m), m, || {
            serial(src, rows, m, &mut heap)
        }));
    };

    let t = std::time::Instant::now();
    let total = parallel(src, rows, &split, workers)?;
    rates.record_parallel(m, t.elapsed());
    Ok(total)
}

/// How the parallel path splits an input: rounds of `per_round` parts of `part` elements (the
/// last part shorter), `parts` in all.
struct Split {
    m: u64,
    part: u64,
    parts: u64,
    per_round: usize,
}

impl Split {
    /// Parts of PART_MIN to PART_MAX elements (at least `min_chunk`, a tiled input's
    /// pages of lines), PARTS_PER_WORKER per worker in a round.
    fn new(m: u64, threads: usize, min_chunk: u64) -> Split {
        let per_round = threads * PARTS_PER_WORKER;
        let part = (m / per_round as u64 / 64 * 64)
            .clamp(PART_MIN, PART_MAX)
            .max(min_chunk.div_ceil(64) * 64);
        let parts = m.div_ceil(part);
        Split {
            m,
            part,
            parts,
            per_round: per_round.min(parts as usize).max(1),
        }
    }

    fn rounds(&self) -> u64 {
        self.parts.div_ceil(self.per_round as u64)
    }

    /// Trips through the workers: one per round, and one to write the last.
    fn trips(&self) -> u64 {
        self.rounds() + 1
    }

    /// Elements of part `i` of round `round` (empty past the input).
    fn range(&self, round: u64, i: usize) -> (u64, u64) {
        let s = ((round * self.per_round as u64 + i as u64) * self.part).min(self.m);
        (s, (s + self.part).min(self.m))
    }
}

/// The parallel path: count the nonzero elements of each part, then write each part's rows
/// from the count of the parts before it, in rounds: each trip through the workers writes the
/// parts of the previous round (whose first rows the caller added up between the trips) and
/// counts those of the next, so that a part is read a second time from the cache. A part's
/// rows are written in one pass where the writer has one, else masked again and walked.
fn parallel<U: Word>(
    src: &Source<'_, U>,
    rows: &(dyn Emit + Sync),
    split: &Split,
    workers: Workers<'_>,
) -> Result<u64> {
    let per_round = split.per_round;
    // Counts of the parts of the round being counted and of the one being written, by trip.
    let counts: Vec<AtomicU64> = (0..2 * per_round).map(|_| AtomicU64::new(0)).collect();
    let mut firsts = vec![0u64; per_round];
    let packed = src.packed();
    let rounds = split.rounds();
    let mut row = 0u64;
    for trip in 0..=rounds {
        let (write, count) = (trip.checked_sub(1), (trip < rounds).then_some(trip));
        let (firsts_ref, counts_ref) = (&firsts, &counts);
        workers.parts(per_round, &|i| {
            if let Some(round) = write {
                let (s, e) = split.range(round, i);
                let n = counts_ref[(round % 2) as usize * per_round + i].load(Ordering::Relaxed);
                if n > 0 {
                    let first = firsts_ref[i];
                    // SAFETY: this part's rows are firsts[i] .. firsts[i] + n (n nonzero
                    // elements in s .. e, as counted; firsts[i] those before s), which no
                    // other part writes; the writer is shared only over a layout proven
                    // disjoint, where distinct elements have distinct addresses.
                    let done = packed.and_then(|p| unsafe {
                        rows.one_pass(p.range(s as usize, e as usize), s, first)
                    });
                    match done {
                        Some(written) => debug_assert_eq!(written, n),
                        None => with_words::<_, SERIAL_WORDS, _>(src, s, e, |words| {
                            // SAFETY: as above.
                            unsafe { serial_range(src, rows, s, e, first, words) };
                        }),
                    }
                }
            }
            if let Some(round) = count {
                let (s, e) = split.range(round, i);
                let n = if s < e {
                    with_words::<_, COUNT_WORDS, _>(src, s, e, |words| {
                        masked_steps(src, s, e, words, |_, _, _| {})
                    })
                } else {
                    0
                };
                counts_ref[(round % 2) as usize * per_round + i].store(n, Ordering::Relaxed);
            }
        })?;
        if let Some(round) = count {
            for (i, f) in firsts.iter_mut().enumerate() {
                *f = row;
                row += counts[(round % 2) as usize * per_round + i].load(Ordering::Relaxed);
            }
        }
    }
    Ok(row)
}

/// Words of scratch for masking a part's elements `start .. end` a step at a time: `W` words
/// on the stack (the steps then cover `64 × W` elements each), or, for a tiled input, the
/// whole part's bitmask on the heap (its steps should be its pages of lines).
fn with_words<U: Word, const W: usize, R>(
    src: &Source<'_, U>,
    start: u64,
    end: u64,
    f: impl FnOnce(&mut [u64]) -> R,
) -> R {
    let n = ((end - start) as usize).div_ceil(64);
    if src.min_chunk() == 0 || n <= W {
        f(&mut [0u64; W][..n.min(W)])
    } else {
        f(&mut vec![0u64; n])
    }
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
        // SAFETY: `count` is the words' set bits (masking them returned it); these rows are
        // the caller's to write.
        unsafe { rows.emit(words, at, row, count) };
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
