//! A panic inside the library comes back through the C API as `E_FAIL` with a message, leaves
//! every output untouched, and the process (and the library) carries on.
//!
//! The panic is triggered with `ffi::panic_on_next_call`, which exists only with the cargo
//! feature `panic-test` (turned on for `cargo test` by the crate's dev-dependency on itself).

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;
use std::sync::{Arc, Barrier, Once};

use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::reference;
use directml_subset::{DataType, TensorDesc};

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

fn last_message() -> String {
    let mut buf = vec![0u8; 2048];
    // SAFETY: `buf` holds `buf.len()` writable bytes.
    let len = unsafe { dmls_get_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
    buf.truncate(len.min(buf.len() - 1));
    String::from_utf8(buf).expect("UTF-8 message")
}

fn assert_internal_error(hr: HRESULT, function: &str) {
    assert_eq!(hr, E_FAIL, "a caught panic must be E_FAIL");
    let msg = last_message();
    assert!(
        msg.contains(function) && msg.contains("internal error") && msg.contains("panic-test"),
        "message should name the function and the panic: {msg}"
    );
}

/// A C-layout buffer tensor desc that owns its sizes.
struct CTensor {
    _sizes: Box<[u32]>,
    _buf: Box<DML_BUFFER_TENSOR_DESC>,
    desc: Box<DML_TENSOR_DESC>,
}

impl CTensor {
    fn new(t: &TensorDesc) -> CTensor {
        let sizes: Box<[u32]> = t.sizes().into();
        let buf = Box::new(DML_BUFFER_TENSOR_DESC {
            DataType: t.data_type,
            Flags: DML_TENSOR_FLAG_NONE,
            DimensionCount: t.dimension_count,
            Sizes: sizes.as_ptr(),
            Strides: ptr::null(),
            TotalTensorSizeInBytes: t.total_size,
            GuaranteedBaseOffsetAlignment: 0,
        });
        let desc = Box::new(DML_TENSOR_DESC {
            Type: DML_TENSOR_TYPE::BUFFER,
            Desc: (&*buf as *const DML_BUFFER_TENSOR_DESC).cast(),
        });
        CTensor {
            _sizes: sizes,
            _buf: buf,
            desc,
        }
    }
}

fn device(threads: u32) -> *mut dmls_device {
    let desc = dmls_device_desc {
        feature_level: DML_FEATURE_LEVEL(0),
        thread_count: threads,
        flags: 0,
    };
    let mut dev = ptr::null_mut();
    // SAFETY: valid pointers.
    assert_eq!(unsafe { dmls_device_create(&desc, &mut dev) }, S_OK);
    dev
}

struct NonZero {
    input: TensorDesc,
    count: TensorDesc,
    coords: TensorDesc,
    op: *mut dmls_operator,
}

fn nonzero(dev: *mut dmls_device) -> NonZero {
    let input = TensorDesc::new(DataType::Float32, &[4, 8]);
    let count = TensorDesc::new(DataType::UInt32, &[1]);
    let coords = TensorDesc::new(DataType::UInt32, &[32, 2]);
    let (ci, cc, ck) = (
        CTensor::new(&input),
        CTensor::new(&count),
        CTensor::new(&coords),
    );
    let nz = DML_NONZERO_COORDINATES_OPERATOR_DESC {
        InputTensor: &*ci.desc,
        OutputCountTensor: &*cc.desc,
        OutputCoordinatesTensor: &*ck.desc,
    };
    let desc = DML_OPERATOR_DESC {
        Type: DML_OPERATOR_TYPE::NONZERO_COORDINATES,
        Desc: (&nz as *const DML_NONZERO_COORDINATES_OPERATOR_DESC).cast(),
    };
    let mut op = ptr::null_mut();
    // SAFETY: valid descs and pointers.
    let hr = unsafe { dmls_device_create_operator(dev, &desc, &mut op) };
    assert_eq!(hr, S_OK, "{}", last_message());
    NonZero {
        input,
        count,
        coords,
        op,
    }
}

fn binding(b: &DML_BUFFER_BINDING) -> DML_BINDING_DESC {
    DML_BINDING_DESC {
        Type: DML_BINDING_TYPE::BUFFER,
        Desc: (b as *const DML_BUFFER_BINDING).cast(),
    }
}

fn buffer_binding(buf: &mut [u32]) -> DML_BUFFER_BINDING {
    DML_BUFFER_BINDING {
        Buffer: buf.as_mut_ptr().cast::<c_void>(),
        Offset: 0,
        SizeInBytes: (buf.len() * 4) as u64,
    }
}

/// Runs the NONZERO operator on a fixed input; returns the HRESULT and the output buffers.
fn run(nz: &NonZero, seed: u32) -> (HRESULT, Vec<u32>, Vec<u32>, Vec<f32>) {
    let mut input: Vec<f32> = (0..32u32)
        .map(|i| {
            if (i + seed).is_multiple_of(3) {
                0.0
            } else {
                i as f32
            }
        })
        .collect();
    let mut count = vec![0xCDCD_CDCDu32; 1];
    let mut coords = vec![0xCDCD_CDCDu32; 64];
    let bin = DML_BUFFER_BINDING {
        Buffer: input.as_mut_ptr().cast(),
        Offset: 0,
        SizeInBytes: 128,
    };
    let bcount = buffer_binding(&mut count);
    let bcoords = buffer_binding(&mut coords);
    let inputs = [binding(&bin)];
    let outputs = [binding(&bcount), binding(&bcoords)];
    // SAFETY: the bindings point to live buffers of the sizes they give.
    let hr = unsafe { dmls_operator_execute(nz.op, 1, inputs.as_ptr(), 2, outputs.as_ptr()) };
    (hr, count, coords, input)
}

fn expected(nz: &NonZero, input: &[f32]) -> (Vec<u32>, Vec<u32>) {
    let mut count = vec![0xCDCD_CDCDu32; 1];
    let mut coords = vec![0xCDCD_CDCDu32; 64];
    reference::nonzero_coordinates(
        &nz.input,
        bytemuck::cast_slice(input),
        &nz.count,
        &nz.coords,
        bytemuck::cast_slice_mut(&mut count),
        bytemuck::cast_slice_mut(&mut coords),
    );
    (count, coords)
}

#[test]
fn panic_in_execute_is_e_fail_and_the_library_carries_on() {
    install_counting_hook();
    for threads in [1, 0, 3] {
        let dev = device(threads);
        let nz = nonzero(dev);
        let before = panics_seen();

        panic_on_next_call();
        let (hr, count, coords, _) = run(&nz, 1);
        assert_internal_error(hr, "dmls_operator_execute");
        assert_eq!(panics_seen(), before + 1, "the library really panicked");
        assert!(
            count.iter().chain(&coords).all(|&w| w == 0xCDCD_CDCD),
            "outputs untouched after the panic"
        );

        // The same operator, device and thread work afterwards, exactly.
        for seed in 0..3 {
            let (hr, count, coords, input) = run(&nz, seed);
            assert_eq!(hr, S_OK, "{}", last_message());
            assert_eq!(last_message(), "", "success clears the message");
            assert_eq!((count, coords), expected(&nz, &input));
        }
        // SAFETY: created above, released once.
        unsafe {
            dmls_operator_release(nz.op);
            dmls_device_release(dev);
        }
    }
}

#[test]
fn panic_in_every_hresult_function_is_e_fail() {
    install_counting_hook();
    let dev = device(1);

    panic_on_next_call();
    let mut out_dev = 0x1234usize as *mut dmls_device;
    // SAFETY: valid pointers.
    let hr = unsafe { dmls_device_create(ptr::null(), &mut out_dev) };
    assert_internal_error(hr, "dmls_device_create");
    assert_eq!(out_dev as usize, 0x1234, "*device untouched");

    // The panic is one-shot: the next call is normal.
    let mut ok_dev = ptr::null_mut();
    // SAFETY: valid pointers.
    assert_eq!(
        // SAFETY: the desc and the out-pointer are NULL or locals that outlive the call.
        unsafe { dmls_device_create(ptr::null(), &mut ok_dev) },
        S_OK
    );
    // SAFETY: created above.
    unsafe { dmls_device_release(ok_dev) };

    let query = DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT {
        DataType: DML_TENSOR_DATA_TYPE::FLOAT32,
    };
    let mut support = DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT { IsSupported: 77 };
    panic_on_next_call();
    // SAFETY: valid pointers and sizes.
    let hr = unsafe {
        dmls_device_check_feature_support(
            dev,
            DML_FEATURE::TENSOR_DATA_TYPE_SUPPORT,
            size_of_val(&query) as u32,
            (&query as *const DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT).cast(),
            size_of_val(&support) as u32,
            (&mut support as *mut DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT).cast(),
        )
    };
    assert_internal_error(hr, "dmls_device_check_feature_support");
    assert_eq!(support.IsSupported, 77, "support untouched");

    let out = TensorDesc::new(DataType::Float32, &[3, 3]);
    let c_out = CTensor::new(&out);
    let dm = DML_DIAGONAL_MATRIX_OPERATOR_DESC {
        OutputTensor: &*c_out.desc,
        Offset: 0,
        Value: 1.0,
    };
    let desc = DML_OPERATOR_DESC {
        Type: DML_OPERATOR_TYPE::DIAGONAL_MATRIX,
        Desc: (&dm as *const DML_DIAGONAL_MATRIX_OPERATOR_DESC).cast(),
    };
    let mut op = 0x5678usize as *mut dmls_operator;
    panic_on_next_call();
    // SAFETY: valid descs and pointers.
    let hr = unsafe { dmls_device_create_operator(dev, &desc, &mut op) };
    assert_internal_error(hr, "dmls_device_create_operator");
    assert_eq!(op as usize, 0x5678, "*op untouched");

    // Creating it again works and runs.
    op = ptr::null_mut();
    // SAFETY: valid descs and pointers.
    assert_eq!(
        // SAFETY: the device is NULL or live; the desc and the out-pointer are NULL or locals that outlive the call.
        unsafe { dmls_device_create_operator(dev, &desc, &mut op) },
        S_OK
    );
    let mut buf = vec![0u32; 9];
    let b = buffer_binding(&mut buf);
    let outputs = [binding(&b)];
    // SAFETY: the binding points to a live 36-byte buffer.
    let hr = unsafe { dmls_operator_execute(op, 0, ptr::null(), 1, outputs.as_ptr()) };
    assert_eq!(hr, S_OK, "{}", last_message());
    let one = 1.0f32.to_bits();
    assert_eq!(buf, [one, 0, 0, 0, one, 0, 0, 0, one]);
    // SAFETY: created above, released once.
    unsafe {
        dmls_operator_release(op);
        dmls_device_release(dev);
    }
}

#[test]
fn panics_on_many_threads_at_once_stay_on_their_thread() {
    install_counting_hook();
    let dev = device(0);
    let nz = nonzero(dev);
    let op = nz.op as usize;
    let descs = (nz.input, nz.count, nz.coords);
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mine = NonZero {
                    op: op as *mut dmls_operator,
                    input: descs.0,
                    count: descs.1,
                    coords: descs.2,
                };
                barrier.wait();
                for round in 0..20u32 {
                    let panic_now = (round + t as u32).is_multiple_of(2);
                    if panic_now {
                        panic_on_next_call();
                    }
                    let (hr, count, coords, input) = run(&mine, round);
                    if panic_now {
                        assert_internal_error(hr, "dmls_operator_execute");
                        assert!(count.iter().chain(&coords).all(|&w| w == 0xCDCD_CDCD));
                    } else {
                        assert_eq!(hr, S_OK, "{}", last_message());
                        assert_eq!((count, coords), expected(&mine, &input));
                    }
                }
                panics_seen()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("thread carried on"), 10);
    }
    // SAFETY: created above; no thread uses them any more.
    unsafe {
        dmls_operator_release(op as *mut dmls_operator);
        dmls_device_release(dev);
    }
}
