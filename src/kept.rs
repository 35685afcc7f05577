//! Values worked out on first use and then kept for the process, without a lock.
//!
//! A `OnceLock` makes every thread that asks while the first is working the value out wait for
//! it. In a child forked at that moment the first thread does not exist, so the child's first
//! parallel execution would wait forever (the library promises that a fork while other threads
//! execute is safe). A [`Kept`] value is an atomic word instead: threads that ask before it is
//! kept each work it out, and the first to store it wins.

use core::sync::atomic::{AtomicU64, Ordering};

/// The bit that says the value is kept.
const KEPT: u64 = 1 << 63;

/// A value of at most 63 bits, worked out on first use and kept.
pub(crate) struct Kept(AtomicU64);

impl Kept {
    pub const fn new() -> Kept {
        Kept(AtomicU64::new(0))
    }

    /// The value, worked out with `f` (its top bit dropped) if it is not kept yet. Threads that
    /// race may each call `f`; all of them return the first value kept.
    #[inline]
    pub fn get(&self, f: impl FnOnce() -> u64) -> u64 {
        let v = self.0.load(Ordering::Relaxed);
        if v & KEPT != 0 {
            return v & !KEPT;
        }
        self.first(f)
    }

    #[cold]
    fn first(&self, f: impl FnOnce() -> u64) -> u64 {
        let v = f() & !KEPT;
        match self
            .0
            .compare_exchange(0, v | KEPT, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => v,
            Err(kept) => kept & !KEPT,
        }
    }
}

/// A value kept with [`Kept`] that is `None` or a nonzero number (0 stands for `None`).
pub(crate) struct KeptOption(Kept);

impl KeptOption {
    pub const fn new() -> KeptOption {
        KeptOption(Kept::new())
    }

    /// The value, worked out with `f` if it is not kept yet (`Some(0)` is kept as `None`).
    #[inline]
    pub fn get(&self, f: impl FnOnce() -> Option<u64>) -> Option<u64> {
        Some(self.0.get(|| f().unwrap_or(0))).filter(|&v| v != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_value_kept_is_every_callers() {
        let kept = Kept::new();
        assert_eq!(kept.get(|| 7), 7);
        assert_eq!(kept.get(|| unreachable!("kept already")), 7);
        let zero = Kept::new();
        assert_eq!(zero.get(|| 0), 0);
        assert_eq!(zero.get(|| 5), 0, "0 is a value like any other");
        let top = Kept::new();
        assert_eq!(
            top.get(|| u64::MAX),
            u64::MAX >> 1,
            "the top bit is dropped"
        );
        let none = KeptOption::new();
        assert_eq!(none.get(|| None), None);
        assert_eq!(none.get(|| Some(3)), None);
        let some = KeptOption::new();
        assert_eq!(some.get(|| Some(1 << 20)), Some(1 << 20));
    }

    #[test]
    fn racing_threads_all_return_the_first_value_kept() {
        let kept = Kept::new();
        let seen: Vec<u64> = std::thread::scope(|s| {
            let handles: Vec<_> = (1..=8u64)
                .map(|i| {
                    let kept = &kept;
                    s.spawn(move || kept.get(|| i))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(seen.iter().all(|&v| v == seen[0]), "{seen:?}");
        assert_eq!(kept.get(|| 99), seen[0]);
    }
}
