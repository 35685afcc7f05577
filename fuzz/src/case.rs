//! A fuzz input decoded: the device, operator, tensor descs, bindings and feature query it
//! asks for ([`Case`]), each field visited in the one order of the encoding.

use directml_subset::dml::*;

use crate::codec::{visit_vec, Io, Reader, Writer};
use crate::model;

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
        io.mode_u32(&mut self.data_type, 14, &mut self.data_type_raw);
        io.u32(&mut self.flags);
        io.u32(&mut self.dims);
        visit_vec(io, &mut self.sizes, 8);
        io.u8(&mut self.sizes_null);
        io.u8(&mut self.has_strides);
        if self.has_strides & 1 == 1 {
            visit_vec(io, &mut self.strides, 8);
        }
        io.mode_u64(&mut self.total_mode, 0, &mut self.total_k);
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

    pub(crate) fn data_type(&self, usual: u32) -> DML_TENSOR_DATA_TYPE {
        DML_TENSOR_DATA_TYPE(match self.data_type {
            0 => usual,
            1..=14 => u32::from(self.data_type) - 1,
            _ => self.data_type_raw,
        })
    }

    /// How many `Sizes` (and `Strides`) entries the caller's arrays hold.
    pub(crate) fn array_len(&self) -> usize {
        if (1..=8).contains(&self.dims) {
            self.dims as usize
        } else {
            self.sizes.len().min(8)
        }
    }

    pub(crate) fn padded(v: &[u32], n: usize) -> Vec<u32> {
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
        io.mode_u32(&mut self.ty, 2, &mut self.ty_raw);
        io.u8(&mut self.desc_null);
        io.u8(&mut self.buffer_null);
        io.u8(&mut self.share);
        io.u8(&mut self.shift);
        io.u8(&mut self.offset_mode);
        io.u64(&mut self.offset_k);
        io.u8(&mut self.size_mode);
        io.u64(&mut self.size_k);
    }

    pub(crate) fn binding_type(&self) -> DML_BINDING_TYPE {
        DML_BINDING_TYPE(match self.ty {
            0 => 1,
            1 => 0,
            2 => 2,
            _ => self.ty_raw,
        })
    }

    pub(crate) fn offset(&self) -> u64 {
        match self.offset_mode % 3 {
            0 => (self.offset_k % 4096) * 16,
            1 => self.offset_k % 65536,
            _ => self.offset_k | (1 << 63),
        }
    }

    /// `SizeInBytes` for a tensor of `total` bytes.
    pub(crate) fn size(&self, total: u64) -> u64 {
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
        io.mode_u32(&mut self.feature, 2, &mut self.feature_raw);
        if self.feature == 0 {
            return;
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
        io.mode_u32(&mut self.level, 15, &mut self.level_raw);
        io.u32(&mut self.flags);
        io.mode_u32(&mut self.threads, 3, &mut self.threads_raw);
        io.mode_u32(&mut self.op, 2, &mut self.op_raw);
        io.u8(&mut self.desc_null);
        for t in &mut self.tensors {
            t.visit(io);
        }
        io.raw8(&mut self.value);
        io.mode_u32(&mut self.value_type, 14, &mut self.value_type_raw);
        for v in [
            &mut self.begin,
            &mut self.end,
            &mut self.offset,
            &mut self.value_f32,
        ] {
            io.u32(v);
        }
        io.mode_u32(&mut self.input_count_mode, 0, &mut self.input_count_raw);
        io.mode_u32(&mut self.output_count_mode, 0, &mut self.output_count_raw);
        io.u8(&mut self.array_nulls);
        for b in &mut self.bindings {
            b.visit(io);
        }
        for v in [
            &mut self.after_create,
            &mut self.data_seed,
            &mut self.zero_eighths,
        ] {
            io.u8(v);
        }
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

    pub(crate) fn level(&self) -> DML_FEATURE_LEVEL {
        DML_FEATURE_LEVEL(match self.level {
            0 => 0,
            1..=15 => model::KNOWN_LEVELS[usize::from(self.level) - 1],
            _ => self.level_raw,
        })
    }

    pub(crate) fn thread_count(&self) -> u32 {
        match self.threads {
            0 => 1,
            1 => 0,
            2 => 2,
            3 => 3,
            _ => 1025u32.saturating_add(self.threads_raw),
        }
    }

    pub(crate) fn op_type(&self) -> DML_OPERATOR_TYPE {
        DML_OPERATOR_TYPE(match self.op {
            0 => 133,
            1 => 163,
            2 => 93,
            _ => self.op_raw,
        })
    }
}
