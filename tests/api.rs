//! The C API's entry points end to end: devices, feature queries, operator types, NULL
//! pointers, binding rules, buffer sizes, messages and the version, with their codes and
//! messages. (The operators' own examples and rules: tests/operators/.)

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use core::ptr;

use common::data_types::*;
use common::*;
use directml_subset::dml::*;
use directml_subset::ffi::*;

#[test]
fn null_pointers_are_e_pointer() {
    let dev = Device::newest();
    let mut d = ptr::null_mut();
    assert_eq!(
        // SAFETY: the desc and the out-pointer are NULL or locals that outlive the call.
        unsafe { dmls_device_create(ptr::null(), ptr::null_mut()) },
        E_POINTER
    );
    // SAFETY: the desc and the out-pointer are NULL or locals that outlive the call.
    assert_eq!(unsafe { dmls_device_create(ptr::null(), &mut d) }, S_OK);
    // SAFETY: the handle is NULL or live, and released only here.
    unsafe { dmls_device_release(d) };
    let mut op = ptr::null_mut();
    let nz = DML_OPERATOR_DESC {
        Type: DML_OPERATOR_TYPE::NONZERO_COORDINATES,
        Desc: ptr::null(),
    };
    assert_eq!(
        // SAFETY: the device is NULL or live; the desc and the out-pointer are NULL or locals that outlive the call.
        unsafe { dmls_device_create_operator(dev.0, &nz, &mut op) },
        E_POINTER
    );
    assert!(last_error().contains("Desc is NULL"));
    assert_eq!(
        // SAFETY: the device is NULL or live; the desc and the out-pointer are NULL or locals that outlive the call.
        unsafe { dmls_device_create_operator(ptr::null(), &nz, &mut op) },
        E_POINTER
    );
    assert_eq!(
        // SAFETY: the device is NULL or live; the desc and the out-pointer are NULL or locals that outlive the call.
        unsafe { dmls_device_create_operator(dev.0, ptr::null(), &mut op) },
        E_POINTER
    );
    let mut input = Tensor::new(F32, &[2, 4]);
    let mut count = Tensor::new(U32, &[1]);
    let mut coords = Tensor::new(U32, &[8, 2]);
    let mut desc = nonzero_desc(&mut input, &mut count, &mut coords);
    desc.OutputCountTensor = ptr::null();
    let (hr, msg) = dev.create_op(&*desc).err().unwrap();
    assert_eq!(hr, E_POINTER);
    assert!(msg.contains("OutputCountTensor is NULL"), "{msg}");
    let mut input = Tensor::new(F32, &[2, 4]);
    input.sizes = vec![];
    input.dims_override = Some(2);
    let mut desc = nonzero_desc(&mut input, &mut count, &mut coords);
    // A NULL Sizes array with a nonzero count.
    // SAFETY: the desc points to the locals built above, alive and not otherwise borrowed.
    unsafe {
        let t = &*desc.InputTensor;
        let b = t.Desc as *mut DML_BUFFER_TENSOR_DESC;
        (*b).Sizes = ptr::null();
    }
    desc.OutputCountTensor = count.desc();
    let (hr, msg) = dev.create_op(&*desc).err().unwrap();
    assert_eq!(hr, E_POINTER);
    assert!(msg.contains("InputTensor Sizes is NULL"), "{msg}");
}

#[test]
fn operator_types() {
    let dev = Device::newest();
    let mut op = ptr::null_mut();
    let dummy = 0u64;
    for (ty, hr) in [
        (0u32, E_INVALIDARG),
        (103, E_NOTIMPL),
        (1, E_NOTIMPL),
        (177, E_NOTIMPL),
        (178, E_INVALIDARG),
        (u32::MAX, E_INVALIDARG),
    ] {
        let d = DML_OPERATOR_DESC {
            Type: DML_OPERATOR_TYPE(ty),
            Desc: (&dummy as *const u64).cast(),
        };
        assert_eq!(
            // SAFETY: the device is NULL or live; the desc and the out-pointer are NULL or locals that outlive the call.
            unsafe { dmls_device_create_operator(dev.0, &d, &mut op) },
            hr,
            "type {ty}"
        );
        assert!(!last_error().is_empty());
        assert!(op.is_null());
    }
}

#[test]
fn device_levels_and_flags() {
    let mut d = ptr::null_mut();
    for (level, flags, threads, hr) in [
        (0u32, 0u32, 0u32, S_OK),
        (0x1000, 0, 1, S_OK),
        (0x6400, 1, 2, S_OK),
        (0x6500, 0, 0, DXGI_ERROR_UNSUPPORTED),
        (0x7000, 0, 0, DXGI_ERROR_UNSUPPORTED),
        (0x1234, 0, 0, E_INVALIDARG),
        (0x1100, 0, 0, E_INVALIDARG),
        (0x10000, 0, 0, E_INVALIDARG),
        (0, 2, 0, E_INVALIDARG),
        (0, 0x80000000, 0, E_INVALIDARG),
        (0, 0, 5000, E_INVALIDARG),
    ] {
        let desc = dmls_device_desc {
            feature_level: DML_FEATURE_LEVEL(level),
            thread_count: threads,
            flags,
        };
        d = ptr::null_mut();
        // SAFETY: the desc and the out-pointer are NULL or locals that outlive the call.
        let got = unsafe { dmls_device_create(&desc, &mut d) };
        assert_eq!(
            got,
            hr,
            "level {level:#x} flags {flags:#x}: {}",
            last_error()
        );
        if got == S_OK {
            assert!(!d.is_null());
            // SAFETY: the handle is NULL or live, and released only here.
            unsafe { dmls_device_release(d) };
        } else {
            assert!(d.is_null());
            assert!(!last_error().is_empty());
        }
    }
    let _ = d;
    // SAFETY: the handle is NULL or live, and released only here.
    unsafe { dmls_device_release(ptr::null_mut()) };
    // SAFETY: the handle is NULL or live, and released only here.
    unsafe { dmls_operator_release(ptr::null_mut()) };
}

#[test]
fn feature_queries() {
    let dev = Device::new(0x5100, 1, 0);
    let mut support = DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT { IsSupported: -1 };
    for (ty, yes) in [(0u32, 0), (1, 1), (11, 1), (12, 0), (13, 0), (99, 0)] {
        let q = DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT {
            DataType: DML_TENSOR_DATA_TYPE(ty),
        };
        let hr = check_feature_support(
            dev.0,
            DML_FEATURE::TENSOR_DATA_TYPE_SUPPORT,
            &q,
            &mut support,
        );
        assert_eq!(hr, S_OK);
        assert_eq!(support.IsSupported, yes, "type {ty}");
    }
    let levels = [
        DML_FEATURE_LEVEL_3_0,
        DML_FEATURE_LEVEL_6_4,
        DML_FEATURE_LEVEL_5_1,
        DML_FEATURE_LEVEL_4_0,
    ];
    let above = [DML_FEATURE_LEVEL_6_0];
    let query = |levels: *const DML_FEATURE_LEVEL, count: u32| DML_FEATURE_QUERY_FEATURE_LEVELS {
        RequestedFeatureLevelCount: count,
        RequestedFeatureLevels: levels,
    };
    let (q, q2, q3, q4) = (
        query(levels.as_ptr(), 4),
        query(above.as_ptr(), 1),
        query(above.as_ptr(), 0),
        query(ptr::null(), 1),
    );
    let fl = DML_FEATURE::FEATURE_LEVELS;
    // (feature, query, query_size, support_size, HRESULT)
    #[rustfmt::skip]
    let cases: [(DML_FEATURE, *const DML_FEATURE_QUERY_FEATURE_LEVELS, u32, u32, HRESULT); 8] = [
        (fl, &q, 16, 4, S_OK),
        (fl, &q, 8, 4, E_INVALIDARG),
        (fl, &q, 16, 8, E_INVALIDARG),
        // Every requested level above the device's.
        (fl, &q2, 16, 4, DXGI_ERROR_UNSUPPORTED),
        (fl, &q3, 16, 4, E_INVALIDARG),
        // A count of 1 with a NULL array.
        (fl, &q4, 16, 4, E_POINTER),
        (DML_FEATURE(7), &q, 4, 4, DXGI_ERROR_UNSUPPORTED),
        (fl, ptr::null(), 16, 4, E_POINTER),
    ];
    for (i, (feature, query, qs, ss, hr)) in cases.into_iter().enumerate() {
        let mut out = DML_FEATURE_DATA_FEATURE_LEVELS {
            MaxSupportedFeatureLevel: DML_FEATURE_LEVEL(0),
        };
        // SAFETY: the device is live; query and output are locals of at least the sizes given
        // (or NULL, which is what is tested).
        let got = unsafe {
            dmls_device_check_feature_support(
                dev.0,
                feature,
                qs,
                query.cast(),
                ss,
                (&mut out as *mut DML_FEATURE_DATA_FEATURE_LEVELS).cast(),
            )
        };
        assert_eq!(got, hr, "case {i}: {}", last_error());
        if hr == S_OK {
            assert_eq!(out.MaxSupportedFeatureLevel, DML_FEATURE_LEVEL_5_1);
        }
    }
}

#[test]
fn binding_rules() {
    let dev = Device::newest();
    let mut input = Tensor::new(F32, &[2, 4]);
    let mut count = Tensor::new(U32, &[1]);
    let mut coords = Tensor::new(U32, &[8, 2]);
    let desc = nonzero_desc(&mut input, &mut count, &mut coords);
    let op = dev.create_op(&*desc).unwrap();
    let mut inb = Buffer::with_bytes(&f32_bytes(&[1.0; 8]));
    let mut cb = Buffer::new(4);
    let mut kb = Buffer::new(64);
    let (ib, cbb, kbb) = (inb.binding(), cb.binding(), kb.binding());
    // Broken bindings, each a copy of a good one with one field changed.
    let with = |b: &DML_BUFFER_BINDING, f: &dyn Fn(&mut DML_BUFFER_BINDING)| {
        let mut b = *b;
        f(&mut b);
        b
    };
    let small = with(&ib, &|b| b.SizeInBytes = 16);
    let odd = with(&ib, &|b| b.Offset = 8);
    let nul = with(&ib, &|b| b.Buffer = ptr::null_mut());
    // Count and coordinates overlapping; an output overlapping the input.
    let overlap = with(&kbb, &|b| b.SizeInBytes = 64);
    let onto_input = with(&ib, &|b| b.SizeInBytes = 64);
    let over = with(&ib, &|b| {
        b.Offset = u64::MAX - 15;
        b.SizeInBytes = 32;
    });
    let typed = |t: DML_BINDING_TYPE, desc: *const DML_BUFFER_BINDING| DML_BINDING_DESC {
        Type: t,
        Desc: desc.cast(),
    };
    let arr = typed(DML_BINDING_TYPE::BUFFER_ARRAY, &ib);
    let bad = typed(DML_BINDING_TYPE(9), &ib);
    let nodesc = typed(DML_BINDING_TYPE::BUFFER, ptr::null());
    let outs = [bind(&cbb), bind(&kbb)];
    // (inputs, outputs, HRESULT, what the message says)
    #[rustfmt::skip]
    let cases: [(&[DML_BINDING_DESC], &[DML_BINDING_DESC], HRESULT, &str); 12] = [
        (&[], &outs, E_INVALIDARG, "input_count is 0"),
        (&[bind(&ib)], &[bind(&cbb)], E_INVALIDARG, "output_count is 1"),
        (&[none_binding()], &outs, E_INVALIDARG, "DML_BINDING_TYPE_NONE"),
        (&[bind(&small)], &outs, E_INVALIDARG, "SizeInBytes is 16"),
        (&[bind(&odd)], &outs, E_INVALIDARG, "Offset is 8, must be a multiple of 16"),
        (&[bind(&nul)], &outs, E_POINTER, "Buffer is NULL"),
        (&[arr], &outs, E_INVALIDARG, "BUFFER_ARRAY"),
        (&[bad], &outs, E_INVALIDARG, "Type is 9"),
        (&[nodesc], &outs, E_POINTER, "binding Desc is NULL"),
        (&[bind(&ib)], &[bind(&overlap), bind(&kbb)], E_INVALIDARG, "overlaps"),
        (&[bind(&ib)], &[bind(&cbb), bind(&onto_input)], E_INVALIDARG, "overlaps"),
        (&[bind(&over)], &outs, E_INVALIDARG, "address space"),
    ];
    for (inputs, outputs, hr, part) in cases {
        let (got, msg) = execute(&op, inputs, outputs).unwrap_err();
        assert_eq!(got, hr, "{msg}");
        assert!(msg.contains(part), "{msg:?} lacks {part:?}");
    }
    // SAFETY: NULL pointers are what is tested; every other pointer is a live handle or a local binding array of the count given.
    let hr = unsafe {
        dmls_operator_execute(op.0, 1, ptr::null(), 2, [bind(&cbb), bind(&kbb)].as_ptr())
    };
    assert_eq!(hr, E_POINTER);
    // SAFETY: NULL pointers are what is tested; every other pointer is a live handle or a local binding array of the count given.
    let hr = unsafe {
        dmls_operator_execute(
            ptr::null(),
            1,
            [bind(&ib)].as_ptr(),
            2,
            [bind(&cbb), bind(&kbb)].as_ptr(),
        )
    };
    assert_eq!(hr, E_POINTER);
    // Nothing was ever written.
    assert!(cb.all().iter().all(|&b| b == CANARY));
    assert!(kb.all().iter().all(|&b| b == CANARY));
    // Then a good call succeeds and clears the message.
    execute(&op, &[bind(&ib)], &[bind(&cbb), bind(&kbb)]).unwrap();
    assert_eq!(u32s(cb.bytes())[0], 8);
}

#[test]
fn misaligned_and_guaranteed_alignment() {
    let dev = Device::newest();
    let mut out = Tensor::new(F32, &[4, 4]);
    out.alignment = 64;
    let desc = diag1_desc(None, &mut out, f32_value(1.0), 0, 1);
    let op = dev.create_op(&*desc).unwrap();
    let mut ob = Buffer::new(64 + 64);
    let mut b = ob.binding();
    b.Offset = 64; // the tensor bytes: 64-aligned in test-support's Buffer, checked below
    let aligned64 = (b.Buffer as usize + 64).is_multiple_of(64);
    let r = execute(&op, &[none_binding()], &[bind(&b)]);
    assert_eq!(r.is_ok(), aligned64, "{r:?}");
    b.Offset = 16;
    let (hr, msg) = execute(&op, &[none_binding()], &[bind(&b)]).unwrap_err();
    assert_eq!(hr, E_INVALIDARG);
    assert!(msg.contains("multiple of 64"), "{msg}");
    // Element misalignment: a 4-byte type at an odd address.
    let mut out = Tensor::new(F32, &[4, 4]);
    let desc = diag1_desc(None, &mut out, f32_value(1.0), 0, 1);
    let op = dev.create_op(&*desc).unwrap();
    let mut ob = Buffer::new(128);
    let mut b = ob.binding();
    // SAFETY: the buffer is 128 bytes long, so one byte past its start is within it.
    b.Buffer = unsafe { (b.Buffer as *mut u8).add(1) }.cast();
    let (hr, msg) = execute(&op, &[none_binding()], &[bind(&b)]).unwrap_err();
    assert_eq!(hr, E_INVALIDARG);
    assert!(msg.contains("not aligned"), "{msg}");
    assert!(ob.all().iter().all(|&x| x == CANARY));
}

#[test]
fn calc_buffer_tensor_size() {
    let s = [1u32, 1, 2, 4];
    let calc = calc_size;
    assert_eq!(calc(F32, &s, None), 32);
    assert_eq!(calc(U8, &[3], None), 4);
    assert_eq!(calc(F16, &[3], None), 8);
    assert_eq!(calc(12, &[3], None), 4);
    // 4-bit elements beyond 2^64 whose bytes still fit in 64 bits.
    assert_eq!(
        calc(13, &[262914, 671088892, 130559], None),
        11517827828687604996
    );
    assert_eq!(
        calc(12, &[0x8000_0000, 0x8000_0000, 3], None),
        0x6000_0000_0000_0000
    );
    assert_eq!(calc(0, &s, None), 0);
    assert_eq!(calc(99, &s, None), 0);
    assert_eq!(calc(F32, &[2, 3], Some(&[2, 2 * 6])), (1 + 2 + 2 * 12) * 4);
    assert_eq!(calc(F32, &[4, 4], Some(&[0, 0])), 4);
    let elements = (u32::MAX as u64 - 1) * u32::MAX as u64 + 1 + 1;
    assert_eq!(
        calc(U8, &[u32::MAX, 2], Some(&[u32::MAX, 1])),
        (elements + 3) & !3
    );
    assert_eq!(
        calc(F64, &[u32::MAX, u32::MAX], Some(&[u32::MAX, u32::MAX])),
        0,
        "overflow gives 0"
    );
    assert_eq!(calc(F64, &[u32::MAX; 8], None), 0, "overflow gives 0");
    assert_eq!(
        // SAFETY: the arrays are NULL (what is tested) or locals of at least the count given.
        unsafe {
            dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE(1), 0, s.as_ptr(), ptr::null())
        },
        0
    );
    assert_eq!(
        // SAFETY: the arrays are NULL (what is tested) or locals of at least the count given.
        unsafe {
            dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE(1), 2, ptr::null(), ptr::null())
        },
        0
    );
    // The Rust API's TensorDesc::implied_size is the same function: 4-bit types, more than 8
    // dimensions, strides, unknown types.
    let nine = [2u32; 9];
    for (ty, sizes, strides) in [
        (12u32, &[8u32][..], None),
        (13, &[3], None),
        (1, &nine[..], None),
        (1, &s, Some(&[16u32, 8, 4, 1][..])),
        (99, &[3], None),
    ] {
        let desc = match strides {
            Some(st) => {
                directml_subset::TensorDesc::with_strides(DML_TENSOR_DATA_TYPE(ty), sizes, st)
            }
            None => directml_subset::TensorDesc::new(DML_TENSOR_DATA_TYPE(ty), sizes),
        };
        assert_eq!(
            desc.implied_size(),
            calc(ty, sizes, strides),
            "type {ty} sizes {sizes:?} strides {strides:?}"
        );
    }
    assert_eq!(
        directml_subset::TensorDesc::new(DML_TENSOR_DATA_TYPE(12), &[8]).implied_size(),
        4
    );
}

#[test]
fn messages_and_version() {
    // SAFETY: dmls_version returns a static NUL-terminated string.
    let v = unsafe { std::ffi::CStr::from_ptr(dmls_version()) };
    assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    // A failure sets the message; truncation keeps the full length and a NUL.
    // SAFETY: the desc and the out-pointer are NULL or locals that outlive the call.
    let hr = unsafe { dmls_device_create(ptr::null(), ptr::null_mut()) };
    assert_eq!(hr, E_POINTER);
    let full = last_error();
    let mut small = [0x55u8; 8];
    // SAFETY: the buffer is NULL with size 0, or holds the size given.
    let n = unsafe { dmls_get_last_error_message(small.as_mut_ptr().cast(), small.len()) };
    assert_eq!(n, full.len());
    assert_eq!(&small[..7], &full.as_bytes()[..7]);
    assert_eq!(small[7], 0);
    // Messages are per thread.
    std::thread::spawn(|| assert_eq!(last_error(), ""))
        .join()
        .unwrap();
    let mut d = ptr::null_mut();
    // SAFETY: the desc and the out-pointer are NULL or locals that outlive the call.
    assert_eq!(unsafe { dmls_device_create(ptr::null(), &mut d) }, S_OK);
    assert_eq!(last_error(), "");
    // SAFETY: the handle is NULL or live, and released only here.
    unsafe { dmls_device_release(d) };
}

/// A `dmls_` call from a thread-local destructor that runs after the library's own (the thread
/// exits) answers as usual, with no message kept, instead of aborting the process.
#[test]
fn calls_while_the_thread_exits_keep_no_message_and_do_not_abort() {
    struct CallsOnDrop;
    impl Drop for CallsOnDrop {
        fn drop(&mut self) {
            // SAFETY: the desc and the out-pointer are NULL.
            let hr = unsafe { dmls_device_create(ptr::null(), ptr::null_mut()) };
            assert_eq!(hr, E_POINTER);
            let mut buf = [0x55u8; 16];
            // SAFETY: the buffer holds the size given.
            let n = unsafe { dmls_get_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
            // Where the message is gone already: none (else the one just set).
            assert!(n == 0 || last_error().contains("dmls_device_create"), "{n}");
        }
    }
    thread_local! {
        static CALLS_ON_DROP: CallsOnDrop = const { CallsOnDrop };
    }
    let ran = std::thread::spawn(|| {
        // Registered first, so destroyed after the message, which the failing call below
        // registers (thread-locals are destroyed in the reverse order).
        CALLS_ON_DROP.with(|_| ());
        // SAFETY: the desc and the out-pointer are NULL.
        let hr = unsafe { dmls_device_create(ptr::null(), ptr::null_mut()) };
        assert_eq!(hr, E_POINTER);
        assert!(!last_error().is_empty());
    })
    .join();
    assert!(ran.is_ok());
}

#[test]
fn desc_is_copied_at_creation() {
    let dev = Device::newest();
    let op = {
        let mut out = Tensor::new(F32, &[3, 3]);
        let desc = diag1_desc(None, &mut out, f32_value(2.0), 0, 1);
        dev.create_op(&*desc).unwrap()
        // desc and out are freed here.
    };
    drop(dev); // the device may go before its operators
    let mut ob = Buffer::new(36);
    let b = ob.binding();
    execute(&op, &[none_binding()], &[bind(&b)]).unwrap();
    assert_eq!(f32s(ob.bytes()), [2., 0., 0., 0., 2., 0., 0., 0., 2.]);
}
