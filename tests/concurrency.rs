//! Concurrency through the C API: many threads execute one operator on different buffers at
//! once (serial devices, the shared pool and devices with their own pools, small inputs and
//! the kernels' parallel paths); operators are created and released concurrently; a device is
//! released while its operators still run; error messages stay with their thread. Every result
//! is compared exactly with `directml_subset::reference`.
//!
//! `DMLS_STRESS_SCALE` (default 1) multiplies the iteration counts; scripts/check_valgrind.sh
//! runs these tests with a small scale.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

mod common;

use common::*;
use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::{DataType, TensorDesc};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn scale() -> usize {
    std::env::var("DMLS_STRESS_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

// ------------------------------------------------------------------------------------------------
// Handles that threads share and release explicitly (the rest of the harness: test-support/)

/// A device handle that threads may share (the C API allows it).
#[derive(Clone, Copy)]
struct Dev(*mut dmls_device);
// SAFETY: dmls_ devices may be used from any thread; the tests release each once.
unsafe impl Send for Dev {}
// SAFETY: as above.
unsafe impl Sync for Dev {}

/// An operator handle that threads may share (execution is allowed from many threads).
#[derive(Clone, Copy)]
struct Op(*mut dmls_operator);
// SAFETY: dmls_operator_execute may run on one operator from many threads at once; the tests
// release each operator once, after every thread using it has finished.
unsafe impl Send for Op {}
// SAFETY: as above.
unsafe impl Sync for Op {}

fn device(level: DML_FEATURE_LEVEL, threads: u32) -> Dev {
    Dev(create_device_raw(level.0, threads, 0))
}

/// NONZERO_COORDINATES over `[input, count, coords]`.
fn nonzero(dev: Dev, [input, count, coords]: &[TensorDesc; 3]) -> Result<Op, (HRESULT, String)> {
    create_nonzero(dev.0, input, count, coords).map(Op)
}

/// DIAGONAL_MATRIX1 with the fill `(value, begin, end)`.
fn diagonal1(
    dev: Dev,
    input: Option<&TensorDesc>,
    output: &TensorDesc,
    (value, begin, end): ([u8; 8], i32, i32),
) -> Result<Op, (HRESULT, String)> {
    create_diagonal1(dev.0, input, output, value, begin, end).map(Op)
}

/// Waits for the worker threads, then releases the operator and device they used.
fn join_then_release(handles: Vec<std::thread::JoinHandle<()>>, ops: &[Op], dev: Dev) {
    for h in handles {
        h.join().expect("worker thread");
    }
    for op in ops {
        // SAFETY: created by the caller; no thread uses it any more.
        unsafe { dmls_operator_release(op.0) };
    }
    // SAFETY: as above.
    unsafe { dmls_device_release(dev.0) };
}

/// Starts `threads` threads that begin together (after a barrier), thread `t` running
/// `f(t, rng)` with a generator seeded `seed + t`.
fn spawn_together<F>(threads: usize, seed: u64, f: F) -> Vec<thread::JoinHandle<()>>
where
    F: Fn(usize, &mut SmallRng) + Send + Sync + 'static,
{
    let barrier = Arc::new(Barrier::new(threads));
    let f = Arc::new(f);
    (0..threads)
        .map(|t| {
            let (barrier, f) = (Arc::clone(&barrier), Arc::clone(&f));
            thread::spawn(move || {
                let mut rng = SmallRng::seed_from_u64(seed + t as u64);
                barrier.wait();
                f(t, &mut rng);
            })
        })
        .collect()
}

/// Runs NONZERO_COORDINATES once on fresh random buffers and compares every byte (canary
/// included) with the reference.
fn run_nonzero_once(op: Op, tensors: &[TensorDesc; 3], rng: &mut SmallRng) {
    let [input, count, coords] = tensors;
    let zero_percent = rng.random_range(0..100);
    let inb = random_input(rng, input, 1.0 - f64::from(zero_percent) / 100.0);
    run_nonzero_checked(op.0, input, inb.bytes(), count, coords, 0xCD);
}

/// The same for DIAGONAL_MATRIX1 with the fill `(value, begin, end)`.
fn run_diagonal1_once(
    op: Op,
    input: Option<&TensorDesc>,
    output: &TensorDesc,
    fill: ([u8; 8], i32, i32),
    rng: &mut SmallRng,
) {
    let inb = input.map(|i| random_input(rng, i, 0.7));
    let input = input.zip(inb.as_ref().map(|b| b.bytes()));
    run_diag1_checked(op.0, input, output, fill, 0xCD);
}

fn nonzero_tensors(t: DataType, sizes: &[u32]) -> [TensorDesc; 3] {
    let m: u32 = sizes.iter().product();
    [
        TensorDesc::new(t, sizes),
        TensorDesc::new(DataType::UInt32, &[1]),
        TensorDesc::new(DataType::UInt32, &[m, sizes.len() as u32]),
    ]
}

// ------------------------------------------------------------------------------------------------
// Tests

/// Many threads run one NONZERO_COORDINATES operator at once, each on its own buffers, on a
/// serial device, the shared pool and a device with its own pool.
#[test]
fn many_threads_execute_one_nonzero_operator() {
    let threads = 8;
    let rounds = 12 * scale();
    for pool in [1u32, 0, 2] {
        let dev = device(DML_FEATURE_LEVEL(0), pool);
        let tensors = nonzero_tensors(DataType::Float32, &[6, 7, 9]);
        let op = nonzero(dev, &tensors).expect("create");
        let handles = spawn_together(threads, 1000 * u64::from(pool), move |_, rng| {
            for _ in 0..rounds {
                run_nonzero_once(op, &tensors, rng);
            }
        });
        join_then_release(handles, &[op], dev);
    }
}

/// Inputs large enough for the kernels' parallel paths (forced; NONZERO from 2^17 elements, DIAGONAL
/// from 1 MiB of output), run from several threads at once on a device with its own pool and
/// on the shared pool.
#[test]
fn many_threads_execute_the_parallel_paths() {
    common::force_parallel_paths();
    let threads = 3;
    for pool in [2u32, 0] {
        let dev = device(DML_FEATURE_LEVEL(0), pool);
        let nz = nonzero_tensors(DataType::UInt8, &[140_000]);
        let nz_op = nonzero(dev, &nz).expect("create NONZERO");
        let out = TensorDesc::new(DataType::Float32, &[512, 520]);
        let value = 2.5f32.to_bits().to_ne_bytes();
        let value = [value[0], value[1], value[2], value[3], 0, 0, 0, 0];
        let d1_op =
            diagonal1(dev, Some(&out), &out, (value, -3, 40)).expect("create DIAGONAL_MATRIX1");
        let handles = spawn_together(threads, 77, move |_, rng| {
            for _ in 0..scale() {
                run_nonzero_once(nz_op, &nz, rng);
                run_diagonal1_once(d1_op, Some(&out), &out, (value, -3, 40), rng);
            }
        });
        join_then_release(handles, &[nz_op, d1_op], dev);
    }
}

/// Threads create and release operators on one device at once, valid and invalid ones mixed;
/// each thread's error message is its own.
#[test]
fn create_and_release_operators_concurrently() {
    let threads = 8;
    let rounds = 60 * scale();
    let dev = device(DML_FEATURE_LEVEL(0), 1);
    let handles = spawn_together(threads, 0, move |t, rng| {
        let mut live: Vec<(Op, [TensorDesc; 3])> = Vec::new();
        for r in 0..rounds {
            let n = rng.random_range(1..40u32);
            let mut tensors = nonzero_tensors(DataType::Int16, &[n, t as u32 + 1]);
            let invalid = r % 3 == 0;
            if invalid {
                // M off by one: a message that names this thread's own numbers.
                tensors[2] = TensorDesc::new(DataType::UInt32, &[n * (t as u32 + 1) + 1, 2]);
            }
            match nonzero(dev, &tensors) {
                Ok(op) => {
                    assert!(!invalid, "an invalid desc was accepted");
                    assert_eq!(last_error(), "");
                    live.push((op, tensors));
                }
                Err((hr, msg)) => {
                    assert!(invalid, "a valid desc was rejected: {msg}");
                    assert_eq!(hr, E_INVALIDARG);
                    let want = format!("(M) is {}", n * (t as u32 + 1) + 1);
                    assert!(
                        msg.contains(&want),
                        "thread {t} got another thread's message: {msg}"
                    );
                }
            }
            // Release some, run some.
            if live.len() > 4 || (r % 5 == 4 && !live.is_empty()) {
                let (op, tensors) = live.swap_remove(rng.random_range(0..live.len()));
                run_nonzero_once(op, &tensors, rng);
                // SAFETY: created by this thread, used by no other.
                unsafe { dmls_operator_release(op.0) };
            }
        }
        for (op, _) in live {
            // SAFETY: as above.
            unsafe { dmls_operator_release(op.0) };
        }
    });
    for h in handles {
        h.join().expect("worker thread");
    }
    // SAFETY: created above.
    unsafe { dmls_device_release(dev.0) };
}

/// The device is released while threads are executing its operators (on its own pool); they
/// keep working, exactly, until the operators are released.
#[test]
fn release_the_device_while_its_operators_run() {
    for pool in [2u32, 1, 0] {
        let dev = device(DML_FEATURE_LEVEL_5_1, pool);
        let tensors = nonzero_tensors(DataType::Int8, &[5, 33]);
        let nz_op = nonzero(dev, &tensors).expect("create");
        let out = TensorDesc::new(DataType::Int64, &[3, 9, 10]);
        let value = (-7i64).to_ne_bytes();
        let d1_op = diagonal1(dev, None, &out, (value, i32::MIN, 2)).expect("create");
        let threads = 4;
        let released = Arc::new(AtomicBool::new(false));
        let after = Arc::new(AtomicUsize::new(0));
        let started = Arc::new(Barrier::new(threads + 1));
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (released, after, started) = (
                    Arc::clone(&released),
                    Arc::clone(&after),
                    Arc::clone(&started),
                );
                thread::spawn(move || {
                    let mut rng = SmallRng::seed_from_u64(500 + t as u64);
                    started.wait();
                    let mut runs_after = 0;
                    // Keep running until each thread has done 10 runs after the release.
                    while runs_after < 10 * scale() {
                        let was_released = released.load(Ordering::Acquire);
                        run_nonzero_once(nz_op, &tensors, &mut rng);
                        run_diagonal1_once(d1_op, None, &out, (value, i32::MIN, 2), &mut rng);
                        if was_released {
                            runs_after += 1;
                        }
                    }
                    after.fetch_add(runs_after, Ordering::Relaxed);
                })
            })
            .collect();
        started.wait();
        thread::sleep(std::time::Duration::from_millis(5));
        // SAFETY: created above; its operators keep what they need alive.
        unsafe { dmls_device_release(dev.0) };
        released.store(true, Ordering::Release);
        for h in handles {
            h.join().expect("worker thread");
        }
        assert!(after.load(Ordering::Relaxed) >= threads * 10);
        // SAFETY: created above; no thread uses them any more.
        unsafe {
            dmls_operator_release(nz_op.0);
            dmls_operator_release(d1_op.0);
        }
    }
}

/// Errors and successes on many threads at once: each thread sees only its own message, and
/// a failed execution on one thread leaves another thread's buffers alone.
#[test]
fn errors_stay_with_their_thread() {
    let dev = device(DML_FEATURE_LEVEL(0), 0);
    let tensors = nonzero_tensors(DataType::UInt16, &[4, 6]);
    let op = nonzero(dev, &tensors).expect("create");
    let threads = 6;
    let handles = spawn_together(threads, 9000, move |t, rng| {
        for r in 0..(40 * scale()) {
            if (r + t) % 2 == 0 {
                // A binding one byte short, with this thread's own number in it.
                let mut inb = Buffer::filled(tensors[0].total_size, 0);
                let mut cb = Buffer::filled(tensors[1].total_size, 0xCD);
                let mut kb = Buffer::filled(tensors[2].total_size - 4 * (t as u64 + 1), 0xCD);
                let (bi, bc, bk) = (inb.binding(), cb.binding(), kb.binding());
                let hr = execute_raw(op.0, &[bind(&bi)], &[bind(&bc), bind(&bk)]);
                assert_eq!(hr, E_INVALIDARG);
                let msg = last_error();
                let want = format!("SizeInBytes is {}", kb.len());
                assert!(msg.contains(&want), "thread {t}: {msg}");
                assert!(cb.bytes().iter().chain(kb.bytes()).all(|&b| b == 0xCD));
            } else {
                run_nonzero_once(op, &tensors, rng);
                assert_eq!(last_error(), "");
            }
        }
    });
    join_then_release(handles, &[op], dev);
}

/// Devices are created and released on many threads at once, each with its own pool, while
/// operators from them run.
#[test]
fn create_and_release_devices_concurrently() {
    let threads = 4;
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            thread::spawn(move || {
                let mut rng = SmallRng::seed_from_u64(t as u64);
                for r in 0..(6 * scale()) {
                    let dev = device(DML_FEATURE_LEVEL(0), [0, 1, 2, 3][(r + t) % 4]);
                    let tensors = nonzero_tensors(DataType::Int32, &[3, 5, 2]);
                    let op = nonzero(dev, &tensors).expect("create");
                    // SAFETY: created above; the operator keeps the device alive.
                    unsafe { dmls_device_release(dev.0) };
                    run_nonzero_once(op, &tensors, &mut rng);
                    // SAFETY: created above.
                    unsafe { dmls_operator_release(op.0) };
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("worker thread");
    }
}
