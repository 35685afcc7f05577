//! The fuzz targets' check logic, shared by the libFuzzer targets (`fuzz_targets/*.rs`) and by a
//! plain stable `cargo test` that replays the committed corpus (`tests/corpus.rs`).
//!
//! An input is decoded into a [`Case`]: a device desc, an operator desc of any type with up to
//! three tensor descs (any data type, flags, dimension count, sizes, strides, total size,
//! alignment, NULL pointers), a feature query, and up to three bindings (any binding type,
//! NULLs, offsets, sizes, misaligned or overlapping buffers). [`check`] builds the real C structs
//! from it, calls the C API (`dmls_device_create`, `dmls_device_check_feature_support`,
//! `dmls_calc_buffer_tensor_size`, `dmls_device_create_operator`, `dmls_operator_execute`) and
//! panics when a promise is broken:
//!
//! - every HRESULT is one the function documents (a panic caught as `E_FAIL` is a bug);
//! - a failure leaves a message, a success clears it;
//! - a failure writes no output parameter and touches no byte of any bound buffer;
//! - success and failure agree with an independent model of DirectML's rules ([`model`]);
//! - a successful execution changes exactly what `directml_subset::reference` computes: every
//!   byte outside the output tensors' elements (padding, guard bytes, inputs) is unchanged;
//! - the library reads no caller array or buffer past its end: those sit against an
//!   inaccessible page, so an over-read faults (this works without AddressSanitizer).
//!
//! Bytes are decoded with [`Reader`], which reads zeros once the input runs out, so every byte
//! string is a valid case; [`Writer`] encodes a case back, which is how the seed corpus is made
//! ([`seeds`]).

#![allow(clippy::too_many_arguments)]

pub mod guarded;
pub mod model;
pub mod seeds;

use core::ffi::c_void;
use std::ptr;
use std::sync::Mutex;

use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::reference;

use guarded::{GuardedArray, Region};

// ------------------------------------------------------------------------------------------------
// Encoding

/// Values with a one-byte short form: the boundaries a fuzzer should reach easily.
const SPECIAL32: [u32; 16] = [
    u32::MAX,
    u32::MAX - 1,
    0x8000_0000,
    0x7FFF_FFFF,
    0x1_0000,
    0xFFFF,
    0x1_0001,
    0x100_0000,
    0x4000_0000,
    0x2_0000,
    0x2_0001,
    1000,
    4096,
    0x8000,
    0x7FFF,
    0x8000_0001,
];

const SPECIAL64: [u64; 16] = [
    u64::MAX,
    u64::MAX - 3,
    u64::MAX - 15,
    1 << 63,
    (1 << 63) - 4,
    (1 << 63) + 16,
    1 << 32,
    (1 << 32) - 4,
    1 << 62,
    1 << 61,
    (1 << 61) + 4,
    u32::MAX as u64,
    1 << 40,
    0x7FFF_FFFF_FFFF_FFF0,
    1 << 20,
    4096,
];

/// Reads or writes the fields of a [`Case`] in one order, so decoding and encoding agree.
pub trait Io {
    /// One byte.
    fn u8(&mut self, v: &mut u8);
    /// A u32: one byte below 0xE0, a special value 0xE0–0xEF, else 0xFF and four bytes.
    fn u32(&mut self, v: &mut u32);
    /// A u64: as [`Io::u32`], with 0xFE and four bytes for a 32-bit value.
    fn u64(&mut self, v: &mut u64);
    /// Eight raw bytes.
    fn raw8(&mut self, v: &mut [u8; 8]);
    /// True when decoding.
    fn reading(&self) -> bool;
}

/// Decodes bytes; past the end every read is 0.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for b in &mut out {
            *b = self.byte();
        }
        out
    }
}

impl Io for Reader<'_> {
    fn u8(&mut self, v: &mut u8) {
        *v = self.byte();
    }
    fn u32(&mut self, v: &mut u32) {
        let b = self.byte();
        *v = match b {
            0..=0xDF => u32::from(b),
            0xE0..=0xEF => SPECIAL32[usize::from(b - 0xE0)],
            _ => u32::from_le_bytes(self.bytes()),
        };
    }
    fn u64(&mut self, v: &mut u64) {
        let b = self.byte();
        *v = match b {
            0..=0xDF => u64::from(b),
            0xE0..=0xEF => SPECIAL64[usize::from(b - 0xE0)],
            0xF0..=0xFE => u64::from(u32::from_le_bytes(self.bytes())),
            0xFF => u64::from_le_bytes(self.bytes()),
        };
    }
    fn raw8(&mut self, v: &mut [u8; 8]) {
        *v = self.bytes();
    }
    fn reading(&self) -> bool {
        true
    }
}

/// Encodes a case (the inverse of [`Reader`] for every value).
#[derive(Default)]
pub struct Writer {
    /// The bytes so far.
    pub out: Vec<u8>,
}

impl Io for Writer {
    fn u8(&mut self, v: &mut u8) {
        self.out.push(*v);
    }
    fn u32(&mut self, v: &mut u32) {
        if *v < 0xE0 {
            self.out.push(*v as u8);
        } else if let Some(i) = SPECIAL32.iter().position(|s| s == v) {
            self.out.push(0xE0 + i as u8);
        } else {
            self.out.push(0xFF);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn u64(&mut self, v: &mut u64) {
        if *v < 0xE0 {
            self.out.push(*v as u8);
        } else if let Some(i) = SPECIAL64.iter().position(|s| s == v) {
            self.out.push(0xE0 + i as u8);
        } else if *v <= u64::from(u32::MAX) {
            self.out.push(0xF0);
            self.out.extend_from_slice(&(*v as u32).to_le_bytes());
        } else {
            self.out.push(0xFF);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn raw8(&mut self, v: &mut [u8; 8]) {
        self.out.extend_from_slice(v);
    }
    fn reading(&self) -> bool {
        false
    }
}

fn visit_vec<I: Io>(io: &mut I, v: &mut Vec<u32>, max: usize) {
    let mut n = v.len().min(max) as u8;
    io.u8(&mut n);
    let n = usize::from(n) % (max + 1);
    if io.reading() {
        v.clear();
        v.resize(n, 0);
    }
    for x in v.iter_mut().take(n) {
        io.u32(x);
    }
}

// ------------------------------------------------------------------------------------------------
// The case

/// One tensor desc as the fuzzer builds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TensorSpec {
    /// 1: the `DML_TENSOR_DESC *` is NULL.
    pub null: u8,
    /// `Type` XOR 1 (so 0 is `DML_TENSOR_TYPE_BUFFER`).
    pub ty: u32,
    /// 1: `DML_TENSOR_DESC.Desc` is NULL.
    pub desc_null: u8,
    /// 0: the slot's usual type; 1–14: type `data_type - 1`; above: `data_type_raw`.
    pub data_type: u8,
    /// The raw data type when `data_type` > 14.
    pub data_type_raw: u32,
    /// `Flags`.
    pub flags: u32,
    /// `DimensionCount`.
    pub dims: u32,
    /// `Sizes` (padded with 1 or cut to `min(dims, 8)` entries; with more than 8 dims, the
    /// array has exactly these entries).
    pub sizes: Vec<u32>,
    /// 1: `Sizes` is NULL.
    pub sizes_null: u8,
    /// 1: `Strides` is given (`strides`, padded with 1 or cut like `sizes`).
    pub has_strides: u8,
    /// `Strides`.
    pub strides: Vec<u32>,
    /// `TotalTensorSizeInBytes`: 0 implied (DirectMLX's size), 1 implied + 4k, 2 implied − k,
    /// 3 `total_k` as given, 4 implied + k.
    pub total_mode: u8,
    /// The parameter of `total_mode`.
    pub total_k: u64,
    /// `GuaranteedBaseOffsetAlignment`.
    pub alignment: u32,
}

impl TensorSpec {
    fn visit<I: Io>(&mut self, io: &mut I) {
        io.u8(&mut self.null);
        io.u32(&mut self.ty);
        io.u8(&mut self.desc_null);
        io.u8(&mut self.data_type);
        if self.data_type > 14 {
            io.u32(&mut self.data_type_raw);
        }
        io.u32(&mut self.flags);
        io.u32(&mut self.dims);
        visit_vec(io, &mut self.sizes, 8);
        io.u8(&mut self.sizes_null);
        io.u8(&mut self.has_strides);
        if self.has_strides & 1 == 1 {
            visit_vec(io, &mut self.strides, 8);
        }
        io.u8(&mut self.total_mode);
        if self.total_mode != 0 {
            io.u64(&mut self.total_k);
        }
        io.u32(&mut self.alignment);
    }

    /// A packed tensor of this type and sizes.
    pub fn new(data_type: DML_TENSOR_DATA_TYPE, sizes: &[u32]) -> TensorSpec {
        TensorSpec {
            data_type: data_type.0 as u8 + 1,
            dims: sizes.len() as u32,
            sizes: sizes.to_vec(),
            ..TensorSpec::default()
        }
    }

    /// The same with strides.
    pub fn strided(data_type: DML_TENSOR_DATA_TYPE, sizes: &[u32], strides: &[u32]) -> Self {
        TensorSpec {
            has_strides: 1,
            strides: strides.to_vec(),
            ..TensorSpec::new(data_type, sizes)
        }
    }

    fn data_type(&self, usual: u32) -> DML_TENSOR_DATA_TYPE {
        DML_TENSOR_DATA_TYPE(match self.data_type {
            0 => usual,
            1..=14 => u32::from(self.data_type) - 1,
            _ => self.data_type_raw,
        })
    }

    /// How many `Sizes` (and `Strides`) entries the caller's arrays hold.
    fn array_len(&self) -> usize {
        if (1..=8).contains(&self.dims) {
            self.dims as usize
        } else {
            self.sizes.len().min(8)
        }
    }

    fn padded(v: &[u32], n: usize) -> Vec<u32> {
        (0..n).map(|i| v.get(i).copied().unwrap_or(1)).collect()
    }
}

/// One binding as the fuzzer builds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BindingSpec {
    /// 0 `BUFFER`, 1 `NONE`, 2 `BUFFER_ARRAY`, else `ty_raw`.
    pub ty: u8,
    /// The raw binding type when `ty` > 2.
    pub ty_raw: u32,
    /// 1: `DML_BINDING_DESC.Desc` is NULL.
    pub desc_null: u8,
    /// 1: `DML_BUFFER_BINDING.Buffer` is NULL.
    pub buffer_null: u8,
    /// 0: a buffer of its own; k: the buffer of binding `(k − 1) % 3` when that binding comes
    /// earlier, else a buffer of its own.
    pub share: u8,
    /// `Buffer` is this many bytes (mod 64) past the 64-aligned start of its buffer.
    pub shift: u8,
    /// `Offset`: 0 → 16·k, 1 → k (any alignment), 2 → k | 2^63 (past the address space).
    pub offset_mode: u8,
    /// The parameter of `offset_mode`.
    pub offset_k: u64,
    /// `SizeInBytes`: 0 → the tensor's total + k, 1 → total − k, 2 → k, 3 → k | 2^63.
    pub size_mode: u8,
    /// The parameter of `size_mode`.
    pub size_k: u64,
}

impl BindingSpec {
    fn visit<I: Io>(&mut self, io: &mut I) {
        io.u8(&mut self.ty);
        if self.ty > 2 {
            io.u32(&mut self.ty_raw);
        }
        io.u8(&mut self.desc_null);
        io.u8(&mut self.buffer_null);
        io.u8(&mut self.share);
        io.u8(&mut self.shift);
        io.u8(&mut self.offset_mode);
        io.u64(&mut self.offset_k);
        io.u8(&mut self.size_mode);
        io.u64(&mut self.size_k);
    }

    fn binding_type(&self) -> DML_BINDING_TYPE {
        DML_BINDING_TYPE(match self.ty {
            0 => 1,
            1 => 0,
            2 => 2,
            _ => self.ty_raw,
        })
    }

    fn offset(&self) -> u64 {
        match self.offset_mode % 3 {
            0 => (self.offset_k % 4096) * 16,
            1 => self.offset_k % 65536,
            _ => self.offset_k | (1 << 63),
        }
    }

    /// `SizeInBytes` for a tensor of `total` bytes.
    fn size(&self, total: u64) -> u64 {
        match self.size_mode % 4 {
            0 => total.saturating_add(self.size_k % 4096),
            1 => total.saturating_sub(self.size_k),
            2 => self.size_k,
            _ => self.size_k | (1 << 63),
        }
    }
}

/// A feature query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuerySpec {
    /// 0: no query; 1 `TENSOR_DATA_TYPE_SUPPORT`; 2 `FEATURE_LEVELS`; else `feature_raw`.
    pub feature: u8,
    /// The raw feature.
    pub feature_raw: u32,
    /// Bit 0: query NULL; bit 1: support NULL; bit 2: query_size wrong; bit 3: support_size
    /// wrong; bit 4: `RequestedFeatureLevels` NULL.
    pub nulls: u8,
    /// The wrong sizes.
    pub query_size: u32,
    /// The wrong sizes.
    pub support_size: u32,
    /// The data type asked about.
    pub data_type: u32,
    /// The levels asked about: 0 → 0x1000 ... each entry k < 15 is the k-th level, else raw.
    pub levels: Vec<u32>,
}

impl QuerySpec {
    fn visit<I: Io>(&mut self, io: &mut I) {
        io.u8(&mut self.feature);
        if self.feature == 0 {
            return;
        }
        if self.feature > 2 {
            io.u32(&mut self.feature_raw);
        }
        io.u8(&mut self.nulls);
        if self.nulls & 4 != 0 {
            io.u32(&mut self.query_size);
        }
        if self.nulls & 8 != 0 {
            io.u32(&mut self.support_size);
        }
        io.u32(&mut self.data_type);
        visit_vec(io, &mut self.levels, 16);
    }
}

/// Everything one fuzz input asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Case {
    /// 0: level 0 (newest); 1–15: the known levels; above: `level_raw`.
    pub level: u8,
    /// The raw feature level.
    pub level_raw: u32,
    /// `dmls_device_desc.flags`.
    pub flags: u32,
    /// 0: 1 thread; 1: 0 (the shared pool); 2: 2 threads; 3: 3 threads; above: 1025 + raw.
    pub threads: u8,
    /// The raw thread count (mode above 3).
    pub threads_raw: u32,
    /// 0 NONZERO_COORDINATES, 1 DIAGONAL_MATRIX1, 2 DIAGONAL_MATRIX, else `op_raw`.
    pub op: u8,
    /// The raw operator type.
    pub op_raw: u32,
    /// 1: `DML_OPERATOR_DESC.Desc` is NULL; 2: the device is NULL; 3: `op` is NULL;
    /// 4: the desc is NULL.
    pub desc_null: u8,
    /// NONZERO: input, count, coordinates. DIAGONAL_MATRIX1: input, output. DIAGONAL_MATRIX:
    /// -, output.
    pub tensors: [TensorSpec; 3],
    /// DIAGONAL_MATRIX1 `Value`.
    pub value: [u8; 8],
    /// 0: `ValueDataType` is the output's type; 1–14: type − 1; above: `value_type_raw`.
    pub value_type: u8,
    /// The raw value type.
    pub value_type_raw: u32,
    /// `DiagonalFillBegin` (i32 bits).
    pub begin: u32,
    /// `DiagonalFillEnd` (i32 bits).
    pub end: u32,
    /// DIAGONAL_MATRIX `Offset` (i32 bits).
    pub offset: u32,
    /// DIAGONAL_MATRIX `Value` (f32 bits).
    pub value_f32: u32,
    /// 0: the right `input_count`; else `input_count_raw`.
    pub input_count_mode: u8,
    /// The raw input count.
    pub input_count_raw: u32,
    /// 0: the right `output_count`; else `output_count_raw`.
    pub output_count_mode: u8,
    /// The raw output count.
    pub output_count_raw: u32,
    /// Bit 0: `inputs` NULL; bit 1: `outputs` NULL; bit 2: `op` NULL at execution.
    pub array_nulls: u8,
    /// Input slot 0, then output slots 0 and 1.
    pub bindings: [BindingSpec; 3],
    /// Bit 0: overwrite every desc and array after creation (the operator must have copied
    /// them); bit 1: release the device before executing.
    pub after_create: u8,
    /// Seeds the contents of the bound buffers.
    pub data_seed: u8,
    /// How many elements of the input are zero (out of 8).
    pub zero_eighths: u8,
    /// A feature query to run first.
    pub query: QuerySpec,
}

impl Case {
    /// Reads or writes every field.
    pub fn visit<I: Io>(&mut self, io: &mut I) {
        io.u8(&mut self.level);
        if self.level > 15 {
            io.u32(&mut self.level_raw);
        }
        io.u32(&mut self.flags);
        io.u8(&mut self.threads);
        if self.threads > 3 {
            io.u32(&mut self.threads_raw);
        }
        io.u8(&mut self.op);
        if self.op > 2 {
            io.u32(&mut self.op_raw);
        }
        io.u8(&mut self.desc_null);
        for t in &mut self.tensors {
            t.visit(io);
        }
        io.raw8(&mut self.value);
        io.u8(&mut self.value_type);
        if self.value_type > 14 {
            io.u32(&mut self.value_type_raw);
        }
        io.u32(&mut self.begin);
        io.u32(&mut self.end);
        io.u32(&mut self.offset);
        io.u32(&mut self.value_f32);
        io.u8(&mut self.input_count_mode);
        if self.input_count_mode != 0 {
            io.u32(&mut self.input_count_raw);
        }
        io.u8(&mut self.output_count_mode);
        if self.output_count_mode != 0 {
            io.u32(&mut self.output_count_raw);
        }
        io.u8(&mut self.array_nulls);
        for b in &mut self.bindings {
            b.visit(io);
        }
        io.u8(&mut self.after_create);
        io.u8(&mut self.data_seed);
        io.u8(&mut self.zero_eighths);
        self.query.visit(io);
    }

    /// Decodes a fuzz input.
    pub fn decode(data: &[u8]) -> Case {
        let mut c = Case::default();
        c.visit(&mut Reader::new(data));
        c
    }

    /// Encodes the case (decoding the result gives the case back).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        self.clone().visit(&mut w);
        w.out
    }

    fn level(&self) -> DML_FEATURE_LEVEL {
        DML_FEATURE_LEVEL(match self.level {
            0 => 0,
            1..=15 => model::KNOWN_LEVELS[usize::from(self.level) - 1],
            _ => self.level_raw,
        })
    }

    fn thread_count(&self) -> u32 {
        match self.threads {
            0 => 1,
            1 => 0,
            2 => 2,
            3 => 3,
            _ => 1025u32.saturating_add(self.threads_raw),
        }
    }

    fn op_type(&self) -> DML_OPERATOR_TYPE {
        DML_OPERATOR_TYPE(match self.op {
            0 => 133,
            1 => 163,
            2 => 93,
            _ => self.op_raw,
        })
    }
}

// ------------------------------------------------------------------------------------------------
// HRESULTs and messages

fn last_message() -> String {
    let mut buf = vec![0u8; 4096];
    // SAFETY: `buf` holds `buf.len()` writable bytes.
    let len = unsafe { dmls_get_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
    buf.truncate(len.min(buf.len() - 1));
    String::from_utf8_lossy(&buf).into_owned()
}

fn hr_name(hr: HRESULT) -> &'static str {
    match hr {
        S_OK => "S_OK",
        E_INVALIDARG => "E_INVALIDARG",
        E_POINTER => "E_POINTER",
        E_OUTOFMEMORY => "E_OUTOFMEMORY",
        E_NOTIMPL => "E_NOTIMPL",
        E_FAIL => "E_FAIL",
        DXGI_ERROR_UNSUPPORTED => "DXGI_ERROR_UNSUPPORTED",
        _ => "an undocumented HRESULT",
    }
}

/// Checks a returned code against the function's documented set and the message rule.
fn check_hr(function: &str, hr: HRESULT, allowed: &[HRESULT], case: &Case) -> String {
    let msg = last_message();
    assert!(
        hr == S_OK || allowed.contains(&hr),
        "{function} returned {hr:#010x} ({}), not one it documents; message: {msg}\n{case:#?}",
        hr_name(hr)
    );
    if hr == S_OK {
        assert!(
            msg.is_empty(),
            "{function} succeeded but left a message: {msg}"
        );
    } else {
        assert!(
            !msg.is_empty(),
            "{function} failed with {} and no message\n{case:#?}",
            hr_name(hr)
        );
    }
    msg
}

const DEVICE_CODES: &[HRESULT] = &[
    E_POINTER,
    E_INVALIDARG,
    DXGI_ERROR_UNSUPPORTED,
    E_OUTOFMEMORY,
];
const QUERY_CODES: &[HRESULT] = &[E_POINTER, E_INVALIDARG, DXGI_ERROR_UNSUPPORTED];
const CREATE_CODES: &[HRESULT] = &[E_POINTER, E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY];
const EXECUTE_CODES: &[HRESULT] = &[E_POINTER, E_INVALIDARG, E_OUTOFMEMORY];

// ------------------------------------------------------------------------------------------------
// Devices

/// Devices with their own thread pools, created once per (level, flags, threads) and kept for
/// the whole run (a global, so leak checkers see them as reachable).
static POOLED: Mutex<Vec<(DeviceKey, usize)>> = Mutex::new(Vec::new());

/// (feature level, flags, thread count).
type DeviceKey = (u32, u32, u32);

fn pooled(key: DeviceKey) -> Option<usize> {
    let p = POOLED.lock().unwrap_or_else(|e| e.into_inner());
    p.iter().find(|(k, _)| *k == key).map(|&(_, d)| d)
}

/// Creates the case's device through the C API and checks the result. `None` when creation
/// failed (as it should, per the model).
fn create_device(case: &Case) -> Option<(*mut dmls_device, bool)> {
    let desc = dmls_device_desc {
        feature_level: case.level(),
        thread_count: case.thread_count(),
        flags: case.flags,
    };
    let expect = model::device(&desc);
    let use_pool = (2..=3).contains(&desc.thread_count) && expect == Ok(());
    if use_pool {
        let key = (desc.feature_level.0, desc.flags, desc.thread_count);
        if let Some(p) = pooled(key) {
            return Some((p as *mut dmls_device, false));
        }
    }
    let sentinel = 0x5EA1usize as *mut dmls_device;
    let mut dev = sentinel;
    // SAFETY: valid pointers.
    let hr = unsafe { dmls_device_create(&desc, &mut dev) };
    let msg = check_hr("dmls_device_create", hr, DEVICE_CODES, case);
    match expect {
        Ok(()) => assert_eq!(hr, S_OK, "device {desc:?} must be created: {msg}"),
        Err(codes) => assert!(
            codes.contains(&hr),
            "device {desc:?}: expected one of {codes:?}, got {} ({msg})",
            hr_name(hr)
        ),
    }
    if hr != S_OK {
        assert_eq!(dev, sentinel, "dmls_device_create wrote *device on failure");
        return None;
    }
    assert!(!dev.is_null() && dev != sentinel);
    if use_pool {
        let key = (desc.feature_level.0, desc.flags, desc.thread_count);
        POOLED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((key, dev as usize));
        return Some((dev, false));
    }
    Some((dev, true))
}

fn resolved_level(case: &Case) -> DML_FEATURE_LEVEL {
    match case.level() {
        DML_FEATURE_LEVEL(0) => DML_FEATURE_LEVEL_6_4,
        l => l,
    }
}

// ------------------------------------------------------------------------------------------------
// Feature queries

fn run_query(case: &Case, dev: *mut dmls_device) {
    let q = &case.query;
    if q.feature == 0 {
        return;
    }
    let feature = DML_FEATURE(match q.feature {
        1 => 0,
        2 => 1,
        _ => q.feature_raw,
    });
    let levels: Vec<u32> = q
        .levels
        .iter()
        .map(|&k| {
            if (k as usize) < model::KNOWN_LEVELS.len() {
                model::KNOWN_LEVELS[k as usize]
            } else {
                k
            }
        })
        .collect();
    let level_array = GuardedArray::new(&levels);
    let type_query = DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT {
        DataType: DML_TENSOR_DATA_TYPE(q.data_type),
    };
    let level_query = DML_FEATURE_QUERY_FEATURE_LEVELS {
        RequestedFeatureLevelCount: levels.len() as u32,
        RequestedFeatureLevels: if q.nulls & 16 != 0 {
            ptr::null()
        } else {
            level_array.ptr().cast()
        },
    };
    // The query and answer sit against inaccessible pages too, so a wrong size cannot be read
    // or written past.
    let (query_bytes, want_query, want_support): (Vec<u8>, u32, u32) = if feature.0 == 1 {
        (bytes_of(&level_query), 16, 4)
    } else {
        (bytes_of(&type_query), 4, 4)
    };
    let query_mem = GuardedArray::of_structs(&query_bytes);
    let support_mem = GuardedArray::of_structs(&[0xABu8; 4]);
    let query_size = if q.nulls & 4 != 0 {
        q.query_size
    } else {
        want_query
    };
    let support_size = if q.nulls & 8 != 0 {
        q.support_size
    } else {
        want_support
    };
    // A size larger than the memory behind the pointer would be the caller's fault; only
    // sizes up to the real ones are passed with real memory.
    let query_ptr: *const c_void = if q.nulls & 1 != 0 {
        ptr::null()
    } else {
        query_mem.ptr().cast()
    };
    let support_ptr: *mut c_void = if q.nulls & 2 != 0 {
        ptr::null_mut()
    } else {
        support_mem.ptr_mut().cast()
    };
    // SAFETY: the pointers are NULL or point to memory of at least the correct struct size.
    let hr = unsafe {
        dmls_device_check_feature_support(
            dev,
            feature,
            query_size,
            query_ptr,
            support_size,
            support_ptr,
        )
    };
    let msg = check_hr("dmls_device_check_feature_support", hr, QUERY_CODES, case);
    let expect = model::query(
        resolved_level(case),
        feature,
        query_ptr.is_null(),
        support_ptr.is_null(),
        query_size,
        support_size,
        q.data_type,
        &levels,
        q.nulls & 16 != 0,
    );
    match expect {
        Ok(answer) => {
            assert_eq!(hr, S_OK, "feature query must succeed: {msg}\n{case:#?}");
            let got = u32::from_ne_bytes(support_mem.bytes().try_into().unwrap());
            assert_eq!(got, answer, "feature query answer\n{case:#?}");
        }
        Err(codes) => {
            assert!(
                codes.contains(&hr),
                "feature query: expected one of {codes:?}, got {} ({msg})\n{case:#?}",
                hr_name(hr)
            );
            assert!(
                support_mem.bytes().iter().all(|&b| b == 0xAB),
                "feature query wrote its answer on failure"
            );
        }
    }
    assert_eq!(query_mem.bytes(), &query_bytes[..], "the query was written");
}

fn bytes_of<T: Copy>(v: &T) -> Vec<u8> {
    // SAFETY: T is a plain C struct; reading its bytes (padding included, possibly
    // uninitialised) is only used to copy it verbatim into other memory.
    let s = unsafe { core::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) };
    s.to_vec()
}

// ------------------------------------------------------------------------------------------------
// Descs

/// A C tensor desc built from a spec; the arrays sit against inaccessible pages.
struct BuiltTensor {
    /// The values the library is given.
    rust: model::Tensor,
    sizes: GuardedArray,
    strides: GuardedArray,
    buf: Box<DML_BUFFER_TENSOR_DESC>,
    desc: Box<DML_TENSOR_DESC>,
}

impl BuiltTensor {
    fn new(spec: &TensorSpec, usual_type: u32) -> BuiltTensor {
        let n = spec.array_len();
        let sizes_v = TensorSpec::padded(&spec.sizes, n);
        let strides_v = TensorSpec::padded(&spec.strides, n);
        let sizes = GuardedArray::new(&sizes_v);
        let strides = GuardedArray::new(&strides_v);
        let data_type = spec.data_type(usual_type);
        let has_strides = spec.has_strides & 1 == 1;
        let implied = if (1..=8).contains(&spec.dims) {
            model::calc_size(data_type.0, &sizes_v, has_strides.then_some(&strides_v[..]))
        } else {
            0
        };
        let total = match spec.total_mode % 5 {
            0 => implied,
            1 => implied.saturating_add(spec.total_k.saturating_mul(4)),
            2 => implied.saturating_sub(spec.total_k),
            3 => spec.total_k,
            _ => implied.saturating_add(spec.total_k),
        };
        let buf = Box::new(DML_BUFFER_TENSOR_DESC {
            DataType: data_type,
            Flags: DML_TENSOR_FLAGS(spec.flags),
            DimensionCount: spec.dims,
            Sizes: if spec.sizes_null == 1 {
                ptr::null()
            } else {
                sizes.ptr()
            },
            Strides: if has_strides {
                strides.ptr()
            } else {
                ptr::null()
            },
            TotalTensorSizeInBytes: total,
            GuaranteedBaseOffsetAlignment: spec.alignment,
        });
        let desc = Box::new(DML_TENSOR_DESC {
            Type: DML_TENSOR_TYPE(spec.ty ^ 1),
            Desc: if spec.desc_null == 1 {
                ptr::null()
            } else {
                (&*buf as *const DML_BUFFER_TENSOR_DESC).cast()
            },
        });
        BuiltTensor {
            rust: model::Tensor {
                null: spec.null == 1,
                ty: spec.ty ^ 1,
                desc_null: spec.desc_null == 1,
                data_type: data_type.0,
                flags: spec.flags,
                dims: spec.dims,
                sizes: sizes_v,
                sizes_null: spec.sizes_null == 1,
                strides: has_strides.then_some(strides_v),
                total,
                alignment: spec.alignment,
            },
            sizes,
            strides,
            buf,
            desc,
        }
    }

    fn ptr(&self) -> *const DML_TENSOR_DESC {
        if self.rust.null {
            ptr::null()
        } else {
            &*self.desc
        }
    }

    /// Overwrites everything the library was given.
    fn poison(&mut self) {
        self.sizes.poison();
        self.strides.poison();
        // SAFETY: plain C structs; every bit pattern of their integer fields is valid, and the
        // pointers are only compared by the library, never followed after creation.
        unsafe {
            ptr::write_bytes(&mut *self.buf as *mut DML_BUFFER_TENSOR_DESC, 0xA5, 1);
            ptr::write_bytes(&mut *self.desc as *mut DML_TENSOR_DESC, 0xA5, 1);
        }
    }
}

/// The three slots' usual data types for each operator.
fn usual_types(op: DML_OPERATOR_TYPE) -> [u32; 3] {
    match op.0 {
        133 => [1, 3, 3],
        _ => [1, 1, 1],
    }
}

// ------------------------------------------------------------------------------------------------
// The check

/// What [`check`] runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    /// Devices, feature queries, size calculation and operator creation.
    Create,
    /// All of that, then execution against guarded buffers and the reference.
    Execute,
}

/// How far a case got (every step's promises were checked on the way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The device was created.
    pub device: bool,
    /// `dmls_device_create_operator`'s result, when it was called.
    pub create: Option<HRESULT>,
    /// `dmls_operator_execute`'s result, when it was called.
    pub execute: Option<HRESULT>,
}

/// Runs one fuzz input through the C API and panics if a promise is broken.
pub fn check(data: &[u8], scope: Scope) -> Outcome {
    let case = Case::decode(data);
    run_case(&case, scope)
}

/// [`check`] for a decoded case.
pub fn run_case(case: &Case, scope: Scope) -> Outcome {
    let mut outcome = Outcome::default();
    let Some((dev, owned)) = create_device(case) else {
        return outcome;
    };
    outcome.device = true;
    run_query(case, dev);
    let op_type = case.op_type();
    let usual = usual_types(op_type);
    let mut tensors: Vec<BuiltTensor> = (0..3)
        .map(|i| BuiltTensor::new(&case.tensors[i], usual[i]))
        .collect();
    for t in &tensors {
        check_calc_size(&t.rust, &t.sizes, &t.strides);
    }
    let value_type = DML_TENSOR_DATA_TYPE(match case.value_type {
        0 => tensors[1].rust.data_type,
        1..=14 => u32::from(case.value_type) - 1,
        _ => case.value_type_raw,
    });
    let nz = DML_NONZERO_COORDINATES_OPERATOR_DESC {
        InputTensor: tensors[0].ptr(),
        OutputCountTensor: tensors[1].ptr(),
        OutputCoordinatesTensor: tensors[2].ptr(),
    };
    let d1 = DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
        InputTensor: tensors[0].ptr(),
        OutputTensor: tensors[1].ptr(),
        ValueDataType: value_type,
        Value: DML_SCALAR_UNION::from_bytes(case.value),
        DiagonalFillBegin: case.begin as i32,
        DiagonalFillEnd: case.end as i32,
    };
    let d0 = DML_DIAGONAL_MATRIX_OPERATOR_DESC {
        OutputTensor: tensors[1].ptr(),
        Offset: case.offset as i32,
        Value: f32::from_bits(case.value_f32),
    };
    // Every operator desc is handed over in memory that ends at an inaccessible page, so a
    // library reading the wrong struct for the Type faults.
    let op_desc_bytes: Vec<u8> = match op_type.0 {
        163 => bytes_of(&d1),
        93 => bytes_of(&d0),
        _ => bytes_of(&nz),
    };
    let op_desc_mem = GuardedArray::of_structs(&op_desc_bytes);
    let desc = DML_OPERATOR_DESC {
        Type: op_type,
        Desc: if case.desc_null == 1 {
            ptr::null()
        } else {
            op_desc_mem.ptr().cast()
        },
    };
    let sentinel = 0x0DD5usize as *mut dmls_operator;
    let mut op = sentinel;
    let dev_arg = if case.desc_null == 2 {
        ptr::null()
    } else {
        dev
    };
    let op_arg: *mut *mut dmls_operator = if case.desc_null == 3 {
        ptr::null_mut()
    } else {
        &mut op
    };
    let desc_arg: *const DML_OPERATOR_DESC = if case.desc_null == 4 {
        ptr::null()
    } else {
        &desc
    };
    // SAFETY: every pointer is NULL or points to live memory of the documented shape.
    let hr = unsafe { dmls_device_create_operator(dev_arg, desc_arg, op_arg) };
    let msg = check_hr("dmls_device_create_operator", hr, CREATE_CODES, case);
    outcome.create = Some(hr);
    let rust_tensors: [model::Tensor; 3] = [
        tensors[0].rust.clone(),
        tensors[1].rust.clone(),
        tensors[2].rust.clone(),
    ];
    let expect = model::create(
        resolved_level(case),
        case.flags & 1 != 0,
        op_type,
        case.desc_null,
        &rust_tensors,
        value_type.0,
    );
    // Past 2^22 elements the model cannot enumerate an output's offsets, so it cannot tell
    // whether the output overlaps itself (the library decides exactly): such a case is not
    // judged.
    let outputs: &[usize] = if op_type.0 == 133 { &[1, 2] } else { &[1] };
    if outputs.iter().any(|&i| !rust_tensors[i].overlap_known()) {
        if hr == S_OK {
            // SAFETY: created above, released once.
            unsafe { dmls_operator_release(op) };
        }
        if owned {
            // SAFETY: created above.
            unsafe { dmls_device_release(dev) };
        }
        return outcome;
    }
    match &expect {
        Ok(_) => assert_eq!(
            hr, S_OK,
            "the model says this operator is valid, the library says: {msg}\n{case:#?}"
        ),
        Err(codes) => assert!(
            codes.contains(&hr),
            "the model expects one of {codes:?}, the library returned {} ({msg})\n{case:#?}",
            hr_name(hr)
        ),
    }
    if hr != S_OK {
        assert_eq!(op, sentinel, "*op written on failure");
        if owned {
            // SAFETY: created above.
            unsafe { dmls_device_release(dev) };
        }
        return outcome;
    }
    let plan = expect.expect("checked above");
    if case.after_create & 1 != 0 {
        for t in &mut tensors {
            t.poison();
        }
        op_desc_mem.poison();
    }
    if owned && case.after_create & 2 != 0 {
        // SAFETY: created above; the operator keeps what it needs alive.
        unsafe { dmls_device_release(dev) };
    }
    if scope == Scope::Execute {
        outcome.execute = execute(case, op, &plan, &rust_tensors);
    }
    // SAFETY: created above, released once each.
    unsafe {
        dmls_operator_release(op);
        if owned && case.after_create & 2 == 0 {
            dmls_device_release(dev);
        }
    }
    outcome
}

/// `dmls_calc_buffer_tensor_size` against the model (64-bit DirectMLX with no wrap).
fn check_calc_size(t: &model::Tensor, sizes: &GuardedArray, strides: &GuardedArray) {
    let sizes_ptr = if t.sizes_null {
        ptr::null()
    } else {
        sizes.ptr()
    };
    let strides_ptr = if t.strides.is_some() {
        strides.ptr()
    } else {
        ptr::null()
    };
    // The dimension count must match what the arrays hold when it is 1 to 8; above 8 the
    // arrays hold fewer and the function must not read them.
    // SAFETY: the arrays hold `dims` entries when dims is 1 to 8.
    let got = unsafe {
        dmls_calc_buffer_tensor_size(
            DML_TENSOR_DATA_TYPE(t.data_type),
            t.dims,
            sizes_ptr,
            strides_ptr,
        )
    };
    let want = if t.sizes_null || !(1..=8).contains(&t.dims) {
        0
    } else {
        model::calc_size(t.data_type, &t.sizes, t.strides.as_deref())
    };
    assert_eq!(
        got, want,
        "dmls_calc_buffer_tensor_size(type {}, sizes {:?}, strides {:?})",
        t.data_type, t.sizes, t.strides
    );
}

// ------------------------------------------------------------------------------------------------
// Execution

/// The most bytes one case binds (larger valid cases are created but not executed).
const MAX_BUFFER: u64 = 16 << 20;
/// The most elements a tensor may have for the reference to run on it.
const MAX_ELEMENTS: u64 = 1 << 20;

fn fill(seed: u64, zero_eighths: u8, out: &mut [u8]) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for chunk in out.chunks_mut(4) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let word: u32 = if (x >> 40) % 8 < u64::from(zero_eighths % 9) {
            0
        } else {
            match (x >> 50) % 8 {
                0 => 0x8000_0000, // -0.0 (FLOAT32)
                1 => 0x8000_8000, // -0.0 -0.0 (FLOAT16)
                2 => 0x7FC0_0001, // a NaN
                3 => 1,
                _ => x as u32,
            }
        };
        let b = word.to_ne_bytes();
        chunk.copy_from_slice(&b[..chunk.len()]);
    }
}

fn execute(
    case: &Case,
    op: *mut dmls_operator,
    plan: &model::Plan,
    tensors: &[model::Tensor; 3],
) -> Option<HRESULT> {
    // Which tensor each binding stands for, and the slot layout the library sees.
    let (in_slots, out_slots): (Vec<Option<usize>>, Vec<usize>) = match plan.op {
        model::Op::NonZero => (vec![Some(0)], vec![1, 2]),
        model::Op::Diagonal1 { has_input } => (vec![has_input.then_some(0)], vec![1]),
        model::Op::Diagonal => (vec![], vec![1]),
    };
    let input_count = if case.input_count_mode != 0 {
        case.input_count_raw
    } else {
        in_slots.len() as u32
    };
    let output_count = if case.output_count_mode != 0 {
        case.output_count_raw
    } else {
        out_slots.len() as u32
    };
    // Binding specs: inputs use bindings[0]; outputs bindings[1], bindings[2].
    let spec_tensor = |b: usize| -> Option<usize> {
        match b {
            0 => in_slots.first().copied().flatten(),
            _ => out_slots.get(b - 1).copied(),
        }
    };
    let totals: Vec<u64> = (0..3)
        .map(|b| spec_tensor(b).map_or(64, |t| tensors[t].total))
        .collect();
    if totals.iter().any(|&t| t > MAX_BUFFER)
        || tensors
            .iter()
            .any(|t| t.elements().is_some_and(|e| e > MAX_ELEMENTS))
    {
        return None;
    }
    // Buffers: each binding has its own, or shares the buffer of an earlier binding.
    let mut owner = [0usize; 3];
    for b in 0..3 {
        let s = case.bindings[b].share;
        let o = usize::from(s.wrapping_sub(1)) % 3;
        owner[b] = if s != 0 && o < b { owner[o] } else { b };
    }
    let mut need = [0u64; 3];
    for b in 0..3 {
        let spec = &case.bindings[b];
        let off = spec.offset();
        let size = spec.size(totals[b]);
        let shift = u64::from(spec.shift % 64);
        // Offsets and sizes past the address space are for the library to reject; only the
        // memory a valid binding can reach is allocated.
        let reach = if off >= 1 << 63 {
            0
        } else {
            off + if size >= 1 << 63 {
                0
            } else {
                size.min(MAX_BUFFER)
            }
        };
        need[owner[b]] = need[owner[b]].max(shift + reach);
    }
    if need.iter().any(|&n| n > 2 * MAX_BUFFER + 65536 * 2) {
        return None;
    }
    let regions: Vec<Option<Region>> = (0..3)
        .map(|b| {
            (owner[b] == b).then(|| {
                let r = Region::new(need[b] as usize, 0);
                fill(
                    u64::from(case.data_seed) * 3 + b as u64,
                    case.zero_eighths,
                    r.bytes_mut(),
                );
                r
            })
        })
        .collect();
    let buffer_base = |b: usize| -> *mut u8 {
        let r = regions[owner[b]].as_ref().expect("owner has a region");
        // SAFETY: the shift is within the region's leading guard.
        unsafe { r.ptr().add(usize::from(case.bindings[b].shift % 64)) }
    };
    let buffer_bindings: Vec<DML_BUFFER_BINDING> = (0..3)
        .map(|b| {
            let spec = &case.bindings[b];
            DML_BUFFER_BINDING {
                Buffer: if spec.buffer_null == 1 {
                    ptr::null_mut()
                } else {
                    buffer_base(b).cast()
                },
                Offset: spec.offset(),
                SizeInBytes: spec.size(totals[b]),
            }
        })
        .collect();
    let arrays: Vec<DML_BUFFER_ARRAY_BINDING> = (0..3)
        .map(|b| DML_BUFFER_ARRAY_BINDING {
            BindingCount: 1,
            Bindings: &buffer_bindings[b],
        })
        .collect();
    let binding_desc = |b: usize| -> DML_BINDING_DESC {
        let spec = &case.bindings[b];
        let ty = spec.binding_type();
        DML_BINDING_DESC {
            Type: ty,
            Desc: if spec.desc_null == 1 {
                ptr::null()
            } else if ty == DML_BINDING_TYPE::BUFFER_ARRAY {
                (&arrays[b] as *const DML_BUFFER_ARRAY_BINDING).cast()
            } else {
                (&buffer_bindings[b] as *const DML_BUFFER_BINDING).cast()
            },
        }
    };
    // The arrays hold what the counts say, up to the entries the case has (1 input, 2
    // outputs); a library reading more than the count it accepted faults.
    let in_descs: Vec<DML_BINDING_DESC> = (0..(input_count as usize).min(1))
        .map(binding_desc)
        .collect();
    let out_descs: Vec<DML_BINDING_DESC> = (0..(output_count as usize).min(2))
        .map(|i| binding_desc(i + 1))
        .collect();
    let in_mem = GuardedArray::of_structs(&in_descs);
    let out_mem = GuardedArray::of_structs(&out_descs);
    let inputs_ptr: *const DML_BINDING_DESC = if case.array_nulls & 1 != 0 {
        ptr::null()
    } else {
        in_mem.ptr().cast()
    };
    let outputs_ptr: *const DML_BINDING_DESC = if case.array_nulls & 2 != 0 {
        ptr::null()
    } else {
        out_mem.ptr().cast()
    };
    let op_arg = if case.array_nulls & 4 != 0 {
        ptr::null()
    } else {
        op
    };

    let before: Vec<Option<Vec<u8>>> = regions
        .iter()
        .map(|r| r.as_ref().map(|r| r.bytes().to_vec()))
        .collect();

    // The model's verdict on the bindings, from the same values the library sees.
    let model_bindings: Vec<model::Binding> = (0..3)
        .map(|b| {
            let spec = &case.bindings[b];
            model::Binding {
                ty: spec.binding_type().0,
                desc_null: spec.desc_null == 1,
                buffer: buffer_bindings[b].Buffer as usize as u64,
                offset: buffer_bindings[b].Offset,
                size: buffer_bindings[b].SizeInBytes,
            }
        })
        .collect();
    let expect = model::execute(
        plan,
        tensors,
        input_count,
        output_count,
        case.array_nulls,
        &model_bindings,
    );

    // SAFETY: every pointer is NULL or points to live memory holding what it claims; bound
    // buffers hold Offset + SizeInBytes bytes whenever both are below 2^63.
    let hr = unsafe {
        dmls_operator_execute(op_arg, input_count, inputs_ptr, output_count, outputs_ptr)
    };
    let msg = check_hr("dmls_operator_execute", hr, EXECUTE_CODES, case);
    match &expect {
        Ok(()) => assert_eq!(
            hr,
            S_OK,
            "the model says these bindings are valid, the library says: {msg}\n{case:#?}"
        ),
        Err(codes) => assert!(
            codes.contains(&hr),
            "the model expects one of {codes:?} from execution, the library returned {} ({msg})\n{case:#?}",
            hr_name(hr)
        ),
    }
    if hr != S_OK {
        for (b, r) in regions.iter().enumerate() {
            if let Some(r) = r {
                assert!(
                    r.bytes() == &before[b].as_ref().unwrap()[..],
                    "a failed execution ({msg}) changed buffer {b}\n{case:#?}"
                );
            }
        }
        check_guards(&regions, case);
        return Some(hr);
    }

    // The expected buffers: the state before, plus what the reference writes.
    let mut expected = before.clone();
    let read = |bufs: &Vec<Option<Vec<u8>>>, b: usize, len: u64| -> Vec<u8> {
        let o = owner[b];
        let s = usize::from(case.bindings[b].shift % 64) + buffer_bindings[b].Offset as usize;
        bufs[o].as_ref().unwrap()[s..s + len as usize].to_vec()
    };
    let write = |bufs: &mut Vec<Option<Vec<u8>>>, b: usize, data: &[u8]| {
        let o = owner[b];
        let s = usize::from(case.bindings[b].shift % 64) + buffer_bindings[b].Offset as usize;
        bufs[o].as_mut().unwrap()[s..s + data.len()].copy_from_slice(data);
    };
    let desc = |i: usize| tensors[i].rust_desc();
    // Aliased output elements (a stride of 0, or strides that make two elements share bytes)
    // get whichever write lands last, which DirectML leaves undefined: those bytes are only
    // required to stay within the tensor (checked below), not to match the reference.
    let mut undefined: Vec<(usize, usize, Vec<bool>)> = Vec::new(); // (buffer, start, element bytes)
    match plan.op {
        model::Op::NonZero => {
            let input = read(&before, 0, tensors[0].total);
            let mut count = read(&expected, 1, tensors[1].total);
            let mut coords = read(&expected, 2, tensors[2].total);
            reference::nonzero_coordinates(
                &desc(0),
                &input,
                &desc(1),
                &desc(2),
                &mut count,
                &mut coords,
            );
            write(&mut expected, 1, &count);
            write(&mut expected, 2, &coords);
            for (b, t) in [(1usize, 1usize), (2, 2)] {
                if !tensors[t].distinct() {
                    let o = owner[b];
                    let s = usize::from(case.bindings[b].shift % 64)
                        + buffer_bindings[b].Offset as usize;
                    undefined.push((o, s, tensors[t].element_bytes()));
                }
            }
        }
        model::Op::Diagonal1 { has_input } => {
            let in_place = has_input
                && owner[0] == owner[1]
                && buffer_bindings[0].Buffer == buffer_bindings[1].Buffer
                && buffer_bindings[0].Offset == buffer_bindings[1].Offset;
            let input = has_input.then(|| read(&before, 0, tensors[0].total));
            let mut out = read(&expected, 1, tensors[1].total);
            let in_desc = desc(0);
            reference::diagonal_matrix1(
                input.as_ref().map(|b| (&in_desc, &b[..])),
                &desc(1),
                &mut out,
                case.value,
                case.begin as i32,
                case.end as i32,
            );
            write(&mut expected, 1, &out);
            if !tensors[1].distinct() || (in_place && !tensors[0].distinct()) {
                let s =
                    usize::from(case.bindings[1].shift % 64) + buffer_bindings[1].Offset as usize;
                undefined.push((owner[1], s, tensors[1].element_bytes()));
            }
        }
        model::Op::Diagonal => {
            let mut out = read(&expected, 1, tensors[1].total);
            reference::diagonal_matrix(
                &desc(1),
                &mut out,
                case.offset as i32,
                f32::from_bits(case.value_f32),
            );
            write(&mut expected, 1, &out);
            if !tensors[1].distinct() {
                let s =
                    usize::from(case.bindings[1].shift % 64) + buffer_bindings[1].Offset as usize;
                undefined.push((owner[1], s, tensors[1].element_bytes()));
            }
        }
    }
    for (b, r) in regions.iter().enumerate() {
        let Some(r) = r else { continue };
        let got = r.bytes();
        let want = expected[b].as_ref().unwrap();
        for (i, (&g, &w)) in got.iter().zip(want.iter()).enumerate() {
            if g == w {
                continue;
            }
            // Aliased elements may hold any of the values written to them, but only element
            // bytes may change.
            let aliased = undefined
                .iter()
                .any(|(o, s, map)| *o == b && i >= *s && map.get(i - *s).copied().unwrap_or(false));
            if aliased {
                continue;
            }
            panic!(
                "execution result differs from the reference: buffer {b} byte {i} is {g:#04x}, \
                 expected {w:#04x} (before: {:#04x})\n{case:#?}",
                before[b].as_ref().unwrap()[i]
            );
        }
    }
    check_guards(&regions, case);
    Some(hr)
}

fn check_guards(regions: &[Option<Region>], case: &Case) {
    for (b, r) in regions.iter().enumerate() {
        if let Some(r) = r {
            assert!(
                r.guards_intact(),
                "a guard byte around buffer {b} was written\n{case:#?}"
            );
        }
    }
}
