//! Timing a prepared operator against its bound: a two-thread `memcpy` (or `memset`), runs
//! alternating so both see the same machine load.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::operators::Prepared;
use test_support::Buffer;

/// Two-thread memcpy / memset, on rayon's global pool (as many threads as the library's own
/// process-wide pool, which `thread_count` 0 uses).
pub struct Bound {
    pub src: Buffer,
    pub dst: Buffer,
}

impl Bound {
    fn copy(&mut self, bytes: usize) {
        let half = bytes / 2;
        let Bound { src, dst } = self;
        let src = &src.bytes()[..bytes];
        let dst = &mut dst.bytes_mut()[..bytes];
        let (d0, d1) = dst.split_at_mut(half);
        let (s0, s1) = src.split_at(half);
        rayon::join(|| d0.copy_from_slice(s0), || d1.copy_from_slice(s1));
    }
    fn set(&mut self, bytes: usize) {
        let dst = &mut self.dst.bytes_mut()[..bytes];
        let (d0, d1) = dst.split_at_mut(bytes / 2);
        rayon::join(|| d0.fill(0), || d1.fill(0));
    }
}

pub fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// What one workload measured: medians and minimums of the operator and of the bound, and
/// the median of the ratios of adjacent (operator, bound) pairs.
pub struct Measured {
    pub op_med: Duration,
    pub bound_med: Duration,
    pub op_min: Duration,
    pub bound_min: Duration,
    pub pair_ratio_med: f64,
    pub bytes: usize,
}

pub fn measure(p: &Prepared, bound: &mut Bound, memset: bool, reps: usize) -> Measured {
    p.run();
    let written = p.written_bytes();
    let total = p.read + written;
    let bound_bytes = if memset { written } else { total / 2 };
    let run_bound = |b: &mut Bound| {
        let t = Instant::now();
        if memset {
            b.set(bound_bytes)
        } else {
            b.copy(bound_bytes)
        }
        black_box(b.dst.bytes().as_ptr());
        t.elapsed()
    };
    let run_op = || {
        let t = Instant::now();
        p.run();
        t.elapsed()
    };
    run_bound(bound);
    let (mut ops, mut bounds, mut ratios) = (vec![], vec![], vec![]);
    for i in 0..reps {
        // Alternate which of the pair goes first.
        let (o, b) = if i % 2 == 0 {
            let o = run_op();
            (o, run_bound(bound))
        } else {
            let b = run_bound(bound);
            (run_op(), b)
        };
        ops.push(o);
        bounds.push(b);
        ratios.push(o.as_secs_f64() / b.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let (op_min, bound_min) = (*ops.iter().min().unwrap(), *bounds.iter().min().unwrap());
    Measured {
        op_med: median(&mut ops),
        bound_med: median(&mut bounds),
        op_min,
        bound_min,
        pair_ratio_med: ratios[ratios.len() / 2],
        bytes: total,
    }
}
