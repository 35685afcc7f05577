//! Serial or parallel, by measured cost: where a kernel's parallel path starts is not a fixed
//! size tuned on one machine but the size at which, on this machine, the work split over the
//! workers plus the trips through the pool takes less time than the work on one thread.
//!
//! Three measurements feed the choice, all process-wide, the first two kept by each kernel per
//! class of its work ([`Rates`]: one kind of input and output layout and element size, whose
//! cost per unit differs from another's by up to several times):
//! - [`SerialRate`]: the time per unit of work (input elements, output bytes) of the kernel's
//!   own serial executions, the fastest of the last eight, kept per octave of sizes (units
//!   from 2^k to 2^(k+1): small inputs pay more per unit for the call, large ones for memory
//!   beyond the caches), unknown until the octave's first three serial executions, which come
//!   before any parallel one;
//! - [`ParallelRate`]: the time per unit of the kernel's parallel executions, the median of the
//!   last eight, kept per octave too (its trips cost the same at every size, so a rate
//!   measured on large inputs would call the parallel path cheap for small ones), per class
//!   of thread counts (by the nearest power of two: see [`THREAD_CLASSES`]), and apart
//!   for executions that found the workers on the team (hot: arrived, within their window)
//!   and those that had to call them (cold: a wake costs tens of microseconds on a virtual
//!   machine, a trip to hot workers a few), once there have been eight in that octave and
//!   state (until then, a perfect split plus the trips is assumed, except on cold workers once
//!   the median of at least three executions took at least the serial estimate: see
//!   [`Rate::lost`];
//!   when that rate says no, the parallel path is still retried, per octave and state, once
//!   every [`RETRY_NS`] (100 ms; an eighth of that while the rate is young, and for a long
//!   execution no more than once per 64 times what a retry may take: [`parallel_retry_ns`]),
//!   so a busy moment does not rule it out for good; a grown rate's retry on cold workers is
//!   followed by [`TRY_RUN`] executions on the hot workers it leaves, and an execution that
//!   beats the serial estimate by another ([`Parallel::owe_tries`]), so that a rate of hot
//!   workers measured in a busy moment comes back within one retry; and when it says yes,
//!   the serial path is retried as often, or once per [`SERIAL_RETRY_SPAN`] serial
//!   executions' worth of time where that is longer, so that the serial rate stays current
//!   too at a bounded cost);
//! - [`trip_ns`]: one trip through the team (an empty job of one part per thread), measured
//!   the first time a kernel has a choice to make on a class of thread counts (median of five
//!   trips, of those that went through the team). The caller claims parts from the first
//!   nanosecond and waits only for parts that workers claimed, so this is the hand-off to
//!   workers already awake, or only the caller's claims where none is (60–70 ns on two vCPUs):
//!   an optimistic estimate, which sends an octave's first executions to the parallel path,
//!   where they are measured.
//!
//! Where the rates settle the choice on cold workers (both parallel rates of the octave no
//! faster per unit than the serial one), the choices between two of the octave's clock reads
//! take that note instead of reading them all again ([`Rates::settle`]).
//!
//! The choice is bounded by a floor (never parallel below it: too small for any machine to
//! gain) and a ceiling (always parallel from it: the work dwarfs any trip).
//!
//! `DMLS_PARALLEL=always` in the environment takes the parallel path from the floor on, so that
//! tests reach the parallel paths whatever this machine measures (the test suite sets it).

use core::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use crate::pool::Workers;
use crate::team::{now_ns, window_ns};

/// Femtoseconds per unit of an execution of `units` units (not 0) that took `elapsed`. (A
/// DIAGONAL_MATRIX1 execution costs a few picoseconds per output byte: in whole picoseconds,
/// rates 10% apart could round to one.)
/// (In 64 bits where the product fits, as it does below five hours: a 128-bit division is a
/// call, as costly as the rest of a choice.)
fn femtos_per_unit(units: u64, elapsed: Duration) -> u64 {
    let nanos = elapsed.as_nanos();
    match u64::try_from(nanos)
        .ok()
        .and_then(|n| n.checked_mul(1_000_000))
    {
        Some(femtos) => femtos / units,
        None => {
            (nanos.saturating_mul(1_000_000) / u128::from(units)).min(u128::from(u64::MAX)) as u64
        }
    }
}

/// The time of `units` units at `femtos` femtoseconds each, in nanoseconds. (In 64 bits where
/// the product fits, as it does for every size a rate is kept for below 2^32 units: a choice
/// computes several of these, and a 128-bit division by a constant is a call of about 20
/// cycles where a 64-bit one is a multiplication.)
fn ns(units: u64, femtos: u64) -> u64 {
    match units.checked_mul(femtos) {
        Some(product) => product / 1_000_000,
        None => {
            (u128::from(units) * u128::from(femtos) / 1_000_000).min(u128::from(u64::MAX)) as u64
        }
    }
}

/// Executions a rate is made of: the last eight of its octave (and state).
const WINDOW: usize = 8;
const _: () = assert!(WINDOW.is_power_of_two()); // (see Rate::record)

/// A kernel's cost per unit of work, in femtoseconds, from its last [`WINDOW`] executions of
/// one octave: the fastest of them for the serial path (`FASTEST`, a [`SerialRate`]), their
/// lower median for the parallel path (a [`ParallelRate`]).
///
/// A serial execution's own time varies little; what varies is what runs beside it, and that
/// only slows it: the pool's workers spinning after a parallel execution, or, on a machine
/// whose scheduler packs threads, a worker queued on the caller's own core (on two vCPUs that
/// pack, serial 2^14-element NonZero executions beside it took 2–5× their time, and a moving
/// average that leaned towards fast executions still rose to 2–5× and chose the parallel path,
/// 1.35× slower). The fastest of the last eight is the serial path's own cost, and follows a
/// lasting change within eight executions.
///
/// A parallel execution's time varies far more (which workers were on which core, whose
/// caches held the data, a worker that lost its core): on two vCPUs, a 2^16-element identity
/// took 1.68 µs in a tenth of the hot executions and 2.3 µs in half of them, against 1.77 µs
/// on one thread. An average that leaned towards fast executions took it for 1.7 µs and chose
/// the parallel path, which cost 1.15–1.22× the serial time; the median is what a typical
/// execution costs. It also forgets the first executions of a process, slow for reasons that
/// do not last (new buffers' pages, cold caches, a clock speeding up), once eight later ones
/// have replaced them (though three whose median loses stop cold workers' first ones early:
/// [`Rate::lost`]), and one slow execution (a worker descheduled) moves it by one place.
pub(crate) struct Rate<const FASTEST: bool> {
    /// The last executions' femtoseconds per unit (saturating at `u32::MAX`, 4.3 µs), a ring:
    /// execution `n` (from 0) in slot `n % WINDOW`.
    window: [AtomicU32; WINDOW],
    /// Executions recorded (after `u32::MAX`, two windows again; racing updates may lose one).
    recorded: AtomicU32,
    /// The window's fastest or lower median (0: none yet), kept at each record so that a
    /// choice reads one word.
    value: AtomicU32,
    /// Choices made for this octave (serial rates: [`Rates::tick`]).
    choices: AtomicU32,
    /// Serial rates: the class of thread counts ([`thread_class`]) plus one for which the
    /// rates of this octave settle the choice on cold workers ([`Rates::settled`]), 0 for none
    /// known. Cleared by every record of this octave's serial or parallel executions.
    settled: AtomicU32,
}

/// The serial path's rate: the fastest of the last [`WINDOW`] executions.
pub(crate) type SerialRate = Rate<true>;
/// The parallel path's rate: the lower median of the last [`WINDOW`] executions.
pub(crate) type ParallelRate = Rate<false>;

/// Serial executions of an octave timed before its rate counts ([`Rate::known`]). The first
/// execution of a process pays for new buffers' pages and cold caches: a 2^14-element
/// NonZero's took 26 µs against 1.2 µs after.
const SERIAL_FIRST: u32 = 3;

impl<const FASTEST: bool> Rate<FASTEST> {
    /// A rate not measured yet.
    pub const fn new() -> Self {
        Rate {
            window: [const { AtomicU32::new(0) }; WINDOW],
            recorded: AtomicU32::new(0),
            value: AtomicU32::new(0),
            choices: AtomicU32::new(0),
            settled: AtomicU32::new(0),
        }
    }

    /// The estimated time of `units` units, in nanoseconds (0 while nothing is recorded, and
    /// for a serial rate until it is [`Rate::known`]).
    pub fn estimate_ns(&self, units: u64) -> u64 {
        if FASTEST && !self.known() {
            return 0;
        }
        ns(units, u64::from(self.value.load(Ordering::Relaxed)))
    }

    /// True once [`SERIAL_FIRST`] executions have been recorded (a serial rate counts from
    /// then on, and a parallel one may be [`Rate::lost`]).
    pub fn known(&self) -> bool {
        self.recorded.load(Ordering::Relaxed) >= SERIAL_FIRST
    }

    /// True once [`WINDOW`] executions have been recorded (a parallel rate decides from then
    /// on; until then the choice assumes a perfect split plus the trips).
    pub fn trusted(&self) -> bool {
        self.recorded.load(Ordering::Relaxed) >= WINDOW as u32
    }

    /// True once [`SERIAL_FIRST`] executions have been recorded and their lower median, at
    /// this octave's rate, takes at least `serial_ns` for `units` units: a parallel path that
    /// loses as a rule. For cold workers, until the rate is [`Rate::trusted`], the choice then
    /// stays serial instead of paying for a whole window of losing executions first (on two
    /// vCPUs of a Zen 5, a 2^24-element UINT8 NonZero called between other work lost 10-30%
    /// on each of its first eight cold parallel executions, against about 650 µs on one
    /// thread; the fastest of them instead of the median let one early execution, faster than
    /// the serial time once the serial rate had drifted up, send the next five parallel too).
    /// Cold is the state a serial caller's workers are in, so its retries come (every
    /// [`RETRY_NS`] / 8 while the rate is young), and retries that win move the median back.
    /// Not for hot workers: they are found only just after a parallel execution, so a hot
    /// rate stopped early might never be retried.
    pub fn lost(&self, units: u64, serial_ns: u64) -> bool {
        self.known() && self.estimate_ns(units) >= serial_ns
    }

    /// True while fewer than two windows of executions have been recorded.
    pub fn young(&self) -> bool {
        self.recorded.load(Ordering::Relaxed) < 2 * WINDOW as u32
    }

    /// Adds an execution of `units` units that took `elapsed`. Racing updates may lose or
    /// overwrite one of them; the rate stays one of recent executions.
    pub fn record(&self, units: u64, elapsed: Duration) {
        if units == 0 {
            return;
        }
        let sample = femtos_per_unit(units, elapsed).clamp(1, u64::from(u32::MAX)) as u32;
        let n = self.recorded.load(Ordering::Relaxed);
        // Past u32::MAX, back to two windows, so that the ring keeps turning (slot
        // u32::MAX % WINDOW, the last, then 2 * WINDOW % WINDOW, the first: WINDOW is a
        // power of two) and the rate stays grown.
        self.recorded.store(
            n.checked_add(1).unwrap_or(2 * WINDOW as u32),
            Ordering::Relaxed,
        );
        self.window[n as usize % WINDOW].store(sample, Ordering::Relaxed);
        let mut v = [0u32; WINDOW];
        let mut len = 0;
        for slot in &self.window {
            let x = slot.load(Ordering::Relaxed);
            if x != 0 {
                v[len] = x;
                len += 1;
            }
        }
        let v = &mut v[..len];
        let value = if FASTEST {
            v.iter().copied().min().unwrap_or(sample)
        } else {
            v.sort_unstable();
            v[(len - 1) / 2]
        };
        self.value.store(value, Ordering::Relaxed);
        // After the new value, so that a note made from the old one is cleared.
        if FASTEST {
            self.unsettle();
        }
    }

    /// Forgets what [`Rates::settle`] found (the rates it read are changing). Writes only
    /// where there is something to forget: the line is read by every choice of the octave.
    fn unsettle(&self) {
        if self.settled.load(Ordering::Relaxed) != 0 {
            self.settled.store(0, Ordering::Relaxed);
        }
    }
}

/// Runs `f`, and where `timed` ([`Path::Serial`]) records its time in `rate` as `units` units
/// of serial work.
#[inline]
pub(crate) fn timed<R>(timed: bool, rate: &SerialRate, units: u64, f: impl FnOnce() -> R) -> R {
    if !timed {
        return f();
    }
    let t = Instant::now();
    let r = f();
    rate.record(units, t.elapsed());
    r
}

/// One trip through the workers in nanoseconds, per class of thread counts
/// ([`thread_class`]; 0: not measured yet), with [`TRIP_PROVISIONAL`] where too few trips
/// went through the team.
static TRIP_NS: [AtomicU64; THREAD_CLASSES] = [const { AtomicU64::new(0) }; THREAD_CLASSES];
/// A trip measured with fewer than [`TRIPS_FOR_GOOD`] of its five trips through the team (in
/// the same word as the trip, so that two callers measuring at once cannot leave a
/// provisional trip marked final).
const TRIP_PROVISIONAL: u64 = 1 << 63;
/// When a provisional trip is measured again, in [`now_ns`] nanoseconds (one caller claims it).
static TRIP_AGAIN: [AtomicU64; THREAD_CLASSES] = [const { AtomicU64::new(0) }; THREAD_CLASSES];
/// Trips of the five that must go through the team for their median to be kept for good.
const TRIPS_FOR_GOOD: usize = 3;
/// How long a provisional trip is used before it is measured again.
const TRIP_AGAIN_NS: u64 = 100_000_000;

/// One trip through the team, in nanoseconds: an empty job of one part per thread, measured
/// on `workers` the first time a choice is made for their class of thread counts (after a
/// trip that starts the pool if it is not running), then remembered. (A trip to sixteen hot
/// workers costs more than one to two; where no worker has arrived, the caller runs every
/// part and the trip is its claims alone.) Only trips through the team count: while another
/// caller holds it, no trip is made ([`Workers::trip`]), since one through rayon beside that
/// caller (25-100 µs on 16 cores) would keep the octaves of young rates serial where a trip
/// through the team lets them try the parallel path. With fewer than [`TRIPS_FOR_GOOD`] of
/// five through the team, the median of those is used (none: "no gain", as this caller's
/// parallel executions would run beside the other caller's too; the young rates' retries
/// still measure the parallel path), and measured again [`TRIP_AGAIN_NS`] later by one caller.
pub(crate) fn trip_ns(workers: Workers<'_>) -> u64 {
    let class = thread_class(workers.threads);
    let known = TRIP_NS[class].load(Ordering::Relaxed);
    if known != 0 {
        if known & TRIP_PROVISIONAL == 0 {
            return known;
        }
        // One caller measures again; the others go on with the provisional trip meanwhile.
        let again = &TRIP_AGAIN[class];
        let at = again.load(Ordering::Relaxed);
        let now = now_ns();
        if now < at
            || again
                .compare_exchange(
                    at,
                    now + TRIP_AGAIN_NS,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return known & !TRIP_PROVISIONAL;
        }
    }
    // The first trip may start the pool: not timed.
    if workers.trip().is_none() {
        return u64::MAX; // no pool: nothing to gain from one
    }
    let mut trips: Vec<Duration> = (0..5).filter_map(|_| workers.trip().flatten()).collect();
    trips.sort();
    let word = trip_word(&trips);
    if word & TRIP_PROVISIONAL != 0 {
        // Before the word: a caller that sees the word finds the time (or, reordered, 0: it
        // then measures at once, which costs only a measurement).
        TRIP_AGAIN[class].store(now_ns() + TRIP_AGAIN_NS, Ordering::Relaxed);
    }
    TRIP_NS[class].store(word, Ordering::Relaxed);
    word & !TRIP_PROVISIONAL
}

/// The word to keep from `trips` (sorted; those of five that went through the team): their
/// median in nanoseconds (none: the largest, "no gain"), with [`TRIP_PROVISIONAL`] where
/// there are fewer than [`TRIPS_FOR_GOOD`].
fn trip_word(trips: &[Duration]) -> u64 {
    let ns = match trips.len() {
        0 => !TRIP_PROVISIONAL,
        n => (trips[n / 2].as_nanos() as u64).clamp(1, !TRIP_PROVISIONAL),
    };
    if trips.len() >= TRIPS_FOR_GOOD {
        ns
    } else {
        ns | TRIP_PROVISIONAL
    }
}

/// Classes of thread counts with parallel rates (and trips) of their own, by the nearest power
/// of two: 2, 3–5, 6–11, 12–22, 23–45, and 46 or more threads. A parallel execution's time
/// depends on how many threads share it: a rate measured on two threads would keep sixteen
/// serial where they gain (a process with devices of several thread counts, a pool cut to
/// its share of a busy machine), and one measured on sixteen would send two parallel where
/// they lose. The nearest power, not the one below: a pool of 16 cut to 15 threads is closer
/// to its own 16 than to a device of 8.
const THREAD_CLASSES: usize = 6;

/// The class of `threads` (2 or more) threads: log2 rounded to the nearest (up from
/// 2^(k + 1/2)), less one.
/// (A table: every choice looks it up, and the rounding took a few dozen instructions.)
fn thread_class(threads: usize) -> usize {
    const fn class(threads: usize) -> u8 {
        let t = if threads < 2 { 2 } else { threads };
        let k = t.ilog2();
        let nearest = if t * t >= 1 << (2 * k + 1) { k + 1 } else { k };
        let nearest = nearest as usize;
        (if nearest < THREAD_CLASSES {
            nearest
        } else {
            THREAD_CLASSES
        }) as u8
            - 1
    }
    const TABLE: [u8; 65] = {
        let mut table = [0; 65];
        let mut t = 0;
        while t < 65 {
            table[t] = class(t);
            t += 1;
        }
        table
    };
    usize::from(TABLE[threads.min(64)]) // 46 and more are one class
}

/// Octaves of sizes with rates of their own: units from 2^k to 2^(k+1) for k below 39, and
/// all from 2^39 on.
const OCTAVES: usize = 40;

/// The octave of `units`.
fn octave(units: u64) -> usize {
    (units.max(1).ilog2() as usize).min(OCTAVES - 1)
}

/// A kernel's measured serial and parallel rates for one class of its work (inputs and outputs
/// of one kind of layout and element size), one of each per octave of sizes, the parallel ones
/// per class of thread counts too ([`thread_class`]). An octave whose serial rate is not
/// measured yet runs serially (and is timed) before any parallel choice; until [`WINDOW`]
/// parallel executions of that octave and thread class have been timed, the choice assumes a
/// perfect split plus the trips. All zeros until measured, so a kernel's table of classes
/// costs no space in the library file (and no memory in pages never used).
pub(crate) struct Rates {
    serial: [SerialRate; OCTAVES],
    parallel: [Parallel; THREAD_CLASSES],
}

/// The parallel rates of one class of work on one class of thread counts, and when their
/// paths were last retried.
struct Parallel {
    /// Executions that had to wake the workers (`[0]`, cold) and that found them on the team,
    /// within their hot window (`[1]`, hot), from the octave of 2^[`PARALLEL_OCTAVE_MIN`]
    /// units on (every floor is above it; smaller sizes share its rates).
    rates: [[ParallelRate; PARALLEL_OCTAVES]; 2],
    /// When the parallel path was last retried against its rate, in [`now_ns`] nanoseconds,
    /// on cold (`[0]`) and on hot (`[1]`) workers, per octave (as `rates`): a retry on cold
    /// workers leaves them hot, and the hot rate then needs a retry of its own, or a slow hot
    /// sample would never be measured again. Per octave, since each octave's period is its
    /// own ([`parallel_retry_ns`]): with one time for all, a small size retried every 100 ms
    /// would keep a large one's period of seconds from ever passing.
    retried: [[AtomicU64; PARALLEL_OCTAVES]; 2],
    /// When the serial path was last retried against the parallel rate, likewise per octave.
    serial_retried: [AtomicU64; PARALLEL_OCTAVES],
    /// When a choice last found the workers cold where hot ones would have paid, in
    /// [`now_ns`] nanoseconds (for [`Parallel::back_to_back`]).
    cold_no: AtomicU64,
    /// Parallel executions on hot workers owed to each octave (`[i]`: the octave of
    /// `rates[_][i]`) whatever its rates say ([`Parallel::owe_tries`]).
    tries: [AtomicU8; PARALLEL_OCTAVES],
}

/// The smallest octave with parallel rates of its own.
const PARALLEL_OCTAVE_MIN: usize = 10;
/// Octaves with parallel rates of their own.
const PARALLEL_OCTAVES: usize = OCTAVES - PARALLEL_OCTAVE_MIN;

impl Parallel {
    const fn new() -> Self {
        Parallel {
            rates: [const { [const { ParallelRate::new() }; PARALLEL_OCTAVES] }; 2],
            retried: [const { [const { AtomicU64::new(0) }; PARALLEL_OCTAVES] }; 2],
            serial_retried: [const { AtomicU64::new(0) }; PARALLEL_OCTAVES],
            cold_no: AtomicU64::new(0),
            tries: [const { AtomicU8::new(0) }; PARALLEL_OCTAVES],
        }
    }

    /// The octave of `units`' count of owed executions.
    fn tries(&self, units: u64) -> &AtomicU8 {
        &self.tries[Self::index(units)]
    }

    /// Owes the octave of `units` at least `n` parallel executions on hot workers, which the
    /// next choices that find them hot and that the rates send serial take instead
    /// ([`Parallel::take_try`]). Owed after a retry on cold workers whose rate is no longer
    /// young ([`TRY_RUN`]: the workers it wakes stay on the team for their hot window, and the
    /// hot rate, which a choice reads only while they are, is retried too) and after a
    /// parallel execution that beat the serial estimate (one: rates that say no may be out of
    /// date, and each execution that wins is followed by another, until one loses or the
    /// rates say yes). So a retry costs at most [`TRY_RUN`] + 1 losing executions. Owed
    /// executions wait for a choice that finds the workers hot and the rates saying no,
    /// however late (one owed by a win while the rates said yes may so run much later).
    ///
    /// Without them, the rate of hot workers was retried only when a clock read fell within
    /// their window: on two vCPUs of a Zen 5, a run of slow executions (the other vCPU taken
    /// for a few milliseconds) turned the median of a caller's 2^19-element NonZero on hot
    /// workers from 12 to 28 µs, against 27 serial, and the caller stayed serial for more than
    /// ten seconds. One execution is not enough: the first on workers just woken took 40-60
    /// µs there, the next ones less and less. (On cold workers an owed execution would be a
    /// second retry: the one just made rarely leaves the workers on the team before the
    /// caller's next choice, a wake taking longer than a serial execution.)
    fn owe_tries(&self, units: u64, n: u8) {
        let tries = self.tries(units);
        if tries.load(Ordering::Relaxed) < n {
            tries.fetch_max(n, Ordering::Relaxed);
        }
    }

    /// True, and one fewer owed, where the octave of `units` is owed a parallel execution.
    fn take_try(&self, units: u64) -> bool {
        let tries = self.tries(units);
        tries.load(Ordering::Relaxed) != 0
            && tries
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
    }

    /// True where the octave of `units` is owed a parallel execution.
    #[cfg(test)]
    fn owed(&self, units: u64) -> bool {
        self.tries(units).load(Ordering::Relaxed) != 0
    }

    /// The index of the octave of `units` in the per-octave arrays.
    fn index(units: u64) -> usize {
        octave(units).saturating_sub(PARALLEL_OCTAVE_MIN)
    }

    /// The rate of the octave of `units`, of executions that found the workers hot or not.
    fn rate(&self, units: u64, hot: bool) -> &ParallelRate {
        &self.rates[usize::from(hot)][Self::index(units)]
    }

    /// When the parallel path of the octave of `units` was last retried on workers hot or not.
    fn retried(&self, units: u64, hot: bool) -> &AtomicU64 {
        &self.retried[usize::from(hot)][Self::index(units)]
    }

    /// True when the previous choice that found the workers cold where hot ones would have
    /// paid was less than the hot window plus one serial execution before this one: the
    /// caller calls back to back, so the workers that this execution wakes will still be on
    /// the team for its next one, which then finds them hot (unless the team is contended,
    /// which the caller checks). (Each choice alone would stay serial: the wake costs more
    /// than one execution gains.) Reads the clock.
    fn back_to_back(&self, serial_ns: u64) -> bool {
        let window = window_ns();
        if window == 0 {
            return false;
        }
        let now = now_ns();
        let last = self.cold_no.swap(now, Ordering::Relaxed);
        last != 0 && now.saturating_sub(last) < window.saturating_add(serial_ns)
    }
}

/// The parallel path is retried once per this many nanoseconds when its measured rate says no,
/// to keep that rate current (a busy moment should not rule it out for good), or less often
/// for long executions ([`parallel_retry_ns`]). A retry costs what its executions (itself and
/// up to [`TRY_RUN`] owed ones) lose, about their trips through the pool where the inputs are
/// small (tens of microseconds on a busy two-core machine): once per 100 ms, a few tenths of
/// a percent of the time for each octave of sizes that a caller runs where its parallel path
/// loses. (Retrying one choice in a fixed count instead cost up to 2× on
/// inputs just above the floor, where one trip is many executions' worth of work.)
const RETRY_NS: u64 = 100_000_000;
/// A serial retry costs what the serial path loses to the parallel one, up to a whole serial
/// execution: a 2^26-element NonZero took about 30 ms on one thread of a 16-core Xeon and 6 ms
/// on all, so a retry per [`RETRY_NS`] would cost a caller that calls back to back about a
/// fifth of its time. The serial path is retried at most once per this many serial
/// executions' worth of time (a cost of at most 1/64, 1.6%).
const SERIAL_RETRY_SPAN: u64 = 64;

/// The period of the serial path's retries for an execution whose serial estimate is
/// `serial_ns`: [`RETRY_NS`], or [`SERIAL_RETRY_SPAN`] serial executions if longer.
fn serial_retry_ns(serial_ns: u64) -> u64 {
    RETRY_NS.max(serial_ns.saturating_mul(SERIAL_RETRY_SPAN))
}

/// Parallel executions on hot workers owed after a retry on cold workers of a rate that is no
/// longer young ([`Parallel::owe_tries`]).
const TRY_RUN: u8 = 4;

/// The period of the parallel path's retries on workers `hot` or cold, for an execution whose
/// serial estimate is `serial_ns`: an eighth of [`RETRY_NS`] while the rate is `young` (its
/// first executions are often slow: the workers' first wakes, new pages; and a median needs
/// half a window of new ones to move; a cost paid once, since each retry adds to the rate);
/// then [`RETRY_NS`], or where longer, [`SERIAL_RETRY_SPAN`] times the executions a retry may
/// take (on cold workers itself and the [`TRY_RUN`] it owes, on hot ones itself), each of
/// which may lose up to a serial execution's time: a retry then costs at most about 1/64 of a
/// caller's time. (On two vCPUs
/// of a Zen 5 a 2^24-element FLOAT32 NonZero at density 0.5 took 3.3 ms on one thread and 3.5
/// on two: five executions of a retry every 100 ms would have been a sixth of its calls, each
/// losing 5%.)
fn parallel_retry_ns(serial_ns: u64, young: bool, hot: bool) -> u64 {
    if young {
        return RETRY_NS / 8;
    }
    let executions = if hot { 1 } else { 1 + u64::from(TRY_RUN) };
    RETRY_NS.max(serial_ns.saturating_mul(SERIAL_RETRY_SPAN * executions))
}

/// Choices per look at the clock for the retries.
const CLOCK_EVERY: u32 = 16;

impl Rates {
    /// Rates not measured yet.
    pub const fn new() -> Self {
        Rates {
            serial: [const { SerialRate::new() }; OCTAVES],
            parallel: [const { Parallel::new() }; THREAD_CLASSES],
        }
    }

    /// True once per [`CLOCK_EVERY`] choices for the octave of `units`: the clock that times
    /// the retries is read only then (a read took about 25 ns, 5% of a 2^14-element execution),
    /// and a serial execution is then timed whatever else says (see [`serial_worth_timing`]).
    /// A count per octave: a caller that alternates sizes of two octaves gets ticks in each
    /// (with one count for all, a period that divides [`CLOCK_EVERY`] gave every tick to one
    /// of them, and the other's retries never came). A racy count: two threads may both see
    /// the same tick.
    fn tick(&self, units: u64) -> bool {
        let choices = &self.serial(units).choices;
        let n = choices.load(Ordering::Relaxed);
        choices.store(n.wrapping_add(1), Ordering::Relaxed);
        n.is_multiple_of(CLOCK_EVERY)
    }

    /// The serial rate of the octave of `units` (for [`timed`]).
    pub fn serial(&self, units: u64) -> &SerialRate {
        &self.serial[octave(units)]
    }

    /// The estimated serial time of `units` units, in nanoseconds (0: not measured yet).
    fn serial_ns(&self, units: u64) -> u64 {
        self.serial(units).estimate_ns(units)
    }

    /// The parallel rates of executions on `threads` threads.
    fn on(&self, threads: usize) -> &Parallel {
        &self.parallel[thread_class(threads)]
    }

    /// The parallel rate of the octave of `units` on `threads` threads, of executions that
    /// found the workers hot or not.
    fn parallel(&self, units: u64, threads: usize, hot: bool) -> &ParallelRate {
        self.on(threads).rate(units, hot)
    }

    /// Adds a parallel execution of `units` units on `threads` threads (the caller and its
    /// helpers) that took `elapsed` to its octave's rate (`hot`: it found the workers on the
    /// team, as [`parallel_pays`] said).
    /// An execution faster than the serial estimate is followed by another
    /// ([`Parallel::owe_tries`]). Not for executions from a ceiling, which no choice is made
    /// for (their owed executions would go to the sizes below it in the same octave).
    pub fn record_parallel(&self, units: u64, threads: usize, hot: bool, elapsed: Duration) {
        self.parallel(units, threads, hot).record(units, elapsed);
        self.serial(units).unsettle();
        let serial = self.serial_ns(units);
        if serial != 0 && elapsed.as_nanos() < u128::from(serial) {
            self.on(threads).owe_tries(units, 1);
        }
    }

    /// True when the choice for `units` units on cold workers of thread class `class` was
    /// settled by [`Rates::settle`] and no execution of the octave has been recorded since.
    fn settled(&self, units: u64, class: usize) -> bool {
        self.serial(units).settled.load(Ordering::Relaxed) == class as u32 + 1
    }

    /// Notes, where it holds, that the rates of the octave of `units` settle the choice on cold
    /// workers of thread class `class` without looking at the clock: serial, untimed. It holds
    /// where the serial rate is known and no longer young, the parallel rate on hot workers is
    /// trusted, and both parallel rates (the cold one known: [`Rate::lost`]) are per unit no
    /// faster than the serial one, so that [`measured_pays`] says no at every size of the
    /// octave and [`serial_worth_timing`] too. A choice that finds it then skips both (they
    /// cost a 2^14-element NonZero on two vCPUs of a Zen 5 about 25 ns, 4-6% of its time),
    /// until a record of the octave's serial or parallel executions clears it. (Between a
    /// choice that reads the rates and its note, another thread's record may come; the stale
    /// note then holds until the octave's next recorded execution, at the latest that of its
    /// next tick: a tick's choice reads the rates, and its execution is timed or parallel.)
    fn settle(&self, units: u64, class: usize) {
        let serial = self.serial(units);
        let parallel = &self.parallel[class];
        let (cold, hot) = (parallel.rate(units, false), parallel.rate(units, true));
        let s = serial.value.load(Ordering::Relaxed);
        let holds = serial.known()
            && !serial.young()
            && cold.known()
            && hot.trusted()
            && cold.value.load(Ordering::Relaxed) >= s
            && hot.value.load(Ordering::Relaxed) >= s;
        if holds {
            serial.settled.store(class as u32 + 1, Ordering::Relaxed);
        }
    }
}

/// True, for one caller, when the last retry of the path (`retried`) was at least `period`
/// nanoseconds before `now`.
fn retry_due(retried: &AtomicU64, now: u64, period: u64) -> bool {
    let last = retried.load(Ordering::Relaxed);
    now.saturating_sub(last) >= period
        && retried
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
}

/// Bounds of the measured choice, in the kernel's units.
pub(crate) struct Bounds {
    /// Below this, always serial.
    pub floor: u64,
    /// From this on, always parallel (with more than one thread).
    pub ceiling: u64,
}

/// Where an execution runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Path {
    /// On the calling thread; `timed`: its time is worth recording in the serial rate
    /// ([`timed`]), since a later choice may read it (see [`serial_worth_timing`]).
    Serial { timed: bool },
    /// On the caller and at most `helpers` workers ([`Workers::at_most`]: the pool's share of
    /// the machine, see [`crate::load`]); `hot`: they are on the team now, within their hot
    /// window, so the execution does not pay for waking them.
    Parallel { hot: bool, helpers: usize },
}

/// Where `units` of work should run on `workers`: in parallel with more than one thread, from
/// the floor, and either from the ceiling or where the measurements say it gains — the
/// parallel rate measured for this octave and for the workers' state now (hot or cold), or
/// until there is one, the serial estimate split over the threads plus `trips` trips through
/// the pool, is less than the serial estimate.
///
/// The workers' state counts: waking them cost 25–100 µs on 16 cores of a virtual machine,
/// while a trip to workers in their hot window costs a few. A rate that mixed the two would
/// keep a caller that calls back to back on one thread after a slow start (each retry of the
/// parallel path then finds the workers asleep and measures the wake), where the workers,
/// once awake, would stay so.
pub(crate) fn parallel_pays(
    units: u64,
    bounds: &Bounds,
    rates: &Rates,
    trips: u64,
    workers: Workers<'_>,
) -> Path {
    // (Sizes below the first octave of parallel rates share its rates and owed executions,
    // but not its settled note: no choice is made for them.)
    debug_assert!(bounds.floor >= 1 << PARALLEL_OCTAVE_MIN);
    if workers.threads < 2 || units < bounds.floor {
        return Path::Serial { timed: false };
    }
    if forced() {
        return Path::Parallel {
            hot: workers.hot(),
            helpers: workers.threads - 1,
        };
    }
    measured_path(units, bounds, rates, trips, workers)
}

/// [`parallel_pays`] from the floor on, on more than one thread, without `DMLS_PARALLEL`.
fn measured_path(
    units: u64,
    bounds: &Bounds,
    rates: &Rates,
    trips: u64,
    workers: Workers<'_>,
) -> Path {
    // The clock is read once per CLOCK_EVERY choices: for the retries and the machine's load.
    let now = rates.tick(units).then(now_ns);
    // On a machine with more runnable threads than CPUs, as many workers as the pool's share
    // (none: serial); and never more than the process has CPUs ([`parts_threads`]).
    let workers = workers
        .within_share(now)
        .at_most(crate::cpus::parallelism().saturating_sub(1));
    if workers.threads < 2 {
        return Path::Serial { timed: true };
    }
    let hot = workers.hot();
    let parallel = || Path::Parallel {
        hot,
        helpers: workers.threads - 1,
    };
    if units >= bounds.ceiling {
        return parallel();
    }
    // Cold workers, no retry to look at, and rates that have settled the choice (see
    // Rates::settle): what the rest would say, without reading them again.
    let class = thread_class(workers.threads);
    let plain = now.is_none() && !hot;
    if plain && rates.settled(units, class) {
        return Path::Serial { timed: false };
    }
    if measured_pays(units, rates, trips, workers, hot, || now) {
        return parallel();
    }
    let timed = now.is_some() || serial_worth_timing(units, rates, workers);
    if plain && !timed {
        rates.settle(units, class);
    }
    Path::Serial { timed }
}

/// Whether a serial execution of `units` units that the choice kept serial is worth timing:
/// while its rate is young, and while the parallel path could win, that is unless the
/// parallel rate of this octave on hot workers (the parallel path's best case) is trusted and
/// no faster than the serial one. Where the parallel path loses even so, the two clock reads
/// and the record buy nothing: on two vCPUs of a Zen 5 they took 50-80 ns of a
/// 2^12-2^15-element NonZero of 180-1,700 ns. The octave's one choice in [`CLOCK_EVERY`] that
/// reads the clock ([`Rates::tick`]) is timed all the same, so the serial rate still follows
/// the machine; the parallel one is retried as before.
fn serial_worth_timing(units: u64, rates: &Rates, workers: Workers<'_>) -> bool {
    let rate = rates.serial(units);
    if rate.young() {
        return true;
    }
    let serial = rate.estimate_ns(units);
    let hot = rates.on(workers.threads).rate(units, true);
    !(hot.trusted() && hot.estimate_ns(units) >= serial)
}

/// The measured part of [`parallel_pays`] (no bounds, no `DMLS_PARALLEL`) for workers `hot`
/// or not, with the clock `now` (nanoseconds) that times the retries, `None` when this call
/// does not look at them.
fn measured_pays(
    units: u64,
    rates: &Rates,
    trips: u64,
    workers: Workers<'_>,
    hot: bool,
    now: impl FnOnce() -> Option<u64>,
) -> bool {
    let serial = rates.serial_ns(units);
    if serial == 0 {
        // Not known yet: serial executions first, which are timed (see SERIAL_FIRST).
        return false;
    }
    let parallel = rates.on(workers.threads);
    let pays_when = |hot: bool| {
        let rate = parallel.rate(units, hot);
        if rate.trusted() {
            rate.estimate_ns(units) < serial
        } else {
            // Not measured enough yet: a perfect split plus the trips, unless on cold workers
            // the executions so far lose as a rule.
            (hot || !rate.lost(units, serial))
                && gains(serial, workers.threads as u64, trips, trip_ns(workers))
        }
    };
    // Under contention workers leave after each job: the next one finds them cold too. And
    // once every worker is called (some still on their way), a parallel execution would
    // call no more: the next one finds them hot or not whatever this one does.
    let pays = pays_when(hot)
        || (!hot
            && pays_when(true)
            && parallel.back_to_back(serial)
            && !workers.contended()
            && !workers.called());
    match now() {
        None => pays || (hot && parallel.take_try(units)),
        Some(now) if pays => {
            let retried = &parallel.serial_retried[Parallel::index(units)];
            !retry_due(retried, now, serial_retry_ns(serial))
        }
        Some(now) => {
            let young = parallel.rate(units, hot).young();
            let period = parallel_retry_ns(serial, young, hot);
            if retry_due(parallel.retried(units, hot), now, period) {
                // (A young rate's retries come eight times as often and need no run.)
                if !hot && !young {
                    parallel.owe_tries(units, TRY_RUN);
                }
                true
            } else {
                hot && parallel.take_try(units)
            }
        }
    }
}

/// The threads an execution on `workers` splits its parts for: as many as the workers, but no
/// more than the process has CPUs ([`crate::cpus::parallelism`]), except under
/// `DMLS_PARALLEL=always`. A pool of more threads than that (a device's `thread_count`, or
/// `RAYON_NUM_THREADS`, above the CPUs) cannot run them all at once: its slots would go to
/// whichever threads run, a different one each execution, and their parts meet their data in
/// another core's cache. (A pool of 16 on two vCPUs of an AMD Zen 4 took 1.03-2.52x the time
/// of a device of two threads from 2^14 to 2^22 elements, split for 16, and mostly ran
/// serially; split for two, 0.96-1.21x.) Forced, the parts stay as many as the threads, so that
/// the tests run more parts than cores.
pub(crate) fn parts_threads(workers: Workers<'_>) -> usize {
    parts_threads_of(workers.threads, forced(), crate::cpus::parallelism())
}

/// [`parts_threads`] for `threads` workers, forced or not, on `cpus` CPUs.
fn parts_threads_of(threads: usize, forced: bool, cpus: usize) -> usize {
    if forced {
        threads
    } else {
        threads.min(cpus.max(1))
    }
}

/// 0: `DMLS_PARALLEL` not read yet; 1: not forced; 2: forced.
static FORCED: AtomicU8 = AtomicU8::new(0);

/// True when `DMLS_PARALLEL=always` (read once: reading the environment took about 60 ns, a
/// twentieth of a 2^14-element execution) or [`force_parallel`] was called.
fn forced() -> bool {
    match FORCED.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var_os("DMLS_PARALLEL").is_some_and(|v| v == "always");
            // (A `force_parallel` meanwhile wins.)
            match FORCED.compare_exchange(0, 1 + u8::from(on), Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => on,
                Err(now) => now == 2,
            }
        }
        f => f == 2,
    }
}

/// Takes the parallel paths from their floors on from now, as `DMLS_PARALLEL=always` does
/// (for tests that set it after the library has read the environment).
pub(crate) fn force_parallel() {
    FORCED.store(2, Ordering::Relaxed);
}

/// The parallel estimate against the serial one.
fn gains(serial_ns: u64, threads: u64, trips: u64, trip_ns: u64) -> bool {
    (serial_ns / threads).saturating_add(trips.saturating_mul(trip_ns)) < serial_ns
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records a parallel execution as both hot and cold (for the tests of what does not
    /// depend on the workers' state).
    fn record_both(r: &Rates, units: u64, elapsed: Duration) {
        record(r, units, false, elapsed);
        record(r, units, true, elapsed);
    }

    /// Rates whose serial executions of each of `units` took 1 ns per unit.
    fn serial_at_1ns(units: &[u64]) -> Rates {
        let r = Rates::new();
        for &u in units {
            for _ in 0..SERIAL_FIRST {
                r.serial(u).record(u, Duration::from_nanos(u));
            }
        }
        r
    }

    /// The choices on cold workers of two threads for `units` units, with the clock at `from`
    /// to `to` nanoseconds in steps of `step`, that go parallel (`parallel`) or serial.
    fn count_choices(
        r: &Rates,
        units: u64,
        (from, to, step): (u64, u64, u64),
        parallel: bool,
    ) -> usize {
        let two = Workers::without_pool(2);
        (from..to)
            .step_by(step as usize)
            .filter(|&t| measured_pays(units, r, 1, two, false, || Some(t)) == parallel)
            .count()
    }

    /// Records [`WINDOW`] parallel executions on two threads that each took `elapsed`, in the
    /// rates only (no parallel execution owed: see [`Parallel::owe_tries`]).
    fn record(r: &Rates, units: u64, hot: bool, elapsed: Duration) {
        for _ in 0..WINDOW {
            r.parallel(units, 2, hot).record(units, elapsed);
        }
    }

    #[test]
    fn a_trip_of_too_few_trips_through_the_team_is_provisional() {
        let us = |n: &[u64]| {
            n.iter()
                .map(|&u| Duration::from_micros(u))
                .collect::<Vec<_>>()
        };
        assert_eq!(trip_word(&us(&[1, 2, 3, 4, 90])), 3_000);
        assert_eq!(trip_word(&us(&[1, 2, 3])), 2_000);
        assert_eq!(trip_word(&us(&[1, 2])), 2_000 | TRIP_PROVISIONAL);
        assert_eq!(trip_word(&[]), u64::MAX);
        assert_eq!(trip_word(&[Duration::ZERO; 3]), 1);
    }

    #[test]
    fn rates_in_64_bits_are_those_in_128() {
        let wide_ns = |u: u64, f: u64| {
            (u128::from(u) * u128::from(f) / 1_000_000).min(u128::from(u64::MAX)) as u64
        };
        let wide_femtos = |u: u64, e: Duration| {
            (e.as_nanos() * 1_000_000 / u128::from(u)).min(u128::from(u64::MAX)) as u64
        };
        let edges = [
            1,
            2,
            999_999,
            1_000_000,
            1 << 14,
            u64::from(u32::MAX),
            1 << 40,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64; // a fixed sequence: nothing to print on failure
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..10_000 {
            let (u, f) = (next() >> (next() % 64), next() >> (next() % 64));
            for (u, f) in [(u, f), (u.max(1), f)] {
                assert_eq!(ns(u, f), wide_ns(u, f), "ns({u}, {f})");
            }
            // Mostly below the 64-bit product's limit (u64::MAX / 10^6 ns, about 5.1 hours),
            // some above.
            let e = Duration::from_nanos(next() >> (next() % 64));
            let u = u.max(1);
            assert_eq!(
                femtos_per_unit(u, e),
                wide_femtos(u, e),
                "{u} units in {e:?}"
            );
        }
        for &u in &edges {
            for &f in &[0, 1, u64::from(u32::MAX), u64::MAX] {
                assert_eq!(ns(u, f), wide_ns(u, f), "ns({u}, {f})");
            }
            let limit = u64::MAX / 1_000_000;
            let nanos = [0, 1, limit - 1, limit, limit + 1, u64::MAX];
            for e in nanos
                .map(Duration::from_nanos)
                .into_iter()
                .chain([Duration::MAX])
            {
                assert_eq!(
                    femtos_per_unit(u, e),
                    wide_femtos(u, e),
                    "{u} units in {e:?}"
                );
            }
        }
    }

    #[test]
    fn a_parallel_rate_is_the_median_of_its_last_executions() {
        let r = ParallelRate::new();
        assert_eq!(r.estimate_ns(1000), 0);
        // The first execution whole, then the lower median of those so far.
        r.record(1000, Duration::from_micros(8));
        assert_eq!(r.estimate_ns(1000), 8000);
        r.record(1000, Duration::from_micros(16));
        assert_eq!(r.estimate_ns(1000), 8000);
        r.record(1000, Duration::from_micros(12));
        assert_eq!(r.estimate_ns(1000), 12_000);
        assert!(!r.trusted());
        // One very slow execution moves it by one place only.
        r.record(1000, Duration::from_millis(50));
        assert_eq!(r.estimate_ns(1000), 12_000);
        // Executions of 2 µs: the median follows once they are half the window...
        for _ in 0..3 {
            r.record(1000, Duration::from_micros(2));
        }
        assert_eq!(r.estimate_ns(1000), 8000);
        r.record(1000, Duration::from_micros(2));
        assert!(r.trusted());
        assert_eq!(r.estimate_ns(1000), 2000);
        // ...and the first ones are forgotten once eight later ones have replaced them.
        for _ in 0..4 {
            r.record(1000, Duration::from_micros(3));
        }
        assert_eq!(r.estimate_ns(1000), 2000);
        r.record(1000, Duration::from_micros(3));
        assert_eq!(r.estimate_ns(1000), 3000);
        r.record(0, Duration::from_secs(1));
        assert_eq!(r.estimate_ns(1000), 3000);
    }

    #[test]
    fn a_wide_parallel_rate_is_not_taken_for_its_fast_executions() {
        // Two executions in ten at 1.68 µs, the rest at 2.3 (a 2^16-element identity on two
        // vCPUs, against 1.77 µs on one thread): the rate says 2.3.
        let r = ParallelRate::new();
        for i in 0..40 {
            let ns = if i % 5 == 0 { 1680 } else { 2300 };
            r.record(1 << 18, Duration::from_nanos(ns));
        }
        assert!((2299..=2300).contains(&r.estimate_ns(1 << 18)));
    }

    #[test]
    fn a_serial_rate_is_the_fastest_of_its_last_executions() {
        // Unknown until three executions, then the fastest of them (the first, at 26 ns per
        // unit, pays for new pages).
        let r = SerialRate::new();
        for us in [26, 8, 9] {
            assert_eq!(r.estimate_ns(1000), 0);
            r.record(1000, Duration::from_micros(us));
        }
        assert!(r.known());
        assert_eq!(r.estimate_ns(1000), 8000);
        // Slower executions (something ran beside them) do not move it while a fast one is
        // among the last eight...
        for _ in 0..6 {
            r.record(1000, Duration::from_micros(24));
            assert_eq!(r.estimate_ns(1000), 8000);
        }
        // ...and a lasting change wins once it fills the window.
        r.record(1000, Duration::from_micros(24));
        assert_eq!(r.estimate_ns(1000), 9000);
        r.record(1000, Duration::from_micros(24));
        assert_eq!(r.estimate_ns(1000), 24_000);
        // A faster execution counts at once.
        r.record(1000, Duration::from_micros(5));
        assert_eq!(r.estimate_ns(1000), 5000);
        r.record(0, Duration::from_secs(1));
        assert_eq!(r.estimate_ns(1000), 5000);
    }

    #[test]
    fn parallel_only_when_the_trips_are_paid_for() {
        // 2 threads, 2 trips of 5 µs: 40 µs of work becomes 20 + 10 µs.
        assert!(gains(40_000, 2, 2, 5_000));
        // 20 µs becomes 10 + 10: no gain.
        assert!(!gains(20_000, 2, 2, 5_000));
        // More threads pay sooner.
        assert!(gains(20_000, 8, 2, 5_000));
        // An unmeasurable pool never pays.
        assert!(!gains(u64::MAX / 2, 2, 1, u64::MAX));
    }

    #[test]
    fn serial_executions_are_timed_while_young_and_where_parallel_could_pay() {
        let r = Rates::new();
        let two = Workers::without_pool(2);
        let units = 1 << 20;
        assert!(serial_worth_timing(units, &r, two), "a young rate is timed");
        for _ in 0..2 * WINDOW {
            r.serial(units).record(units, Duration::from_nanos(1000));
        }
        assert!(serial_worth_timing(units, &r, two), "no parallel rate yet");
        let hot = r.on(2).rate(units, true);
        for _ in 0..WINDOW {
            hot.record(units, Duration::from_nanos(900));
        }
        assert!(
            serial_worth_timing(units, &r, two),
            "the parallel path may win"
        );
        for _ in 0..WINDOW {
            hot.record(units, Duration::from_nanos(1100));
        }
        assert!(
            !serial_worth_timing(units, &r, two),
            "the parallel path loses even on hot workers"
        );
    }

    /// Random rates: whenever they settle an octave's choice on cold workers, the full choice
    /// says the same (serial, untimed) at every size of the octave, and any record of the
    /// octave's executions clears the note.
    #[test]
    fn a_settled_choice_is_what_the_rates_say() {
        use rand::{Rng, SeedableRng};
        let seed: u64 = rand::rng().random();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut settled = 0;
        for _ in 0..2000 {
            let r = Rates::new();
            let threads = rng.random_range(2..=20);
            let w = Workers::without_pool(threads);
            let class = thread_class(threads);
            let base: u64 = 1 << rng.random_range(14..24);
            let at = |rng: &mut rand::rngs::SmallRng| base + rng.random_range(0..base);
            // Serial about 1 ns per unit; parallel 0.5-2 ns per unit; some rates not trusted.
            for _ in 0..rng.random_range(WINDOW..=2 * WINDOW + 2) {
                let u = at(&mut rng);
                r.serial(u)
                    .record(u, Duration::from_nanos(u * rng.random_range(90..110) / 100));
            }
            for hot in [false, true] {
                for _ in 0..rng.random_range(WINDOW / 2..=WINDOW + 1) {
                    let u = at(&mut rng);
                    let e = Duration::from_nanos(u * rng.random_range(50..200) / 100);
                    r.parallel(u, threads, hot).record(u, e);
                }
            }
            if rng.random_bool(0.2) {
                r.on(threads).owe_tries(at(&mut rng), 1);
            }
            r.settle(at(&mut rng), class);
            if !r.settled(base, class) {
                continue;
            }
            settled += 1;
            for _ in 0..8 {
                let u = at(&mut rng);
                assert!(r.settled(u, class), "seed {seed}: one note per octave");
                assert!(
                    !measured_pays(u, &r, 1, w, false, || None) && !serial_worth_timing(u, &r, w),
                    "seed {seed}: settled at {u} units on {threads} threads but the rates differ"
                );
            }
            assert!(
                !r.settled(base, (class + 1) % THREAD_CLASSES),
                "seed {seed}: another class"
            );
            let u = at(&mut rng);
            match rng.random_range(0..3) {
                0 => r.serial(u).record(u, Duration::from_nanos(u)),
                n => r.record_parallel(u, threads, n == 2, Duration::from_nanos(u)),
            }
            assert!(
                !r.settled(base, class),
                "seed {seed}: a record clears the note"
            );
        }
        assert!(
            settled > 20,
            "seed {seed}: only {settled} of 2000 rates settled"
        );

        // Executions owed to hot workers do not keep the note from cold ones (a hot choice
        // reads the rates in full and takes them).
        let r = serial_at_1ns(&[1 << 16]);
        record(&r, 1 << 16, false, Duration::from_nanos(2 << 16));
        record(&r, 1 << 16, true, Duration::from_nanos(2 << 16));
        for _ in 0..2 * WINDOW {
            r.serial(1 << 16)
                .record(1 << 16, Duration::from_nanos(1 << 16));
        }
        r.on(2).owe_tries(1 << 16, TRY_RUN);
        r.settle(1 << 16, thread_class(2));
        assert!(r.settled(1 << 16, thread_class(2)));
        assert!(measured_pays(
            1 << 16,
            &r,
            1,
            Workers::without_pool(2),
            true,
            || None
        ));
    }

    #[test]
    fn a_choice_on_cold_workers_is_settled_between_ticks() {
        // (measured_path: parallel_pays without DMLS_PARALLEL, which the test suite sets.)
        let r = serial_at_1ns(&[1 << 16]);
        let units = 1 << 16;
        for _ in 0..2 * WINDOW {
            r.serial(units).record(units, Duration::from_nanos(units));
        }
        let two = Workers::without_pool(2);
        let b = Bounds {
            floor: 1 << 14,
            ceiling: 1 << 30,
        };
        // Parallel slower than serial on hot and cold workers, and no retry due in this test.
        record_both(&r, units, Duration::from_nanos(units * 2));
        for hot in [false, true] {
            r.on(2)
                .retried(units, hot)
                .store(u64::MAX, Ordering::Relaxed);
        }
        let mut timed = 0;
        for i in 0..4 * CLOCK_EVERY {
            match measured_path(units, &b, &r, 1, two) {
                Path::Serial { timed: t } => timed += usize::from(t),
                p => panic!("{p:?}"),
            }
            // Only the ticks are timed (the first choice is one), and from the first choice
            // after it the note holds (nothing is recorded here).
            assert_eq!(r.settled(units, thread_class(2)), i > 0);
        }
        assert_eq!(timed, 4, "one timed choice per tick");
        // A parallel execution found faster clears the note; the next choices read the rates.
        r.record_parallel(units, 2, false, Duration::from_nanos(units / 4));
        assert!(!r.settled(units, thread_class(2)));
        for _ in 0..WINDOW {
            r.record_parallel(units, 2, false, Duration::from_nanos(units / 4));
            r.record_parallel(units, 2, true, Duration::from_nanos(units / 4));
        }
        let parallel = (0..CLOCK_EVERY)
            .filter(|_| matches!(measured_path(units, &b, &r, 1, two), Path::Parallel { .. }))
            .count();
        assert!(parallel >= CLOCK_EVERY as usize - 1, "{parallel}");
    }

    #[test]
    fn a_hot_rate_measured_on_a_busy_machine_is_retried_after_each_cold_retry() {
        let two = Workers::without_pool(2);
        let units = 1 << 18;
        let r = serial_at_1ns(&[units]);
        let ns = |per_unit_ns: f64| Duration::from_nanos((units as f64 * per_unit_ns) as u64);
        // While another process held the CPUs: waking the workers 3 ns per unit, hot ones 2
        // (two windows of each: rates no longer young).
        for _ in 0..2 {
            record(&r, units, false, ns(3.0));
            record(&r, units, true, ns(2.0));
        }
        assert!(!measured_pays(units, &r, 1, two, true, || None));
        // The machine is free again: hot workers take 0.5 ns per unit, a wake still 3.
        // A choice that finds cold workers and a retry due: parallel (the retry), and it owes
        // the next choice, which finds the workers it woke hot.
        assert!(measured_pays(units, &r, 1, two, false, || Some(RETRY_NS)));
        r.record_parallel(units, 2, false, ns(3.0));
        let mut hot_choices = 0;
        while !r.parallel(units, 2, true).trusted()
            || r.parallel(units, 2, true).estimate_ns(units) >= units
        {
            // Each hot execution that wins owes the next one, until the rate says yes.
            assert!(
                measured_pays(units, &r, 1, two, true, || None),
                "hot choice {hot_choices}: serial before the rate came back"
            );
            r.record_parallel(units, 2, true, ns(0.5));
            hot_choices += 1;
        }
        assert_eq!(
            hot_choices,
            WINDOW / 2,
            "the lower median moved by the owed ones alone"
        );
        assert!(measured_pays(units, &r, 1, two, true, || None));

        // Where the hot workers still lose, a retry costs TRY_RUN more losing executions, no
        // more.
        let r = serial_at_1ns(&[units]);
        for _ in 0..2 {
            record(&r, units, false, ns(3.0));
            record(&r, units, true, ns(2.0));
        }
        assert!(measured_pays(units, &r, 1, two, false, || Some(RETRY_NS)));
        r.record_parallel(units, 2, false, ns(3.0));
        // The workers not there yet: the owed executions wait for them.
        assert!(!measured_pays(units, &r, 1, two, false, || None));
        for i in 0..TRY_RUN {
            assert!(
                measured_pays(units, &r, 1, two, true, || None),
                "owed execution {i}"
            );
            r.record_parallel(units, 2, true, ns(2.0));
        }
        assert!(!measured_pays(units, &r, 1, two, true, || None));
        assert!(!measured_pays(units, &r, 1, two, false, || None));
        // (A clock read within the period: no retry, nothing owed.)
        assert!(!measured_pays(units, &r, 1, two, false, || Some(
            RETRY_NS + 1
        )));

        // An execution that beats the serial time, here between retries, owes the next choice
        // on hot workers one more, and one that loses ends the run.
        r.record_parallel(units, 2, true, ns(0.5));
        assert!(
            measured_pays(units, &r, 1, two, true, || None),
            "a win owes one"
        );
        r.record_parallel(units, 2, true, ns(0.6));
        assert!(
            measured_pays(units, &r, 1, two, true, || None),
            "and another"
        );
        r.record_parallel(units, 2, true, ns(2.0));
        assert!(
            !measured_pays(units, &r, 1, two, true, || None),
            "a loss ends it"
        );
    }

    #[test]
    fn bounds_override_the_measurement() {
        let b = Bounds {
            floor: 1 << 14,
            ceiling: 1 << 16,
        };
        let slow = Rates::new();
        let one = Workers::without_pool(1);
        // Neither times its serial execution: no choice reads it.
        assert_eq!(
            parallel_pays(1 << 40, &b, &slow, 1, one),
            Path::Serial { timed: false },
            "one thread"
        );
        let two = Workers::without_pool(2);
        assert_eq!(
            parallel_pays((1 << 14) - 1, &b, &slow, 1, two),
            Path::Serial { timed: false },
            "below the floor"
        );
        assert_eq!(
            parallel_pays(1 << 16, &b, &Rates::new(), 1, two),
            Path::Parallel {
                hot: false,
                helpers: 1
            },
            "ceiling"
        );
    }

    #[test]
    fn a_pool_of_more_threads_than_cpus_runs_on_as_many_as_the_cpus() {
        let b = Bounds {
            floor: 1 << 14,
            ceiling: 1 << 16,
        };
        let cpus = crate::cpus::parallelism();
        // A pool of 64 threads (on a machine of fewer CPUs) is offered at most a helper per CPU
        // but the caller's, however its rates stand (here: from the ceiling on, parallel).
        let expected = if cpus < 2 {
            Path::Serial { timed: true }
        } else {
            Path::Parallel {
                hot: false,
                helpers: 63.min(cpus - 1),
            }
        };
        let pool = Workers::without_pool(64);
        assert_eq!(measured_path(1 << 16, &b, &Rates::new(), 1, pool), expected);
        // Its parts are split for as many threads as CPUs, but for all 64 when forced (the
        // tests' more parts than cores).
        assert_eq!(parts_threads_of(64, false, 2), 2);
        assert_eq!(parts_threads_of(64, false, 128), 64);
        assert_eq!(parts_threads_of(64, true, 2), 64);
        assert_eq!(parts_threads_of(3, false, 0), 1);
    }

    #[test]
    fn measured_rates_decide_between_the_bounds() {
        let two = Workers::without_pool(2);
        // Serial 1 ns per unit; parallel measured at 2 ns (two windows of executions, past
        // the young rate's faster retries): no, but for one retry per RETRY_NS.
        let r = serial_at_1ns(&[500]);
        record_both(&r, 500, Duration::from_nanos(1000));
        record_both(&r, 500, Duration::from_nanos(1000));
        let choices = |from, to, step| count_choices(&r, 500, (from, to, step), true);
        assert_eq!(
            choices(0, RETRY_NS, 1000),
            0,
            "no retry in the first period"
        );
        assert_eq!(choices(RETRY_NS, 2 * RETRY_NS, 1000), 1, "one in the next");
        assert_eq!(
            choices(2 * RETRY_NS, 5 * RETRY_NS, 1000),
            3,
            "one per period"
        );
        // A late call retries at once, then waits a whole period again. (Each retry owes a
        // parallel execution on the hot workers it leaves, which no choice here finds.)
        for (t, parallel) in [
            (100 * RETRY_NS, true),
            (100 * RETRY_NS, false),
            (101 * RETRY_NS - 1, false),
        ] {
            assert_eq!(
                measured_pays(500, &r, 1, two, false, || Some(t)),
                parallel,
                "at {t} ns"
            );
        }
        assert!(r.on(2).owed(500));
        // Parallel measured at 0.5 ns: yes, but for one serial retry per RETRY_NS.
        let r = serial_at_1ns(&[500]);
        record_both(&r, 500, Duration::from_nanos(250));
        let choices = |from, to, step| count_choices(&r, 500, (from, to, step), false);
        assert_eq!(choices(0, RETRY_NS, 1000), 0, "no serial retry at first");
        assert_eq!(choices(RETRY_NS, 2 * RETRY_NS, 1000), 1, "one in the next");
        assert_eq!(
            choices(2 * RETRY_NS, 5 * RETRY_NS, 1000),
            3,
            "one per period"
        );
    }

    #[test]
    fn a_long_serial_path_is_retried_less_often() {
        // Serial 1 ns per unit, 10 ms per execution; parallel 0.5 ns: yes, but for a serial
        // retry once per 64 serial executions (640 ms), not once per RETRY_NS.
        let units = 10_000_000;
        let r = serial_at_1ns(&[units]);
        record_both(&r, units, Duration::from_millis(5));
        let serial_retries = |from, to| count_choices(&r, units, (from, to, 1_000_000), false);
        let period = SERIAL_RETRY_SPAN * 10_000_000;
        assert!(period > RETRY_NS);
        assert_eq!(serial_retries(0, period), 0, "none in the first period");
        assert_eq!(serial_retries(period, 4 * period), 3, "one per period");
        // A short serial path keeps RETRY_NS.
        assert_eq!(serial_retry_ns(1000), RETRY_NS);
    }

    #[test]
    fn a_long_parallel_path_is_retried_less_often() {
        // Serial 1 ns per unit, 10 ms per execution; parallel 2 ns, hot and cold: no, but for
        // a retry (and the runs on hot workers it owes) once per 64 times their executions.
        let units = 10_000_000;
        let r = serial_at_1ns(&[units]);
        record_both(&r, units, Duration::from_millis(20));
        record_both(&r, units, Duration::from_millis(20));
        let retries = |from, to| count_choices(&r, units, (from, to, 1_000_000), true);
        let period = SERIAL_RETRY_SPAN * (1 + u64::from(TRY_RUN)) * 10_000_000;
        assert!(period > RETRY_NS);
        assert_eq!(retries(0, period), 0, "none in the first period");
        assert_eq!(retries(period, 4 * period), 3, "one per period");
        // Short paths keep RETRY_NS; young rates an eighth of it whatever their length.
        for hot in [false, true] {
            assert_eq!(parallel_retry_ns(1000, false, hot), RETRY_NS);
            assert_eq!(parallel_retry_ns(1000, true, hot), RETRY_NS / 8);
            assert_eq!(parallel_retry_ns(1_000_000, true, hot), RETRY_NS / 8);
        }
        // A retry on hot workers owes no run.
        assert_eq!(parallel_retry_ns(1_000_000, false, false), 320_000_000);
        assert_eq!(parallel_retry_ns(4_000_000, false, true), 256_000_000);
    }

    #[test]
    fn each_octave_keeps_its_own_retry_period() {
        let two = Workers::without_pool(2);
        // Serial 1 ns per unit, parallel 2 ns, grown: 2^14 units retried every RETRY_NS, 2^20
        // (1 ms serial) every 64 times a retry's five executions, 336 ms.
        let (small, large) = (1 << 14, 1 << 20);
        let r = serial_at_1ns(&[small, large]);
        for u in [small, large] {
            record_both(&r, u, Duration::from_nanos(2 * u));
            record_both(&r, u, Duration::from_nanos(2 * u));
        }
        let period = parallel_retry_ns(large, false, false);
        assert!(period > 3 * RETRY_NS);
        // A caller alternating the two sizes, a choice of each every millisecond.
        let (mut small_retries, mut large_retries) = (0, 0);
        for t in (period..4 * period).step_by(1_000_000) {
            small_retries += usize::from(measured_pays(small, &r, 1, two, false, || Some(t)));
            large_retries += usize::from(measured_pays(large, &r, 1, two, false, || Some(t)));
        }
        assert_eq!(large_retries, 3, "the large size's own period");
        assert!(small_retries >= 9, "{small_retries}");

        // The serial path's retries likewise: parallel 0.5 ns per unit; 2^14 units retried
        // serially every RETRY_NS, 2^22 (4.2 ms serial) every 64 serial executions, 268 ms.
        let (small, large) = (1 << 14, 1 << 22);
        let r = serial_at_1ns(&[small, large]);
        for u in [small, large] {
            record_both(&r, u, Duration::from_nanos(u / 2));
            record_both(&r, u, Duration::from_nanos(u / 2));
        }
        let period = serial_retry_ns(large);
        assert!(period > 2 * RETRY_NS);
        let (mut small_retries, mut large_retries) = (0, 0);
        for t in (period..4 * period).step_by(1_000_000) {
            small_retries += usize::from(!measured_pays(small, &r, 1, two, false, || Some(t)));
            large_retries += usize::from(!measured_pays(large, &r, 1, two, false, || Some(t)));
        }
        assert_eq!(large_retries, 3, "the large size's own serial period");
        assert!(small_retries >= 7, "{small_retries}");
    }

    #[test]
    fn a_rates_ring_keeps_turning_past_u32_max_records() {
        let r = SerialRate::new();
        for ns in [500, 400, 300] {
            r.record(1000, Duration::from_nanos(ns));
        }
        r.recorded.store(u32::MAX - 1, Ordering::Relaxed);
        // Slots 6 and 7, then 0 again (not 7 for ever), and the rate stays grown.
        for ns in [900, 800, 700] {
            r.record(1000, Duration::from_nanos(ns));
        }
        let slots: Vec<u32> = r.window.iter().map(|w| w.load(Ordering::Relaxed)).collect();
        assert_eq!(&slots[..3], &[700_000, 400_000, 300_000]);
        assert_eq!(&slots[6..], &[900_000, 800_000]);
        assert_eq!(r.recorded.load(Ordering::Relaxed), 2 * WINDOW as u32 + 1);
        assert!(r.known() && r.trusted() && !r.young());
        assert_eq!(r.estimate_ns(1000), 300);
    }

    #[test]
    fn a_young_parallel_rate_is_retried_more_often() {
        let two = Workers::without_pool(2);
        // Serial 1 ns per unit; parallel measured at 2 ns, eight executions: no, but for a
        // retry per RETRY_NS / 8 (each retry adds an execution, here at 2 ns again).
        let r = serial_at_1ns(&[500]);
        record_both(&r, 500, Duration::from_nanos(1000));
        let mut retries = 0;
        // (The parallel executions that each retry of a grown rate owes are taken here, and
        // not recorded; a young rate's owe none.)
        let retry = |t| {
            let young = r.parallel(500, 2, false).young();
            let yes = measured_pays(500, &r, 1, two, false, || Some(t));
            if yes {
                let owed = (0..=TRY_RUN).filter(|_| r.on(2).take_try(500)).count();
                assert_eq!(owed, if young { 0 } else { usize::from(TRY_RUN) });
            }
            yes
        };
        for t in (0..RETRY_NS).step_by(100_000) {
            if retry(t) {
                retries += 1;
                r.record_parallel(500, 2, false, Duration::from_nanos(1000));
            }
        }
        assert_eq!(retries, 7, "young: every RETRY_NS / 8 after the first");
        // Sixteen executions: once per RETRY_NS.
        r.record_parallel(500, 2, false, Duration::from_nanos(1000));
        assert!(!r.parallel(500, 2, false).young());
        let retries = (RETRY_NS..4 * RETRY_NS)
            .step_by(100_000)
            .filter(|&t| retry(t))
            .count();
        assert_eq!(retries, 3, "grown: every RETRY_NS");
    }

    #[test]
    fn the_clock_is_read_once_per_clock_every_choices() {
        let r = serial_at_1ns(&[500]);
        let ticks = (0..CLOCK_EVERY * 4).filter(|_| r.tick(500)).count();
        assert_eq!(ticks, 4);
        // A caller that alternates two octaves: each gets its ticks.
        let (a, b) = (1 << 14, 1 << 20);
        let ticks = (0..CLOCK_EVERY * 4)
            .filter(|_| {
                r.tick(a);
                r.tick(b)
            })
            .count();
        assert_eq!(ticks, 4);
        // Parallel measured slower than serial, and a retry long due: without a look at the
        // clock the measured answer stands; with one, the retry is taken.
        record_both(&r, 500, Duration::from_nanos(1000));
        let two = Workers::without_pool(2);
        assert!(!measured_pays(500, &r, 1, two, false, || None));
        assert!(measured_pays(500, &r, 1, two, false, || Some(
            10 * RETRY_NS
        )));
    }

    #[test]
    fn a_serial_rate_holds_for_its_octave_only() {
        let two = Workers::without_pool(2);
        // Serial 1 ns per unit at 2^10, not measured at 2^20; parallel measured at 0.75 ns in
        // both octaves.
        let r = serial_at_1ns(&[1 << 10]);
        record_both(&r, 1 << 10, Duration::from_nanos(768));
        record_both(&r, 1 << 20, Duration::from_nanos(786_432));
        assert!(measured_pays(1 << 10, &r, 1, two, false, || Some(1)));
        // At 2^20 the serial rate is not known: serial first, whatever the parallel rate.
        assert_eq!(r.serial_ns(1 << 20), 0);
        assert!(!measured_pays(1 << 20, &r, 1, two, true, || Some(2)));
        // Serial measured at 0.5 ns there: no at 2^20, still yes at 2^10.
        for _ in 0..SERIAL_FIRST {
            r.serial(1 << 20)
                .record(1 << 20, Duration::from_nanos(1 << 19));
        }
        assert_eq!(r.serial_ns(1 << 20), 1 << 19);
        assert_eq!(r.serial_ns(1 << 10), 1 << 10);
        assert!(!measured_pays(1 << 20, &r, 1, two, false, || Some(3)));
        assert!(measured_pays(1 << 10, &r, 1, two, false, || Some(4)));
        // At 1 ns: yes at 2^20 too.
        let r = serial_at_1ns(&[1 << 20]);
        record_both(&r, 1 << 20, Duration::from_nanos(786_432));
        assert!(measured_pays(1 << 20, &r, 1, two, false, || Some(5)));
    }

    #[test]
    fn a_parallel_rate_holds_for_its_octave_only() {
        let two = Workers::without_pool(2);
        let r = serial_at_1ns(&[1 << 10, 1 << 20]);
        // Measured slow (2 ns per unit) from 2^10 to 2^11 units: no there (no retry is due
        // in the first RETRY_NS).
        record_both(&r, 1 << 10, Duration::from_nanos(2 << 10));
        assert!(!measured_pays(1 << 10, &r, 1, two, false, || Some(1)));
        assert!(!measured_pays((1 << 11) - 1, &r, 1, two, false, || Some(2)));
        // Fast (0.5 ns) from 2^20 on: yes there, and still no at 2^10.
        record_both(&r, 1 << 20, Duration::from_nanos(1 << 19));
        assert!(measured_pays(1 << 20, &r, 1, two, false, || Some(3)));
        assert!(!measured_pays(1 << 10, &r, 1, two, false, || Some(4)));
        // An octave with no measurement: estimated (a perfect split plus the trips).
        assert_eq!(r.parallel(1 << 15, 2, false).estimate_ns(1 << 15), 0);
    }

    #[test]
    fn hot_and_cold_workers_have_rates_of_their_own() {
        let two = Workers::without_pool(2);
        let r = serial_at_1ns(&[1 << 12]);
        // Serial 1 ns per unit. Waking the workers measured at 3 ns per unit: no, when cold;
        // on workers already awake, 0.6 ns: yes.
        record(&r, 1 << 12, false, Duration::from_nanos(3 << 12));
        record(&r, 1 << 12, true, Duration::from_nanos(600 << 12 >> 10));
        assert!(!measured_pays(1 << 12, &r, 1, two, false, || Some(1)));
        assert!(measured_pays(1 << 12, &r, 1, two, true, || Some(2)));
        assert_eq!(r.parallel(1 << 12, 2, false).estimate_ns(1 << 12), 3 << 12);
    }

    #[test]
    fn back_to_back_calls_go_parallel_where_hot_workers_would_pay() {
        let two = Workers::without_pool(2);
        // Serial 1 ns per unit; cold workers 3 ns, hot ones 0.6 ns.
        let rates = || {
            let r = serial_at_1ns(&[1 << 12]);
            record(&r, 1 << 12, false, Duration::from_nanos(3 << 12));
            record(&r, 1 << 12, true, Duration::from_nanos(600 << 12 >> 10));
            r
        };
        // The first cold choice: serial (and remembered). The next, at once: parallel, to wake
        // the workers for the calls after it. "At once" is up to the scheduler: a test thread
        // preempted between the two choices for longer than the window (seen under qemu on a
        // busy machine) rightly stays serial, so such a try proves nothing and is made again
        // on new rates; a try whose two choices were within the window must go parallel.
        let window = window_ns();
        let mut tries = 0;
        let r = loop {
            let r = rates();
            let t0 = now_ns();
            assert!(!measured_pays(1 << 12, &r, 1, two, false, || None));
            let second = measured_pays(1 << 12, &r, 1, two, false, || None);
            let apart = now_ns() - t0;
            if apart < window {
                assert!(second, "a choice {apart} ns after the first stayed serial");
                break r;
            }
            tries += 1;
            assert!(
                tries < 100,
                "100 tries, each preempted for longer than the window"
            );
        };
        // After a pause longer than the window and an execution: serial again.
        std::thread::sleep(Duration::from_nanos(window + (2 << 12)));
        assert!(!measured_pays(1 << 12, &r, 1, two, false, || None));
        // Where hot workers would not pay either, never.
        let r = serial_at_1ns(&[1 << 12]);
        record(&r, 1 << 12, false, Duration::from_nanos(3 << 12));
        record(&r, 1 << 12, true, Duration::from_nanos(2 << 12));
        for _ in 0..3 {
            assert!(!measured_pays(1 << 12, &r, 1, two, false, || None));
        }
    }

    #[test]
    fn each_class_of_thread_counts_has_rates_of_its_own() {
        assert_eq!(
            [2, 3, 4, 5, 6, 8, 11, 12, 15, 16, 22, 23, 32, 45, 46, 64, 1024].map(thread_class),
            [0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5]
        );
        let two = Workers::without_pool(2);
        let sixteen = Workers::without_pool(16);
        let fifteen = Workers::without_pool(15);
        let r = serial_at_1ns(&[1 << 16]);
        // Two threads measured slower than one (1.2 ns per unit), hot and cold: no on two
        // threads, no retry due at first.
        record_both(&r, 1 << 16, Duration::from_nanos(1229 << 6));
        assert!(!measured_pays(1 << 16, &r, 1, two, true, || Some(1)));
        // Sixteen threads are not judged by them: not measured yet, a perfect split plus the
        // trips (here none: trips of 0 on workers without a pool).
        assert!(r.parallel(1 << 16, 16, true).estimate_ns(1 << 16) == 0);
        assert!(measured_pays(1 << 16, &r, 0, sixteen, true, || Some(3)));
        // Measured at 0.25 ns on sixteen: yes there, still no on two.
        for _ in 0..WINDOW {
            r.record_parallel(1 << 16, 16, true, Duration::from_nanos(1 << 14));
        }
        assert!(measured_pays(1 << 16, &r, 1, sixteen, true, || Some(4)));
        assert!(!measured_pays(1 << 16, &r, 1, two, true, || Some(5)));
        // Fifteen (a pool of sixteen cut by one worker) go by the rate of sixteen.
        assert!(measured_pays(1 << 16, &r, 1, fifteen, true, || Some(6)));
    }

    #[test]
    fn a_parallel_rate_decides_after_enough_executions() {
        let two = Workers::without_pool(2);
        let r = serial_at_1ns(&[1 << 20]);
        // Serial 1 ns per unit (2^20 units: 1 ms, far above any trip); parallel measured at
        // 3 ns on hot workers: the first executions do not decide.
        for _ in 1..WINDOW {
            r.record_parallel(1 << 20, 2, true, Duration::from_nanos(3 << 20));
            assert!(measured_pays(1 << 20, &r, 1, two, true, || None));
        }
        r.record_parallel(1 << 20, 2, true, Duration::from_nanos(3 << 20));
        assert!(!measured_pays(1 << 20, &r, 1, two, true, || None));
    }

    #[test]
    fn a_parallel_path_that_loses_on_cold_workers_stops_before_its_window() {
        let two = Workers::without_pool(2);
        let r = serial_at_1ns(&[1 << 20]);
        // Hot workers would lose too (their window measured at 3 ns), so that back-to-back
        // choices do not bet on them.
        record(&r, 1 << 20, true, Duration::from_nanos(3 << 20));
        // Parallel on cold workers measured at 1.5 ns: the first executions are the assumed
        // perfect split's, the third decides.
        for _ in 1..SERIAL_FIRST {
            r.record_parallel(1 << 20, 2, false, Duration::from_nanos(3 << 19));
            assert!(measured_pays(1 << 20, &r, 1, two, false, || None));
        }
        r.record_parallel(1 << 20, 2, false, Duration::from_nanos(3 << 19));
        assert!(!measured_pays(1 << 20, &r, 1, two, false, || None));
        // Retries that win bring the assumed split back once they are the median. (Each is
        // followed by a parallel execution it owes, whatever the rates say.)
        for won in 1..=SERIAL_FIRST {
            r.record_parallel(1 << 20, 2, false, Duration::from_nanos(1 << 19));
            assert!(r.on(2).take_try(1 << 20), "{won} won: owes the next");
            assert_eq!(
                measured_pays(1 << 20, &r, 1, two, false, || None),
                won == SERIAL_FIRST,
                "{won} won"
            );
        }
        // At exactly the serial time it lost too.
        let r = serial_at_1ns(&[1 << 20]);
        for _ in 0..SERIAL_FIRST {
            r.record_parallel(1 << 20, 2, false, Duration::from_nanos(1 << 20));
        }
        assert!(r.parallel(1 << 20, 2, false).lost(1 << 20, 1 << 20));
        assert!(!r.parallel(1 << 20, 2, false).lost(1 << 20, (1 << 20) + 1));
        // Hot workers are found only just after a parallel execution: their rate waits for
        // its window (else a caller calling back to back could stay serial for good, its
        // workers never hot when a retry is due).
        let r = serial_at_1ns(&[1 << 20]);
        for _ in 1..WINDOW {
            r.record_parallel(1 << 20, 2, true, Duration::from_nanos(3 << 19));
            assert!(measured_pays(1 << 20, &r, 1, two, true, || None));
        }
        r.record_parallel(1 << 20, 2, true, Duration::from_nanos(3 << 19));
        assert!(!measured_pays(1 << 20, &r, 1, two, true, || None));
    }
}
