//! Kernel benchmark: every workload of issue 3 through the C API, with 1 thread and all threads,
//! against the memory bound measured in the same process.
//!
//! The bound of a workload is a two-thread `memcpy` of (bytes read + bytes written) / 2, or a
//! two-thread `memset` of the output for DIAGONAL_MATRIX1 without input. All buffers are
//! allocated, filled (pre-faulted) and reused. Operator and bound runs alternate, so both see the
//! same machine load; the table shows medians and the ratio of minimums and of medians.
//!
//! Run with `cargo bench --bench kernels`; `cargo bench --bench kernels -- FILTER` runs only the
//! workloads whose name contains FILTER; `DMLS_BENCH_REPS=N` sets the repetitions (default 15).

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
// Descs and bindings point into boxed values, so the boxes must stay boxes.
#![allow(clippy::vec_box)]

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr;
use std::time::{Duration, Instant};

mod capi;
mod curve;
mod types;

use capi::{check, Buf, Dev, Op, Tensor};
use directml_subset::dml::*;
use directml_subset::ffi::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// What one workload runs.
enum Kind {
    NonZero {
        dt: DML_TENSOR_DATA_TYPE,
        sizes: Vec<u32>,
        strides: Option<Vec<u32>>,
        density: f64,
        /// UINT32 coordinates in ONNX Runtime's layout: the low halves of an int64 `[N, M]`
        /// tensor (strides `{2, 2·M}`) instead of packed `[M, N]`.
        ort: bool,
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

/// The element size of a DirectML data type.
fn esize(dt: DML_TENSOR_DATA_TYPE) -> usize {
    directml_subset::DataType::from_raw(dt)
        .expect("a DirectML data type")
        .size()
}

/// The coordinates tensor of NonZero on `m` elements of `n` dimensions.
fn coords_tensor(m: u32, n: u32, ort: bool) -> Box<Tensor> {
    let u32t = DML_TENSOR_DATA_TYPE::UINT32;
    if ort {
        let mut t = Tensor::new(u32t, &[m, n], Some(&[2, 2 * m]));
        // The whole int64 [N, M] buffer.
        t.buffer.TotalTensorSizeInBytes = u64::from(n) * u64::from(m) * 8;
        t
    } else {
        Tensor::new(u32t, &[m, n], None)
    }
}

struct Workload {
    name: &'static str,
    target: f64,
    kind: Kind,
}

fn workloads() -> Vec<Workload> {
    let nz = |name, dt, sizes: &[u32], strides: Option<&[u32]>, density, target| Workload {
        name,
        target,
        kind: Kind::NonZero {
            dt,
            sizes: sizes.to_vec(),
            strides: strides.map(|s| s.to_vec()),
            density,
            ort: false,
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

/// A created operator with its bound buffers.
struct Prepared {
    op: Op,
    inputs: Vec<DML_BINDING_DESC>,
    outputs: Vec<DML_BINDING_DESC>,
    _bindings: Vec<Box<DML_BUFFER_BINDING>>,
    _tensors: Vec<Box<Tensor>>,
    /// Bytes read and written, once the count is known (NonZero writes count × N coordinates).
    read: usize,
    written: usize,
    count_buf: Option<*const u32>,
    columns: usize,
}

impl Prepared {
    fn run(&self) {
        // SAFETY: the bindings point to live buffers of the right sizes.
        let hr = unsafe {
            dmls_operator_execute(
                self.op.0,
                self.inputs.len() as u32,
                if self.inputs.is_empty() {
                    ptr::null()
                } else {
                    self.inputs.as_ptr()
                },
                self.outputs.len() as u32,
                self.outputs.as_ptr(),
            )
        };
        check(hr, "execute");
    }

    /// Bytes the last run wrote (for NONZERO_COORDINATES, the count and count × N coordinates).
    fn written_bytes(&self) -> usize {
        match self.count_buf {
            // SAFETY: the count buffer holds the count the operator last wrote.
            Some(c) => 4 + unsafe { c.read() } as usize * self.columns * 4,
            None => self.written,
        }
    }
}

fn binding(buf: &mut Buf, bindings: &mut Vec<Box<DML_BUFFER_BINDING>>) -> DML_BINDING_DESC {
    let b = Box::new(DML_BUFFER_BINDING {
        Buffer: buf.ptr(),
        Offset: 0,
        SizeInBytes: buf.len as u64,
    });
    let desc = DML_BINDING_DESC {
        Type: DML_BINDING_TYPE::BUFFER,
        Desc: (&*b as *const DML_BUFFER_BINDING).cast(),
    };
    bindings.push(b);
    desc
}

/// Buffers of a workload, shared by the 1-thread and all-thread runs.
struct Data {
    input: Option<Buf>,
    outputs: Vec<Buf>,
}

/// NonZero's input, count and coordinates tensors (`kind` is `Kind::NonZero`).
fn nonzero_tensors(kind: &Kind) -> [Box<Tensor>; 3] {
    let Kind::NonZero {
        dt,
        sizes,
        strides,
        ort,
        ..
    } = kind
    else {
        unreachable!("NonZero tensors of a DIAGONAL_MATRIX1 workload")
    };
    let m: u32 = sizes.iter().product();
    let n = sizes.len() as u32;
    [
        Tensor::new(*dt, sizes, strides.as_deref()),
        Tensor::new(DML_TENSOR_DATA_TYPE::UINT32, &[1], None),
        coords_tensor(m, n, *ort),
    ]
}

fn make_data(kind: &Kind, rng: &mut SmallRng) -> (Data, Vec<Box<Tensor>>) {
    match kind {
        Kind::NonZero { dt, density, .. } => {
            let [input, count, coords] = nonzero_tensors(kind);
            let mut ib = Buf::new(input.bytes());
            let b = ib.bytes();
            b.fill(0);
            let es = esize(*dt);
            let float = directml_subset::DataType::from_raw(*dt).is_some_and(|t| t.is_float());
            // Element i of the buffer (strided inputs: the buffer's elements, each nonzero with
            // the density); floats also get -0.0, which counts as zero.
            for e in b.chunks_exact_mut(es) {
                if rng.random_bool(*density) {
                    e[0] = 1;
                } else if float && rng.random_bool(0.1) {
                    e[es - 1] = 0x80;
                }
            }
            let outputs = vec![Buf::new(count.bytes()), Buf::new(coords.bytes())];
            (
                Data {
                    input: Some(ib),
                    outputs,
                },
                vec![input, count, coords],
            )
        }
        Kind::Diag {
            dt,
            sizes,
            with_input,
            ..
        } => {
            let out = Tensor::new(*dt, sizes, None);
            let mut tensors = vec![];
            let input = if *with_input {
                let t = Tensor::new(*dt, sizes, None);
                let mut b = Buf::new(t.bytes());
                rng.fill(b.bytes());
                tensors.push(t);
                Some(b)
            } else {
                None
            };
            let outputs = vec![Buf::new(out.bytes())];
            tensors.push(out);
            (Data { input, outputs }, tensors)
        }
    }
}

fn prepare(dev: &Dev, kind: &Kind, data: &mut Data) -> Prepared {
    let mut bindings = vec![];
    let mut tensors = vec![];
    let (op, read, columns, has_count) = match kind {
        Kind::NonZero { dt, sizes, .. } => {
            let m: u32 = sizes.iter().product();
            let n = sizes.len() as u32;
            let [input, count, coords] = nonzero_tensors(kind);
            let desc = DML_NONZERO_COORDINATES_OPERATOR_DESC {
                InputTensor: &input.desc,
                OutputCountTensor: &count.desc,
                OutputCoordinatesTensor: &coords.desc,
            };
            let od = DML_OPERATOR_DESC {
                Type: DML_OPERATOR_TYPE::NONZERO_COORDINATES,
                Desc: (&desc as *const DML_NONZERO_COORDINATES_OPERATOR_DESC).cast(),
            };
            let mut op = ptr::null_mut();
            // SAFETY: the desc and its tensors are live.
            check(
                unsafe { dmls_device_create_operator(dev.0, &od, &mut op) },
                "create",
            );
            tensors.extend([input, count, coords]);
            (Op(op), m as usize * esize(*dt), n as usize, true)
        }
        Kind::Diag {
            dt,
            sizes,
            with_input,
            begin,
            end,
            value,
        } => {
            let out = Tensor::new(*dt, sizes, None);
            let input = with_input.then(|| Tensor::new(*dt, sizes, None));
            // Value in the output's type (FLOAT32 as given; other types: a small integer).
            let mut v = [0u8; 8];
            if *dt == DML_TENSOR_DATA_TYPE::FLOAT32 {
                v[..4].copy_from_slice(&value.to_ne_bytes());
            } else {
                v[0] = *value as u8;
            }
            let desc = DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
                InputTensor: input.as_ref().map_or(ptr::null(), |t| &t.desc),
                OutputTensor: &out.desc,
                ValueDataType: *dt,
                Value: DML_SCALAR_UNION::from_bytes(v),
                DiagonalFillBegin: *begin,
                DiagonalFillEnd: *end,
            };
            let od = DML_OPERATOR_DESC {
                Type: DML_OPERATOR_TYPE::DIAGONAL_MATRIX1,
                Desc: (&desc as *const DML_DIAGONAL_MATRIX1_OPERATOR_DESC).cast(),
            };
            let mut op = ptr::null_mut();
            // SAFETY: the desc and its tensors are live.
            check(
                unsafe { dmls_device_create_operator(dev.0, &od, &mut op) },
                "create",
            );
            let read = input.as_ref().map_or(0, |t| t.bytes());
            tensors.push(out);
            tensors.extend(input);
            (Op(op), read, 0, false)
        }
    };
    let inputs = match (&mut data.input, kind) {
        (Some(b), _) => vec![binding(b, &mut bindings)],
        (None, _) => vec![DML_BINDING_DESC {
            Type: DML_BINDING_TYPE::NONE,
            Desc: ptr::null(),
        }],
    };
    let outputs: Vec<_> = data
        .outputs
        .iter_mut()
        .map(|b| binding(b, &mut bindings))
        .collect();
    let count_buf = has_count.then(|| data.outputs[0].ptr() as *const u32);
    let written = if has_count { 0 } else { data.outputs[0].len };
    Prepared {
        op,
        inputs,
        outputs,
        _bindings: bindings,
        _tensors: tensors,
        read,
        written,
        count_buf,
        columns,
    }
}

/// Two-thread memcpy / memset, on rayon's global pool (as many threads as the library's own
/// process-wide pool, which `thread_count` 0 uses).
struct Bound {
    src: Buf,
    dst: Buf,
}

impl Bound {
    fn copy(&mut self, bytes: usize) {
        let half = bytes / 2;
        let Bound { src, dst } = self;
        let src = &src.bytes()[..bytes];
        let dst = &mut dst.bytes()[..bytes];
        let (d0, d1) = dst.split_at_mut(half);
        let (s0, s1) = src.split_at(half);
        rayon::join(|| d0.copy_from_slice(s0), || d1.copy_from_slice(s1));
    }
    fn set(&mut self, bytes: usize) {
        let dst = &mut self.dst.bytes()[..bytes];
        let (d0, d1) = dst.split_at_mut(bytes / 2);
        rayon::join(|| d0.fill(0), || d1.fill(0));
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

struct Row {
    name: String,
    threads: &'static str,
    m: Measured,
    target: f64,
}

impl Row {
    fn ratio_min(&self) -> f64 {
        self.m.op_min.as_secs_f64() / self.m.bound_min.as_secs_f64()
    }
    /// The row as a line of the run's log, or of the Markdown table.
    fn line(&self, markdown: bool) -> String {
        let m = &self.m;
        let (ms, gbs) = (
            m.op_med.as_secs_f64() * 1e3,
            m.bytes as f64 / m.op_med.as_secs_f64() / 1e9,
        );
        let bound = m.bound_med.as_secs_f64() * 1e3;
        let (name, th, ratio, pairs, target) = (
            &self.name,
            self.threads,
            self.ratio_min(),
            m.pair_ratio_med,
            self.target(),
        );
        if markdown {
            format!("| {name} | {th} | {ms:.2} | {gbs:.1} | {bound:.2} | {ratio:.2} | {pairs:.2} | {target} |")
        } else {
            format!(
                "{name:<36} threads {th:>3}: {ms:>8.3} ms {gbs:>6.2} GB/s  bound {bound:>7.3} ms  \
                 ratio min/min {ratio:>5.2}  median of pairs {pairs:>5.2}  target {target}"
            )
        }
    }

    fn target(&self) -> String {
        if self.target.is_nan() {
            "report".to_string()
        } else {
            format!("≤ {}", self.target)
        }
    }
}

/// What one workload measured: medians and minimums of the operator and of the bound, and
/// the median of the ratios of adjacent (operator, bound) pairs.
struct Measured {
    op_med: Duration,
    bound_med: Duration,
    op_min: Duration,
    bound_min: Duration,
    pair_ratio_med: f64,
    bytes: usize,
}

fn measure(p: &Prepared, bound: &mut Bound, memset: bool, reps: usize) -> Measured {
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
        black_box(&b.dst.v[0]);
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

fn small_latency(filter: &Option<String>) {
    if filter
        .as_ref()
        .is_some_and(|f| !"small".contains(f.as_str()))
    {
        return;
    }
    println!("\nsmall operators (C API, ns per call: minimum / median of 15 batches):");
    for threads in [1u32, 0] {
        let dev = Dev::new(threads);
        // Seed NonZero 2×4.
        let input_t = Tensor::new(DML_TENSOR_DATA_TYPE::FLOAT32, &[2, 4], None);
        let count_t = Tensor::new(DML_TENSOR_DATA_TYPE::UINT32, &[1], None);
        let coords_t = Tensor::new(DML_TENSOR_DATA_TYPE::UINT32, &[8, 2], None);
        let nz = DML_NONZERO_COORDINATES_OPERATOR_DESC {
            InputTensor: &input_t.desc,
            OutputCountTensor: &count_t.desc,
            OutputCoordinatesTensor: &coords_t.desc,
        };
        let nz_desc = DML_OPERATOR_DESC {
            Type: DML_OPERATOR_TYPE::NONZERO_COORDINATES,
            Desc: (&nz as *const DML_NONZERO_COORDINATES_OPERATOR_DESC).cast(),
        };
        let in_t = Tensor::new(DML_TENSOR_DATA_TYPE::FLOAT32, &[4, 5], None);
        let out_t = Tensor::new(DML_TENSOR_DATA_TYPE::FLOAT32, &[4, 5], None);
        let dg = DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
            InputTensor: &in_t.desc,
            OutputTensor: &out_t.desc,
            ValueDataType: DML_TENSOR_DATA_TYPE::FLOAT32,
            Value: DML_SCALAR_UNION::from_bytes([0; 8]),
            DiagonalFillBegin: i32::MIN,
            DiagonalFillEnd: 0,
        };
        let dg_desc = DML_OPERATOR_DESC {
            Type: DML_OPERATOR_TYPE::DIAGONAL_MATRIX1,
            Desc: (&dg as *const DML_DIAGONAL_MATRIX1_OPERATOR_DESC).cast(),
        };
        let make = |d: &DML_OPERATOR_DESC| {
            let mut op = ptr::null_mut();
            // SAFETY: live desc.
            check(
                unsafe { dmls_device_create_operator(dev.0, d, &mut op) },
                "create",
            );
            Op(op)
        };
        let nz_op = make(&nz_desc);
        let dg_op = make(&dg_desc);
        let mut input: [f32; 8] = [1.0, 0.0, 0.0, 2.0, -0.0, 3.5, 0.0, -5.2];
        let mut count = [0u32; 4];
        let mut coords = [0u32; 16];
        let mut din = [1.0f32; 20];
        let mut dout = [0f32; 20];
        let bind = |p: *mut c_void, n: usize| DML_BUFFER_BINDING {
            Buffer: p,
            Offset: 0,
            SizeInBytes: n as u64,
        };
        let nzb = [
            bind(input.as_mut_ptr().cast(), 32),
            bind(count.as_mut_ptr().cast(), 16),
            bind(coords.as_mut_ptr().cast(), 64),
        ];
        let dgb = [
            bind(din.as_mut_ptr().cast(), 80),
            bind(dout.as_mut_ptr().cast(), 80),
        ];
        let bd = |b: &DML_BUFFER_BINDING| DML_BINDING_DESC {
            Type: DML_BINDING_TYPE::BUFFER,
            Desc: (b as *const DML_BUFFER_BINDING).cast(),
        };
        let nz_in = [bd(&nzb[0])];
        let nz_out = [bd(&nzb[1]), bd(&nzb[2])];
        let dg_in = [bd(&dgb[0])];
        let dg_out = [bd(&dgb[1])];
        let per_call = |f: &mut dyn FnMut()| {
            const N: u32 = 20_000;
            let mut batches: Vec<Duration> = (0..15)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..N {
                        f();
                    }
                    t.elapsed() / N
                })
                .collect();
            let med = median(&mut batches).as_nanos();
            (batches[0].as_nanos(), med)
        };
        let t_nz = per_call(&mut || {
            // SAFETY: live operator and bindings.
            let hr =
                unsafe { dmls_operator_execute(nz_op.0, 1, nz_in.as_ptr(), 2, nz_out.as_ptr()) };
            debug_assert_eq!(hr, S_OK);
            black_box(hr);
        });
        assert_eq!(count[0], 4, "seed NonZero count");
        let t_dg = per_call(&mut || {
            // SAFETY: live operator and bindings.
            let hr =
                unsafe { dmls_operator_execute(dg_op.0, 1, dg_in.as_ptr(), 1, dg_out.as_ptr()) };
            debug_assert_eq!(hr, S_OK);
            black_box(hr);
        });
        // create_operator: create a batch, then release it outside the timing.
        let mut creates: Vec<Duration> = (0..15)
            .map(|_| {
                const N: usize = 2000;
                let mut ops = Vec::with_capacity(N);
                let t = Instant::now();
                for _ in 0..N {
                    let mut op = ptr::null_mut();
                    // SAFETY: live desc.
                    let hr = unsafe { dmls_device_create_operator(dev.0, &nz_desc, &mut op) };
                    black_box(hr);
                    ops.push(Op(op));
                }
                let e = t.elapsed() / N as u32;
                drop(ops);
                e
            })
            .collect();
        let t_create = median(&mut creates).as_nanos();
        let t_create_min = creates[0].as_nanos();
        // create_operator and release, back to back.
        let mut pairs: Vec<Duration> = (0..15)
            .map(|_| {
                const N: u32 = 2000;
                let t = Instant::now();
                for _ in 0..N {
                    let mut op = ptr::null_mut();
                    // SAFETY: live desc.
                    let hr = unsafe { dmls_device_create_operator(dev.0, &nz_desc, &mut op) };
                    black_box(hr);
                    drop(Op(op));
                }
                t.elapsed() / N
            })
            .collect();
        let t_pair = median(&mut pairs).as_nanos();
        let t_pair_min = pairs[0].as_nanos();
        let th = if threads == 1 { "1" } else { "all" };
        println!(
            "  threads {th:>3}: execute NonZero 2x4 {} / {} ns, DIAGONAL_MATRIX1 4x5 {} / {} ns \
             (targets ≤ 150), create_operator {t_create_min} / {t_create} ns, create + release \
             {t_pair_min} / {t_pair} ns (target ≤ 1000)",
            t_nz.0, t_nz.1, t_dg.0, t_dg.1
        );
    }
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let reps: usize = std::env::var("DMLS_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let mut rng = SmallRng::seed_from_u64(42);
    let devs = [(Dev::new(1), "1"), (Dev::new(0), "all")];
    println!(
        "directml_subset kernel benchmark: {} threads available, {reps} reps; bound = 2-thread \
         memcpy of (read + written) / 2 (memset of the output without input)",
        rayon::current_num_threads()
    );
    let mut rows = vec![];
    // One pair of bound buffers, as large as the largest workload needs.
    let mut bound: Option<Bound> = None;
    for w in workloads() {
        if filter
            .as_ref()
            .is_some_and(|f| !w.name.contains(f.as_str()))
        {
            continue;
        }
        let (mut data, _t) = make_data(&w.kind, &mut rng);
        let need = data.input.as_ref().map_or(0, |b| b.len)
            + data.outputs.iter().map(|b| b.len).sum::<usize>();
        if bound.as_ref().is_none_or(|b| b.src.len < need) {
            drop(bound.take());
            bound = Some(Bound {
                src: Buf::new(need),
                dst: Buf::new(need),
            });
        }
        let bound = bound.as_mut().unwrap();
        let memset = matches!(
            w.kind,
            Kind::Diag {
                with_input: false,
                ..
            }
        );
        for (dev, th) in &devs {
            let p = prepare(dev, &w.kind, &mut data);
            let m = measure(&p, bound, memset, reps);
            let row = Row {
                name: w.name.to_string(),
                threads: th,
                m,
                target: w.target,
            };
            println!("{}", row.line(false));
            rows.push(row);
        }
    }
    small_latency(&filter);
    curve::run(&filter, reps.min(11));
    types::run(&filter, reps.min(11));
    if !rows.is_empty() {
        println!(
            "\n| workload | threads | time (ms, median) | GB/s | bound (ms, median) | time / bound (min / min) | time / bound (median of pairs) | target |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for r in &rows {
            println!("{}", r.line(true));
        }
    }
}
