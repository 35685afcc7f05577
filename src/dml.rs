//! Layer 1: DirectML's own types, byte for byte.
//!
//! Every struct here has DirectML's name, field order, size and offsets, so a desc written for
//! `DirectML.h` compiles unchanged against `directml_subset.h`. Enum-typed fields are plain
//! 32-bit integers (`#[repr(transparent)]` newtypes with associated constants): a value that
//! arrives from C may be anything, and the library validates it before use.
#![allow(non_camel_case_types, non_snake_case)]

use core::ffi::c_void;

/// Windows' `HRESULT`: a 32-bit signed result code. Negative values are failures.
pub type HRESULT = i32;
/// Windows' `UINT`.
pub type UINT = u32;
/// Windows' `INT`.
pub type INT = i32;
/// Windows' `UINT64`.
pub type UINT64 = u64;
/// Windows' `FLOAT`.
pub type FLOAT = f32;
/// Windows' `DOUBLE`.
pub type DOUBLE = f64;
/// Windows' `BOOL`: a 32-bit integer, nonzero for true.
pub type BOOL = i32;
/// Windows' `BYTE`.
pub type BYTE = u8;

/// Success.
pub const S_OK: HRESULT = 0;
/// A desc, binding or argument breaks a rule.
pub const E_INVALIDARG: HRESULT = 0x8007_0057_u32 as i32;
/// A required pointer is NULL.
pub const E_POINTER: HRESULT = 0x8000_4003_u32 as i32;
/// An allocation failed.
pub const E_OUTOFMEMORY: HRESULT = 0x8007_000E_u32 as i32;
/// A real DirectML operator type that this subset does not implement.
pub const E_NOTIMPL: HRESULT = 0x8000_4001_u32 as i32;
/// An internal fault (a caught panic): a bug, never expected.
pub const E_FAIL: HRESULT = 0x8000_4005_u32 as i32;
/// An unknown feature query, or a feature level this library cannot emulate.
pub const DXGI_ERROR_UNSUPPORTED: HRESULT = 0x887A_0004_u32 as i32;

/// The most dimensions a DirectML tensor had before feature level 4.0.
pub const DML_TENSOR_DIMENSION_COUNT_MAX: u32 = 5;
/// The most dimensions a DirectML tensor can have (feature level 4.0 and later).
pub const DML_TENSOR_DIMENSION_COUNT_MAX1: u32 = 8;
/// Buffer bindings' `Offset` must be a multiple of this (unless the tensor guarantees otherwise).
pub const DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: u32 = 16;
/// DirectML's alignment of temporary buffers (no operator here needs one).
pub const DML_TEMPORARY_BUFFER_ALIGNMENT: u32 = 256;
/// DirectML's alignment of persistent buffers (no operator here needs one).
pub const DML_PERSISTENT_BUFFER_ALIGNMENT: u32 = 256;

/// `DML_TENSOR_DATA_TYPE`: the element type of a tensor.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DML_TENSOR_DATA_TYPE(pub u32);

#[allow(missing_docs)]
impl DML_TENSOR_DATA_TYPE {
    pub const UNKNOWN: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(0);
    pub const FLOAT32: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(1);
    pub const FLOAT16: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(2);
    pub const UINT32: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(3);
    pub const UINT16: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(4);
    pub const UINT8: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(5);
    pub const INT32: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(6);
    pub const INT16: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(7);
    pub const INT8: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(8);
    pub const FLOAT64: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(9);
    pub const UINT64: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(10);
    pub const INT64: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(11);
    /// Exists in DirectML since 6.3; not supported by this library.
    pub const UINT4: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(12);
    /// Exists in DirectML since 6.3; not supported by this library.
    pub const INT4: DML_TENSOR_DATA_TYPE = DML_TENSOR_DATA_TYPE(13);
}

/// `DML_TENSOR_TYPE`: how a tensor desc is stored. Only `BUFFER` exists.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DML_TENSOR_TYPE(pub u32);

#[allow(missing_docs)]
impl DML_TENSOR_TYPE {
    pub const INVALID: DML_TENSOR_TYPE = DML_TENSOR_TYPE(0);
    pub const BUFFER: DML_TENSOR_TYPE = DML_TENSOR_TYPE(1);
}

/// `DML_TENSOR_FLAGS`: bit flags of a buffer tensor.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DML_TENSOR_FLAGS(pub u32);

/// No flags.
pub const DML_TENSOR_FLAG_NONE: DML_TENSOR_FLAGS = DML_TENSOR_FLAGS(0);
/// Only for inputs bound at operator initialization, which this library does not have: every
/// tensor carrying it is rejected.
pub const DML_TENSOR_FLAG_OWNED_BY_DML: DML_TENSOR_FLAGS = DML_TENSOR_FLAGS(1);

/// `DML_OPERATOR_TYPE`: which operator a `DML_OPERATOR_DESC` describes. Every member of
/// DirectML.h's enum is declared with DirectML's spelling and value (`DML_OPERATOR_INVALID` 0 to
/// `DML_OPERATOR_UNFOLD` 177); this library implements `DML_OPERATOR_DIAGONAL_MATRIX` (93),
/// `DML_OPERATOR_NONZERO_COORDINATES` (133) and `DML_OPERATOR_DIAGONAL_MATRIX1` (163), and
/// returns E_NOTIMPL for the others.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DML_OPERATOR_TYPE(pub u32);

/// Rust-side names of the operator types the library names itself (C uses DirectML's
/// `DML_OPERATOR_*` constants of [`operator_types`]).
/// cbindgen:ignore
impl DML_OPERATOR_TYPE {
    /// Not an operator.
    pub const INVALID: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE(0);
    /// `DML_DIAGONAL_MATRIX_OPERATOR_DESC` (implemented).
    pub const DIAGONAL_MATRIX: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE(93);
    /// `DML_FILL_VALUE_CONSTANT_OPERATOR_DESC` (not implemented: `E_NOTIMPL`).
    pub const FILL_VALUE_CONSTANT: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE(103);
    /// `DML_NONZERO_COORDINATES_OPERATOR_DESC` (implemented).
    pub const NONZERO_COORDINATES: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE(133);
    /// `DML_DIAGONAL_MATRIX1_OPERATOR_DESC` (implemented).
    pub const DIAGONAL_MATRIX1: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE(163);
    /// The last operator type of DirectML 1.16 (feature level 6.4).
    pub const UNFOLD: DML_OPERATOR_TYPE = DML_OPERATOR_TYPE(177);
}

pub mod operator_types;
pub use operator_types::*;

/// `DML_BINDING_TYPE`: what a `DML_BINDING_DESC` points to.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DML_BINDING_TYPE(pub u32);

impl DML_BINDING_TYPE {
    /// Nothing bound (only for an optional tensor that the desc left NULL).
    pub const NONE: DML_BINDING_TYPE = DML_BINDING_TYPE(0);
    /// `Desc` points to a `DML_BUFFER_BINDING`.
    pub const BUFFER: DML_BINDING_TYPE = DML_BINDING_TYPE(1);
    /// `Desc` points to a `DML_BUFFER_ARRAY_BINDING` (not supported: `E_INVALIDARG`).
    pub const BUFFER_ARRAY: DML_BINDING_TYPE = DML_BINDING_TYPE(2);
}

/// `DML_FEATURE`: what `dmls_device_check_feature_support` is asked.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DML_FEATURE(pub u32);

impl DML_FEATURE {
    /// Query `DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT`, answer `DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT`.
    pub const TENSOR_DATA_TYPE_SUPPORT: DML_FEATURE = DML_FEATURE(0);
    /// Query `DML_FEATURE_QUERY_FEATURE_LEVELS`, answer `DML_FEATURE_DATA_FEATURE_LEVELS`.
    pub const FEATURE_LEVELS: DML_FEATURE = DML_FEATURE(1);
}

/// `DML_FEATURE_LEVEL`: a version of DirectML's operator set and validation rules.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct DML_FEATURE_LEVEL(pub u32);

/// `DML_FEATURE_LEVEL_1_0`.
pub const DML_FEATURE_LEVEL_1_0: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x1000);
/// `DML_FEATURE_LEVEL_2_0`.
pub const DML_FEATURE_LEVEL_2_0: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x2000);
/// `DML_FEATURE_LEVEL_2_1`.
pub const DML_FEATURE_LEVEL_2_1: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x2100);
/// `DML_FEATURE_LEVEL_3_0`.
pub const DML_FEATURE_LEVEL_3_0: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x3000);
/// `DML_FEATURE_LEVEL_3_1`.
pub const DML_FEATURE_LEVEL_3_1: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x3100);
/// `DML_FEATURE_LEVEL_4_0`.
pub const DML_FEATURE_LEVEL_4_0: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x4000);
/// `DML_FEATURE_LEVEL_4_1`.
pub const DML_FEATURE_LEVEL_4_1: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x4100);
/// `DML_FEATURE_LEVEL_5_0`.
pub const DML_FEATURE_LEVEL_5_0: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x5000);
/// `DML_FEATURE_LEVEL_5_1`.
pub const DML_FEATURE_LEVEL_5_1: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x5100);
/// `DML_FEATURE_LEVEL_5_2`.
pub const DML_FEATURE_LEVEL_5_2: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x5200);
/// `DML_FEATURE_LEVEL_6_0`.
pub const DML_FEATURE_LEVEL_6_0: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x6000);
/// `DML_FEATURE_LEVEL_6_1`.
pub const DML_FEATURE_LEVEL_6_1: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x6100);
/// `DML_FEATURE_LEVEL_6_2`.
pub const DML_FEATURE_LEVEL_6_2: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x6200);
/// `DML_FEATURE_LEVEL_6_3`.
pub const DML_FEATURE_LEVEL_6_3: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x6300);
/// `DML_FEATURE_LEVEL_6_4`.
pub const DML_FEATURE_LEVEL_6_4: DML_FEATURE_LEVEL = DML_FEATURE_LEVEL(0x6400);

/// `DML_BUFFER_TENSOR_DESC` (48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_BUFFER_TENSOR_DESC {
    /// The element type.
    pub DataType: DML_TENSOR_DATA_TYPE,
    /// `DML_TENSOR_FLAG_*` bits; must be `DML_TENSOR_FLAG_NONE` here.
    pub Flags: DML_TENSOR_FLAGS,
    /// The number of entries in `Sizes` (and `Strides`).
    pub DimensionCount: UINT,
    /// The size of each dimension; every size is at least 1.
    pub Sizes: *const UINT,
    /// NULL for packed row-major, else the stride of each dimension in elements (0 broadcasts).
    pub Strides: *const UINT,
    /// The tensor's size in bytes: at least `dmls_calc_buffer_tensor_size` and a multiple of 4.
    pub TotalTensorSizeInBytes: UINT64,
    /// 0, or a power of two at least the element size that every binding's address honours.
    pub GuaranteedBaseOffsetAlignment: UINT,
}

/// `DML_TENSOR_DESC` (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_TENSOR_DESC {
    /// Must be `DML_TENSOR_TYPE_BUFFER`.
    pub Type: DML_TENSOR_TYPE,
    /// Points to a `DML_BUFFER_TENSOR_DESC`.
    pub Desc: *const c_void,
}

/// `DML_OPERATOR_DESC` (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_OPERATOR_DESC {
    /// Which operator `Desc` describes.
    pub Type: DML_OPERATOR_TYPE,
    /// Points to the operator's `DML_*_OPERATOR_DESC`.
    pub Desc: *const c_void,
}

/// `DML_SCALAR_UNION` (8 bytes, 8-aligned). A FLOAT16 value is its IEEE binary16 bit pattern in
/// `UInt16`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union DML_SCALAR_UNION {
    /// The raw bytes.
    pub Bytes: [BYTE; 8],
    /// INT8.
    pub Int8: i8,
    /// UINT8.
    pub UInt8: u8,
    /// INT16.
    pub Int16: i16,
    /// UINT16, and FLOAT16 as its binary16 bit pattern.
    pub UInt16: u16,
    /// INT32.
    pub Int32: i32,
    /// UINT32.
    pub UInt32: u32,
    /// INT64.
    pub Int64: i64,
    /// UINT64.
    pub UInt64: u64,
    /// FLOAT32.
    pub Float32: FLOAT,
    /// FLOAT64.
    pub Float64: DOUBLE,
}

impl DML_SCALAR_UNION {
    /// A union holding these eight bytes.
    pub fn from_bytes(bytes: [u8; 8]) -> Self {
        DML_SCALAR_UNION { Bytes: bytes }
    }

    /// Reads the first `width` bytes (at most 8) of the union at `p`, and only those: a C caller
    /// that set only `Float32` leaves the other 4 bytes uninitialised, and they are never read.
    /// The rest of the result is zero.
    ///
    /// # Safety
    /// `p` points to a `DML_SCALAR_UNION` (possibly unaligned) whose first `width` bytes are
    /// initialised.
    pub unsafe fn read_prefix(p: *const DML_SCALAR_UNION, width: usize) -> [u8; 8] {
        let mut out = [0u8; 8];
        let width = width.min(8);
        // SAFETY: `p` points to 8 readable bytes, of which the first `width` are initialised
        // (the caller's contract); `out` is a distinct local array of 8 bytes.
        unsafe { core::ptr::copy_nonoverlapping(p.cast::<u8>(), out.as_mut_ptr(), width) };
        out
    }
}

impl core::fmt::Debug for DML_SCALAR_UNION {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Which bytes are initialised depends on the member a C caller wrote: print none.
        f.write_str("DML_SCALAR_UNION { .. }")
    }
}

/// `DML_NONZERO_COORDINATES_OPERATOR_DESC` (24 bytes, feature level 3.0).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_NONZERO_COORDINATES_OPERATOR_DESC {
    /// The tensor whose nonzero elements are found.
    pub InputTensor: *const DML_TENSOR_DESC,
    /// Receives the count of nonzero elements; all sizes 1, UINT32.
    pub OutputCountTensor: *const DML_TENSOR_DESC,
    /// Receives the coordinates: sizes `{1,…,1,M,N}`, UINT32.
    pub OutputCoordinatesTensor: *const DML_TENSOR_DESC,
}

/// `DML_DIAGONAL_MATRIX_OPERATOR_DESC` (16 bytes, feature level 2.0).
/// `Out = (y + Offset == x) ? Value : 0`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_DIAGONAL_MATRIX_OPERATOR_DESC {
    /// The generated tensor.
    pub OutputTensor: *const DML_TENSOR_DESC,
    /// The diagonal's offset: positive moves it right.
    pub Offset: INT,
    /// The diagonal's value, converted to the output type (integers truncate toward zero and
    /// saturate at the type's range, NaN becomes 0; FLOAT16 rounds to nearest even).
    pub Value: FLOAT,
}

/// `DML_DIAGONAL_MATRIX1_OPERATOR_DESC` (40 bytes, feature level 5.1).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
    /// Optional: where the output is not `Value`, it is this tensor's element (or 0 when NULL).
    pub InputTensor: *const DML_TENSOR_DESC,
    /// The generated tensor, `{[Batch1], [Batch2], Height, Width}`.
    pub OutputTensor: *const DML_TENSOR_DESC,
    /// The type of `Value`; must equal the output's data type.
    pub ValueDataType: DML_TENSOR_DATA_TYPE,
    /// The fill value.
    pub Value: DML_SCALAR_UNION,
    /// Lower bound (inclusive) of `x - y` to fill with `Value`.
    pub DiagonalFillBegin: INT,
    /// Upper bound (exclusive) of `x - y` to fill with `Value`; below `DiagonalFillBegin` inverts
    /// the range.
    pub DiagonalFillEnd: INT,
}

/// `DML_BINDING_DESC` (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_BINDING_DESC {
    /// What `Desc` points to.
    pub Type: DML_BINDING_TYPE,
    /// A `DML_BUFFER_BINDING` for `DML_BINDING_TYPE_BUFFER`; ignored for `DML_BINDING_TYPE_NONE`.
    pub Desc: *const c_void,
}

/// `DML_BUFFER_BINDING` (24 bytes). `Buffer` is host memory here (`ID3D12Resource *` in
/// DirectML); the tensor's bytes start at `Buffer + Offset`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_BUFFER_BINDING {
    /// Host memory holding the tensor; never NULL.
    pub Buffer: *mut c_void,
    /// Bytes from `Buffer` to the tensor: a multiple of 16, or of the tensor's
    /// `GuaranteedBaseOffsetAlignment` when that is given.
    pub Offset: UINT64,
    /// Bytes available from `Buffer + Offset`: at least the tensor's `TotalTensorSizeInBytes`.
    pub SizeInBytes: UINT64,
}

/// `DML_BUFFER_ARRAY_BINDING` (16 bytes). Declared for DirectML compatibility; binding one is
/// `E_INVALIDARG`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_BUFFER_ARRAY_BINDING {
    /// The number of entries in `Bindings`.
    pub BindingCount: UINT,
    /// The bindings.
    pub Bindings: *const DML_BUFFER_BINDING,
}

/// `DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT` (4 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT {
    /// The type asked about.
    pub DataType: DML_TENSOR_DATA_TYPE,
}

/// `DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT` (4 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT {
    /// TRUE for the 11 types of 8 to 64 bits; FALSE for UINT4, INT4 and unknown values.
    pub IsSupported: BOOL,
}

/// `DML_FEATURE_QUERY_FEATURE_LEVELS` (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_FEATURE_QUERY_FEATURE_LEVELS {
    /// The number of entries in `RequestedFeatureLevels` (at least 1).
    pub RequestedFeatureLevelCount: UINT,
    /// The levels asked about.
    pub RequestedFeatureLevels: *const DML_FEATURE_LEVEL,
}

/// `DML_FEATURE_DATA_FEATURE_LEVELS` (4 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_FEATURE_DATA_FEATURE_LEVELS {
    /// The highest requested level that is not above the device's level.
    pub MaxSupportedFeatureLevel: DML_FEATURE_LEVEL,
}

#[cfg(test)]
mod scalar_union_tests {
    use super::*;
    use core::mem::MaybeUninit;
    use core::ptr::addr_of_mut;

    /// A C caller that sets only `Float32` leaves bytes 4..8 uninitialised: they are never read
    /// (Miri reports any read of them as undefined behaviour).
    #[test]
    fn read_prefix_reads_only_the_member_set() {
        let mut u = MaybeUninit::<DML_SCALAR_UNION>::uninit();
        // SAFETY: writes the Float32 member of a union we own.
        unsafe { addr_of_mut!((*u.as_mut_ptr()).Float32).write(1.5) };
        // SAFETY: the first 4 bytes were just written.
        let b = unsafe { DML_SCALAR_UNION::read_prefix(u.as_ptr(), 4) };
        assert_eq!(&b[..4], &1.5f32.to_ne_bytes());
        assert_eq!(&b[4..], &[0u8; 4]);
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use core::mem::{align_of, offset_of, size_of};

    #[test]
    fn sizes_and_offsets_match_directml() {
        assert_eq!(size_of::<DML_BUFFER_TENSOR_DESC>(), 48);
        assert_eq!(offset_of!(DML_BUFFER_TENSOR_DESC, Flags), 4);
        assert_eq!(offset_of!(DML_BUFFER_TENSOR_DESC, DimensionCount), 8);
        assert_eq!(offset_of!(DML_BUFFER_TENSOR_DESC, Sizes), 16);
        assert_eq!(offset_of!(DML_BUFFER_TENSOR_DESC, Strides), 24);
        assert_eq!(
            offset_of!(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes),
            32
        );
        assert_eq!(
            offset_of!(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment),
            40
        );
        assert_eq!(size_of::<DML_TENSOR_DESC>(), 16);
        assert_eq!(size_of::<DML_OPERATOR_DESC>(), 16);
        assert_eq!(size_of::<DML_SCALAR_UNION>(), 8);
        assert_eq!(align_of::<DML_SCALAR_UNION>(), 8);
        assert_eq!(size_of::<DML_NONZERO_COORDINATES_OPERATOR_DESC>(), 24);
        assert_eq!(size_of::<DML_DIAGONAL_MATRIX_OPERATOR_DESC>(), 16);
        assert_eq!(offset_of!(DML_DIAGONAL_MATRIX_OPERATOR_DESC, Offset), 8);
        assert_eq!(offset_of!(DML_DIAGONAL_MATRIX_OPERATOR_DESC, Value), 12);
        assert_eq!(size_of::<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>(), 40);
        assert_eq!(
            offset_of!(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, ValueDataType),
            16
        );
        assert_eq!(offset_of!(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, Value), 24);
        assert_eq!(
            offset_of!(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, DiagonalFillBegin),
            32
        );
        assert_eq!(
            offset_of!(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, DiagonalFillEnd),
            36
        );
        assert_eq!(size_of::<DML_BINDING_DESC>(), 16);
        assert_eq!(size_of::<DML_BUFFER_BINDING>(), 24);
        assert_eq!(size_of::<DML_BUFFER_ARRAY_BINDING>(), 16);
        assert_eq!(size_of::<DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT>(), 4);
        assert_eq!(size_of::<DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT>(), 4);
        assert_eq!(size_of::<DML_FEATURE_QUERY_FEATURE_LEVELS>(), 16);
        assert_eq!(size_of::<DML_FEATURE_DATA_FEATURE_LEVELS>(), 4);
    }
}
