//! The cost curve: each operator from 2^8 to 2^26 elements against the faster of a one-thread
//! and a two-thread `memcpy` of the same bytes, measured in the same process on warm buffers.
//!
//! Every point is the median over `reps` batches of the per-call time (a batch repeats the call
//! until it lasts about 0.2 ms, so small operators are not timed one clock read at a time);
//! operator and bound batches alternate. The table is printed and written as CSV (for
//! `scripts/plot_curve.py`) to `target/kernels-curve.csv`, or to `$DMLS_CURVE_CSV`.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::operators::{make_data, prepare, Prepared, PREFAULT};
use crate::workloads::{Coords, Kind};
use directml_subset::dml::DML_TENSOR_DATA_TYPE;
use test_support::{env_or, Buffer, Device};

/// One workload of the curve and its target (time / bound).
pub struct Series {
    pub name: &'static str,
    pub target: f64,
    pub kind: fn(sizes: Vec<u32>) -> Kind,
}

fn nonzero(dt: DML_TENSOR_DATA_TYPE, density: f64, sizes: Vec<u32>) -> Kind {
    Kind::NonZero {
        dt,
        sizes,
        strides: None,
        density,
        coords: Coords::Packed,
    }
}

pub fn series() -> Vec<Series> {
    const FLOAT32: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE::FLOAT32;
    const UINT8: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE::UINT8;
    vec![
        Series {
            name: "nonzero f32 d=0.5",
            target: 2.0,
            kind: |s| nonzero(FLOAT32, 0.5, s),
        },
        Series {
            name: "nonzero f32 d=0.01",
            target: 2.0,
            kind: |s| nonzero(FLOAT32, 0.01, s),
        },
        Series {
            name: "nonzero u8 d=0.1",
            target: 2.0,
            kind: |s| nonzero(UINT8, 0.1, s),
        },
        Series {
            name: "diag1 f32 upper",
            target: 1.3,
            kind: |sizes| Kind::Diag {
                dt: DML_TENSOR_DATA_TYPE::FLOAT32,
                sizes,
                with_input: true,
                begin: i32::MIN,
                end: 0,
                value: 0.0,
            },
        },
        Series {
            name: "diag1 f32 identity",
            target: 1.3,
            kind: |sizes| Kind::Diag {
                dt: DML_TENSOR_DATA_TYPE::FLOAT32,
                sizes,
                with_input: false,
                begin: 0,
                end: 1,
                value: 1.0,
            },
        },
    ]
}

/// Calls `f` in batches of about 0.2 ms; returns the time of one call in one batch.
pub fn batch(n: u32, f: &mut dyn FnMut()) -> Duration {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed() / n
}

/// How many calls of `f` make a batch of about 0.2 ms, from the median of five single calls:
/// one slow call (the first trip through a pool, a parallel path retried once per 100 ms)
/// would otherwise make every batch a few calls long, and the first call of a batch (buffers
/// just evicted by the bound's batch) would then weigh on the whole point.
pub fn calibrate(f: &mut dyn FnMut()) -> u32 {
    let one = median((0..5).map(|_| batch(1, f)).collect());
    let per = one.as_nanos().max(20) as u64;
    (200_000 / per).clamp(1, 100_000) as u32
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The memcpy bounds: the same bytes on one thread and split over two.
pub struct Copier {
    src: Buffer,
    dst: Buffer,
}

impl Copier {
    fn run(&mut self, bytes: usize, memset: bool, two: bool) {
        let src = &self.src.bytes()[..bytes];
        let dst = &mut self.dst.bytes_mut()[..bytes];
        match (memset, two) {
            (false, false) => dst.copy_from_slice(src),
            (true, false) => dst.fill(0),
            (false, true) => {
                let (d0, d1) = dst.split_at_mut(bytes / 2);
                let (s0, s1) = src.split_at(bytes / 2);
                rayon::join(|| d0.copy_from_slice(s0), || d1.copy_from_slice(s1));
            }
            (true, true) => {
                let (d0, d1) = dst.split_at_mut(bytes / 2);
                rayon::join(|| d0.fill(0), || d1.fill(0));
            }
        }
        black_box(dst.as_ptr());
    }
}

/// One point of the curve: per-call times in seconds.
pub struct Point {
    pub series: &'static str,
    pub target: f64,
    pub elements: u64,
    pub bytes: usize,
    pub t1: f64,
    pub tall: f64,
    pub b1: f64,
    pub b2: f64,
}

impl Point {
    pub fn bound(&self) -> f64 {
        self.b1.min(self.b2)
    }
    /// The default device's time (all threads) over the bound.
    pub fn ratio(&self) -> f64 {
        self.tall / self.bound()
    }
}

/// Measures one workload on the 1-thread and the all-thread device against its bound.
pub fn point(
    series: &'static str,
    target: f64,
    kind: Kind,
    devs: &[Device; 2],
    rng: &mut SmallRng,
    copier: &mut Option<Copier>,
    reps: usize,
) -> Point {
    let (mut data, _tensors) = make_data(&kind, rng);
    let need = data.input.as_ref().map_or(0, |b| b.len())
        + data.outputs.iter().map(|b| b.len()).sum::<usize>();
    if copier.as_ref().is_none_or(|c| c.src.len() < need) {
        drop(copier.take());
        *copier = Some(Copier {
            src: Buffer::filled(need, PREFAULT),
            dst: Buffer::filled(need, PREFAULT),
        });
    }
    let copier = copier.as_mut().expect("made above");
    let memset = matches!(
        kind,
        Kind::Diag {
            with_input: false,
            ..
        }
    );
    let elements = match &kind {
        Kind::NonZero { sizes, .. } | Kind::Diag { sizes, .. } => {
            sizes.iter().map(|&s| u64::from(s)).product()
        }
    };
    let p1 = prepare(&devs[0], &kind, &mut data);
    let pall = prepare(&devs[1], &kind, &mut data);
    let [t1, tall, b1, b2] = measure([&p1, &pall], copier, memset, reps);
    Point {
        series,
        target,
        elements,
        bytes: p1.read + p1.written_bytes(),
        t1: t1.as_secs_f64(),
        tall: tall.as_secs_f64(),
        b1: b1.as_secs_f64(),
        b2: b2.as_secs_f64(),
    }
}

fn measure(ops: [&Prepared; 2], copier: &mut Copier, memset: bool, reps: usize) -> [Duration; 4] {
    ops[0].run();
    let written = ops[0].written_bytes();
    let total = ops[0].read + written;
    let bytes = if memset { written } else { total / 2 };
    let mut runs: [Box<dyn FnMut() + '_>; 2] =
        [Box::new(|| ops[0].run()), Box::new(|| ops[1].run())];
    let n_op = [calibrate(&mut *runs[0]), calibrate(&mut *runs[1])];
    let n_b = [
        calibrate(&mut || copier.run(bytes, memset, false)),
        calibrate(&mut || copier.run(bytes, memset, true)),
    ];
    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..reps {
        for i in 0..2 {
            times[i].push(batch(n_op[i], &mut *runs[i]));
            times[2 + i].push(batch(n_b[i], &mut || copier.run(bytes, memset, i == 1)));
        }
    }
    times.map(median)
}

/// Measures and prints the curve of every series whose name contains `filter` (all for
/// `curve`), from 2^8 to 2^`max_log2` elements; returns the points.
pub fn run(filter: &Option<String>, reps: usize) -> Vec<Point> {
    let max_log2: u32 = env_or("DMLS_CURVE_MAX_LOG2", 26);
    let min_log2: u32 = env_or("DMLS_CURVE_MIN_LOG2", 8);
    let chosen: Vec<Series> = series()
        .into_iter()
        .filter(|s| {
            filter
                .as_ref()
                .is_none_or(|f| f == "curve" || s.name.contains(f.as_str()))
        })
        .collect();
    if chosen.is_empty() {
        return vec![];
    }
    println!(
        "\ncost curve (C API; time per call, median of {reps} batches; bound = faster of a 1- and \
         a 2-thread memcpy of (read + written) / 2, memset of the output without input):"
    );
    println!(
        "{:<22} {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>7} {:>6}",
        "series", "elements", "bytes", "1 thread", "all", "memcpy 1", "memcpy 2", "ratio", "target"
    );
    let devs = [Device::with_threads(1), Device::with_threads(0)];
    let mut rng = SmallRng::seed_from_u64(7);
    let mut copier: Option<Copier> = None;
    let mut points = vec![];
    for s in &chosen {
        for k in min_log2..=max_log2 {
            let sizes = vec![1u32 << (k / 2), 1u32 << (k - k / 2)];
            let p = point(
                s.name,
                s.target,
                (s.kind)(sizes),
                &devs,
                &mut rng,
                &mut copier,
                reps,
            );
            println!(
                "{:<22} {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>7.2} {:>6}",
                p.series,
                format!("2^{k}"),
                p.bytes,
                fmt_time(p.t1),
                fmt_time(p.tall),
                fmt_time(p.b1),
                fmt_time(p.b2),
                p.ratio(),
                format!("≤ {}", p.target),
            );
            points.push(p);
        }
    }
    write_csv(&points);
    points
}

pub fn fmt_time(s: f64) -> String {
    if s < 1e-6 {
        format!("{:.0} ns", s * 1e9)
    } else if s < 1e-3 {
        format!("{:.2} µs", s * 1e6)
    } else {
        format!("{:.3} ms", s * 1e3)
    }
}

fn write_csv(points: &[Point]) {
    let path =
        std::env::var("DMLS_CURVE_CSV").unwrap_or_else(|_| "target/kernels-curve.csv".into());
    let mut text = String::from(
        "series,elements,bytes,seconds_1thread,seconds_all,memcpy_1thread,memcpy_2thread,target\n",
    );
    for p in points {
        text += &format!(
            "{},{},{},{:.4e},{:.4e},{:.4e},{:.4e},{}\n",
            p.series, p.elements, p.bytes, p.t1, p.tall, p.b1, p.b2, p.target
        );
    }
    match std::fs::File::create(&path).and_then(|mut f| f.write_all(text.as_bytes())) {
        Ok(()) => println!("curve written to {path}"),
        Err(e) => eprintln!("could not write {path}: {e}"),
    }
}
