//! The C API as a C program calls it: tensor descs with owned arrays ([`Tensor`]), devices and
//! operators released on drop, operator descs, bindings, execution and the last error message.

use core::ffi::c_void;
use core::ptr;

use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::{DataType, TensorDesc};

/// dmls_calc_buffer_tensor_size (`strides` as long as `sizes`; NULL when `None`).
pub fn calc_size(data_type: u32, sizes: &[u32], strides: Option<&[u32]>) -> u64 {
    // SAFETY: `sizes` and `strides` hold `sizes.len()` entries each.
    unsafe {
        dmls_calc_buffer_tensor_size(
            DML_TENSOR_DATA_TYPE(data_type),
            sizes.len() as u32,
            sizes.as_ptr(),
            strides.map_or(ptr::null(), |s| s.as_ptr()),
        )
    }
}

/// A safe-API desc of `t` (packed when `strides` is `None`) whose total is what a C program gets
/// from dmls_calc_buffer_tensor_size.
pub fn calc_desc(t: DataType, sizes: &[u32], strides: Option<&[u32]>) -> TensorDesc {
    TensorDesc::raw(
        t.raw(),
        sizes,
        strides,
        calc_size(t.raw().0, sizes, strides),
    )
}

/// A tensor desc with owned size/stride arrays, convertible to the C structs.
pub struct Tensor {
    pub data_type: u32,
    pub sizes: Vec<u32>,
    pub strides: Option<Vec<u32>>,
    pub total: u64,
    pub flags: u32,
    pub alignment: u32,
    pub dims_override: Option<u32>,
    buffer_desc: Box<DML_BUFFER_TENSOR_DESC>,
    tensor_desc: Box<DML_TENSOR_DESC>,
}

impl Tensor {
    /// A packed tensor; its total size from `dmls_calc_buffer_tensor_size`.
    pub fn new(data_type: u32, sizes: &[u32]) -> Tensor {
        Tensor::with_strides(data_type, sizes, None)
    }

    /// A tensor with strides; its total size from `dmls_calc_buffer_tensor_size`.
    pub fn strided(data_type: u32, sizes: &[u32], strides: &[u32]) -> Tensor {
        Tensor::with_strides(data_type, sizes, Some(strides))
    }

    /// A tensor with strides, or packed when `strides` is `None`; its total size from
    /// `dmls_calc_buffer_tensor_size`.
    pub fn with_strides(data_type: u32, sizes: &[u32], strides: Option<&[u32]>) -> Tensor {
        Tensor::raw(
            data_type,
            sizes,
            strides,
            calc_size(data_type, sizes, strides),
        )
    }

    /// Every field as given.
    pub fn raw(data_type: u32, sizes: &[u32], strides: Option<&[u32]>, total: u64) -> Tensor {
        let null_desc = DML_BUFFER_TENSOR_DESC {
            DataType: DML_TENSOR_DATA_TYPE(0),
            Flags: DML_TENSOR_FLAGS(0),
            DimensionCount: 0,
            Sizes: ptr::null(),
            Strides: ptr::null(),
            TotalTensorSizeInBytes: 0,
            GuaranteedBaseOffsetAlignment: 0,
        };
        Tensor {
            data_type,
            sizes: sizes.to_vec(),
            strides: strides.map(|s| s.to_vec()),
            total,
            flags: 0,
            alignment: 0,
            dims_override: None,
            buffer_desc: Box::new(null_desc),
            tensor_desc: Box::new(DML_TENSOR_DESC {
                Type: DML_TENSOR_TYPE::BUFFER,
                Desc: ptr::null(),
            }),
        }
    }

    /// The same fields as a safe-API `TensorDesc` (its DimensionCount too, even above 8).
    pub fn from_desc(t: &TensorDesc) -> Tensor {
        let mut c = Tensor::raw(t.data_type.0, t.sizes(), t.strides(), t.total_size);
        c.flags = t.flags.0;
        c.alignment = t.guaranteed_base_offset_alignment;
        if t.dimension_count as usize != t.sizes().len() {
            c.dims_override = Some(t.dimension_count);
        }
        c
    }

    /// The C desc (valid while `self` lives and is not modified).
    pub fn desc(&mut self) -> *const DML_TENSOR_DESC {
        *self.buffer_desc = DML_BUFFER_TENSOR_DESC {
            DataType: DML_TENSOR_DATA_TYPE(self.data_type),
            Flags: DML_TENSOR_FLAGS(self.flags),
            DimensionCount: self.dims_override.unwrap_or(self.sizes.len() as u32),
            Sizes: self.sizes.as_ptr(),
            Strides: self.strides.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
            TotalTensorSizeInBytes: self.total,
            GuaranteedBaseOffsetAlignment: self.alignment,
        };
        self.tensor_desc.Desc = (&*self.buffer_desc as *const DML_BUFFER_TENSOR_DESC).cast();
        &*self.tensor_desc
    }

    /// The same desc as the safe API's `TensorDesc`, for the reference implementations.
    pub fn rust(&self) -> directml_subset::TensorDesc {
        directml_subset::TensorDesc::raw(
            DML_TENSOR_DATA_TYPE(self.data_type),
            &self.sizes,
            self.strides.as_deref(),
            self.total,
        )
    }
}

pub struct Device(pub *mut dmls_device);

impl Device {
    pub fn new(level: u32, threads: u32, flags: u32) -> Device {
        Device(create_device_raw(level, threads, flags))
    }

    pub fn newest() -> Device {
        Device::new(0, 1, 0)
    }

    /// The newest level with `threads` workers (0: one per core).
    pub fn with_threads(threads: u32) -> Device {
        Device::new(0, threads, 0)
    }

    pub fn create(
        &self,
        ty: DML_OPERATOR_TYPE,
        desc: *const c_void,
    ) -> Result<Operator, (HRESULT, String)> {
        create_raw(self.0, ty, desc).map(Operator)
    }

    /// An operator from one of DirectML's operator desc structs.
    pub fn create_op<D: OpDesc>(&self, desc: &D) -> Result<Operator, (HRESULT, String)> {
        create_desc(self.0, desc).map(Operator)
    }

    /// NONZERO_COORDINATES over safe-API descs.
    pub fn nonzero(
        &self,
        input: &TensorDesc,
        count: &TensorDesc,
        coords: &TensorDesc,
    ) -> Result<Operator, (HRESULT, String)> {
        create_nonzero(self.0, input, count, coords).map(Operator)
    }

    /// DIAGONAL_MATRIX1 over safe-API descs (ValueDataType is the output's type).
    pub fn diagonal1(
        &self,
        input: Option<&TensorDesc>,
        output: &TensorDesc,
        value: [u8; 8],
        begin: i32,
        end: i32,
    ) -> Result<Operator, (HRESULT, String)> {
        create_diagonal1(self.0, input, output, value, begin, end).map(Operator)
    }

    /// DIAGONAL_MATRIX over a safe-API desc.
    pub fn diagonal(
        &self,
        output: &TensorDesc,
        offset: i32,
        value: f32,
    ) -> Result<Operator, (HRESULT, String)> {
        create_diagonal(self.0, output, offset, value).map(Operator)
    }
}

/// dmls_device_create, which must succeed; the caller releases the handle.
pub fn create_device_raw(level: u32, threads: u32, flags: u32) -> *mut dmls_device {
    let desc = dmls_device_desc {
        feature_level: DML_FEATURE_LEVEL(level),
        thread_count: threads,
        flags,
    };
    create_device_at(&desc).unwrap_or_else(|(hr, msg)| panic!("dmls_device_create: {hr:#x} {msg}"))
}

/// dmls_device_create with `desc` (NULL when `None`), checked as [`create_raw`] checks an
/// operator's creation: a success writes a device and clears the message; a failure leaves
/// `*device` alone and sets a message.
pub fn try_create_device(desc: Option<&dmls_device_desc>) -> Result<Device, (HRESULT, String)> {
    create_device_at(desc.map_or(ptr::null(), |d| d)).map(Device)
}

fn create_device_at(desc: *const dmls_device_desc) -> Result<*mut dmls_device, (HRESULT, String)> {
    let mut d = unwritten();
    // SAFETY: `desc` is NULL or points to a live desc; `d` is a local.
    let hr = unsafe { dmls_device_create(desc, &mut d) };
    created("dmls_device_create", hr, d)
}

/// What the out-pointer holds before a create call: not NULL, so that a failure that writes
/// anything to it (NULL included) shows.
fn unwritten<T>() -> *mut T {
    0x5678 as *mut T
}

/// The result of a create call that wrote `out` (which held [`unwritten`]), checked as a C caller
/// relies on it: a success writes a handle and clears the message; a failure leaves the
/// out-pointer alone and sets a message.
fn created<T>(function: &str, hr: HRESULT, out: *mut T) -> Result<*mut T, (HRESULT, String)> {
    if hr == S_OK {
        assert!(
            !out.is_null() && out != unwritten(),
            "{function}: success without a handle"
        );
        assert_eq!(
            last_error(),
            "",
            "{function}: success must clear the message"
        );
        Ok(out)
    } else {
        assert_eq!(
            out,
            unwritten(),
            "{function}: failure must not write the handle"
        );
        let msg = last_error();
        assert!(
            !msg.is_empty(),
            "{function}: failure {hr:#x} without a message"
        );
        Err((hr, msg))
    }
}

/// dmls_device_create_operator on a raw device handle. A success writes an operator and clears
/// the message; a failure leaves `*op` alone and sets a message.
///
/// `device` is a handle as a C caller holds it: live or NULL (the library rejects NULL), and
/// `desc` what `ty` says; the tests hand over other pointers only where the C API promises to
/// reject them, so this stays a safe function like the rest of the harness.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn create_raw(
    device: *mut dmls_device,
    ty: DML_OPERATOR_TYPE,
    desc: *const c_void,
) -> Result<*mut dmls_operator, (HRESULT, String)> {
    let op_desc = DML_OPERATOR_DESC {
        Type: ty,
        Desc: desc,
    };
    let mut op = unwritten();
    // SAFETY: `desc` points to the operator desc for `ty`, with live tensor descs.
    let hr = unsafe { dmls_device_create_operator(device, &op_desc, &mut op) };
    created("dmls_device_create_operator", hr, op)
}

/// One of DirectML's operator desc structs, with its DML_OPERATOR_TYPE.
pub trait OpDesc {
    const TYPE: DML_OPERATOR_TYPE;
}

impl OpDesc for DML_NONZERO_COORDINATES_OPERATOR_DESC {
    const TYPE: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE::NONZERO_COORDINATES;
}

impl OpDesc for DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
    const TYPE: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE::DIAGONAL_MATRIX1;
}

impl OpDesc for DML_DIAGONAL_MATRIX_OPERATOR_DESC {
    const TYPE: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE::DIAGONAL_MATRIX;
}

/// The `DML_OPERATOR_DESC` of one of DirectML's operator desc structs (it points to `desc`).
pub fn operator_desc<D: OpDesc>(desc: &D) -> DML_OPERATOR_DESC {
    DML_OPERATOR_DESC {
        Type: D::TYPE,
        Desc: (desc as *const D).cast(),
    }
}

/// [`create_raw`] from one of DirectML's operator desc structs.
pub fn create_desc<D: OpDesc>(
    device: *mut dmls_device,
    desc: &D,
) -> Result<*mut dmls_operator, (HRESULT, String)> {
    create_raw(device, D::TYPE, (desc as *const D).cast())
}

/// NONZERO_COORDINATES over safe-API descs, through the C structs.
pub fn create_nonzero(
    device: *mut dmls_device,
    input: &TensorDesc,
    count: &TensorDesc,
    coords: &TensorDesc,
) -> Result<*mut dmls_operator, (HRESULT, String)> {
    let mut i = Tensor::from_desc(input);
    let mut c = Tensor::from_desc(count);
    let mut k = Tensor::from_desc(coords);
    create_desc(device, &*nonzero_desc(&mut i, &mut c, &mut k))
}

/// DIAGONAL_MATRIX1 over safe-API descs, through the C structs.
pub fn create_diagonal1(
    device: *mut dmls_device,
    input: Option<&TensorDesc>,
    output: &TensorDesc,
    value: [u8; 8],
    begin: i32,
    end: i32,
) -> Result<*mut dmls_operator, (HRESULT, String)> {
    let mut i = input.map(Tensor::from_desc);
    let mut o = Tensor::from_desc(output);
    create_desc(device, &*diag1_desc(i.as_mut(), &mut o, value, begin, end))
}

/// DIAGONAL_MATRIX over a safe-API desc, through the C structs.
pub fn create_diagonal(
    device: *mut dmls_device,
    output: &TensorDesc,
    offset: i32,
    value: f32,
) -> Result<*mut dmls_operator, (HRESULT, String)> {
    create_desc(
        device,
        &diag_desc(&mut Tensor::from_desc(output), offset, value),
    )
}

impl Drop for Device {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the handle is NULL or live, and released only here.
        unsafe { dmls_device_release(self.0) };
    }
}

pub struct Operator(pub *mut dmls_operator);

impl Drop for Operator {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the handle is NULL or live, and released only here.
        unsafe { dmls_operator_release(self.0) };
    }
}

impl Device {
    /// The handle, for threads to share (see [`Shared`]).
    pub fn shared(&self) -> Shared<dmls_device> {
        Shared(self.0)
    }
}

impl Operator {
    /// The handle, for threads to share (see [`Shared`]).
    pub fn shared(&self) -> Shared<dmls_operator> {
        Shared(self.0)
    }
}

/// A device or operator handle that threads share: `Copy`, `Send` and `Sync`, and releasing
/// nothing. It comes from [`Device::shared`] or [`Operator::shared`], and the owner releases the
/// handle when dropped, so the owner must outlive every use: join the threads that use it first.
/// (An operator keeps its device alive, so a device may go while its operators still run.)
#[derive(Debug)]
pub struct Shared<T>(*mut T);

impl<T> Shared<T> {
    /// The raw handle. A method rather than a public field, so that a closure that uses it
    /// captures the whole `Shared` (which is `Send`), not the bare pointer.
    #[inline]
    pub fn raw(self) -> *mut T {
        self.0
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Shared<T> {}

// SAFETY: the C API lets any thread use a device (create operators on it, release it), and
// `Shared` only carries the pointer; releasing it stays with the one owner (see above).
unsafe impl Send for Shared<dmls_device> {}
// SAFETY: as above: the C functions that take a device may run on several threads at once.
unsafe impl Sync for Shared<dmls_device> {}
// SAFETY: the C API lets any thread use an operator, and dmls_operator_execute may run on one
// operator from many threads at once (include/directml_subset.h, `dmls_operator`); releasing
// it stays with the one owner, after the threads that use it are joined.
unsafe impl Send for Shared<dmls_operator> {}
// SAFETY: as above.
unsafe impl Sync for Shared<dmls_operator> {}

pub fn bind(b: &DML_BUFFER_BINDING) -> DML_BINDING_DESC {
    DML_BINDING_DESC {
        Type: DML_BINDING_TYPE::BUFFER,
        Desc: (b as *const DML_BUFFER_BINDING).cast(),
    }
}

/// An unbound slot (DML_BINDING_TYPE_NONE).
pub const NONE_BINDING: DML_BINDING_DESC = DML_BINDING_DESC {
    Type: DML_BINDING_TYPE::NONE,
    Desc: ptr::null(),
};

pub fn none_binding() -> DML_BINDING_DESC {
    NONE_BINDING
}

/// dmls_operator_execute on a raw operator handle (a NULL inputs array when there are none).
/// Inlined, so that the benchmark's timed loop calls the library directly. `op` is a live
/// handle or NULL, as for [`create_raw`].
#[inline]
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn execute_raw(
    op: *mut dmls_operator,
    inputs: &[DML_BINDING_DESC],
    outputs: &[DML_BINDING_DESC],
) -> HRESULT {
    // SAFETY: the bindings point to live buffers of the sizes they give.
    unsafe {
        dmls_operator_execute(
            op,
            inputs.len() as u32,
            if inputs.is_empty() {
                ptr::null()
            } else {
                inputs.as_ptr()
            },
            outputs.len() as u32,
            outputs.as_ptr(),
        )
    }
}

/// Executes, returning the HRESULT and message.
pub fn execute(
    op: &Operator,
    inputs: &[DML_BINDING_DESC],
    outputs: &[DML_BINDING_DESC],
) -> Result<(), (HRESULT, String)> {
    let hr = execute_raw(op.0, inputs, outputs);
    if hr == S_OK {
        assert_eq!(last_error(), "");
        Ok(())
    } else {
        let msg = last_error();
        assert!(!msg.is_empty(), "failure {hr:#x} without a message");
        Err((hr, msg))
    }
}

/// dmls_device_check_feature_support with `query` and `support` of their own sizes: `Q` and `S`
/// are the query and data structs of `feature`. `device` is live or NULL, as for [`create_raw`].
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn check_feature_support<Q, S>(
    device: *mut dmls_device,
    feature: DML_FEATURE,
    query: &Q,
    support: &mut S,
) -> HRESULT {
    // SAFETY: `query` and `support` are live structs of the sizes given, the ones `feature` asks
    // for.
    unsafe {
        dmls_device_check_feature_support(
            device,
            feature,
            size_of::<Q>() as u32,
            (query as *const Q).cast(),
            size_of::<S>() as u32,
            (support as *mut S).cast(),
        )
    }
}

/// Asserts that `msg` holds every one of `parts`.
pub fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} lacks {p:?}");
    }
}

pub fn last_error() -> String {
    // SAFETY: the buffer is NULL with size 0, or holds the size given.
    let n = unsafe { dmls_get_last_error_message(ptr::null_mut(), 0) };
    let mut buf = vec![0u8; n + 1];
    // SAFETY: the buffer is NULL with size 0, or holds the size given.
    let m = unsafe { dmls_get_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
    assert_eq!(m, n);
    assert_eq!(buf[n], 0);
    String::from_utf8(buf[..n].to_vec()).expect("utf-8 message")
}

/// A NONZERO_COORDINATES desc over three tensors.
pub fn nonzero_desc(
    input: &mut Tensor,
    count: &mut Tensor,
    coords: &mut Tensor,
) -> Box<DML_NONZERO_COORDINATES_OPERATOR_DESC> {
    Box::new(DML_NONZERO_COORDINATES_OPERATOR_DESC {
        InputTensor: input.desc(),
        OutputCountTensor: count.desc(),
        OutputCoordinatesTensor: coords.desc(),
    })
}

pub fn diag1_desc(
    input: Option<&mut Tensor>,
    output: &mut Tensor,
    value: [u8; 8],
    begin: i32,
    end: i32,
) -> Box<DML_DIAGONAL_MATRIX1_OPERATOR_DESC> {
    Box::new(DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
        InputTensor: input.map_or(ptr::null(), |t| t.desc()),
        ValueDataType: DML_TENSOR_DATA_TYPE(output.data_type),
        OutputTensor: output.desc(),
        Value: DML_SCALAR_UNION::from_bytes(value),
        DiagonalFillBegin: begin,
        DiagonalFillEnd: end,
    })
}

/// A DIAGONAL_MATRIX desc over one tensor.
pub fn diag_desc(
    output: &mut Tensor,
    offset: i32,
    value: f32,
) -> DML_DIAGONAL_MATRIX_OPERATOR_DESC {
    DML_DIAGONAL_MATRIX_OPERATOR_DESC {
        OutputTensor: output.desc(),
        Offset: offset,
        Value: value,
    }
}

pub fn f32_value(v: f32) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&v.to_ne_bytes());
    b
}

/// `DML_TENSOR_DATA_TYPE` values as the C structs take them.
pub mod data_types {
    pub const F32: u32 = 1;
    pub const F16: u32 = 2;
    pub const U32: u32 = 3;
    pub const U8: u32 = 5;
    pub const I32: u32 = 6;
    pub const I8: u32 = 8;
    pub const F64: u32 = 9;
    pub const U64: u32 = 10;
    pub const I64: u32 = 11;
}
