//! Every SIMD level side by side on the machine at hand (filter `isa`): each level the CPU has
//! (AVX-512, AVX2, SSE2, portable) runs the same operator on one thread, the levels
//! alternating batch by batch in one process, each batch after an untimed call and each round starting at another level (the level is switched between calls with
//! `directml_subset::force_simd_level`), with a one-thread `memcpy` of the same bytes in
//! the same rounds.
//!
//! Per point it prints each level's median time, the fastest level and the time with the
//! default dispatch (the highest level) over the time with AVX2. The CSV, with the CPU's name
//! in every row, goes to `target/kernels-isa.csv` or `$DMLS_ISA_CSV`.
//!
//! Sizes run from 2^`DMLS_CURVE_MIN_LOG2` (8) to 2^`DMLS_CURVE_MAX_LOG2` (26) elements in
//! steps of `DMLS_ISA_STEP` (2) octaves; `DMLS_ISA_SERIES=TEXT` keeps the series whose name
//! contains TEXT, `DMLS_ISA_LEVELS=avx512,avx2` the levels named, and `DMLS_ISA_REPS` sets the
//! batches per level and point (7).

use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::curve::{batch, calibrate, fmt_time};
use crate::operators::{make_data, prepare, Prepared, PREFAULT};
use crate::workloads::{Coords, Kind};
use directml_subset::dml::DML_TENSOR_DATA_TYPE as T;
use directml_subset::DMLS_DEVICE_FLAG_EXTENSIONS;
use test_support::{env_or, Buffer, Device};

/// One series: its name and its workload for 2^k elements.
struct Series {
    name: &'static str,
    kind: fn(k: u32) -> Kind,
}

/// 2^k split over `dims` power-of-two sides, the last ones the largest.
fn sides(k: u32, dims: u32) -> Vec<u32> {
    (0..dims)
        .map(|d| 1u32 << ((k + d) / dims))
        .collect::<Vec<_>>()
}

fn nonzero(dt: T, dims: u32, density: f64, coords: Coords, k: u32) -> Kind {
    Kind::NonZero {
        dt,
        sizes: sides(k, dims),
        strides: None,
        density,
        coords,
    }
}

fn diag(dt: T, with_input: bool, k: u32) -> Kind {
    let (begin, end, value) = if with_input {
        (i32::MIN, 0, 0.0)
    } else {
        (0, 1, 1.0)
    };
    Kind::Diag {
        dt,
        sizes: sides(k, 2),
        with_input,
        begin,
        end,
        value,
    }
}

fn series() -> Vec<Series> {
    vec![
        Series {
            name: "nonzero f32 d=0.5",
            kind: |k| nonzero(T::FLOAT32, 2, 0.5, Coords::Packed, k),
        },
        Series {
            name: "nonzero f32 d=0.01",
            kind: |k| nonzero(T::FLOAT32, 2, 0.01, Coords::Packed, k),
        },
        Series {
            name: "nonzero u8 d=0.1",
            kind: |k| nonzero(T::UINT8, 2, 0.1, Coords::Packed, k),
        },
        Series {
            name: "nonzero f16 d=0.5",
            kind: |k| nonzero(T::FLOAT16, 2, 0.5, Coords::Packed, k),
        },
        Series {
            name: "nonzero u8 d=0.5",
            kind: |k| nonzero(T::UINT8, 2, 0.5, Coords::Packed, k),
        },
        Series {
            name: "nonzero f32 1-D d=0.5",
            kind: |k| nonzero(T::FLOAT32, 1, 0.5, Coords::Packed, k),
        },
        Series {
            name: "nonzero f32 3-D d=0.5",
            kind: |k| nonzero(T::FLOAT32, 3, 0.5, Coords::Packed, k),
        },
        Series {
            name: "nonzero f32 ORT coords d=0.5",
            kind: |k| nonzero(T::FLOAT32, 2, 0.5, Coords::Ort, k),
        },
        Series {
            name: "nonzero f32 u64 coords d=0.5",
            kind: |k| nonzero(T::FLOAT32, 2, 0.5, Coords::Wide, k),
        },
        Series {
            name: "diag1 f32 upper",
            kind: |k| diag(T::FLOAT32, true, k),
        },
        Series {
            name: "diag1 f32 identity",
            kind: |k| diag(T::FLOAT32, false, k),
        },
        Series {
            name: "diag1 u8 upper",
            kind: |k| diag(T::UINT8, true, k),
        },
        Series {
            name: "diag1 u16 upper",
            kind: |k| diag(T::UINT16, true, k),
        },
        Series {
            name: "diag1 u64 upper",
            kind: |k| diag(T::UINT64, true, k),
        },
    ]
}

/// The CPU's name, with its family and model (AMD names every server part "AMD EPYC").
pub fn cpu_name() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    match (field("model name"), field("cpu family"), field("model")) {
        (Some(name), Some(f), Some(m)) => format!("{name} (family {f} model {m})"),
        (Some(name), ..) => name,
        _ => std::env::consts::ARCH.to_string(),
    }
}

/// The levels this CPU has (of those named in `DMLS_ISA_LEVELS`, when set), highest (the
/// default) first.
fn levels() -> Vec<&'static str> {
    let only = std::env::var("DMLS_ISA_LEVELS").ok();
    let mut v = vec![];
    for name in ["avx512", "avx2", "sse2", "portable"] {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|l| l == name))
        {
            continue;
        }
        if directml_subset::force_simd_level(name) == Some(name) {
            v.push(name);
        }
    }
    directml_subset::force_simd_level("avx512");
    v
}

/// One level's times at one point.
struct Times {
    median: f64,
    min: f64,
}

fn summarise(mut v: Vec<Duration>) -> Times {
    v.sort();
    Times {
        median: v[v.len() / 2].as_secs_f64(),
        min: v[0].as_secs_f64(),
    }
}

/// Measures every level at one point: per level (in `levels`' order) and then the memcpy.
fn point(p: &Prepared, levels: &[&'static str], copy: &mut Buffers, reps: usize) -> Vec<Times> {
    p.run();
    let bytes = (p.read + p.written_bytes()) / 2;
    let mut run = || p.run();
    let mut n = vec![];
    for &l in levels {
        directml_subset::force_simd_level(l);
        n.push(calibrate(&mut run));
    }
    let nb = calibrate(&mut || copy.run(bytes));
    let mut times: Vec<Vec<Duration>> = vec![vec![]; levels.len() + 1];
    for r in 0..reps {
        times[levels.len()].push(batch(nb, &mut || copy.run(bytes)));
        // Each level's batch follows one untimed call of its own, and each round starts at
        // another level: a call right after another level's (or the memcpy's) pays for the
        // lines that one left dirty in the cache, up to 1.8x on memory-bound sizes.
        for j in 0..levels.len() {
            let i = (r + j) % levels.len();
            directml_subset::force_simd_level(levels[i]);
            run();
            times[i].push(batch(n[i], &mut run));
        }
    }
    directml_subset::force_simd_level(levels[0]);
    times.into_iter().map(summarise).collect()
}

/// The memcpy buffers, as large as the largest point has needed.
struct Buffers {
    src: Buffer,
    dst: Buffer,
}

impl Buffers {
    fn run(&mut self, bytes: usize) {
        self.dst.bytes_mut()[..bytes].copy_from_slice(&self.src.bytes()[..bytes]);
        black_box(self.dst.ptr());
    }
}

/// Measures and prints every level on every chosen series (filter `isa`).
pub fn run(filter: &Option<String>) {
    if filter.as_deref() != Some("isa") {
        return;
    }
    let reps: usize = env_or("DMLS_ISA_REPS", 7);
    let min_log2: u32 = env_or("DMLS_CURVE_MIN_LOG2", 8);
    let max_log2: u32 = env_or("DMLS_CURVE_MAX_LOG2", 26);
    let step: u32 = env_or("DMLS_ISA_STEP", 2).max(1);
    let only = std::env::var("DMLS_ISA_SERIES").ok();
    let levels = levels();
    let cpu = cpu_name();
    println!(
        "\nSIMD levels side by side on {cpu} (C API, one thread; time per call, median of {reps} \
         batches, levels alternating; `default / avx2` below 1: the default dispatch is faster):"
    );
    let mut head = format!("{:<30} {:>8}", "series", "elements");
    for l in &levels {
        head += &format!(" {l:>10}");
    }
    head += &format!(" {:>10} {:>8} {:>13}", "memcpy", "fastest", "default/avx2");
    println!("{head}");
    let dev = Device::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let mut rng = SmallRng::seed_from_u64(5);
    let mut copy: Option<Buffers> = None;
    let mut csv = String::from(
        "cpu,series,elements,bytes,level,seconds_median,seconds_min,memcpy_1thread_median\n",
    );
    let avx2 = levels.iter().position(|&l| l == "avx2");
    for s in series()
        .iter()
        .filter(|s| only.as_ref().is_none_or(|o| s.name.contains(o.as_str())))
    {
        for k in (min_log2..=max_log2).step_by(step as usize) {
            let kind = (s.kind)(k);
            let (mut data, _tensors) = make_data(&kind, &mut rng);
            let p = prepare(&dev, &kind, &mut data);
            p.run();
            let bytes = p.read + p.written_bytes();
            if copy.as_ref().is_none_or(|c| c.src.len() < bytes) {
                drop(copy.take());
                copy = Some(Buffers {
                    src: Buffer::filled(bytes, PREFAULT),
                    dst: Buffer::filled(bytes, PREFAULT),
                });
            }
            let t = point(&p, &levels, copy.as_mut().expect("made above"), reps);
            let memcpy = &t[levels.len()];
            let fastest = (0..levels.len())
                .min_by(|&a, &b| t[a].median.total_cmp(&t[b].median))
                .map_or("", |i| levels[i]);
            let mut line = format!("{:<30} {:>8}", s.name, format!("2^{k}"));
            for (i, l) in levels.iter().enumerate() {
                line += &format!(" {:>10}", fmt_time(t[i].median));
                csv += &format!(
                    "{cpu},{},{},{bytes},{l},{:.4e},{:.4e},{:.4e}\n",
                    s.name,
                    1u64 << k,
                    t[i].median,
                    t[i].min,
                    memcpy.median
                );
            }
            let rel = avx2.map_or(f64::NAN, |a| t[0].median / t[a].median);
            line += &format!(
                " {:>10} {:>8} {:>13.2}",
                fmt_time(memcpy.median),
                fastest,
                rel
            );
            println!("{line}");
        }
    }
    let path = std::env::var("DMLS_ISA_CSV").unwrap_or_else(|_| "target/kernels-isa.csv".into());
    match std::fs::File::create(&path).and_then(|mut f| f.write_all(csv.as_bytes())) {
        Ok(()) => println!("levels written to {path}"),
        Err(e) => eprintln!("could not write {path}: {e}"),
    }
}
