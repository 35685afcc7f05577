//! Every type and layout at 2^24 elements (a 4096 × 4096 matrix): NONZERO_COORDINATES on its
//! eight input types and DIAGONAL_MATRIX1 on its eleven, each against the same bound as the
//! curve, and their ratio over the FLOAT32 one (target ≤ 1.5); NonZero's transposed and
//! broadcast inputs against the bound (≤ 2.0), and ONNX Runtime's `{2, 2·M}` coordinates
//! against packed ones (≤ 1.3).

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::curve::{fmt_time, point, Copier, Point};
use crate::workloads::{Coords, Kind};
use directml_subset::DataType;
use test_support::Device;

const SIDE: u32 = 4096;

fn nonzero(dt: DataType, strides: Option<Vec<u32>>, ort: bool) -> Kind {
    let coords = if ort { Coords::Ort } else { Coords::Packed };
    Kind::NonZero {
        dt: dt.raw(),
        sizes: vec![SIDE, SIDE],
        strides,
        density: 0.5,
        coords,
    }
}

fn diag(dt: DataType) -> Kind {
    Kind::Diag {
        dt: dt.raw(),
        sizes: vec![SIDE, SIDE],
        with_input: true,
        begin: i32::MIN,
        end: 0,
        value: 1.0,
    }
}

fn print(p: &Point, name: &str, versus: Option<(&str, f64, f64)>) {
    let (what, rel, target) = versus.unwrap_or(("", f64::NAN, f64::NAN));
    println!(
        "{:<34} {:>11} {:>11} {:>7.2}   {}",
        name,
        fmt_time(p.tall),
        fmt_time(p.bound()),
        p.ratio(),
        if rel.is_nan() {
            String::new()
        } else {
            format!("{rel:.2} × {what} (target ≤ {target})")
        }
    );
}

/// Measures and prints the table (filter `types`).
pub fn run(filter: &Option<String>, reps: usize) {
    if filter.as_ref().is_some_and(|f| f != "types") {
        return;
    }
    println!(
        "\ntypes and layouts at {SIDE}×{SIDE} (all threads; time, bound, time / bound, and the ratio \
         against FLOAT32's or packed output's):"
    );
    let devs = [Device::with_threads(1), Device::with_threads(0)];
    let mut rng = SmallRng::seed_from_u64(11);
    let mut copier: Option<Copier> = None;
    let mut measure = |kind| point("", 0.0, kind, &devs, &mut rng, &mut copier, reps);
    // NonZero takes every type but the 64-bit ones.
    let nz_types: Vec<DataType> = DataType::ALL.into_iter().filter(|t| t.size() < 8).collect();
    let f32_nz = measure(nonzero(DataType::Float32, None, false));
    print(&f32_nz, "nonzero FLOAT32 d=0.5", None);
    for &t in nz_types.iter().filter(|&&t| t != DataType::Float32) {
        let p = measure(nonzero(t, None, false));
        let rel = p.ratio() / f32_nz.ratio();
        print(
            &p,
            &format!("nonzero {} d=0.5", t.name()),
            Some(("FLOAT32's", rel, 1.5)),
        );
    }
    let transposed = measure(nonzero(DataType::Float32, Some(vec![1, SIDE]), false));
    print(
        &transposed,
        "nonzero FLOAT32 transposed",
        Some(("bound", transposed.ratio(), 2.0)),
    );
    let broadcast = measure(nonzero(DataType::Float32, Some(vec![0, 1]), false));
    print(
        &broadcast,
        "nonzero FLOAT32 broadcast rows",
        Some(("bound", broadcast.ratio(), 2.0)),
    );
    let ort = measure(nonzero(DataType::Float32, None, true));
    print(
        &ort,
        "nonzero FLOAT32 ORT {2, 2M} coords",
        Some(("packed", ort.tall / f32_nz.tall, 1.3)),
    );
    let f32_dg = measure(diag(DataType::Float32));
    print(&f32_dg, "diag1 FLOAT32 upper", None);
    for t in DataType::ALL {
        if t == DataType::Float32 {
            continue;
        }
        let p = measure(diag(t));
        let rel = p.ratio() / f32_dg.ratio();
        print(
            &p,
            &format!("diag1 {} upper", t.name()),
            Some(("FLOAT32's", rel, 1.5)),
        );
    }
}
