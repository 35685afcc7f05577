//! Threads for the concurrency tests: threads that start together. The handles they share are
//! [`crate::Shared`].

use std::sync::{Arc, Barrier};
use std::thread::{self, JoinHandle};

/// Starts `threads` threads that begin together (after a barrier), thread `t` running `f(t)`;
/// returns their handles, in order.
pub fn spawn_together<R, F>(threads: usize, f: F) -> Vec<JoinHandle<R>>
where
    R: Send + 'static,
    F: Fn(usize) -> R + Send + Sync + 'static,
{
    let barrier = Arc::new(Barrier::new(threads));
    let f = Arc::new(f);
    (0..threads)
        .map(|t| {
            let (barrier, f) = (Arc::clone(&barrier), Arc::clone(&f));
            thread::spawn(move || {
                barrier.wait();
                f(t)
            })
        })
        .collect()
}

/// Waits for the threads, in order, and returns what each returned; a thread that panicked fails
/// the caller with its message.
pub fn join_all<R>(handles: Vec<JoinHandle<R>>) -> Vec<R> {
    handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        .collect()
}
