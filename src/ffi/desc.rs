//! Reading DirectML's C descs (operator and tensor descs) into the core's Rust values, and
//! DirectMLX's buffer-size helper for tensor descs.

use core::ptr::addr_of;
use std::panic::catch_unwind;

use super::boundary::{non_null, null, read_as};
use crate::dml::*;
use crate::error::{invalid, Error, Result};
use crate::op::OperatorDesc;
use crate::tensor::{DataType, TensorDesc, MAX_DIMS};

/// Reads a tensor desc pointer. NULL gives `None`; the caller decides whether that is allowed.
///
/// # Safety
/// `p`, when non-NULL, points to a DML_TENSOR_DESC whose pointers are valid as DirectML
/// documents them (`Sizes` and, when non-NULL, `Strides` hold `DimensionCount` entries).
unsafe fn read_tensor(
    p: *const DML_TENSOR_DESC,
    op: &str,
    name: &str,
) -> Result<Option<TensorDesc>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, per this function's contract.
    let t = unsafe { p.read_unaligned() };
    if t.Type != DML_TENSOR_TYPE::BUFFER {
        return invalid!(
            "{op}: {name} Type is {}, must be DML_TENSOR_TYPE_BUFFER (1)",
            t.Type.0
        );
    }
    non_null(t.Desc, format_args!("{op}: {name} Desc"))?;
    // SAFETY: a BUFFER tensor desc's `Desc` points to a DML_BUFFER_TENSOR_DESC.
    let b = unsafe { read_as::<DML_BUFFER_TENSOR_DESC>(t.Desc) };
    let dims = b.DimensionCount as usize;
    // Sizes and Strides are read only when the count is one a tensor can have, so a wrong count
    // never leads past the caller's arrays; validation then reports the count.
    let mut sizes = [0u32; MAX_DIMS];
    let mut strides = [0u32; MAX_DIMS];
    let mut has_strides = false;
    if (1..=MAX_DIMS).contains(&dims) {
        non_null(b.Sizes, format_args!("{op}: {name} Sizes"))?;
        // SAFETY: `Sizes` is non-NULL and holds DimensionCount (1 to 8) entries.
        sizes[..dims].copy_from_slice(unsafe { core::slice::from_raw_parts(b.Sizes, dims) });
        if !b.Strides.is_null() {
            // SAFETY: `Strides`, when given, holds DimensionCount entries too.
            strides[..dims]
                .copy_from_slice(unsafe { core::slice::from_raw_parts(b.Strides, dims) });
            has_strides = true;
        }
    }
    let mut desc = TensorDesc::raw(
        b.DataType,
        &sizes[..dims.min(MAX_DIMS)],
        has_strides.then_some(&strides[..dims.min(MAX_DIMS)]),
        b.TotalTensorSizeInBytes,
    );
    desc.dimension_count = b.DimensionCount;
    desc.flags = b.Flags;
    desc.guaranteed_base_offset_alignment = b.GuaranteedBaseOffsetAlignment;
    Ok(Some(desc))
}

/// Reads a required tensor desc pointer: NULL is E_POINTER.
///
/// # Safety
/// As for [`read_tensor`].
unsafe fn required_tensor(p: *const DML_TENSOR_DESC, op: &str, name: &str) -> Result<TensorDesc> {
    // SAFETY: forwarded contract.
    unsafe { read_tensor(p, op, name) }?.ok_or_else(|| null(format_args!("{op}: {name}")))
}

/// Converts a C operator desc into the Rust one.
///
/// # Safety
/// `desc` is non-NULL and points to a DML_OPERATOR_DESC whose pointers are valid as DirectML
/// documents them.
pub(super) unsafe fn read_operator(desc: *const DML_OPERATOR_DESC) -> Result<OperatorDesc> {
    // SAFETY: non-NULL per contract.
    let d = unsafe { desc.read_unaligned() };
    let ty = d.Type;
    let op = match ty {
        DML_OPERATOR_TYPE::NONZERO_COORDINATES => "NONZERO_COORDINATES",
        DML_OPERATOR_TYPE::DIAGONAL_MATRIX1 => "DIAGONAL_MATRIX1",
        DML_OPERATOR_TYPE::DIAGONAL_MATRIX => "DIAGONAL_MATRIX",
        DML_OPERATOR_TYPE::INVALID => {
            return invalid!("dmls_device_create_operator: desc Type is DML_OPERATOR_INVALID (0)")
        }
        t => {
            if let Some(name) = t.directml_name() {
                return Err(Error::NotImplemented(format!(
                    "dmls_device_create_operator: desc Type is {name} ({}), a DirectML operator \
                     this library does not implement (it has DML_OPERATOR_DIAGONAL_MATRIX 93, \
                     DML_OPERATOR_NONZERO_COORDINATES 133 and DML_OPERATOR_DIAGONAL_MATRIX1 163)",
                    t.0
                )));
            }
            return invalid!(
                "dmls_device_create_operator: desc Type is {}, not a DML_OPERATOR_TYPE value \
                 (DirectML's go up to DML_OPERATOR_UNFOLD 177)",
                t.0
            );
        }
    };
    non_null(d.Desc, format_args!("{op}: DML_OPERATOR_DESC.Desc"))?;
    // SAFETY (all three arms): `Desc` is non-NULL and, for this Type, points to the matching
    // operator desc, whose tensor pointers follow `read_tensor`'s contract.
    Ok(match ty {
        DML_OPERATOR_TYPE::NONZERO_COORDINATES => {
            // SAFETY: `Desc` points to a DML_NONZERO_COORDINATES_OPERATOR_DESC (see above).
            let n = unsafe { read_as::<DML_NONZERO_COORDINATES_OPERATOR_DESC>(d.Desc) };
            OperatorDesc::NonZeroCoordinates {
                // SAFETY: the desc's tensor pointers follow `read_tensor`'s contract.
                input: unsafe { required_tensor(n.InputTensor, op, "InputTensor") }?,
                // SAFETY: as above.
                output_count: unsafe {
                    required_tensor(n.OutputCountTensor, op, "OutputCountTensor")
                }?,
                // SAFETY: as above.
                output_coordinates: unsafe {
                    required_tensor(n.OutputCoordinatesTensor, op, "OutputCoordinatesTensor")
                }?,
            }
        }
        DML_OPERATOR_TYPE::DIAGONAL_MATRIX1 => {
            // Field by field, so that the union `Value` is read only as wide as ValueDataType
            // says: the bytes past that may be uninitialised in the caller's desc.
            let g = d.Desc.cast::<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>();
            // SAFETY: `g` points to a DML_DIAGONAL_MATRIX1_OPERATOR_DESC (contract above); these
            // scalar and pointer fields are always set by the caller.
            let (input, output, value_data_type, begin, end) = unsafe {
                (
                    addr_of!((*g).InputTensor).read_unaligned(),
                    addr_of!((*g).OutputTensor).read_unaligned(),
                    addr_of!((*g).ValueDataType).read_unaligned(),
                    addr_of!((*g).DiagonalFillBegin).read_unaligned(),
                    addr_of!((*g).DiagonalFillEnd).read_unaligned(),
                )
            };
            let width = match DataType::from_raw(value_data_type) {
                Some(t) => t.size(),
                // UINT4 / INT4 (rejected later): their value would sit in the first byte.
                None if matches!(value_data_type.0, 12 | 13) => 1,
                None => 0,
            };
            OperatorDesc::DiagonalMatrix1 {
                // SAFETY: the desc's tensor pointers follow `read_tensor`'s contract.
                input: unsafe { read_tensor(input, op, "InputTensor") }?,
                // SAFETY: as above.
                output: unsafe { required_tensor(output, op, "OutputTensor") }?,
                value_data_type,
                // SAFETY: `Value` lies inside the desc; a caller sets at least the member its
                // ValueDataType names, which is `width` bytes from the union's start.
                value: unsafe { DML_SCALAR_UNION::read_prefix(addr_of!((*g).Value), width) },
                diagonal_fill_begin: begin,
                diagonal_fill_end: end,
            }
        }
        _ => {
            // SAFETY: `Desc` points to a DML_DIAGONAL_MATRIX_OPERATOR_DESC (see above).
            let g = unsafe { read_as::<DML_DIAGONAL_MATRIX_OPERATOR_DESC>(d.Desc) };
            OperatorDesc::DiagonalMatrix {
                // SAFETY: the desc's tensor pointer follows `read_tensor`'s contract.
                output: unsafe { required_tensor(g.OutputTensor, op, "OutputTensor") }?,
                offset: g.Offset,
                value: g.Value,
            }
        }
    })
}

/// DirectMLX's `DMLCalcBufferTensorSize`: the bytes a buffer tensor of this type, sizes and
/// strides (NULL = packed) needs, rounded up to a multiple of 4, computed in 64 bits (DirectMLX
/// accumulates in 32 bits and can wrap; this does not). UINT4 and INT4 count half a byte per
/// element. Returns 0 for an unknown data type, a NULL `sizes`, a dimension count of 0 or
/// above 8, or a size that does not fit in 64 bits.
///
/// # Safety
/// `sizes` is NULL or holds `dimension_count` entries; so does `strides` when non-NULL.
#[no_mangle]
pub unsafe extern "C" fn dmls_calc_buffer_tensor_size(
    data_type: DML_TENSOR_DATA_TYPE,
    dimension_count: u32,
    sizes: *const u32,
    strides: *const u32,
) -> u64 {
    let dims = dimension_count as usize;
    if sizes.is_null() || dims == 0 || dims > MAX_DIMS {
        return 0;
    }
    catch_unwind(|| {
        // SAFETY: `sizes` is non-NULL and holds `dimension_count` (1 to 8) entries.
        let sizes = unsafe { core::slice::from_raw_parts(sizes, dims) };
        // SAFETY: `strides`, when non-NULL, holds `dimension_count` entries too.
        let strides =
            (!strides.is_null()).then(|| unsafe { core::slice::from_raw_parts(strides, dims) });
        crate::tensor::calc_size_bits(data_type, sizes, strides).unwrap_or(0)
    })
    .unwrap_or(0)
}
