//! The small operators' latencies through the C API (filter `small`): execute of the seed
//! NONZERO_COORDINATES and of a small DIAGONAL_MATRIX1, create_operator, create + release.

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr;
use std::time::{Duration, Instant};

use crate::measure::median;
use directml_subset::dml::*;
use directml_subset::ffi::*;
use test_support::data_types::{F32, U32};
use test_support::{bind, diag1_desc, nonzero_desc, operator_desc, Device, Operator, Tensor};

pub fn small_latency(filter: &Option<String>) {
    if filter
        .as_ref()
        .is_some_and(|f| !"small".contains(f.as_str()))
    {
        return;
    }
    println!("\nsmall operators (C API, ns per call: minimum / median of 15 batches):");
    for threads in [1u32, 0] {
        let dev = Device::with_threads(threads);
        // Seed NonZero 2×4.
        let mut input_t = Tensor::new(F32, &[2, 4]);
        let mut count_t = Tensor::new(U32, &[1]);
        let mut coords_t = Tensor::new(U32, &[8, 2]);
        let nz = nonzero_desc(&mut input_t, &mut count_t, &mut coords_t);
        let nz_desc = operator_desc(&*nz);
        let mut in_t = Tensor::new(F32, &[4, 5]);
        let mut out_t = Tensor::new(F32, &[4, 5]);
        // FLOAT32 (the output's type) 0.0 on and below the diagonal.
        let dg = diag1_desc(Some(&mut in_t), &mut out_t, [0; 8], i32::MIN, 0);
        let nz_op = dev.create_op(&*nz).expect("create NonZero");
        let dg_op = dev.create_op(&*dg).expect("create DIAGONAL_MATRIX1");
        let mut input: [f32; 8] = [1.0, 0.0, 0.0, 2.0, -0.0, 3.5, 0.0, -5.2];
        let mut count = [0u32; 4];
        let mut coords = [0u32; 16];
        let mut din = [1.0f32; 20];
        let mut dout = [0f32; 20];
        let buffer = |p: *mut c_void, n: usize| DML_BUFFER_BINDING {
            Buffer: p,
            Offset: 0,
            SizeInBytes: n as u64,
        };
        let nzb = [
            buffer(input.as_mut_ptr().cast(), 32),
            buffer(count.as_mut_ptr().cast(), 16),
            buffer(coords.as_mut_ptr().cast(), 64),
        ];
        let dgb = [
            buffer(din.as_mut_ptr().cast(), 80),
            buffer(dout.as_mut_ptr().cast(), 80),
        ];
        let nz_in = [bind(&nzb[0])];
        let nz_out = [bind(&nzb[1]), bind(&nzb[2])];
        let dg_in = [bind(&dgb[0])];
        let dg_out = [bind(&dgb[1])];
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
                    ops.push(Operator(op));
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
                    drop(Operator(op));
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
