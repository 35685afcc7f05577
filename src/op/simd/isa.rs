//! The instruction-set token: which SIMD level the kernels may use.
//!
//! On x86_64, SSE2 is always there; AVX2 (with BMI1 and POPCNT) and AVX-512 (F, BW, VL and
//! VBMI2, for its compress instructions) are detected at run time; other targets use portable
//! code. `DMLS_SIMD=portable|sse2|avx2|avx512` in the environment (read once per process, in any
//! case) lowers the level, so the tests can run every path on one machine. Another value is
//! reported once on stderr and changes nothing.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

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
    /// All of the above and AVX-512 F, BW, VL and VBMI2, and BMI2.
    Avx512 = 4,
}

/// A level this CPU has. Its field is private to this module and only detection makes one,
/// so code holding an `Isa` at [`Level::Avx2`] or above may run AVX2, BMI1 and POPCNT
/// instructions, and at [`Level::Avx512`] also AVX-512 F, BW, VL and VBMI2 ones and BMI2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Isa {
    level: Level,
}

impl Level {
    /// Every level, lowest first.
    pub fn every() -> [Level; 4] {
        [Level::Portable, Level::Sse2, Level::Avx2, Level::Avx512]
    }

    /// The level's name as `DMLS_SIMD` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Sse2 => "sse2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The level a name stands for, in any case and without surrounding spaces
    /// (`"AVX2"`, `" avx512 "`), or `None`.
    pub fn parse(name: &str) -> Option<Level> {
        let name = name.trim();
        Level::every()
            .into_iter()
            .find(|level| level.name().eq_ignore_ascii_case(name))
    }
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
        let value = std::env::var_os("DMLS_SIMD").unwrap_or_default();
        let value = value.to_string_lossy();
        let cap = match Level::parse(&value) {
            Some(level) => level,
            None => {
                if !value.trim().is_empty() {
                    warn_unknown(&value);
                }
                Level::Avx512
            }
        };
        let isa = Isa::at_most(cap);
        // (A level forced meanwhile wins: `detect` then reads it.)
        match ISA.compare_exchange(0, isa.level as u8, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => isa,
            Err(_) => Isa::detect(),
        }
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
        Level::every()
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

    /// True when AVX-512 F, BW, VL and VBMI2, and BMI2, may be used (and everything AVX2
    /// allows).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // read by the x86-64 kernels only
    pub fn has_avx512(self) -> bool {
        self.level == Level::Avx512
    }
}

/// Says once per process, on stderr, that `DMLS_SIMD` holds a value that is not a level: a typo
/// must not pass for a lowered level.
fn warn_unknown(value: &str) {
    use std::io::Write as _;
    // (An atomic, not a `Once`: a child forked while another thread warned would wait for
    // that thread forever. Not `eprintln!`, which panics where standard error is closed.)
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        let _ = writeln!(
            std::io::stderr(),
            "directml_subset: DMLS_SIMD={value:?} is not portable, sse2, avx2 or avx512 (in any \
             case); ignored, the kernels use the best level this CPU has ({})",
            best_level().name()
        );
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
            && std::is_x86_feature_detected!("avx512vbmi2")
            // (Every CPU with AVX-512 has BMI2, but a virtual machine may hide it.)
            && std::is_x86_feature_detected!("bmi2");
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

    /// The features in the quoted lists (`"a,b"`) that follow `opening` (which ends with the
    /// opening quote) in `text`.
    fn named<'a>(text: &'a str, opening: &str) -> Vec<&'a str> {
        text.split(opening)
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .flat_map(|list| list.split(','))
            .map(str::trim)
            .collect()
    }

    /// Every `.rs` file under `dir`, with its text.
    fn sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }

    /// Code compiled for a feature runs wherever its level allows it, so each level must be
    /// detected with every feature its kernels enable (x86_64's baseline SSE2 aside): a feature
    /// enabled but not detected is an illegal instruction on a CPU without it. A kernel that
    /// enables an AVX-512 feature runs at the AVX-512 level (which needs the AVX2 level's
    /// features too); any other at the AVX2 level.
    #[test]
    fn every_feature_a_kernel_enables_is_detected() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&root, &mut files);
        let this = include_str!("isa.rs");
        let start = this.find("fn best_level()").unwrap();
        let detection = &this[start..start + this[start..].find("\n}\n").unwrap()];
        let level = |name: &str| {
            let at = detection.find(&format!("let {name} = ")).unwrap();
            let statement = &detection[at..at + detection[at..].find(';').unwrap()];
            named(statement, "is_x86_feature_detected!(\"")
        };
        let avx2 = level("avx2");
        let mut avx512 = level("avx512");
        assert!(
            avx2.contains(&"avx2") && avx512.contains(&"avx512f"),
            "{avx2:?} {avx512:?}"
        );
        avx512.extend(&avx2);
        let mut enabled = 0;
        for (path, text) in &files {
            for list in text.split("target_feature(enable = \"").skip(1) {
                let features: Vec<&str> = list.split('"').next().unwrap().split(',').collect();
                let wide = features.iter().any(|f| f.starts_with("avx512"));
                let allowed = if wide { &avx512 } else { &avx2 };
                for feature in features {
                    enabled += 1;
                    assert!(
                        feature == "sse2" || allowed.contains(&feature),
                        "{path} enables {feature} in a {} kernel, which that level does not \
                         detect",
                        if wide { "AVX-512" } else { "AVX2" }
                    );
                }
            }
        }
        assert!(
            enabled > 50,
            "{enabled} features enabled: the scan found too few"
        );
    }

    #[test]
    fn forced_levels_never_exceed_the_cpu() {
        let best = best_level();
        for cap in Level::every() {
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

    #[test]
    fn names_parse_in_any_case() {
        for level in Level::every() {
            assert_eq!(Level::parse(level.name()), Some(level));
            assert_eq!(Level::parse(&level.name().to_uppercase()), Some(level));
            assert_eq!(Level::parse(&format!(" {} ", level.name())), Some(level));
        }
        assert_eq!(Level::parse("Avx2"), Some(Level::Avx2));
        for bad in ["", "avx", "avx-512", "avx3", "sse4", "native", "avx2,sse2"] {
            assert_eq!(Level::parse(bad), None, "{bad:?}");
        }
    }
}
