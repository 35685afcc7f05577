//! A panic inside the library comes back through the C API as `E_FAIL` with a message, leaves
//! every output untouched, and the process (and the library) carries on.
//!
//! The panic is triggered with `ffi::panic_on_next_call`, which exists only with the cargo
//! feature `panic-test` (turned on for `cargo test` by the crate's dev-dependency on itself).

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::cell::Cell;
use std::sync::Once;

mod common;

use common::*;
use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::DataType;

// Devices, operators, tensors and runs come from test-support/. The panic hook and the check of
// a caught panic stay here: they are this test's alone, and they go with `panic_on_next_call`,
// which exists only with the `panic-test` feature (test-support is also built without it, for
// fuzz/).

thread_local! {
    static PANICS_SEEN: Cell<usize> = const { Cell::new(0) };
}

/// Counts panics per thread (so tests running in parallel do not see each other's), and keeps
/// the expected test panics out of the output.
fn install_counting_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = info
                .payload()
                .downcast_ref::<String>()
                .map(|s| s.contains("panic-test"))
                .or_else(|| {
                    info.payload()
                        .downcast_ref::<&str>()
                        .map(|s| s.contains("panic-test"))
                })
                .unwrap_or(false);
            PANICS_SEEN.with(|c| c.set(c.get() + 1));
            if !ours {
                previous(info);
            }
        }));
    });
}

fn panics_seen() -> usize {
    PANICS_SEEN.with(|c| c.get())
}

/// Asserts that `hr` and `msg` are a caught panic's: E_FAIL, and a message that names
/// `function` and the panic.
fn assert_internal_error(hr: HRESULT, msg: &str, function: &str) {
    assert_eq!(hr, E_FAIL, "a caught panic must be E_FAIL");
    assert!(
        msg.contains(function) && msg.contains("internal error") && msg.contains("panic-test"),
        "message should name the function and the panic: {msg}"
    );
}

/// The tensors of the NONZERO_COORDINATES operator these tests run: a FLOAT32 {4, 8} input.
fn nonzero_tensors() -> NonZeroTensors {
    NonZeroTensors::packed(DataType::Float32, &[4, 8])
}

/// The input for `seed`: every element `i`, except 0.0 where `i + seed` is a multiple of 3.
fn input(seed: u32) -> Vec<u8> {
    let v: Vec<f32> = (0..32u32)
        .map(|i| {
            if (i + seed).is_multiple_of(3) {
                0.0
            } else {
                i as f32
            }
        })
        .collect();
    f32_bytes(&v)
}

/// Runs the operator with `panic_on_next_call` set: E_FAIL, a message naming
/// dmls_operator_execute, and both outputs (starting as 0xCD bytes) untouched.
fn execute_panicking(op: *mut dmls_operator, tensors: &NonZeroTensors, seed: u32) {
    let mut ib = Buffer::with_bytes(&input(seed));
    let mut cb = Buffer::filled(tensors.count.total_size, 0xCD);
    let mut kb = Buffer::filled(tensors.coords.total_size, 0xCD);
    panic_on_next_call();
    let hr = execute_nonzero(op, &mut ib, &mut cb, &mut kb);
    assert_internal_error(hr, &last_error(), "dmls_operator_execute");
    assert!(
        cb.bytes().iter().chain(kb.bytes()).all(|&b| b == 0xCD),
        "outputs untouched after the panic"
    );
    assert!(ib.guards_intact() && cb.guards_intact() && kb.guards_intact());
}

#[test]
fn panic_in_execute_is_e_fail_and_the_library_carries_on() {
    install_counting_hook();
    for threads in [1, 0, 3] {
        let dev = Device::with_threads(threads);
        let tensors = nonzero_tensors();
        let op = tensors.create(dev.0).expect("create");
        let before = panics_seen();

        execute_panicking(op.0, &tensors, 1);
        assert_eq!(panics_seen(), before + 1, "the library really panicked");

        // The same operator, device and thread work afterwards, exactly.
        for seed in 0..3 {
            tensors.run_checked(op.0, &input(seed), 0xCD);
            assert_eq!(last_error(), "", "success clears the message");
        }
    }
}

#[test]
fn panic_in_every_hresult_function_is_e_fail() {
    install_counting_hook();
    let dev = Device::newest();

    panic_on_next_call();
    let (hr, msg) = try_create_device(None).err().expect("a panic is a failure");
    assert_internal_error(hr, &msg, "dmls_device_create");

    // The panic is one-shot: the next call is normal.
    try_create_device(None).expect("the call after a panic");

    let query = DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT {
        DataType: DML_TENSOR_DATA_TYPE::FLOAT32,
    };
    let mut support = DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT { IsSupported: 77 };
    panic_on_next_call();
    let hr = check_feature_support(
        dev.0,
        DML_FEATURE::TENSOR_DATA_TYPE_SUPPORT,
        &query,
        &mut support,
    );
    assert_internal_error(hr, &last_error(), "dmls_device_check_feature_support");
    assert_eq!(support.IsSupported, 77, "support untouched");

    let mut out = Tensor::new(data_types::F32, &[3, 3]);
    let dm = diag_desc(&mut out, 0, 1.0);
    panic_on_next_call();
    let (hr, msg) = dev.create_op(&dm).err().expect("a panic is a failure");
    assert_internal_error(hr, &msg, "dmls_device_create_operator");

    // Creating it again works and runs.
    let op = dev.create_op(&dm).expect("the call after a panic");
    let mut buf = Buffer::filled(36, 0);
    let b = buf.binding();
    execute(&op, &[], &[bind(&b)]).expect("execute");
    let one = 1.0f32.to_bits();
    assert_eq!(u32s(buf.bytes()), [one, 0, 0, 0, one, 0, 0, 0, one]);
}

#[test]
fn panics_on_many_threads_at_once_stay_on_their_thread() {
    install_counting_hook();
    let dev = Device::with_threads(0);
    let tensors = nonzero_tensors();
    let op = tensors.create(dev.0).expect("create");
    let shared = op.shared();
    let handles = spawn_together(8, move |t| {
        for round in 0..20u32 {
            if (round + t as u32).is_multiple_of(2) {
                execute_panicking(shared.raw(), &tensors, round);
            } else {
                tensors.run_checked(shared.raw(), &input(round), 0xCD);
            }
        }
        panics_seen()
    });
    for panics in join_all(handles) {
        assert_eq!(panics, 10);
    }
}
