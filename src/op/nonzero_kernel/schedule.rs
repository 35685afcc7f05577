//! Scheduling: the serial path, and the parallel rounds of chunks on the workers.

use rayon::prelude::*;

use super::rows::{Emit, Writer};
use super::source::Source;
use crate::error::{Error, Result};
use crate::op::cost::{self, Bounds, Rates};
use crate::op::kind::OpKind;
use crate::op::nonzero::NonZeroPlan;
use crate::op::simd::Word;
use crate::pool::Workers;

const OP: &str = OpKind::NonZeroCoordinates.name();

/// Elements per parallel task (a multiple of 64); its bitmask is 16 KiB. On two workers a
/// round of `TASKS_PER_WORKER` tasks each is then two million elements, so a 16M-element input
/// takes 8 trips through the pool.
const CHUNK: u64 = 1 << 17;
/// The smallest parallel task (smaller inputs get smaller chunks, for at least four rounds).
const MIN_CHUNK: u64 = 1 << 14;
/// Tasks per worker in one round. More than one lets the others take over the work of a worker
/// that falls behind (the machine may be shared); with eight, a round ends at most one task
/// (an eighth of a worker's share) after its last worker could have finished.
const TASKS_PER_WORKER: usize = 8;
/// The most workers one execution uses.
const MAX_THREADS: usize = 64;
const MAX_TASKS: usize = MAX_THREADS * TASKS_PER_WORKER;
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
/// Bitmask words the serial path works on at a time (on the stack): each chunk's walk pays a
/// setup and writes its last rows one at a time (the rows past its own are not its to write
/// ahead), so chunks much shorter than this cost more per element.
const SERIAL_WORDS: usize = 256;

/// Masks and writes every element, serially or in parallel rounds (only with a writer the
/// workers may share); returns the row count.
pub(super) fn drive<U: Word>(
    src: &Source<'_, U>,
    rows: Writer<'_>,
    plan: &NonZeroPlan,
    workers: Workers<'_>,
) -> Result<u64> {
    let m = plan.input.elements;
    let threads = workers.threads.min(MAX_THREADS);
    let (tasks, chunk) = chunking(m, threads, src.min_chunk());
    let rates = rates(src, plan);
    // A trip to mask the first round, then one per round.
    let trips = 1 + m.div_ceil(tasks as u64 * chunk);
    // A single chunk has nothing to split: the parallel path would only add its trips.
    let shared = match rows {
        Writer::Parallel(rows)
            if m > chunk && cost::parallel_pays(m, &PARALLEL, rates, trips, workers) =>
        {
            Some(rows)
        }
        _ => None,
    };
    let Some(rows) = shared else {
        let rows = rows.on_this_thread();
        if let Some(input) = src.packed() {
            // (A clock read costs about a fifth of a small execution: only timed sizes read it.)
            let t = (m >= TIMED_MIN).then(std::time::Instant::now);
            // SAFETY: these are the whole input's elements; this thread is the only writer.
            if let Some(count) = unsafe { rows.one_pass(input.first(m as usize)) } {
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
        let n = (CHUNK.max(src.min_chunk()).min(m.div_ceil(64) * 64) / 64) as usize;
        let mut heap = Vec::new();
        heap.try_reserve_exact(n)
            .map_err(|_| Error::OutOfMemory(format!("{OP}: no memory for a bitmask chunk")))?;
        heap.resize(n, 0);
        return Ok(cost::timed(rates.serial(m), m, || {
            serial(src, rows, m, &mut heap)
        }));
    };

    // Parallel rounds of `tasks` chunks. Each step writes the rows of the previous round (whose
    // first rows the prefix sum gave) and masks the chunks of the next one, so a round costs
    // one trip through the pool.
    let per_chunk = (chunk / 64) as usize;
    let mut scratch: Vec<u64> = Vec::new();
    scratch
        .try_reserve_exact(2 * tasks * per_chunk)
        .map_err(|_| Error::OutOfMemory(format!("{OP}: no memory for {tasks} bitmask chunks")))?;
    scratch.resize(2 * tasks * per_chunk, 0);
    let (mut cur, mut next) = scratch.split_at_mut(tasks * per_chunk);
    let mut cur_counts = [0u64; MAX_TASKS];
    let mut next_counts = [0u64; MAX_TASKS];
    let round_len = tasks as u64 * chunk;
    let range = |round: u64, i: usize| {
        let s = (round * round_len + i as u64 * chunk).min(m);
        (s, (s + chunk).min(m))
    };
    let nwords = |(s, e): (u64, u64)| ((e - s) as usize).div_ceil(64);
    let t = std::time::Instant::now();
    let total = workers.run(|| {
        cur.par_chunks_mut(per_chunk)
            .zip(cur_counts[..tasks].par_iter_mut())
            .enumerate()
            .for_each(|(i, (words, count))| {
                let (s, e) = range(0, i);
                *count = if s < e {
                    src.masks(s, e, &mut words[..nwords((s, e))])
                } else {
                    0
                };
            });
        let mut row = 0u64;
        let mut round = 0u64;
        while round * round_len < m {
            let mut firsts = [0u64; MAX_TASKS];
            for (f, &c) in firsts[..tasks].iter_mut().zip(&cur_counts[..tasks]) {
                *f = row;
                row += c;
            }
            let more = (round + 1) * round_len < m;
            let (firsts, counts) = (&firsts, &cur_counts);
            cur.par_chunks(per_chunk)
                .zip(next.par_chunks_mut(per_chunk))
                .zip(next_counts[..tasks].par_iter_mut())
                .enumerate()
                .for_each(|(i, ((words, next_words), next_count))| {
                    let r = range(round, i);
                    if counts[i] > 0 {
                        // SAFETY: task i writes rows firsts[i] .. firsts[i] + counts[i] (its
                        // words have counts[i] set bits, as masking them returned), which no
                        // other task writes, and the writer is shared only over a layout proven
                        // disjoint, where distinct elements have distinct addresses.
                        unsafe { rows.emit(&words[..nwords(r)], r.0, firsts[i], counts[i]) };
                    }
                    if more {
                        let (s, e) = range(round + 1, i);
                        *next_count = if s < e {
                            src.masks(s, e, &mut next_words[..nwords((s, e))])
                        } else {
                            0
                        };
                    }
                });
            core::mem::swap(&mut cur, &mut next);
            core::mem::swap(&mut cur_counts, &mut next_counts);
            round += 1;
        }
        row
    })?;
    rates.record_parallel(m, t.elapsed());
    Ok(total)
}

/// The parallel path's tasks per round and elements per task: at least four rounds, with chunks
/// from MIN_CHUNK to CHUNK elements.
/// A tiled input's chunks hold at least `min_chunk` elements (see `Source::min_chunk`).
fn chunking(m: u64, threads: usize, min_chunk: u64) -> (usize, u64) {
    let tasks = threads * TASKS_PER_WORKER;
    let chunk = (m / (4 * tasks as u64) / 64 * 64).clamp(MIN_CHUNK, CHUNK);
    (tasks, chunk.max(min_chunk.div_ceil(64) * 64))
}

/// Masks and writes every element on this thread, `words.len()` words at a time; returns the
/// row count.
#[inline(always)]
fn serial<U: Word>(src: &Source<'_, U>, rows: &dyn Emit, m: u64, words: &mut [u64]) -> u64 {
    let step = 64 * words.len() as u64;
    let mut row = 0u64;
    let mut start = 0u64;
    while start < m {
        let end = (start + step).min(m);
        let words = &mut words[..((end - start) as usize).div_ceil(64)];
        let count = src.masks(start, end, words);
        if count > 0 {
            // SAFETY: `count` is the words' set bits (masking them returned it); this thread is
            // the only writer.
            unsafe { rows.emit(words, start, row, count) };
            row += count;
        }
        start = end;
    }
    row
}
