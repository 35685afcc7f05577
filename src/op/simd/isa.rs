//! The instruction-set token: which SIMD level the kernels may use.
//!
//! On x86_64, SSE2 is always there; AVX2 (with BMI1 and POPCNT) and AVX-512 (F, BW, VL and
//! VBMI2, for its compress instructions) are detected at run time; other targets use portable
//! code. `DMLS_SIMD=portable|sse2|avx2|avx512` in the environment (read once per process) lowers
//! the level, so the tests can run every path on one machine.

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) enum Level {
    /// Plain Rust.
    Portable = 1,
    /// x86_64 baseline.
    Sse2 = 2,
    /// x86_64 with AVX2, BMI1 and POPCNT.
    Avx2 = 3,
    /// All of the above and AVX-512 F, BW, VL and VBMI2.
    Avx512 = 4,
}

/// A level this CPU has. Its field is private to this module and only detection makes one,
/// so code holding an `Isa` at [`Level::Avx2`] or above may run AVX2, BMI1 and POPCNT
/// instructions, and at [`Level::Avx512`] also AVX-512 F, BW, VL and VBMI2 ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Isa {
    level: Level,
}

static ISA: AtomicU8 = AtomicU8::new(0);

impl Isa {
    /// The level of this process: the best the CPU has, lowered by `DMLS_SIMD` when set. One
    /// relaxed atomic load after the first call.
    #[inline]
    pub fn detect() -> Isa {
        let level = match ISA.load(Ordering::Relaxed) {
            1 => Level::Portable,
            2 => Level::Sse2,
            3 => Level::Avx2,
            4 => Level::Avx512,
            _ => return Isa::detect_first(),
        };
        Isa { level }
    }

    #[cold]
    fn detect_first() -> Isa {
        let cap = match std::env::var("DMLS_SIMD").as_deref() {
            Ok("portable") => Level::Portable,
            Ok("sse2") => Level::Sse2,
            Ok("avx2") => Level::Avx2,
            _ => Level::Avx512,
        };
        Isa::force(cap)
    }

    /// Sets the level of this process from now on: the best the CPU has that is not above
    /// `cap` (a forced level can only lower it). Executions already running keep the level
    /// they read. Returns the level set.
    pub fn force(cap: Level) -> Isa {
        let isa = Isa::at_most(cap);
        ISA.store(isa.level as u8, Ordering::Relaxed);
        isa
    }

    /// The best level this CPU has that is not above `cap` (a forced level can only lower it).
    pub fn at_most(cap: Level) -> Isa {
        Isa {
            level: best_level().min(cap),
        }
    }

    /// Every level this CPU has, lowest first.
    #[cfg(test)]
    pub fn all() -> Vec<Isa> {
        [Level::Portable, Level::Sse2, Level::Avx2, Level::Avx512]
            .into_iter()
            .map(Isa::at_most)
            .fold(Vec::new(), |mut v, isa| {
                if v.last() != Some(&isa) {
                    v.push(isa);
                }
                v
            })
    }

    /// The level.
    #[inline(always)]
    pub fn level(self) -> Level {
        self.level
    }

    /// True when AVX2, BMI1 and POPCNT may be used.
    #[inline(always)]
    pub fn has_avx2(self) -> bool {
        self.level >= Level::Avx2
    }

    /// True when AVX-512 F, BW, VL and VBMI2 may be used (and everything AVX2 allows).
    #[inline(always)]
    pub fn has_avx512(self) -> bool {
        self.level == Level::Avx512
    }
}

fn best_level() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("popcnt");
        let avx512 = std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vbmi2");
        if avx2 && avx512 {
            Level::Avx512
        } else if avx2 {
            Level::Avx2
        } else {
            Level::Sse2
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Level::Portable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_levels_never_exceed_the_cpu() {
        let best = best_level();
        for cap in [Level::Portable, Level::Sse2, Level::Avx2, Level::Avx512] {
            let isa = Isa::at_most(cap);
            assert!(
                isa.level() <= cap && isa.level() <= best,
                "{cap:?} gave {isa:?}"
            );
        }
        assert_eq!(Isa::at_most(Level::Avx512).level(), best);
        assert_eq!(Isa::all().last().map(|i| i.level()), Some(best));
        assert!(Isa::detect().level() <= best);
    }
}
