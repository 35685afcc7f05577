//! Helpers for tests that go through the exported C functions, as a C program would.
#![allow(dead_code)]

use core::ffi::c_void;
use core::ptr;

use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::{reference, DataType, OperatorDesc, TensorDesc, DMLS_DEVICE_FLAG_EXTENSIONS};
use rand::rngs::SmallRng;
use rand::Rng;

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
    pub fn new(data_type: u32, sizes: &[u32]) -> Tensor {
        Tensor::raw(data_type, sizes, None, calc_size(data_type, sizes, None))
    }

    pub fn strided(data_type: u32, sizes: &[u32], strides: &[u32]) -> Tensor {
        let total = calc_size(data_type, sizes, Some(strides));
        Tensor::raw(data_type, sizes, Some(strides), total)
    }

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
    let mut d = ptr::null_mut();
    // SAFETY: valid pointers.
    let hr = unsafe { dmls_device_create(&desc, &mut d) };
    assert_eq!(hr, S_OK, "dmls_device_create: {}", last_error());
    d
}

/// dmls_device_create_operator on a raw device handle. A success writes an operator and clears
/// the message; a failure leaves `*op` alone and sets a message.
pub fn create_raw(
    device: *mut dmls_device,
    ty: DML_OPERATOR_TYPE,
    desc: *const c_void,
) -> Result<*mut dmls_operator, (HRESULT, String)> {
    let op_desc = DML_OPERATOR_DESC {
        Type: ty,
        Desc: desc,
    };
    let mut op = ptr::null_mut();
    // SAFETY: `desc` points to the operator desc for `ty`, with live tensor descs.
    let hr = unsafe { dmls_device_create_operator(device, &op_desc, &mut op) };
    if hr == S_OK {
        assert!(!op.is_null(), "success without an operator");
        assert_eq!(last_error(), "", "success must clear the message");
        Ok(op)
    } else {
        assert!(op.is_null(), "failure must not write *op");
        let msg = last_error();
        assert!(!msg.is_empty(), "failure {hr:#x} without a message");
        Err((hr, msg))
    }
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
    fn drop(&mut self) {
        // SAFETY: the handle is NULL or live, and released only here.
        unsafe { dmls_device_release(self.0) };
    }
}

pub struct Operator(pub *mut dmls_operator);

impl Drop for Operator {
    fn drop(&mut self) {
        // SAFETY: the handle is NULL or live, and released only here.
        unsafe { dmls_operator_release(self.0) };
    }
}

/// Tensor bytes with guard space around them: the one buffer type of the tests. The tensor
/// bytes start 64 bytes into 8-byte-aligned storage (so they are aligned to the largest element
/// size) and are followed by 64 more guard bytes; every guard byte is CANARY, so a write past
/// either end shows in [`Buffer::guards_intact`].
#[derive(Clone)]
pub struct Buffer {
    storage: Vec<u64>,
    pub offset: usize,
    pub len: usize,
}

pub const GUARD: usize = 64;
pub const CANARY: u8 = 0xA5;

impl Buffer {
    /// `len` tensor bytes, all CANARY like the guards.
    pub fn new(len: usize) -> Buffer {
        Buffer::filled(len, CANARY)
    }

    /// `len` tensor bytes (a `usize` or a tensor's `u64` size), each `fill`.
    pub fn filled(len: impl TryInto<usize, Error: core::fmt::Debug>, fill: u8) -> Buffer {
        let len = len.try_into().expect("length fits in usize");
        let words = (GUARD * 2 + len).div_ceil(8) + 8;
        let mut b = Buffer {
            storage: vec![0; words],
            offset: GUARD,
            len,
        };
        b.all_mut().fill(CANARY);
        b.bytes_mut().fill(fill);
        b
    }

    /// Tensor bytes that are a copy of `bytes`.
    pub fn with_bytes(bytes: &[u8]) -> Buffer {
        let mut b = Buffer::new(bytes.len());
        b.bytes_mut().copy_from_slice(bytes);
        b
    }

    pub fn all(&self) -> &[u8] {
        bytemuck::cast_slice(&self.storage)
    }

    pub fn all_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(&mut self.storage)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.all()[self.offset..self.offset + self.len]
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let (o, l) = (self.offset, self.len);
        &mut self.all_mut()[o..o + l]
    }

    /// True when every byte outside the tensor bytes is still the canary.
    pub fn guards_intact(&self) -> bool {
        let all = self.all();
        all[..self.offset].iter().all(|&b| b == CANARY)
            && all[self.offset + self.len..].iter().all(|&b| b == CANARY)
    }

    /// A binding of the tensor bytes (Offset 64 into the storage).
    pub fn binding(&mut self) -> DML_BUFFER_BINDING {
        let len = self.len as u64;
        DML_BUFFER_BINDING {
            Buffer: self.all_mut().as_mut_ptr().cast(),
            Offset: GUARD as u64,
            SizeInBytes: len,
        }
    }
}

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

/// The index of the first byte at which `got` and `want` differ, if any.
pub fn first_difference(got: &[u8], want: &[u8]) -> Option<usize> {
    assert_eq!(got.len(), want.len(), "lengths differ");
    got.iter().zip(want).position(|(a, b)| a != b)
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

pub fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
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

// ------------------------------------------------------------------------------------------------
// The safe Rust API

/// A device of the safe API with the extensions on (64-bit coordinates) and `threads` workers.
pub fn rust_device(threads: u32) -> directml_subset::Device {
    directml_subset::Device::new(&directml_subset::DeviceOptions {
        thread_count: threads,
        flags: DMLS_DEVICE_FLAG_EXTENSIONS,
        ..Default::default()
    })
    .expect("device")
}

/// A tensor desc, packed when `strides` is `None`.
pub fn tensor_desc(t: DataType, sizes: &[u32], strides: Option<&[u32]>) -> TensorDesc {
    match strides {
        Some(s) => TensorDesc::with_strides(t, sizes, s),
        None => TensorDesc::new(t, sizes),
    }
}

/// A DIAGONAL_MATRIX1 desc whose ValueDataType is the output's type.
pub fn diagonal1_op(
    input: Option<TensorDesc>,
    output: TensorDesc,
    value: [u8; 8],
    begin: i32,
    end: i32,
) -> OperatorDesc {
    OperatorDesc::DiagonalMatrix1 {
        input,
        output,
        value_data_type: output.data_type,
        value,
        diagonal_fill_begin: begin,
        diagonal_fill_end: end,
    }
}

// ------------------------------------------------------------------------------------------------
// Randomised tests

/// The seed of a randomised test: the environment variable `var` when it is set (to replay a
/// failure), else the clock.
pub fn seed_from_env(var: &str) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Runs `f` with a seed from `seed_from_env(var)`; when `f` panics, prints the seed and how to
/// replay it, then goes on panicking.
pub fn run_seeded(name: &str, var: &str, f: impl FnOnce(u64)) {
    let seed = seed_from_env(var);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(seed)));
    if let Err(e) = result {
        eprintln!("{name} failed with seed {seed}; replay with {var}={seed}");
        std::panic::resume_unwind(e);
    }
}

/// Padded strides for `sizes`: each dimension's pitch 0 to 2 elements more than it needs.
pub fn padded_strides(rng: &mut SmallRng, sizes: &[u32]) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for i in (0..sizes.len()).rev() {
        strides[i] = acc;
        acc = acc * sizes[i] + rng.random_range(0..3);
    }
    strides
}

/// Packed strides for `sizes` in a random order of the dimensions.
pub fn permuted_strides(rng: &mut SmallRng, sizes: &[u32]) -> Vec<u32> {
    let d = sizes.len();
    let mut order: Vec<usize> = (0..d).collect();
    for i in (1..d).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let mut strides = vec![0u32; d];
    let mut acc = 1u32;
    for &i in &order {
        strides[i] = acc;
        acc *= sizes[i];
    }
    strides
}

/// Strides of a packed tensor.
pub fn packed(sizes: &[u32]) -> Vec<u32> {
    let mut s = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for i in (0..sizes.len()).rev() {
        s[i] = acc;
        acc *= sizes[i];
    }
    s
}

/// Random strides for `sizes`: packed (`None`), padded, permuted, or (when `broadcast`)
/// with some strides 0. The one random layout generator of the tests.
pub fn random_strides(rng: &mut SmallRng, sizes: &[u32], broadcast: bool) -> Option<Vec<u32>> {
    match rng.random_range(0..6) {
        0 | 1 => None,
        2 => Some(padded_strides(rng, sizes)),
        3 | 4 => Some(permuted_strides(rng, sizes)),
        _ => {
            let mut s = packed(sizes);
            for x in s.iter_mut() {
                if broadcast && rng.random_bool(0.4) {
                    *x = 0;
                }
            }
            Some(s)
        }
    }
}

/// One element's bytes: zero (for floats sometimes -0.0) or nonzero (for floats sometimes NaN,
/// infinities, the smallest subnormal or a value whose only set bit is high).
pub fn element(rng: &mut SmallRng, t: DataType, nonzero: bool, out: &mut [u8]) {
    let size = t.size();
    let sign: u64 = 1 << (size * 8 - 1);
    let bits: u64 = if !nonzero {
        if t.is_float() && rng.random_bool(0.3) {
            sign
        } else {
            0
        }
    } else if t.is_float() {
        let (exp_mask, quiet): (u64, u64) = match size {
            2 => (0x7C00, 0x0200),
            4 => (0x7F80_0000, 0x0040_0000),
            _ => (0x7FF0_0000_0000_0000, 0x0008_0000_0000_0000),
        };
        let v = match rng.random_range(0..8) {
            0 => exp_mask | quiet,
            1 => exp_mask | 1,
            2 => exp_mask,
            3 => 1,
            4 => sign >> 1,
            _ => loop {
                let v = rng.random::<u64>() & (sign - 1);
                if v != 0 {
                    break v;
                }
            },
        };
        if rng.random_bool(0.5) {
            v | sign
        } else {
            v
        }
    } else {
        match rng.random_range(0..4) {
            0 => 1,
            1 => sign,
            _ => loop {
                let v = rng.random::<u64>() & (sign | (sign - 1));
                if v != 0 {
                    break v;
                }
            },
        }
    };
    out.copy_from_slice(&bits.to_ne_bytes()[..size]);
}

/// A buffer for `d` with random elements at the given density (see [`random_elements`]).
pub fn random_input(rng: &mut SmallRng, d: &TensorDesc, density: f64) -> Buffer {
    let t = DataType::from_raw(d.data_type).expect("type");
    random_elements(rng, t, d.total_size as usize, density)
}

/// `bytes` bytes of random elements of `t`, each nonzero with probability `density`; some
/// buffers use runs, so whole 64-element words are all zero or all nonzero. The one way the
/// tests make random inputs.
pub fn random_elements(rng: &mut SmallRng, t: DataType, bytes: usize, density: f64) -> Buffer {
    let mut buf = Buffer::filled(bytes, 0);
    let size = t.size();
    let runs = rng.random_bool(0.3);
    let mut state = rng.random_bool(density);
    for e in buf.bytes_mut().chunks_exact_mut(size) {
        let nonzero = if runs {
            if rng.random_bool(0.02) {
                state = rng.random_bool(density);
            }
            state
        } else {
            rng.random_bool(density)
        };
        element(rng, t, nonzero, e);
    }
    buf
}

/// The one reference runner: executes a NONZERO_COORDINATES operator (a raw handle) on `data`,
/// with both outputs in fresh guarded buffers starting as `fill`; asserts success, intact guards
/// and every output byte (the `fill` bytes past the rows included) equal to the reference.
/// Returns the count and coordinate buffers.
pub fn run_nonzero_checked(
    op: *mut dmls_operator,
    input: &TensorDesc,
    data: &[u8],
    count: &TensorDesc,
    coords: &TensorDesc,
    fill: u8,
) -> (Buffer, Buffer) {
    let mut ib = Buffer::with_bytes(data);
    let mut cb = Buffer::filled(count.total_size, fill);
    let mut kb = Buffer::filled(coords.total_size, fill);
    let (bi, bc, bk) = (ib.binding(), cb.binding(), kb.binding());
    let hr = execute_raw(op, &[bind(&bi)], &[bind(&bc), bind(&bk)]);
    assert_eq!(hr, S_OK, "execute: {}", last_error());
    assert!(ib.guards_intact() && cb.guards_intact() && kb.guards_intact());
    let mut want_c = vec![fill; count.total_size as usize];
    let mut want_k = vec![fill; coords.total_size as usize];
    reference::nonzero_coordinates(input, data, count, coords, &mut want_c, &mut want_k);
    assert!(
        cb.bytes() == &want_c[..],
        "count differs from the reference"
    );
    assert!(
        kb.bytes() == &want_k[..],
        "coordinates differ from the reference"
    );
    (cb, kb)
}

/// The same for DIAGONAL_MATRIX1 (`input` is the tensor and its bytes, or `None`); returns the
/// output buffer.
pub fn run_diag1_checked(
    op: *mut dmls_operator,
    input: Option<(&TensorDesc, &[u8])>,
    output: &TensorDesc,
    (value, begin, end): ([u8; 8], i32, i32),
    fill: u8,
) -> Buffer {
    let mut ib = input.map(|(_, d)| Buffer::with_bytes(d));
    let mut ob = Buffer::filled(output.total_size, fill);
    let bi = ib.as_mut().map(|b| b.binding());
    let bo = ob.binding();
    let hr = execute_raw(op, &[bi.as_ref().map_or(NONE_BINDING, bind)], &[bind(&bo)]);
    assert_eq!(hr, S_OK, "execute: {}", last_error());
    assert!(ob.guards_intact() && ib.as_ref().is_none_or(Buffer::guards_intact));
    let mut want = vec![fill; output.total_size as usize];
    reference::diagonal_matrix1(input, output, &mut want, value, begin, end);
    assert!(
        ob.bytes() == &want[..],
        "DIAGONAL_MATRIX1 output differs from the reference: input {:?}, output {output:?}, \
         value {value:?}, begin {begin}, end {end}",
        input.map(|(t, _)| t)
    );
    ob
}

/// The fewest coordinate columns N that NONZERO_COORDINATES accepts for an input of these sizes:
/// its effective rank (the dimension count without leading dimensions of size 1), at least 1.
/// The one copy of the rule in the Rust tests.
pub fn min_columns(sizes: &[u32]) -> usize {
    let lead = sizes.iter().take_while(|&&s| s == 1).count();
    (sizes.len() - lead).max(1)
}
