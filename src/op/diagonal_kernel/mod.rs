//! The DIAGONAL_MATRIX1 / DIAGONAL_MATRIX kernel (`diagonal.rs` validates and finds each row's
//! segments).
//!
//! Packed outputs go row by row: without an input and with a narrow band of Value (an identity), a
//! chunk of rows as one fill of zeros and then the band ([`zeros_then_band`]); with AVX2, rows of
//! 32 bytes to 2 KiB (512 bytes without an input) as vector runs and blends (`avx2`); otherwise
//! rows under 64 bytes element by element with branch-free selects, wider ones as slice fills and
//! copies; and, where an execution touches (output and input together) at least the last-level
//! cache's size ([`stream_min_bytes`]: 8 MiB where it is unknown, never below 1 MiB) with rows of
//! at least 256 bytes, above the portable level, through a [`StreamWriter`] (non-temporal stores,
//! with runs merged across rows). CPUs with AVX-512 run the AVX2 code (see `simd::dispatch`). Large
//! outputs are split into row ranges across the workers. Strided layouts go segment by segment,
//! element by element.

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use super::cost::{self, Bounds, Rates, SerialRate};
use super::diagonal::DiagonalPlan;
use super::simd::isa::Level;
use super::simd::{Isa, StreamWriter, Word};
use super::Input;
use crate::error::Result;
use crate::pool::Workers;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod band;

use band::{segments, Band, Other, Segments};

/// Outputs below the floor (bytes) are written on one thread, from the ceiling split across
/// the workers (with more than one); in between, as measured ([`cost`]).
const PARALLEL: Bounds = Bounds {
    floor: 64 << 10,
    ceiling: 16 << 20,
};
/// The serial and parallel paths' times per output byte, one set per class of work: what lies
/// outside the band (zeros, the output itself, an input) by the element size. Copying costs
/// more per byte than filling, and small elements more per byte than large ones, so rates
/// measured on one class would choose wrongly for another.
static RATES: [Rates; 12] = [const { Rates::new() }; 12];

/// The class of rows of `U` with `other` outside the band (0 to 11: what lies outside, then
/// the element size), which [`RATES`] and [`STORE_RATES`] keep apart.
fn class<U: Word>(other: &Other<'_, U>) -> usize {
    let kind = match other {
        Other::Zero => 0,
        Other::Keep => 1,
        Other::From(_) => 2,
    };
    kind * 4 + U::SIZE.trailing_zeros() as usize
}

/// The class of rates for rows of `U` with `other` outside the band.
fn rates<U: Word>(other: &Other<'_, U>) -> &'static Rates {
    &RATES[class(other)]
}
/// The smallest part of a parallel execution, in output bytes.
const PART_MIN_BYTES: usize = 16 << 10;
/// Executions that touch at least this many bytes (output, and input if any) are written with
/// non-temporal stores, which skip reading each cache line before writing it, where this
/// machine's last-level cache size is not known ([`stream_min_bytes`]).
const STREAM_MIN_BYTES: u64 = 8 << 20;

/// Executions that touch at least this many bytes (too many to stay in cache for whoever reads
/// the output next) are written with non-temporal stores: the last-level cache's size where
/// the system reports it, else [`STREAM_MIN_BYTES`]. From a quarter of it up to it, the
/// faster of the two is measured ([`StoreRates`]); below that, plain stores leave the output in
/// the cache. On an AMD Zen 5 with 32 MiB of L3 (two vCPUs), an upper triangle from a 16 MiB
/// input (32 MiB touched) took 2.9x the time with plain stores.
fn stream_min_bytes() -> u64 {
    match STREAM_FROM.load(Ordering::Relaxed) {
        0 => {
            let bytes = crate::cpus::last_level_cache_bytes()
                .unwrap_or(STREAM_MIN_BYTES)
                .max(STREAM_FLOOR_BYTES);
            // A racing `force_streaming_from` wins.
            let _ = STREAM_FROM.compare_exchange(0, bytes, Ordering::Relaxed, Ordering::Relaxed);
            STREAM_FROM.load(Ordering::Relaxed)
        }
        bytes => bytes,
    }
}

/// Streaming stores never start below this many bytes touched, whatever the cache.
const STREAM_FLOOR_BYTES: u64 = 1 << 20;

/// [`stream_min_bytes`] once known (0 before).
static STREAM_FROM: AtomicU64 = AtomicU64::new(0);
/// Set by [`force_streaming_from`]: the threshold alone decides, nothing is measured.
static STREAM_FORCED: AtomicBool = AtomicBool::new(false);

/// Writes outputs with streaming stores from `bytes` touched on, and plain ones below, from now
/// on in this process (for tests, which must reach both paths whatever this machine's cache).
pub(crate) fn force_streaming_from(bytes: u64) {
    STREAM_FORCED.store(true, Ordering::Relaxed);
    STREAM_FROM.store(bytes.max(1), Ordering::Relaxed);
}

/// Plain or streaming stores, measured, for executions that touch from a quarter of
/// [`stream_min_bytes`] up to it, where neither wins on every machine: on two vCPUs of an AMD
/// Zen 5 (32 MiB of L3), plain stores wrote a 16 MiB identity on one thread in 0.71x the time
/// of streaming ones; on two vCPUs of an AMD Zen 3 (32 MiB of L3 too), in 2.5x (888 against
/// 352 µs), and an upper triangle of 8 MiB from its input (16 MiB touched) in 0.88x. Both
/// stores' rates are kept (the fastest of the last eight executions each, per class of rows,
/// serial or parallel, and octave of the band); the first executions alternate until each is
/// known, then the faster runs, and one execution in [`STORE_RETRY`] runs the other, so that a
/// change (the cache's other tenants) is followed. These executions touch 1 MiB or more (tens
/// of microseconds at least), so two clock reads cost nothing.
struct StoreRates {
    plain: SerialRate,
    stream: SerialRate,
    /// Executions chosen for.
    turn: AtomicU32,
}

/// One execution in this many (of a class and octave whose rates are both known) runs the
/// slower kind of store: at 2.5x its time, a 2.3% cost.
const STORE_RETRY: u32 = 64;

impl StoreRates {
    const fn new() -> Self {
        StoreRates {
            plain: SerialRate::new(),
            stream: SerialRate::new(),
            turn: AtomicU32::new(0),
        }
    }

    /// Whether an execution of `touched` bytes streams.
    fn choose(&self, touched: u64) -> bool {
        let n = self.turn.fetch_add(1, Ordering::Relaxed);
        if !self.plain.known() || !self.stream.known() {
            // Alternate until both are known; the first execution streams (plain stores on
            // new pages pay for their faults twice: reading and writing).
            return n.is_multiple_of(2);
        }
        let stream_wins = self.stream.estimate_ns(touched) < self.plain.estimate_ns(touched);
        stream_wins != n.is_multiple_of(STORE_RETRY)
    }

    fn record(&self, stream: bool, touched: u64, elapsed: core::time::Duration) {
        let rate = if stream { &self.stream } else { &self.plain };
        rate.record(touched, elapsed);
    }
}

/// [`StoreRates`] per [`class`] of rows, serial or parallel, and octave of the band (below or
/// above half of it).
static STORE_RATES: [StoreRates; 48] = [const { StoreRates::new() }; 48];

/// The [`StoreRates`] of an execution of `touched` bytes, where they decide: from a quarter of
/// [`stream_min_bytes`] (never below [`STREAM_FLOOR_BYTES`]) up to it, unless forced.
fn store_rates<U: Word>(
    other: &Other<'_, U>,
    parallel: bool,
    touched: u64,
) -> Option<&'static StoreRates> {
    let from = stream_min_bytes();
    if STREAM_FORCED.load(Ordering::Relaxed)
        || touched >= from
        || touched < (from / 4).max(STREAM_FLOOR_BYTES)
    {
        return None;
    }
    let octave = usize::from(touched >= from / 2);
    Some(&STORE_RATES[(class(other) * 2 + usize::from(parallel)) * 2 + octave])
}

/// Rows narrower than this many bytes are written element by element.
const SMALL_ROW_BYTES: usize = 64;
/// With AVX2, rows from 32 bytes to this many are written by `avx2::rows_avx2` (vector runs
/// and blends, no library calls) when there is an input; longer ones as slice fills and
/// copies. Measured on an AMD EPYC (Zen 3): 1.2-3x faster for rows of 64 B to 1 KiB, 1.05-1.25x
/// at 2 KiB, slower at 4 KiB.
#[cfg(target_arch = "x86_64")]
const AVX2_ROW_BYTES: usize = 2048;
/// The same without an input (zeros and Value): from 1 KiB rows, `memset` was 5-20% faster.
#[cfg(target_arch = "x86_64")]
const AVX2_ZEROS_ROW_BYTES: usize = 512;
/// Rows narrower than this many bytes are written with ordinary stores.
const STREAM_MIN_ROW_BYTES: usize = 256;
/// Without an input, rows whose band of Value is at most 1/`NARROW_BAND` of the row (an
/// identity, a few diagonals) are zeroed whole and then get their band ([`zeros_then_band`]).
const NARROW_BAND: usize = 8;

pub(crate) fn execute(
    plan: &DiagonalPlan,
    input: Input<'_>,
    out: &mut [u8],
    workers: Workers<'_>,
) -> Result<()> {
    match plan.output.dtype.size() {
        1 => run::<u8>(plan, input, out, workers),
        2 => run::<u16>(plan, input, out, workers),
        4 => run::<u32>(plan, input, out, workers),
        _ => run::<u64>(plan, input, out, workers),
    }
}

fn run<U: Word>(
    plan: &DiagonalPlan,
    input: Input<'_>,
    out: &mut [u8],
    workers: Workers<'_>,
) -> Result<()> {
    let value = U::from_bytes(&plan.value);
    let whole = out.len() / U::SIZE * U::SIZE;
    let out: &mut [U] = bytemuck::cast_slice_mut(&mut out[..whole]);
    let other: Other<'_, U> = match input {
        Input::Bytes(b) => Other::From(bytemuck::cast_slice(&b[..b.len() / U::SIZE * U::SIZE])),
        Input::InPlace => Other::Keep,
        Input::None => Other::Zero,
    };
    let l = &plan.output;
    let input_packed = plan
        .input_slots()
        .first()
        .copied()
        .flatten()
        .is_none_or(|i| i.packed);
    if l.packed && input_packed {
        run_packed(plan, value, out, other, workers)
    } else {
        run_strided(plan, value, out, other);
        Ok(())
    }
}

/// Writes one packed row: Value on one side of the segments, the other source on the other.
#[inline(always)]
fn fill_row<U: Word>(row: &mut [U], seg: Segments, value: U, other: Other<'_, U>, src: usize) {
    let w = row.len();
    let (lo, hi) = (seg.lo, seg.hi.max(seg.lo));
    let put_other = |r: &mut [U], a: usize, b: usize| match other {
        Other::Zero => r[a..b].fill(U::ZERO),
        Other::Keep => {}
        Other::From(s) => r[a..b].copy_from_slice(&s[src + a..src + b]),
    };
    if seg.value_outside {
        row[..lo].fill(value);
        put_other(row, lo, hi);
        row[hi..].fill(value);
    } else {
        put_other(row, 0, lo);
        row[lo..hi].fill(value);
        put_other(row, hi, w);
    }
}

/// [`fill_row`] element by element, for rows too short for slice fills and copies to pay (they
/// become library calls).
#[inline(always)]
fn fill_row_small<U: Word>(
    row: &mut [U],
    seg: Segments,
    value: U,
    other: Other<'_, U>,
    src: usize,
) {
    let (lo, hi) = (seg.lo, seg.hi.max(seg.lo));
    let is_value = |x: usize| (x >= lo && x < hi) != seg.value_outside;
    // One loop per source, each a select rather than a branch.
    match other {
        Other::Zero => {
            for (x, o) in row.iter_mut().enumerate() {
                *o = if is_value(x) { value } else { U::ZERO };
            }
        }
        Other::Keep => {
            for (x, o) in row.iter_mut().enumerate() {
                *o = if is_value(x) { value } else { *o };
            }
        }
        Other::From(s) => {
            let s = &s[src..src + row.len()];
            for (x, (o, &i)) in row.iter_mut().zip(s).enumerate() {
                *o = if is_value(x) { value } else { i };
            }
        }
    }
}

/// Writes packed rows `first_row ..` (as many as `chunk` holds) through streaming stores.
#[inline(always)]
fn stream_rows<U: Word>(chunk: &mut [U], first_row: usize, band: Band<'_, U>, isa: Isa) {
    let (w, h, value, other) = (band.w, band.h, band.value, band.other);
    let rows = chunk.len() / w;
    let mut out = StreamWriter::new(chunk, isa);
    // Runs of one kind that continue from one row into the next (the zeros after one row's
    // diagonal and before the next one's, say) are merged into one `put`.
    let mut run: Option<(Run<U>, usize)> = None;
    let mut y = first_row as u64 % h;
    for r in 0..rows {
        let seg = band.segments(y);
        let (lo, hi) = (seg.lo, seg.hi.max(seg.lo));
        let src = (first_row + r) * w;
        let v = seg.value_outside;
        for (a, b, is_value) in [(0, lo, v), (lo, hi, !v), (hi, w, v)] {
            if a == b {
                continue;
            }
            let kind = match (is_value, other) {
                (true, _) => Run::Fill(value),
                (false, Other::Zero) => Run::Fill(U::ZERO),
                (false, Other::Keep) => Run::Keep,
                (false, Other::From(_)) => Run::Copy(src + a),
            };
            run = match run {
                Some((k, n)) if k.continues(kind, n) => Some((k, n + b - a)),
                done => {
                    if let Some((k, n)) = done {
                        k.put(&mut out, n, other);
                    }
                    Some((kind, b - a))
                }
            };
        }
        y += 1;
        if y == h {
            y = 0;
        }
    }
    if let Some((k, n)) = run {
        k.put(&mut out, n, other);
    }
    out.finish();
}

/// What a run of output elements holds.
#[derive(Clone, Copy, PartialEq)]
enum Run<U> {
    Fill(U),
    Keep,
    /// Input elements from this index on.
    Copy(usize),
}

impl<U: Word> Run<U> {
    /// True when `next` continues a run of `self` that is `n` elements long.
    #[inline(always)]
    fn continues(self, next: Run<U>, n: usize) -> bool {
        match (self, next) {
            (Run::Copy(a), Run::Copy(b)) => a + n == b,
            (a, b) => a == b,
        }
    }

    #[inline(always)]
    fn put(self, out: &mut StreamWriter<'_, U>, n: usize, other: Other<'_, U>) {
        match (self, other) {
            (Run::Fill(v), _) => out.put(n, Some(v), None),
            (Run::Keep, _) => out.put(n, None, None),
            (Run::Copy(a), Other::From(s)) => out.put(n, None, Some(&s[a..a + n])),
            // A copy run comes only from an input.
            (Run::Copy(_), _) => unreachable!("a copy run without an input"),
        }
    }
}

/// [`stream_rows`] compiled for AVX2, so its 32-byte streaming stores are inlined.
///
/// # Safety
/// The CPU has AVX2 (`isa.has_avx2()`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stream_rows_avx2<U: Word>(
    chunk: &mut [U],
    first_row: usize,
    band: Band<'_, U>,
    isa: Isa,
) {
    stream_rows(chunk, first_row, band, isa)
}

fn run_packed<U: Word>(
    plan: &DiagonalPlan,
    value: U,
    out: &mut [U],
    other: Other<'_, U>,
    workers: Workers<'_>,
) -> Result<()> {
    let l = &plan.output;
    let d = l.dims;
    let w = l.sizes[d - 1] as usize;
    let h = u64::from(l.sizes[d - 2]);
    let rows = (l.elements / w as u64) as usize;
    let out = &mut out[..rows * w];
    let (begin, end) = (plan.begin, plan.end);
    let band = Band {
        w,
        h,
        begin,
        end,
        value,
        other,
    };
    let bytes = l.elements * U::SIZE as u64;
    let isa = Isa::detect();
    // Portable code has no streaming stores to gain from (its gathered units were 20-35x slower
    // than plain writes at 2^22-2^26 FLOAT32 elements on AMD Zen 5).
    let touched = match other {
        Other::From(_) => 2 * bytes,
        Other::Zero | Other::Keep => bytes,
    };
    let rates = rates(&other);
    let path = cost::parallel_pays(bytes, &PARALLEL, rates, 1, workers);
    // (Executions that cannot stream never read the threshold or the measured rates.)
    let can_stream = touched >= STREAM_FLOOR_BYTES
        && w * U::SIZE >= STREAM_MIN_ROW_BYTES
        && isa.level() != Level::Portable;
    let parallel = matches!(path, cost::Path::Parallel { .. });
    let stores = if can_stream {
        store_rates(&other, parallel, touched)
    } else {
        None
    };
    let stream = match stores {
        Some(stores) => stores.choose(touched),
        None => can_stream && touched >= stream_min_bytes(),
    };
    let started = stores.map(|_| std::time::Instant::now());
    let do_rows = |first_row: usize, chunk: &mut [U]| {
        if stream {
            #[cfg(target_arch = "x86_64")]
            if isa.has_avx2() {
                // SAFETY: only detection makes an `Isa` with AVX2, on a CPU that has it.
                unsafe { stream_rows_avx2(chunk, first_row, band, isa) };
                return;
            }
            stream_rows(chunk, first_row, band, isa);
            return;
        }
        if matches!(other, Other::Zero) && end >= begin && (end - begin) as usize <= w / NARROW_BAND
        {
            zeros_then_band(chunk, first_row, band);
            return;
        }
        #[cfg(target_arch = "x86_64")]
        let avx2_max = match other {
            Other::Zero => AVX2_ZEROS_ROW_BYTES,
            Other::Keep | Other::From(_) => AVX2_ROW_BYTES,
        };
        #[cfg(target_arch = "x86_64")]
        if isa.has_avx2() && (32..=avx2_max).contains(&(w * U::SIZE)) {
            // SAFETY: only detection makes an `Isa` with AVX2, on a CPU that has it; rows are
            // at least 32 bytes.
            unsafe { avx2::rows_avx2(chunk, first_row, band) };
            return;
        }
        let mut y = first_row as u64 % h;
        for (r, row) in chunk.chunks_exact_mut(w).enumerate() {
            let seg = segments(y, w as u64, begin, end);
            if w * U::SIZE < SMALL_ROW_BYTES {
                fill_row_small(row, seg, value, other, (first_row + r) * w);
            } else {
                fill_row(row, seg, value, other, (first_row + r) * w);
            }
            y += 1;
            if y == h {
                y = 0;
            }
        }
    };
    let r = match path {
        cost::Path::Parallel { hot, helpers } => {
            let workers = workers.at_most(helpers);
            // Several parts per worker (the threads that run take the parts of one that is
            // descheduled), each of at least PART_MIN_BYTES (a claim costs a shared cache line).
            let min_rows = (PART_MIN_BYTES / (w * U::SIZE)).max(1);
            let rows_per_task = rows.div_ceil(workers.threads * 4).max(min_rows);
            let t = std::time::Instant::now();
            let r = workers.for_each_chunk(out, rows_per_task * w, &|t, chunk| {
                do_rows(t * rows_per_task, chunk)
            });
            // Only the sizes the choice is made for.
            if bytes < PARALLEL.ceiling {
                rates.record_parallel(bytes, workers.threads, hot, t.elapsed());
            }
            r
        }
        // Timed only where a later choice may read the rate (`cost::Path::Serial`); from the
        // ceiling on there is no choice.
        cost::Path::Serial { timed } => {
            let timed = timed && bytes < PARALLEL.ceiling;
            cost::timed(timed, rates.serial(bytes), bytes, || do_rows(0, out));
            Ok(())
        }
    };
    if let (Some(stores), Some(started)) = (stores, started) {
        stores.record(stream, touched, started.elapsed());
    }
    r
}

/// Rows of zeros with a narrow band of Value: the chunk is zeroed in one fill (one `memset` at
/// full speed instead of two short ones per row), then each row's band is written. Measured on
/// an AMD EPYC (Zen 3): 1.1–1.3× faster than the rows one by one from 2^10 to 2^20 elements.
///
/// Rows whose band lies whole inside them (most of a matrix) have it at the same length, one
/// element further along each row: their bands are written a row's width plus one apart,
/// without working out each row's segments (an identity's 128 rows of 128 took a third of a
/// microsecond that way, half as long as the fill).
fn zeros_then_band<U: Word>(chunk: &mut [U], first_row: usize, band: Band<'_, U>) {
    chunk.fill(U::ZERO);
    let (w, h) = (band.w, band.h);
    // The caller checked end >= begin; the band is at most a row long.
    let len = (band.end - band.begin) as usize;
    if len == 0 || w == 0 {
        return;
    }
    // Rows y of a matrix whose band is whole: y + begin >= 0 and y + end <= w.
    let inner_lo = (-band.begin).clamp(0, h as i64) as u64;
    let inner_hi = (w as i64 - band.end + 1).clamp(0, h as i64) as u64;
    let rows = chunk.len() / w;
    let edge = |chunk: &mut [U], r: usize, y: u64| {
        let seg = band.segments(y);
        chunk[r * w..][seg.lo..seg.hi.max(seg.lo)].fill(band.value);
    };
    let (mut r, mut y) = (0usize, first_row as u64 % h);
    while r < rows {
        // This matrix's rows y .. y + n are the chunk's rows r .. r + n.
        let n = (h - y).min((rows - r) as u64);
        let a = inner_lo.clamp(y, y + n);
        let b = inner_hi.clamp(a, y + n);
        for yy in (y..a).chain(b..y + n) {
            edge(chunk, r + (yy - y) as usize, yy);
        }
        if a < b {
            // Row r + (a - y) has its band from column a + begin (>= 0), the next one a row
            // and one element further.
            let start = (r + (a - y) as usize) * w + (a as i64 + band.begin) as usize;
            let count = (b - a) as usize;
            if len == 1 {
                chunk[start..]
                    .iter_mut()
                    .step_by(w + 1)
                    .take(count)
                    .for_each(|v| *v = band.value);
            } else {
                for i in 0..count {
                    let at = start + i * (w + 1);
                    chunk[at..at + len].fill(band.value);
                }
            }
        }
        r += n as usize;
        y = 0;
    }
}

fn run_strided<U: Word>(plan: &DiagonalPlan, value: U, out: &mut [U], other: Other<'_, U>) {
    let l = &plan.output;
    let d = l.dims;
    let (w, h) = (u64::from(l.sizes[d - 1]), u64::from(l.sizes[d - 2]));
    let (sx, sy) = (l.strides[d - 1] as usize, l.strides[d - 2] as usize);
    let il = plan.input_slots().first().copied().flatten().unwrap_or(*l);
    let (ix, iy) = (il.strides[d - 1] as usize, il.strides[d - 2] as usize);
    let batches = l.elements / (w * h);
    for b in 0..batches {
        // Offsets of this matrix in the output and the input.
        let (mut ob, mut ib, mut rest) = (0usize, 0usize, b);
        for k in (0..d - 2).rev() {
            let s = u64::from(l.sizes[k]);
            let i = (rest % s) as usize;
            rest /= s;
            ob += i * l.strides[k] as usize;
            ib += i * il.strides[k] as usize;
        }
        for y in 0..h {
            let seg = segments(y, w, plan.begin, plan.end);
            let (lo, hi) = (seg.lo, seg.hi.max(seg.lo));
            let orow = ob + y as usize * sy;
            let irow = ib + y as usize * iy;
            let v = seg.value_outside;
            for (a, b, is_value) in [(0, lo, v), (lo, hi, !v), (hi, w as usize, v)] {
                if is_value {
                    for x in a..b {
                        out[orow + x * sx] = value;
                    }
                    continue;
                }
                match other {
                    Other::Zero => {
                        for x in a..b {
                            out[orow + x * sx] = U::ZERO;
                        }
                    }
                    Other::Keep => {}
                    Other::From(s) => {
                        for x in a..b {
                            out[orow + x * sx] = s[irow + x * ix];
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

    #[test]
    fn stores_alternate_until_both_are_known_then_the_faster_runs_and_the_other_is_retried() {
        let s = StoreRates::new();
        let touched = 8 << 20;
        let time = |stream: bool| Duration::from_micros(if stream { 350 } else { 900 });
        let first: Vec<bool> = (0..6)
            .map(|_| {
                let stream = s.choose(touched);
                s.record(stream, touched, time(stream));
                stream
            })
            .collect();
        assert_eq!(first, [true, false, true, false, true, false]);
        // Streaming is faster: it runs, but for one execution in STORE_RETRY.
        let plain = (0..4 * STORE_RETRY).filter(|_| !s.choose(touched)).count();
        assert_eq!(plain, 4);
        // Streaming slows down (its window fills with slow executions): plain stores run.
        for _ in 0..8 {
            s.record(true, touched, Duration::from_micros(2000));
        }
        let stream = (0..4 * STORE_RETRY).filter(|_| s.choose(touched)).count();
        assert_eq!(stream, 4);
    }
}
