//! The parts of NonZero's parallel path in slots: each thread counts a run of consecutive parts
//! (its slot), then writes them, so that from one execution to the next it meets the same
//! input and output in its own cache.
//!
//! A part's first row is the count of the parts before it, so a part is written only once
//! every part before it is counted. When parts are claimed one at a time in order (the other
//! parallel path), whatever a part waits for is being counted. Here a thread counts its own
//! slot first while the slots before it are counted by theirs, but an owner may be late or
//! absent (a job's workers are whichever came). So a part's count is claimed too (a
//! compare-and-swap of its status word), and a thread adding up the counts before its part
//! counts any part that nobody has claimed yet itself, unless (on four threads or more) that
//! part's slot has a thread counting it: that thread counts each of its parts that nobody has
//! claimed, without waiting for anything, so the part will be counted, and counted where it
//! will be written. A thread then waits only for a count that a thread counting its slot has
//! made or will make, so no order of claims or arrivals can make two threads wait for each
//! other.
//!
//! Each part's write is claimed as well, once. A slot's thread counts and writes every part of
//! its slot not claimed by another: when every slot's thread has returned, every part is
//! written. After its own slot, a thread helps with the others': a slot whose owner has not
//! started, from the front (each part counted and written while its input is in the cache),
//! and from the back (the owner goes from the front) the parts already counted that the owner
//! would reach only after two more of its own (on four threads or more, as in the team).
//!
//! A part written by a thread that did not count it reads its input from another core's
//! cache: on 16 cores of an Intel Xeon, such writes took 1.5-4 times as long as a part's
//! write on the thread that counted it, and came last, when the threads that had finished
//! their own slots took the look-backs' counts and the slots' last parts. Hence the waits for
//! a slot's counting thread and the two parts left to an owner. On two threads (two vCPUs of
//! an AMD Zen 4) a part cost about as much on either, and the waits only made the slow cases
//! slower: NONZERO's choice of the parallel path then went serial more often. Hence also the
//! execution's bitmask words ([`PartWords`]): whichever thread counts a part writes its words
//! there, so that a part written elsewhere reads them (1/32 of its FLOAT32 input, 1/8 of
//! UINT8) rather than its input.

use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::team::{left_to_owner, Wait};

/// A part's status word: 0 until its count is claimed, then [`COUNTING`], then `COUNTED` with
/// its count, then `PREFIX` with the rows of it and of every part before it; `POISONED` when
/// it (or a part before it) panicked before its prefix was known. In slots, the [`WRITING`]
/// bit besides (its write is claimed).
pub(super) const COUNTED: u64 = 1 << 62;
pub(super) const PREFIX: u64 = 1 << 63;
pub(super) const POISONED: u64 = COUNTED | PREFIX;
/// A part's write is claimed (in the same word as its status: a claim costs no other cache
/// line).
const WRITING: u64 = 1 << 61;
pub(super) const VALUE: u64 = WRITING - 1;
/// A part's count is being made (no flag, not 0).
const COUNTING: u64 = 1;

/// Counts part `p`: its nonzero elements (`None`: it panicked, and the caller kept the panic),
/// its bitmask words written into the slice when one is given (the part's words).
pub(super) type Count<'a> = dyn Fn(usize, Option<&mut [u64]>) -> Option<u64> + Sync + 'a;
/// Writes part `p`'s `n` rows from row `first`, from the bitmask words its count wrote when they
/// are given; the last argument is true when this thread made that count (its input is then
/// in this core's cache).
pub(super) type Write<'a> = dyn Fn(usize, u64, u64, Option<&[u64]>, bool) + Sync + 'a;

/// The bitmask words of one execution's parts, which its threads share: part `p`'s words are
/// written by the thread that claims its count ([`Slots`]) and read, once that count is
/// published, by the thread that claims its write, whichever threads those are. Each part's
/// words start on a cache line of their own (the parts' words are `stride` apart), so that
/// threads counting neighbouring parts do not write one line.
pub(super) struct PartWords<'a> {
    base: *mut u64,
    parts: usize,
    /// Words of each part but the last, and of the last.
    each: usize,
    last: usize,
    stride: usize,
    _words: PhantomData<&'a mut [u64]>,
}

// SAFETY: a `PartWords` is a view of a slice borrowed mutably for its lifetime; `Slots` lends
// each part's words mutably only to the one thread that claimed that part's count, and shared
// only after that count is published (see `PartWords::part_mut` and `PartWords::part`).
unsafe impl Send for PartWords<'_> {}
// SAFETY: as above.
unsafe impl Sync for PartWords<'_> {}

/// Words per cache line.
const LINE_WORDS: usize = 8;

impl<'a> PartWords<'a> {
    /// The words [`PartWords::new`] needs for `parts` parts of `each` words, the last of `last`.
    pub fn needed(parts: usize, each: usize, last: usize) -> usize {
        match parts {
            0 => 0,
            _ => (parts - 1) * each.next_multiple_of(LINE_WORDS) + last + LINE_WORDS - 1,
        }
    }

    /// The words of `parts` parts of `each` words, the last of `last`, in `words` (at least
    /// [`PartWords::needed`], else `None`).
    pub fn new(words: &'a mut [u64], parts: usize, each: usize, last: usize) -> Option<Self> {
        let skip = words.as_ptr().align_offset(LINE_WORDS * 8);
        if words.len() < Self::needed(parts, each, last) || skip >= LINE_WORDS {
            return None;
        }
        let words = &mut words[skip..];
        Some(PartWords {
            base: words.as_mut_ptr(),
            parts,
            each,
            last,
            stride: each.next_multiple_of(LINE_WORDS),
            _words: PhantomData,
        })
    }

    /// Part `p`'s first word and its number of words: within the slice, and apart from every
    /// other part's ([`PartWords::new`] had room for all of them, `stride` apart).
    fn range(&self, p: usize) -> (usize, usize) {
        assert!(p < self.parts, "part {p} of {}", self.parts);
        let n = if p + 1 == self.parts {
            self.last
        } else {
            self.each
        };
        (p * self.stride, n)
    }

    /// Part `p`'s words, to write.
    ///
    /// # Safety
    /// No other reference to part `p`'s words lives as long as the result.
    #[allow(clippy::mut_from_ref)]
    unsafe fn part_mut(&self, p: usize) -> &mut [u64] {
        let (at, n) = self.range(p);
        // SAFETY: words at .. at + n are in the slice, which this borrows for 'a (`range`);
        // no other reference to them lives meanwhile (caller).
        unsafe { core::slice::from_raw_parts_mut(self.base.add(at), n) }
    }

    /// Part `p`'s words, to read.
    ///
    /// # Safety
    /// No reference that writes part `p`'s words lives as long as the result.
    unsafe fn part(&self, p: usize) -> &[u64] {
        let (at, n) = self.range(p);
        // SAFETY: as in `part_mut`; nothing writes them meanwhile (caller).
        unsafe { core::slice::from_raw_parts(self.base.add(at), n) }
    }
}

/// The shared state of one execution's parts in slots.
pub(super) struct Slots<'a> {
    /// Each part's status word.
    status: Box<[AtomicU64]>,
    /// Each slot: a thread has started counting its parts (and has not left that off by a
    /// panic), so that every part of it that nobody has claimed will be counted by that thread.
    counting: Box<[AtomicBool]>,
    slots: usize,
    /// The parts a helper leaves to a started owner, and whether a look-back waits for a
    /// counting slot's parts ([`left_to_owner`]: from four slots on).
    leave: usize,
    /// Each part's bitmask words, if the execution has them: every count writes its part's,
    /// and every write is given them.
    words: Option<PartWords<'a>>,
}

impl<'a> Slots<'a> {
    /// `parts` parts in `slots` slots (at least one; at most one per part) of consecutive parts,
    /// with `words` for their bitmasks if given (of as many parts).
    pub fn new(parts: usize, slots: usize, words: Option<PartWords<'a>>) -> Slots<'a> {
        let slots = slots.clamp(1, parts.max(1));
        assert!(
            words.as_ref().is_none_or(|w| w.parts == parts),
            "slots: words for another number of parts"
        );
        Slots {
            status: (0..parts).map(|_| AtomicU64::new(0)).collect(),
            counting: (0..slots).map(|_| AtomicBool::new(false)).collect(),
            slots,
            leave: left_to_owner(slots),
            words,
        }
    }

    /// The number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The parts of slot `k`.
    pub fn range(&self, k: usize) -> (usize, usize) {
        let parts = self.status.len();
        (k * parts / self.slots, (k + 1) * parts / self.slots)
    }

    /// The slot of part `p`: the `k` with `k * parts / slots <= p < (k + 1) * parts / slots`
    /// ([`Slots::range`]).
    fn slot_of(&self, p: usize) -> usize {
        ((p + 1) * self.slots - 1) / self.status.len().max(1)
    }

    /// Runs slot `k`: counts its parts that nobody has claimed, writes those whose write nobody
    /// has claimed, then helps with the other slots. `count(p, words)` counts part `p` (into
    /// its words, where the execution has them); `write(p, first, n, words, here)` writes its
    /// `n` rows from row `first` (from the words its count wrote, where the execution has them;
    /// `here`: that count ran on this thread).
    ///
    /// The promise, which the callers' `unsafe` writes rely on: over all the threads that run
    /// slots of one `Slots`, in any order and however often, `count` runs at most once per
    /// part, and `write` at most once per part, with `first` the sum of the counts of every
    /// part before it, `n` its own and `words` (if any) the words its count wrote. Once every
    /// slot has been run (each at least once, to its end), every part with rows has been
    /// written, or a `count` returned `None`.
    pub fn run(&self, k: usize, count: &Count<'_>, write: &Write<'_>) {
        let (s, e) = self.range(k);
        // The parts (of the first 64) this thread counted.
        let mut mine = 0u64;
        // From here on, the look-backs of the slots after this one wait for this slot's parts
        // rather than count them (unless a panic ends the counting early).
        struct Counting<'a>(&'a AtomicBool);
        impl Drop for Counting<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.store(false, Ordering::Release);
                }
            }
        }
        self.counting[k].store(true, Ordering::Release);
        let counting = Counting(&self.counting[k]);
        for p in s..e {
            if self.count(p, count).is_ok() && p - s < 64 {
                mine |= 1 << (p - s);
            }
        }
        drop(counting);
        for p in s..e {
            self.write(p, count, write, p - s < 64 && mine >> (p - s) & 1 == 1);
        }
        for j in (k + 1..self.slots).chain(0..k) {
            let (s, e) = self.range(j);
            if !self.counting[j].load(Ordering::Acquire) {
                // Its owner has not started: in order, as the owner would.
                for p in s..e {
                    self.write(p, count, write, false);
                }
            } else {
                // From the back, while the parts are counted and nobody has claimed their write
                // (the owner writes from the front; another helper may be ahead of this one),
                // leaving the owner the parts before each that it will reach first (written
                // here, a part reads its input from the owner's cache, which takes about as
                // long as two writes there), as the team does its parts.
                let leave = self.leave;
                let unclaimed = |p: usize| self.status[p].load(Ordering::Acquire) & WRITING == 0;
                for p in (s..e).rev() {
                    let v = self.status[p].load(Ordering::Acquire);
                    if v & POISONED == 0 || v & WRITING != 0 {
                        break;
                    }
                    if p < s + leave || (p - leave..p).any(|q| !unclaimed(q)) {
                        break;
                    }
                    self.write(p, count, write, false);
                }
            }
        }
    }

    /// The rows of every part (`None` when a part panicked). Call once every slot has returned.
    pub fn total(&self) -> Option<u64> {
        match self.status.last() {
            None => Some(0),
            Some(last) => {
                let v = last.load(Ordering::Acquire);
                (v & POISONED == PREFIX).then_some(v & VALUE)
            }
        }
    }

    /// Claims part `p`'s count if nobody has and makes it (into its words, where the execution
    /// has them): its status word then, `Ok` when counted here, `Err` as another thread left it.
    fn count(&self, p: usize, count: &Count<'_>) -> Result<u64, u64> {
        let status = &self.status[p];
        let mut v = status.load(Ordering::Acquire);
        loop {
            if v & !WRITING != 0 {
                return Err(v);
            }
            match status.compare_exchange_weak(v, v | COUNTING, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(now) => v = now,
            }
        }
        // A panic that escapes `count` (it should return `None`) must not leave the count
        // being made forever: whoever waits for it would wait forever.
        struct Unfinished<'a>(&'a AtomicU64);
        impl Drop for Unfinished<'_> {
            fn drop(&mut self) {
                publish(self.0, POISONED);
            }
        }
        let unfinished = Unfinished(status);
        // SAFETY: this thread claimed part p's count (above), which is claimed once: no other
        // thread writes its words, and none reads them before the count is published (after
        // this borrow ends; a write reads them once it has seen the count).
        let words = self.words.as_ref().map(|w| unsafe { w.part_mut(p) });
        let counted = count(p, words).map_or(POISONED, |n| COUNTED | n);
        core::mem::forget(unfinished);
        // (Before the count is published: a thread that reads it records its steps after.)
        if counted != POISONED {
            crate::trace::event(crate::trace::Step::Counted, p);
        }
        Ok(publish(status, counted))
    }

    /// Claims part `p`'s write if nobody has, and makes it: its count (claimed and made here
    /// if nobody has), the counts before it ([`Slots::look_back`]), its prefix published, its
    /// rows written. `here`: this thread counted the part already.
    fn write(&self, p: usize, count: &Count<'_>, write: &Write<'_>, here: bool) {
        let own = &self.status[p];
        if own.load(Ordering::Relaxed) & WRITING != 0
            || own.fetch_or(WRITING, Ordering::AcqRel) & WRITING != 0
        {
            return;
        }
        // From here on only this thread changes the word (once its count is made).
        let Some((n, counted_here)) = self.counted(p, count) else {
            own.store(WRITING | POISONED, Ordering::Release);
            return;
        };
        let Some(first) = self.look_back(p, count) else {
            own.store(WRITING | POISONED, Ordering::Release);
            return;
        };
        crate::trace::event(crate::trace::Step::Prefixed, p);
        own.store(WRITING | PREFIX | (first + n), Ordering::Release);
        if n > 0 {
            // SAFETY: part p's count is published (`counted` saw it), so the thread that made
            // it no longer writes its words, and no other does.
            let words = self.words.as_ref().map(|w| unsafe { w.part(p) });
            write(p, first, n, words, here || counted_here);
        }
        crate::trace::event(crate::trace::Step::Written, p);
    }

    /// Part `j`'s count, for the thread that claimed its write, and whether it was made here:
    /// claimed and made here if nobody has, waited for if being made; `None` when it is
    /// poisoned.
    fn counted(&self, j: usize, count: &Count<'_>) -> Option<(u64, bool)> {
        let mut wait = None;
        loop {
            let (v, here) = match self.count(j, count) {
                Ok(v) => (v, true),
                Err(v) => (v, false),
            };
            match v & POISONED {
                0 => wait.get_or_insert_with(Wait::for_count).pause(false),
                POISONED => return None,
                // Counted (its prefix is this thread's to publish).
                _ => return Some((v & VALUE, here)),
            }
        }
    }

    /// The rows of the parts before part `i`: the counts back from its predecessor to the
    /// first part whose prefix is known (none before part 0), counting here any that nobody
    /// has claimed and no thread counting its slot will; `None` when one of them is poisoned.
    fn look_back(&self, i: usize, count: &Count<'_>) -> Option<u64> {
        look_back(i, |j| self.status_counting(j, count))
    }

    /// Part `j`'s status word, for a look-back: its count claimed and made here first if nobody
    /// has claimed it, but left to its slot's thread where that thread is counting (this
    /// thread then waits, as for a count being made; on four threads or more, as the team
    /// leaves parts to their owners).
    fn status_counting(&self, j: usize, count: &Count<'_>) -> u64 {
        match self.status[j].load(Ordering::Acquire) {
            v if v & !WRITING == 0 => {
                if self.leave > 0 && self.counting[self.slot_of(j)].load(Ordering::Acquire) {
                    v
                } else {
                    self.count(j, count).unwrap_or_else(|v| v)
                }
            }
            v => v,
        }
    }
}

/// Replaces the status `COUNTING` of a part with `status` (a count, or poisoned), keeping its
/// write claim (another thread may claim it meanwhile); returns the new word.
fn publish(word: &AtomicU64, status: u64) -> u64 {
    let mut v = word.load(Ordering::Relaxed);
    loop {
        let new = (v & WRITING) | status;
        match word.compare_exchange_weak(v, new, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return new,
            Err(now) => v = now,
        }
    }
}

/// The rows of the parts before part `i`, from their status words as `status(j)` reads them
/// (and, in slots, first claims and makes a count nobody has claimed): the counts back from its
/// predecessor to the first part whose prefix is known (none before part 0), waiting
/// ([`Wait::for_count`]: `pause`, then giving up the core, which the thread that counts
/// may need) at a count being made; `None` when one of them is poisoned.
pub(super) fn look_back(i: usize, mut status: impl FnMut(usize) -> u64) -> Option<u64> {
    let mut sum = 0u64;
    let mut j = i;
    let mut wait = None;
    while j > 0 {
        let v = status(j - 1);
        match v & POISONED {
            0 => wait.get_or_insert_with(Wait::for_count).pause(false),
            POISONED => return None,
            PREFIX => return Some(sum + (v & VALUE)),
            _ => {
                sum += v & VALUE;
                j -= 1;
            }
        }
    }
    Some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::xorshift;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Mutex;

    /// What the slots did with parts of `counts` nonzero elements: each part's counts made,
    /// and its writes (their first rows).
    struct Record {
        counts: Vec<u64>,
        counted: Vec<AtomicUsize>,
        writes: Mutex<Vec<Vec<u64>>>,
    }

    impl Record {
        fn new(counts: &[u64]) -> Record {
            Record {
                counts: counts.to_vec(),
                counted: counts.iter().map(|_| AtomicUsize::new(0)).collect(),
                writes: Mutex::new(vec![Vec::new(); counts.len()]),
            }
        }

        fn count(&self, p: usize) -> Option<u64> {
            self.counted[p].fetch_add(1, Ordering::Relaxed);
            Some(self.counts[p])
        }

        fn write(&self, p: usize, first: u64, n: u64) {
            assert_eq!(n, self.counts[p], "part {p}'s count");
            self.writes.lock().unwrap()[p].push(first);
        }

        /// Every part counted once, every part with rows written once from the rows before it.
        fn check(&self, slots: &Slots, case: &str) {
            let mut first = 0;
            let writes = self.writes.lock().unwrap();
            for (p, &n) in self.counts.iter().enumerate() {
                assert_eq!(
                    self.counted[p].load(Ordering::Relaxed),
                    1,
                    "{case}: part {p} counted"
                );
                let expect: &[u64] = if n > 0 { &[first] } else { &[] };
                assert_eq!(writes[p], expect, "{case}: part {p}'s writes");
                first += n;
            }
            assert_eq!(slots.total(), Some(first), "{case}: total");
        }
    }

    fn run(slots: &Slots, k: usize, record: &Record) {
        // Where the execution has words, each count fills its part's with the part's number,
        // and each write finds them so, whichever thread counted it.
        slots.run(
            k,
            &|p, words| {
                if let Some(w) = words {
                    w.fill(p as u64);
                }
                record.count(p)
            },
            &|p, first, n, words, _| {
                if let Some(w) = words {
                    assert!(w.iter().all(|&x| x == p as u64), "part {p}'s words: {w:?}");
                }
                record.write(p, first, n)
            },
        );
    }

    #[test]
    fn one_thread_running_the_slots_in_any_order_writes_every_part_once() {
        let counts = [3, 0, 5, 1, 0, 0, 7, 2, 4];
        for slot_count in 1..=counts.len() {
            // Every rotation, forwards and backwards: the last slot first counts every part
            // before its own (nobody had claimed them).
            for rotation in 0..slot_count {
                for backwards in [false, true] {
                    let slots = Slots::new(counts.len(), slot_count, None);
                    let record = Record::new(&counts);
                    let mut order: Vec<usize> = (0..slot_count).collect();
                    order.rotate_left(rotation);
                    if backwards {
                        order.reverse();
                    }
                    for &k in &order {
                        run(&slots, k, &record);
                    }
                    record.check(&slots, &format!("{slot_count} slots, order {order:?}"));
                }
            }
        }
    }

    #[test]
    fn a_slot_whose_owner_never_comes_is_written_by_the_others() {
        // Slot 1 of 3 is never run: slots 0 and 2 write its parts (slot 2 counts them to
        // find its first row, then helps with their writes).
        let counts = [1, 2, 3, 4, 5, 6];
        let slots = Slots::new(counts.len(), 3, None);
        let record = Record::new(&counts);
        run(&slots, 2, &record);
        run(&slots, 0, &record);
        record.check(&slots, "slot 1 absent");
    }

    #[test]
    fn threads_claiming_slots_at_random_write_every_part_once() {
        let threads = 4;
        for case in 0..200u64 {
            let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (case + 1);
            let parts = 1 + (xorshift(&mut seed) % 40) as usize;
            let slot_count = 1 + (xorshift(&mut seed) % 12) as usize;
            let counts: Vec<u64> = (0..parts).map(|_| xorshift(&mut seed) % 5).collect();
            // Half the cases with the execution's words (1 to 3 per part).
            let each = 1 + (xorshift(&mut seed) % 3) as usize;
            let mut buffer = vec![0u64; PartWords::needed(parts, each, each)];
            let words = (case % 2 == 0)
                .then(|| PartWords::new(&mut buffer, parts, each, each))
                .flatten();
            let slots = Slots::new(parts, slot_count, words);
            let record = Record::new(&counts);
            // Each slot is run once, by whichever thread takes it next, as a team's slots are;
            // the threads start in turn, some late.
            let next = AtomicUsize::new(0);
            std::thread::scope(|scope| {
                for t in 0..threads {
                    let (slots, record, next) = (&slots, &record, &next);
                    let late = xorshift(&mut seed).is_multiple_of(3);
                    scope.spawn(move || {
                        if late {
                            std::thread::sleep(std::time::Duration::from_micros(200 * t as u64));
                        }
                        loop {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            if k >= slots.slots() {
                                break;
                            }
                            run(slots, k, record);
                        }
                    });
                }
            });
            record.check(
                &slots,
                &format!("case {case}: {parts} parts, {slot_count} slots (seed {seed:#x})"),
            );
        }
    }

    #[test]
    fn a_part_that_panics_poisons_the_parts_after_it_and_nothing_waits() {
        let counts = [2u64, 3, 4, 5, 6, 7];
        let slots = Slots::new(counts.len(), 3, None);
        let written = Mutex::new(Vec::new());
        let count = |p: usize, _: Option<&mut [u64]>| (p != 2).then_some(counts[p]);
        let write = |p: usize, first: u64, _n: u64, _: Option<&[u64]>, _: bool| {
            written.lock().unwrap().push((p, first))
        };
        std::thread::scope(|scope| {
            for k in [2, 1, 0] {
                let (slots, count, write) = (&slots, &count, &write);
                scope.spawn(move || slots.run(k, count, write));
            }
        });
        assert_eq!(slots.total(), None);
        let mut written = written.into_inner().unwrap();
        written.sort_unstable();
        // Parts 0 and 1 are before the poisoned part; nothing after it is written.
        assert_eq!(written, [(0, 0), (1, 2)]);
    }

    #[test]
    fn a_count_that_panics_out_of_the_slots_leaves_no_thread_waiting() {
        // The count of part 2 unwinds out of `run` (counts should return None instead): the
        // threads that need it see it poisoned, none waits for it.
        let counts = [2u64, 3, 4, 5, 6, 7];
        let slots = Slots::new(counts.len(), 3, None);
        let count = |p: usize, _: Option<&mut [u64]>| {
            assert!(p != 2, "part 2 panics");
            Some(counts[p])
        };
        let write = |_: usize, _: u64, _: u64, _: Option<&[u64]>, _: bool| {};
        let panicked = std::thread::scope(|scope| {
            let handles: Vec<_> = [2, 1, 0]
                .into_iter()
                .map(|k| {
                    let (slots, count, write) = (&slots, &count, &write);
                    scope.spawn(move || slots.run(k, count, write))
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().err()).count()
        });
        assert_eq!(panicked, 1);
        assert_eq!(slots.total(), None);
    }

    #[test]
    fn a_slot_whose_counting_panicked_is_counted_by_the_others() {
        // Slot 1 (parts 2 and 3) panics out of its first count, leaving part 3 unclaimed:
        // slot 2's look-back must count part 3 itself (nobody is counting slot 1 any more),
        // not wait for it.
        let slots = std::sync::Arc::new(Slots::new(6, 3, None));
        let count = |p: usize, _: Option<&mut [u64]>| {
            assert!(p != 2, "part 2 panics");
            Some(p as u64)
        };
        let write = |_: usize, _: u64, _: u64, _: Option<&[u64]>, _: bool| {};
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            slots.run(1, &count, &write)
        }));
        assert!(panicked.is_err());
        let (done, finished) = std::sync::mpsc::channel();
        let others = std::sync::Arc::clone(&slots);
        std::thread::spawn(move || {
            others.run(2, &count, &write);
            others.run(0, &count, &write);
            let _ = done.send(());
        });
        assert!(
            finished
                .recv_timeout(std::time::Duration::from_secs(10))
                .is_ok(),
            "slot 2 waits for a part of a slot whose counting panicked"
        );
        assert_eq!(slots.total(), None);
    }

    /// Runs `order`'s slots one after another on this thread, with the execution's words (two
    /// per part): each count fills its part's words, each write checks them; returns whether
    /// each part was written from its words and counted by the slot that wrote it.
    fn run_with_words(counts: &[u64], order: &[usize]) -> Vec<Option<bool>> {
        let mut buffer = vec![0u64; PartWords::needed(counts.len(), 2, 2)];
        let words = PartWords::new(&mut buffer, counts.len(), 2, 2);
        let slots = Slots::new(counts.len(), 3, words);
        let written = Mutex::new(vec![None; counts.len()]);
        let count = |p: usize, words: Option<&mut [u64]>| {
            words.expect("words to count into").fill(100 + p as u64);
            Some(counts[p])
        };
        let write = |p: usize, _: u64, _: u64, words: Option<&[u64]>, here: bool| {
            assert_eq!(words, Some(&[100 + p as u64; 2][..]), "part {p}'s words");
            written.lock().unwrap()[p] = Some(here);
        };
        for &k in order {
            slots.run(k, &count, &write);
        }
        assert_eq!(slots.total(), Some(counts.iter().sum()));
        written.into_inner().unwrap()
    }

    #[test]
    fn every_part_is_written_from_the_words_its_count_wrote_whoever_counted_it() {
        let counts = [1u64, 2, 3, 4, 5, 6];
        // Slot 2 first: its look-back counts slots 0 and 1 (their owners have not started),
        // so their owners write them from words another slot's count wrote.
        let here = run_with_words(&counts, &[2, 0, 1]);
        assert_eq!(here, [false, false, false, false, true, true].map(Some));
        // In order: slot 0 counts and writes its parts, then the slots whose owners have not
        // started, each part counted just before its write, all on this thread.
        assert_eq!(run_with_words(&counts, &[0, 1, 2]), [Some(true); 6]);
    }

    #[test]
    fn each_parts_words_start_a_cache_line_of_their_own() {
        for (parts, each, last) in [(1, 3, 3), (4, 1, 1), (5, 8, 3), (3, 9, 9), (7, 64, 17)] {
            let needed = PartWords::needed(parts, each, last);
            let mut buffer = vec![0u64; needed];
            assert!(
                PartWords::new(&mut buffer[..needed - 1], parts, each, last).is_none(),
                "{parts} parts of {each}: one word short"
            );
            let words = PartWords::new(&mut buffer, parts, each, last).expect("room");
            for p in 0..parts {
                // SAFETY: one part's words at a time, nothing else borrows them.
                let w = unsafe { words.part_mut(p) };
                assert_eq!(w.len(), if p + 1 == parts { last } else { each });
                assert_eq!(w.as_ptr() as usize % 64, 0, "part {p} starts a line");
                w.fill(p as u64 + 1);
            }
            for p in 0..parts {
                // SAFETY: nothing writes them now.
                let w = unsafe { words.part(p) };
                assert!(w.iter().all(|&x| x == p as u64 + 1), "part {p}'s own words");
            }
        }
    }

    #[test]
    fn a_look_back_leaves_a_counting_slots_parts_to_its_thread() {
        // Four slots of four parts (two never run). Slot 0 counts slowly; slot 1's thread,
        // which needs parts 0-3 counted to write part 4, waits for them rather than counting
        // parts 2 and 3 itself, so that slot 0's thread writes them from its own cache.
        let slots = Slots::new(16, 4, None);
        let counters = Mutex::new(vec![None; 16]);
        let count = |p: usize, _: Option<&mut [u64]>| {
            if p == 1 {
                std::thread::sleep(std::time::Duration::from_millis(30));
            }
            counters.lock().unwrap()[p] = Some(std::thread::current().id());
            Some(p as u64)
        };
        let write = |_: usize, _: u64, _: u64, _: Option<&[u64]>, _: bool| {};
        let slot0 = std::thread::scope(|scope| {
            let (slots, count, write) = (&slots, &count, &write);
            let a = scope.spawn(move || {
                slots.run(0, count, write);
                std::thread::current().id()
            });
            // Slot 1 starts once slot 0's thread is counting (part 0 counted).
            while counters.lock().unwrap()[0].is_none() {
                std::thread::yield_now();
            }
            scope.spawn(move || slots.run(1, count, write));
            a.join().unwrap()
        });
        let counters = counters.into_inner().unwrap();
        assert_eq!(
            &counters[..4],
            &[Some(slot0); 4],
            "slot 0's parts counted by its thread"
        );
        assert_eq!(slots.total(), Some((0..16).sum()));
    }

    #[test]
    fn a_helper_leaves_an_owner_that_has_started_its_next_two_parts() {
        // Four slots of five parts. Slot 0's thread writes part 0 slowly; slot 1's thread, done
        // with its own parts and with slots 2 and 3 (whose owners never come: in order),
        // takes slot 0's last parts from the back (4, then 3), but not the two after the one
        // being written (1 and 2).
        let slots = Slots::new(20, 4, None);
        let writers = Mutex::new(vec![None; 20]);
        let started = AtomicBool::new(false);
        let count = |p: usize, _: Option<&mut [u64]>| {
            started.store(true, Ordering::Release);
            Some(p as u64 + 1)
        };
        let write = |p: usize, _: u64, _: u64, _: Option<&[u64]>, _: bool| {
            if p == 0 {
                std::thread::sleep(std::time::Duration::from_millis(30));
            }
            writers.lock().unwrap()[p] = Some(std::thread::current().id());
        };
        let (slot0, slot1) = std::thread::scope(|scope| {
            let (slots, count, write) = (&slots, &count, &write);
            let a = scope.spawn(move || {
                slots.run(0, count, write);
                std::thread::current().id()
            });
            // Slot 1 starts once slot 0's thread is counting.
            while !started.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
            let b = scope.spawn(move || {
                slots.run(1, count, write);
                std::thread::current().id()
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        let writers = writers.into_inner().unwrap();
        let (a, b) = (Some(slot0), Some(slot1));
        let mut expect = vec![a, a, a];
        expect.resize(20, b);
        assert_eq!(writers, expect, "slot 0's thread: {slot0:?}");
        assert_eq!(slots.total(), Some((1..=20).sum()));
    }

    #[test]
    fn each_part_is_in_the_slot_whose_range_holds_it() {
        for parts in 1..40 {
            for slots in 1..=parts {
                let s = Slots::new(parts, slots, None);
                for p in 0..parts {
                    let (a, b) = s.range(s.slot_of(p));
                    assert!(a <= p && p < b, "{parts} parts, {slots} slots, part {p}");
                }
            }
        }
    }

    #[test]
    fn no_parts_have_no_rows() {
        let slots = Slots::new(0, 4, None);
        assert_eq!(slots.total(), Some(0));
    }
}
