//! Whether two elements of a strided tensor share an address: an exact search
//! ([`overlap`]) that also names two such elements ([`Collision`]).

/// Two index vectors of one tensor whose elements sit at the same element offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Collision {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub offset: u64,
}

/// [`overlap`] without a budget, as an `Option` (for tests).
#[cfg(test)]
pub(crate) fn find_collision(sizes: &[u32], strides: &[u64]) -> Option<Collision> {
    match overlap(sizes, strides, u64::MAX) {
        Overlap::Collides(c) => Some(c),
        Overlap::Disjoint => None,
        Overlap::Unsettled => unreachable!("no budget"),
    }
}

/// The steps step 3 of [`overlap`] may take at operator creation: a step costs up to about
/// 400 ns (two 128-bit divisions and a hashed set's look-up and insertion), so the budget
/// bounds it at about 7 ms and 1 MB (a desc that the fuzzer built to use up the earlier budget
/// of 2^20 steps took 0.41 s to create on AMD Zen 4). No layout a real program uses comes
/// near it: what survives step 2 collides after a handful of steps or is small (interleaved
/// sizes {1000, 1000} with strides {1001, 1000}, disjoint, take 1,001). A layout the
/// search cannot settle within it is accepted and written by one thread, in element order,
/// rather than have a crafted desc hang or exhaust memory at creation.
pub(crate) const SEARCH_BUDGET: u64 = 1 << 14;

/// What [`overlap`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Overlap {
    /// No two elements share an address.
    Disjoint,
    /// These two do.
    Collides(Collision),
    /// The search ran out of its budget before it could tell.
    Unsettled,
}

/// Decides exactly whether two elements of a strided tensor share an address, and returns two
/// such elements when they do, within `budget` steps of the search (step 3 below).
///
/// Strides count elements, so for element types of at least one byte two elements share a byte
/// exactly when their element offsets `Σ i_k · stride_k` are equal. (Sub-byte types, UINT4 and
/// INT4, are never output types here.)
///
/// The algorithm, on the dimensions of size above 1:
/// 1. A zero stride: elements 0 and 1 of that dimension collide.
/// 2. Sort by stride, ascending. Walking down from the largest stride, drop each dimension whose
///    stride exceeds the reach `R = Σ (size − 1) · stride` of all smaller-stride dimensions: if
///    two elements differed in such a dimension (the largest one where they differ), that
///    difference moves the offset by at least its stride, more than the smaller ones can take
///    back, so they cannot collide; they therefore agree there and the question is the same for
///    the remaining dimensions. When nothing remains (the usual packed, permuted, padded or
///    ONNX Runtime `{2, 2·M}` layouts), the elements are distinct: this is the fast path.
/// 3. Otherwise two elements collide exactly when some nonzero difference vector `d`, with
///    `|d_k| ≤ size_k − 1`, has `Σ d_k · stride_k = 0` (then `a_k = max(d_k, 0)` and
///    `b_k = max(−d_k, 0)` are the two elements). A depth-first search picks `d_k` from the
///    largest stride down, keeping only values from which the remaining smaller dimensions can
///    still reach zero (`|target| ≤ R` of the dimensions below), fixes the sign of the first
///    nonzero `d_k` (d and −d are the same pair), and remembers targets already found
///    hopeless at each level, so it visits each (level, target) state at most once. Its work is
///    therefore bounded by `Σ_k min(Π_{j ≥ k} (2·size_j − 1), 2·R_k + 1)`; in practice (what
///    survives step 2 has strides smaller than the reach below them, which makes a collision
///    easy to find) it ends after a handful of steps. This problem (bounded linear
///    Diophantine equations) is NP-hard in general, so no method is polynomial in the bits of
///    the strides for every input; at most 8 dimensions keep the search small, and
///    [`SEARCH_BUDGET`] bounds it for layouts built to defeat it.
pub(crate) fn overlap(sizes: &[u32], strides: &[u64], budget: u64) -> Overlap {
    let dims = sizes.len();
    // (stride, size, original dimension) of each dimension larger than 1.
    let mut live: Vec<(u64, u64, usize)> = Vec::with_capacity(dims);
    for k in 0..dims {
        if sizes[k] > 1 {
            if strides[k] == 0 {
                let mut b = vec![0; dims];
                b[k] = 1;
                return Overlap::Collides(Collision {
                    a: vec![0; dims],
                    b,
                    offset: 0,
                });
            }
            live.push((strides[k], u64::from(sizes[k]), k));
        }
    }
    live.sort_unstable();
    // reach[j]: the largest offset the dimensions before j (smaller strides) reach.
    let mut reach = vec![0u128; live.len() + 1];
    for (j, &(s, n, _)) in live.iter().enumerate() {
        reach[j + 1] = reach[j] + u128::from(s) * u128::from(n - 1);
    }
    let mut keep = live.len();
    while keep > 0 && u128::from(live[keep - 1].0) > reach[keep - 1] {
        keep -= 1;
    }
    if keep == 0 {
        return Overlap::Disjoint;
    }
    let live = &live[..keep];
    let d = match search_difference(live, &reach, budget) {
        Ok(Some(d)) => d,
        Ok(None) => return Overlap::Disjoint,
        Err(OutOfBudget) => return Overlap::Unsettled,
    };
    let mut a = vec![0u32; dims];
    let mut b = vec![0u32; dims];
    let mut offset = 0u64;
    for (j, &(s, _, k)) in live.iter().enumerate() {
        if d[j] > 0 {
            a[k] = d[j] as u32;
            offset += s * d[j] as u64;
        } else {
            b[k] = (-d[j]) as u32;
        }
    }
    Overlap::Collides(Collision { a, b, offset })
}

/// The search took more steps than its budget.
struct OutOfBudget;

/// Step 3 of [`overlap`]: a nonzero `d` with `|d_j| < size_j` and `Σ d_j · stride_j = 0`.
fn search_difference(
    live: &[(u64, u64, usize)],
    reach: &[u128],
    budget: u64,
) -> core::result::Result<Option<Vec<i64>>, OutOfBudget> {
    use std::collections::HashSet;
    struct Search<'a> {
        live: &'a [(u64, u64, usize)],
        reach: &'a [u128],
        d: Vec<i64>,
        hopeless: HashSet<(usize, i128, bool)>,
        steps_left: u64,
    }
    impl Search<'_> {
        // Chooses d[j] (dimension j and those below must sum to `target`); `started` says a
        // higher dimension already has a nonzero d.
        fn go(&mut self, j: usize, target: i128, started: bool) -> bool {
            if j == 0 {
                return target == 0 && started;
            }
            let j = j - 1;
            if self.steps_left == 0 || self.hopeless.contains(&(j, target, started)) {
                return false;
            }
            self.steps_left -= 1;
            let (s, n, _) = self.live[j];
            let s = s as i128;
            let r = self.reach[j] as i128;
            let n1 = (n - 1) as i128;
            // |target - d·s| ≤ r  <=>  (target - r) / s ≤ d ≤ (target + r) / s.
            let mut lo = (target - r).div_euclid(s) + i128::from((target - r).rem_euclid(s) != 0);
            let mut hi = (target + r).div_euclid(s);
            lo = lo.max(-n1);
            hi = hi.min(n1);
            if !started {
                lo = lo.max(0);
            }
            let mut d = lo;
            while d <= hi {
                self.d[j] = d as i64;
                if self.go(j, target - d * s, started || d != 0) {
                    return true;
                }
                if self.steps_left == 0 {
                    // Out of budget: nothing below was settled, so nothing is remembered.
                    return false;
                }
                d += 1;
            }
            self.d[j] = 0;
            self.hopeless.insert((j, target, started));
            false
        }
    }
    let mut search = Search {
        live,
        reach,
        d: vec![0; live.len()],
        hopeless: HashSet::new(),
        steps_left: budget,
    };
    if search.go(live.len(), 0, false) {
        Ok(Some(search.d))
    } else if search.steps_left == 0 {
        Err(OutOfBudget)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::find_collision;

    fn brute(sizes: &[u32], strides: &[u64]) -> bool {
        let mut seen = std::collections::HashSet::new();
        let total: u64 = sizes.iter().map(|&s| u64::from(s)).product();
        for mut e in 0..total {
            let mut off = 0;
            for k in (0..sizes.len()).rev() {
                off += (e % u64::from(sizes[k])) * strides[k];
                e /= u64::from(sizes[k]);
            }
            if !seen.insert(off) {
                return true;
            }
        }
        false
    }

    fn offset(idx: &[u32], strides: &[u64]) -> u64 {
        idx.iter()
            .zip(strides)
            .map(|(&i, &s)| u64::from(i) * s)
            .sum()
    }

    fn check(sizes: &[u32], strides: &[u64], ctx: &str) {
        let found = find_collision(sizes, strides);
        assert_eq!(
            found.is_some(),
            brute(sizes, strides),
            "{ctx}: sizes {sizes:?} strides {strides:?}"
        );
        if let Some(c) = found {
            assert_ne!(c.a, c.b, "{ctx}");
            for (k, &n) in sizes.iter().enumerate() {
                assert!(c.a[k] < n && c.b[k] < n, "{ctx}: {c:?}");
            }
            assert_eq!(offset(&c.a, strides), c.offset, "{ctx}: {c:?}");
            assert_eq!(offset(&c.b, strides), c.offset, "{ctx}: {c:?}");
        }
    }

    #[test]
    fn a_search_out_of_budget_is_unsettled() {
        use super::{overlap, Overlap};
        // Interleaved and disjoint: step 2 cannot drop a dimension, so the search runs.
        assert_eq!(overlap(&[2, 3], &[3, 2], u64::MAX), Overlap::Disjoint);
        assert_eq!(overlap(&[2, 3], &[3, 2], 1), Overlap::Unsettled);
        assert!(matches!(
            overlap(&[3, 3], &[1, 2], u64::MAX),
            Overlap::Collides(_)
        ));
        // Interleaved and disjoint, large: settled within the budget (about 1,000 steps).
        assert_eq!(
            overlap(&[1000, 1000], &[1001, 1000], super::SEARCH_BUDGET),
            Overlap::Disjoint
        );
        // Separable layouts and zero strides need no search at all.
        assert_eq!(overlap(&[4, 4], &[4, 1], 0), Overlap::Disjoint);
        assert!(matches!(overlap(&[2, 2], &[0, 1], 0), Overlap::Collides(_)));
    }

    #[test]
    fn known_layouts() {
        check(&[2, 3], &[3, 2], "interleaved {3, 2}");
        assert!(find_collision(&[2, 3], &[3, 2]).is_none());
        assert!(find_collision(&[6, 3], &[2, 12]).is_none(), "ORT {{2, 2M}}");
        assert!(find_collision(&[1, 6, 3], &[0, 2, 12]).is_none());
        assert!(find_collision(&[2, 2], &[0, 1]).is_some());
        assert!(find_collision(&[3, 3], &[1, 2]).is_some());
        assert!(find_collision(&[4, 4], &[4, 1]).is_none());
        assert!(find_collision(&[5, 4], &[3, 1]).is_some());
        assert!(find_collision(&[65536, 65536], &[1, 1]).is_some());
        assert!(find_collision(&[65536, 65536], &[65536, 1]).is_none());
        assert!(find_collision(&[65536, 65536], &[65535, 1]).is_some());
        check(&[3, 3, 2], &[5, 7, 3], "mixed");
    }

    #[test]
    fn random_small_layouts_match_brute_force() {
        let seed = std::env::var("DMLS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            });
        println!("find_collision vs brute force: seed {seed} (rerun with DMLS_SEED={seed})");
        let mut x = seed | 1;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut overlapping = 0;
        for case in 0..20000 {
            let dims = 1 + next(4) as usize;
            let sizes: Vec<u32> = (0..dims).map(|_| 1 + next(5) as u32).collect();
            let strides: Vec<u64> = (0..dims).map(|_| next(14)).collect();
            check(&sizes, &strides, &format!("seed {seed} case {case}"));
            overlapping += usize::from(find_collision(&sizes, &strides).is_some());
        }
        // Both answers occur often enough for the comparison to mean something.
        assert!(
            overlapping > 2000 && overlapping < 18000,
            "seed {seed}: {overlapping}"
        );
    }
}
