//! The kernel benchmark's workloads: what each runs, and its target (time / bound, all threads).

use directml_subset::dml::*;

/// What one workload runs.
pub enum Kind {
    NonZero {
        dt: DML_TENSOR_DATA_TYPE,
        sizes: Vec<u32>,
        strides: Option<Vec<u32>>,
        density: f64,
        coords: Coords,
    },
    Diag {
        dt: DML_TENSOR_DATA_TYPE,
        sizes: Vec<u32>,
        with_input: bool,
        begin: i32,
        end: i32,
        value: f32,
    },
}

/// NonZero's count and coordinates tensors.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Coords {
    /// UINT32, packed `[M, N]`.
    Packed,
    /// UINT32 in ONNX Runtime's layout: the low halves of an int64 `[N, M]` tensor (strides
    /// `{2, 2·M}`).
    Ort,
    /// UINT64, packed `[M, N]` (an extension: the device needs `DMLS_DEVICE_FLAG_EXTENSIONS`).
    Wide,
}

/// A named workload and its target (NaN: reported, no target).
pub struct Workload {
    pub name: &'static str,
    pub target: f64,
    pub kind: Kind,
}

pub fn workloads() -> Vec<Workload> {
    let nz = |name, dt, sizes: &[u32], strides: Option<&[u32]>, density, target| Workload {
        name,
        target,
        kind: Kind::NonZero {
            dt,
            sizes: sizes.to_vec(),
            strides: strides.map(|s| s.to_vec()),
            density,
            coords: Coords::Packed,
        },
    };
    let dg = |name, sizes: &[u32], with_input, begin, end, value, target| Workload {
        name,
        target,
        kind: Kind::Diag {
            dt: DML_TENSOR_DATA_TYPE::FLOAT32,
            sizes: sizes.to_vec(),
            with_input,
            begin,
            end,
            value,
        },
    };
    let f32t = DML_TENSOR_DATA_TYPE::FLOAT32;
    vec![
        nz("nonzero f32 256^3 d=0.5", f32t, &[256; 3], None, 0.5, 2.0),
        nz("nonzero f32 256^3 d=0.01", f32t, &[256; 3], None, 0.01, 1.5),
        nz("nonzero f32 256^3 d=0.99", f32t, &[256; 3], None, 0.99, 2.0),
        nz(
            "nonzero u8 4096^2 d=0.1",
            DML_TENSOR_DATA_TYPE::UINT8,
            &[4096; 2],
            None,
            0.1,
            2.5,
        ),
        nz(
            "nonzero f32 4096^2 transposed d=0.5",
            f32t,
            &[4096; 2],
            Some(&[1, 4096]),
            0.5,
            f64::NAN,
        ),
        dg(
            "diag1 f32 4096^2 upper",
            &[4096; 2],
            true,
            i32::MIN,
            0,
            0.0,
            1.2,
        ),
        dg(
            "diag1 f32 4096^2 lower",
            &[4096; 2],
            true,
            1,
            i32::MAX,
            0.0,
            1.2,
        ),
        dg(
            "diag1 f32 [8,1024,1024] upper",
            &[8, 1024, 1024],
            true,
            i32::MIN,
            0,
            0.0,
            1.2,
        ),
        dg(
            "diag1 f32 4096^2 identity",
            &[4096; 2],
            false,
            0,
            1,
            1.0,
            1.2,
        ),
    ]
}
