//! The C API as the benchmark uses it: tensor descs at stable addresses, devices, operators
//! and pre-faulted aligned buffers that release themselves.

use std::ffi::c_void;
use std::ptr;

use directml_subset::dml::*;
use directml_subset::ffi::*;

/// A tensor desc with its arrays, at a stable address.
pub struct Tensor {
    pub sizes: Vec<u32>,
    pub strides: Option<Vec<u32>>,
    pub buffer: DML_BUFFER_TENSOR_DESC,
    pub desc: DML_TENSOR_DESC,
}

impl Tensor {
    pub fn new(dt: DML_TENSOR_DATA_TYPE, sizes: &[u32], strides: Option<&[u32]>) -> Box<Tensor> {
        let mut t = Box::new(Tensor {
            sizes: sizes.to_vec(),
            strides: strides.map(|s| s.to_vec()),
            buffer: DML_BUFFER_TENSOR_DESC {
                DataType: dt,
                Flags: DML_TENSOR_FLAG_NONE,
                DimensionCount: sizes.len() as u32,
                Sizes: ptr::null(),
                Strides: ptr::null(),
                TotalTensorSizeInBytes: 0,
                GuaranteedBaseOffsetAlignment: 0,
            },
            desc: DML_TENSOR_DESC {
                Type: DML_TENSOR_TYPE::BUFFER,
                Desc: ptr::null(),
            },
        });
        t.buffer.Sizes = t.sizes.as_ptr();
        t.buffer.Strides = t.strides.as_ref().map_or(ptr::null(), |s| s.as_ptr());
        // SAFETY: the arrays hold DimensionCount entries.
        t.buffer.TotalTensorSizeInBytes = unsafe {
            dmls_calc_buffer_tensor_size(dt, sizes.len() as u32, t.buffer.Sizes, t.buffer.Strides)
        };
        t.desc.Desc = (&t.buffer as *const DML_BUFFER_TENSOR_DESC).cast();
        t
    }

    pub fn bytes(&self) -> usize {
        self.buffer.TotalTensorSizeInBytes as usize
    }
}

pub fn check(hr: HRESULT, what: &str) {
    if hr != S_OK {
        let mut buf = vec![0u8; 1024];
        // SAFETY: the buffer holds 1024 bytes.
        let n = unsafe { dmls_get_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
        buf.truncate(n.min(1023));
        panic!("{what}: HRESULT {hr:#x}: {}", String::from_utf8_lossy(&buf));
    }
}

pub struct Dev(pub *mut dmls_device);
impl Dev {
    pub fn new(threads: u32) -> Dev {
        let desc = dmls_device_desc {
            feature_level: DML_FEATURE_LEVEL(0),
            thread_count: threads,
            flags: 0,
        };
        let mut d = ptr::null_mut();
        // SAFETY: valid pointers.
        check(unsafe { dmls_device_create(&desc, &mut d) }, "device");
        Dev(d)
    }
}
impl Drop for Dev {
    fn drop(&mut self) {
        // SAFETY: created by dmls_device_create.
        unsafe { dmls_device_release(self.0) }
    }
}

pub struct Op(pub *mut dmls_operator);
impl Op {
    /// Creates the operator `desc` describes on `dev`; panics when creation fails.
    pub fn create(dev: &Dev, desc: &DML_OPERATOR_DESC) -> Op {
        let mut op = ptr::null_mut();
        // SAFETY: `desc` and the descs and arrays it points to are live for the call.
        check(
            unsafe { dmls_device_create_operator(dev.0, desc, &mut op) },
            "create",
        );
        Op(op)
    }
}
impl Drop for Op {
    fn drop(&mut self) {
        // SAFETY: created by dmls_device_create_operator.
        unsafe { dmls_operator_release(self.0) }
    }
}

/// A NONZERO_COORDINATES desc over three tensors (it points to them).
pub fn nonzero_desc(
    input: &Tensor,
    count: &Tensor,
    coords: &Tensor,
) -> DML_NONZERO_COORDINATES_OPERATOR_DESC {
    DML_NONZERO_COORDINATES_OPERATOR_DESC {
        InputTensor: &input.desc,
        OutputCountTensor: &count.desc,
        OutputCoordinatesTensor: &coords.desc,
    }
}

/// The DML_OPERATOR_DESC of an operator of type `kind` described by `desc` (it points to it).
pub fn operator_desc<T>(kind: DML_OPERATOR_TYPE, desc: &T) -> DML_OPERATOR_DESC {
    DML_OPERATOR_DESC {
        Type: kind,
        Desc: (desc as *const T).cast(),
    }
}

/// A 64-byte aligned, pre-faulted buffer.
pub struct Buf {
    pub v: Vec<u64>,
    pub off: usize,
    pub len: usize,
}
impl Buf {
    pub fn new(len: usize) -> Buf {
        let mut v = vec![0u64; len.div_ceil(8) + 8];
        for x in v.iter_mut() {
            *x = 0x0101_0101_0101_0101;
        }
        let addr = v.as_ptr() as usize;
        let off = (64 - addr % 64) % 64;
        Buf { v, off, len }
    }
    pub fn bytes(&mut self) -> &mut [u8] {
        let b: &mut [u8] = bytemuck::cast_slice_mut(&mut self.v);
        &mut b[self.off..self.off + self.len]
    }
    pub fn ptr(&mut self) -> *mut c_void {
        self.bytes().as_mut_ptr().cast()
    }
}
