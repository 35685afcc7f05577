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
use directml_subset::ffi::dmls_operator;
use directml_subset::{DataType, TensorDesc};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn scale() -> usize {
    env_or("DMLS_STRESS_SCALE", 1)
}

// ------------------------------------------------------------------------------------------------
// What each thread runs (the devices, operators, handles that threads share and threads that
// start together come from test-support/)

/// [`spawn_together`], thread `t` running `f(t, rng)` with a generator seeded `seed + t`.
fn spawn_seeded<F>(threads: usize, seed: u64, f: F) -> Vec<thread::JoinHandle<()>>
where
    F: Fn(usize, &mut SmallRng) + Send + Sync + 'static,
{
    spawn_together(threads, move |t| {
        f(t, &mut SmallRng::seed_from_u64(seed + t as u64))
    })
}

/// Runs NONZERO_COORDINATES once on fresh random buffers and compares every byte (canary
/// included) with the reference.
fn run_nonzero_once(op: Shared<dmls_operator>, tensors: &NonZeroTensors, rng: &mut SmallRng) {
    let zero_percent = rng.random_range(0..100);
    let inb = random_input(rng, &tensors.input, 1.0 - f64::from(zero_percent) / 100.0);
    tensors.run_checked(op.raw(), inb.bytes(), 0xCD);
}

/// The same for DIAGONAL_MATRIX1 with the fill `(value, begin, end)`.
fn run_diagonal1_once(
    op: Shared<dmls_operator>,
    input: Option<&TensorDesc>,
    output: &TensorDesc,
    fill: ([u8; 8], i32, i32),
    rng: &mut SmallRng,
) {
    let inb = input.map(|i| random_input(rng, i, 0.7));
    let input = input.zip(inb.as_ref().map(|b| b.bytes()));
    run_diag1_checked(op.raw(), input, output, fill, 0xCD);
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
        let dev = Device::with_threads(pool);
        let tensors = NonZeroTensors::packed(DataType::Float32, &[6, 7, 9]);
        let op = tensors.create(dev.0).expect("create");
        let shared = op.shared();
        let handles = spawn_seeded(threads, 1000 * u64::from(pool), move |_, rng| {
            for _ in 0..rounds {
                run_nonzero_once(shared, &tensors, rng);
            }
        });
        join_all(handles);
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
        let dev = Device::with_threads(pool);
        let nz = NonZeroTensors::packed(DataType::UInt8, &[140_000]);
        let nz_op = nz.create(dev.0).expect("create NONZERO");
        let out = TensorDesc::new(DataType::Float32, &[512, 520]);
        let value = 2.5f32.to_bits().to_ne_bytes();
        let value = [value[0], value[1], value[2], value[3], 0, 0, 0, 0];
        let d1_op = dev
            .diagonal1(Some(&out), &out, value, -3, 40)
            .expect("create DIAGONAL_MATRIX1");
        let (nz_shared, d1_shared) = (nz_op.shared(), d1_op.shared());
        let handles = spawn_seeded(threads, 77, move |_, rng| {
            for _ in 0..scale() {
                run_nonzero_once(nz_shared, &nz, rng);
                run_diagonal1_once(d1_shared, Some(&out), &out, (value, -3, 40), rng);
            }
        });
        join_all(handles);
    }
}

/// Threads create and release operators on one device at once, valid and invalid ones mixed;
/// each thread's error message is its own.
#[test]
fn create_and_release_operators_concurrently() {
    let threads = 8;
    let rounds = 60 * scale();
    let dev = Device::newest();
    let shared = dev.shared();
    let handles = spawn_seeded(threads, 0, move |t, rng| {
        let mut live: Vec<(Operator, NonZeroTensors)> = Vec::new();
        for r in 0..rounds {
            let n = rng.random_range(1..40u32);
            let mut tensors = NonZeroTensors::packed(DataType::Int16, &[n, t as u32 + 1]);
            let invalid = r % 3 == 0;
            if invalid {
                // M off by one: a message that names this thread's own numbers.
                tensors.coords = TensorDesc::new(DataType::UInt32, &[n * (t as u32 + 1) + 1, 2]);
            }
            match tensors.create(shared.raw()) {
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
                run_nonzero_once(op.shared(), &tensors, rng);
                drop(op);
            }
        }
        // The rest are released here, in order.
        drop(live);
    });
    join_all(handles);
}

/// The device is released while threads are executing its operators (on its own pool); they
/// keep working, exactly, until the operators are released.
#[test]
fn release_the_device_while_its_operators_run() {
    for pool in [2u32, 1, 0] {
        let dev = Device::new(DML_FEATURE_LEVEL_5_1.0, pool, 0);
        let tensors = NonZeroTensors::packed(DataType::Int8, &[5, 33]);
        let nz_op = tensors.create(dev.0).expect("create");
        let out = TensorDesc::new(DataType::Int64, &[3, 9, 10]);
        let value = (-7i64).to_ne_bytes();
        let d1_op = dev
            .diagonal1(None, &out, value, i32::MIN, 2)
            .expect("create");
        let (nz_shared, d1_shared) = (nz_op.shared(), d1_op.shared());
        let threads = 4;
        let released = Arc::new(AtomicBool::new(false));
        let after = Arc::new(AtomicUsize::new(0));
        // The threads that have finished a first run.
        let before = Arc::new(AtomicUsize::new(0));
        let started = Arc::new(Barrier::new(threads + 1));
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (released, after, before, started) = (
                    Arc::clone(&released),
                    Arc::clone(&after),
                    Arc::clone(&before),
                    Arc::clone(&started),
                );
                thread::spawn(move || {
                    let mut rng = SmallRng::seed_from_u64(500 + t as u64);
                    started.wait();
                    let mut runs_after = 0;
                    let mut first = true;
                    // Keep running until each thread has done 10 runs after the release.
                    while runs_after < 10 * scale() {
                        let was_released = released.load(Ordering::Acquire);
                        run_nonzero_once(nz_shared, &tensors, &mut rng);
                        run_diagonal1_once(d1_shared, None, &out, (value, i32::MIN, 2), &mut rng);
                        if was_released {
                            runs_after += 1;
                        }
                        if std::mem::take(&mut first) {
                            before.fetch_add(1, Ordering::Release);
                        }
                    }
                    after.fetch_add(runs_after, Ordering::Relaxed);
                })
            })
            .collect();
        started.wait();
        // Released while the threads run (each has finished a run of both operators, and goes
        // on); its operators keep what they need alive. The runs after the release check their
        // outputs themselves.
        while before.load(Ordering::Acquire) < threads {
            thread::yield_now();
        }
        drop(dev);
        released.store(true, Ordering::Release);
        join_all(handles);
        assert_eq!(after.load(Ordering::Relaxed), threads * 10 * scale());
        // No thread uses them any more.
        drop(nz_op);
        drop(d1_op);
    }
}

/// Errors and successes on many threads at once: each thread sees only its own message, and
/// a failed execution on one thread leaves another thread's buffers alone.
#[test]
fn errors_stay_with_their_thread() {
    let dev = Device::with_threads(0);
    let tensors = NonZeroTensors::packed(DataType::UInt16, &[4, 6]);
    let op = tensors.create(dev.0).expect("create");
    let shared = op.shared();
    let threads = 6;
    let handles = spawn_seeded(threads, 9000, move |t, rng| {
        for r in 0..(40 * scale()) {
            if (r + t) % 2 == 0 {
                // A binding one byte short, with this thread's own number in it.
                let mut inb = Buffer::filled(tensors.input.total_size, 0);
                let mut cb = Buffer::filled(tensors.count.total_size, 0xCD);
                let mut kb = Buffer::filled(tensors.coords.total_size - 4 * (t as u64 + 1), 0xCD);
                let hr = execute_nonzero(shared.raw(), &mut inb, &mut cb, &mut kb);
                assert_eq!(hr, E_INVALIDARG);
                let msg = last_error();
                let want = format!("SizeInBytes is {}", kb.len());
                assert!(msg.contains(&want), "thread {t}: {msg}");
                assert!(cb.bytes().iter().chain(kb.bytes()).all(|&b| b == 0xCD));
            } else {
                run_nonzero_once(shared, &tensors, rng);
                assert_eq!(last_error(), "");
            }
        }
    });
    join_all(handles);
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
                    let dev = Device::with_threads([0, 1, 2, 3][(r + t) % 4]);
                    let tensors = NonZeroTensors::packed(DataType::Int32, &[3, 5, 2]);
                    let op = tensors.create(dev.0).expect("create");
                    // The operator keeps the device alive.
                    drop(dev);
                    run_nonzero_once(op.shared(), &tensors, &mut rng);
                    drop(op);
                }
            })
        })
        .collect();
    join_all(handles);
}
