//! `dmls_operator_execute`: C bindings read and checked against the operator's slots (types,
//! alignment, sizes, overlap), then handed to the core as slices.

use super::boundary::{boundary, non_null, null, read_as};
use super::operator::dmls_operator;
use crate::dml::*;
use crate::error::{invalid, Result};
use crate::op::Input;
use crate::tensor::Layout;

/// A bound buffer range, checked.
#[derive(Clone, Copy)]
struct Bound {
    addr: usize,
    len: usize,
}

/// Reads and checks one binding against its tensor. `Ok(None)` for DML_BINDING_TYPE_NONE.
///
/// # Safety
/// `b` points to a DML_BINDING_DESC whose `Desc`, for a BUFFER binding, points to a
/// DML_BUFFER_BINDING.
unsafe fn read_binding(
    b: *const DML_BINDING_DESC,
    op: &str,
    name: &str,
    layout: Option<&Layout>,
) -> Result<Option<Bound>> {
    // SAFETY: per contract.
    let d = unsafe { b.read_unaligned() };
    match d.Type {
        DML_BINDING_TYPE::NONE => return Ok(None),
        DML_BINDING_TYPE::BUFFER => {}
        DML_BINDING_TYPE::BUFFER_ARRAY => {
            return invalid!(
                "{op}: {name} is bound with DML_BINDING_TYPE_BUFFER_ARRAY, which this library does \
                 not support; use DML_BINDING_TYPE_BUFFER"
            )
        }
        t => {
            return invalid!(
                "{op}: {name} binding Type is {}, not a DML_BINDING_TYPE value (0 to 2)",
                t.0
            )
        }
    }
    non_null(d.Desc, format_args!("{op}: {name} binding Desc"))?;
    // SAFETY: a BUFFER binding's `Desc` points to a DML_BUFFER_BINDING.
    let buf = unsafe { read_as::<DML_BUFFER_BINDING>(d.Desc) };
    non_null(
        buf.Buffer,
        format_args!("{op}: {name} DML_BUFFER_BINDING.Buffer"),
    )?;
    let Some(l) = layout else {
        // The slot takes no tensor; the core reports it with the slot's name.
        return Ok(Some(Bound {
            addr: buf.Buffer as usize,
            len: 0,
        }));
    };
    let need = if l.alignment != 0 {
        u64::from(l.alignment)
    } else {
        u64::from(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)
    };
    if buf.Offset % need != 0 {
        return invalid!(
            "{op}: {name} binding Offset is {}, must be a multiple of {need}{}",
            buf.Offset,
            if l.alignment != 0 {
                " (the tensor's GuaranteedBaseOffsetAlignment)"
            } else {
                " (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)"
            }
        );
    }
    if buf.SizeInBytes < l.total_bytes {
        return invalid!(
            "{op}: {name} binding SizeInBytes is {}, less than the tensor's TotalTensorSizeInBytes {}; \
             bind at least {} bytes",
            buf.SizeInBytes,
            l.total_bytes,
            l.total_bytes
        );
    }
    let base = buf.Buffer as usize as u64;
    let end = base
        .checked_add(buf.Offset)
        .and_then(|start| start.checked_add(buf.SizeInBytes).map(|e| (start, e)));
    let Some((start, _)) = end.filter(|&(_, e)| e <= isize::MAX as u64) else {
        return invalid!(
            "{op}: {name} binding Buffer {:#x} + Offset {} + SizeInBytes {} runs past the end of \
             the address space",
            base,
            buf.Offset,
            buf.SizeInBytes
        );
    };
    Ok(Some(Bound {
        addr: start as usize,
        len: l.total_bytes as usize,
    }))
}

fn overlaps(a: Bound, b: Bound) -> bool {
    a.addr < b.addr + b.len && b.addr < a.addr + a.len
}

/// Runs an operator on bound memory.
///
/// `inputs` holds exactly `input_count` entries and `outputs` exactly `output_count`, in
/// DirectML's order:
///
/// | operator            | inputs                                        | outputs                                      |
/// |---------------------|-----------------------------------------------|----------------------------------------------|
/// | NONZERO_COORDINATES | InputTensor                                   | OutputCountTensor, OutputCoordinatesTensor   |
/// | DIAGONAL_MATRIX1    | InputTensor (DML_BINDING_TYPE_NONE exactly when the desc's InputTensor was NULL) | OutputTensor |
/// | DIAGONAL_MATRIX     | none (`input_count` 0, `inputs` may be NULL)  | OutputTensor                                 |
///
/// A DML_BINDING_TYPE_BUFFER entry points to a DML_BUFFER_BINDING whose `Buffer` is host memory;
/// the tensor's bytes start at `Buffer + Offset`. Each of these is E_INVALIDARG: `SizeInBytes`
/// below the tensor's TotalTensorSizeInBytes; `Offset` not a multiple of 16 (or of
/// GuaranteedBaseOffsetAlignment when given); `Buffer + Offset` not aligned to the element size
/// (and GuaranteedBaseOffsetAlignment); DML_BINDING_TYPE_BUFFER_ARRAY; an output's bytes
/// `[Buffer + Offset, + TotalTensorSizeInBytes)` overlapping any other bound tensor's, except
/// that DIAGONAL_MATRIX1 may run in place (input and output at the same address, with the same
/// data type, sizes and strides; the stride of a dimension of size 1 may differ). NULL `op`, a
/// NULL array with a nonzero count, a NULL binding `Desc` or `Buffer` is E_POINTER.
/// E_OUTOFMEMORY: the execution's scratch memory (a bitmask chunk of a large
/// NONZERO_COORDINATES input) could not be allocated, or the device's threads could not be
/// started on their first use.
///
/// Only the output tensors' elements are written: never padding between strided elements,
/// never bytes past the last element, and for NONZERO_COORDINATES never the rows from the count
/// on (DirectML leaves them undefined; this library leaves them untouched). On failure nothing
/// is written.
///
/// # Safety
/// `op` is NULL or a live operator; `inputs` and `outputs` hold `input_count` and `output_count` entries; each bound `Buffer + Offset` holds `SizeInBytes` bytes of host memory.
#[no_mangle]
pub unsafe extern "C" fn dmls_operator_execute(
    op: *const dmls_operator,
    input_count: u32,
    inputs: *const DML_BINDING_DESC,
    output_count: u32,
    outputs: *const DML_BINDING_DESC,
) -> HRESULT {
    boundary("dmls_operator_execute", || {
        non_null(op, format_args!("dmls_operator_execute: op"))?;
        // SAFETY: a non-NULL `op` came from `dmls_device_create_operator` and is not released.
        let op = unsafe { &(*op).op };
        let plan = op.plan();
        let name = plan.name();
        let (in_slots, out_slots) = (plan.inputs(), plan.outputs());
        let (in_names, out_names) = (plan.input_names(), plan.output_names());
        if input_count as usize != in_slots.len() {
            // What to pass instead: an optional tensor left out of the desc still has its slot.
            let remedy = match in_slots {
                [] => "pass input_count 0 (inputs may be NULL)".to_string(),
                [None] => format!(
                    "the desc's {0} is NULL, so bind its slot with DML_BINDING_TYPE_NONE and pass \
                     input_count 1",
                    in_names[0]
                ),
                _ => format!(
                    "pass input_count {} with the slots in this order",
                    in_slots.len()
                ),
            };
            return invalid!(
                "{name}: input_count is {input_count}, the operator has {} input{} ({}); {remedy}",
                in_slots.len(),
                if in_slots.len() == 1 { "" } else { "s" },
                if in_names.is_empty() {
                    "none".to_string()
                } else {
                    in_names.join(", ")
                }
            );
        }
        if output_count as usize != out_slots.len() {
            return invalid!(
                "{name}: output_count is {output_count}, the operator has {} output{} ({}); pass \
                 output_count {} with the slots in this order",
                out_slots.len(),
                if out_slots.len() == 1 { "" } else { "s" },
                out_names.join(", "),
                out_slots.len()
            );
        }
        if input_count > 0 && inputs.is_null() {
            return Err(null(format_args!("{name}: inputs")));
        }
        non_null(outputs, format_args!("{name}: outputs"))?;
        let mut in_bound: [Option<Bound>; 1] = [None];
        for (i, slot) in in_slots.iter().enumerate() {
            // SAFETY: `inputs` holds `input_count` entries (checked equal to the slot count).
            in_bound[i] = unsafe { read_binding(inputs.add(i), name, in_names[i], slot.as_ref()) }?;
        }
        let mut out_bound: [Bound; 2] = [Bound { addr: 0, len: 0 }; 2];
        for (i, slot) in out_slots.iter().enumerate() {
            // SAFETY: `outputs` holds `output_count` entries (checked equal to the slot count).
            match unsafe { read_binding(outputs.add(i), name, out_names[i], Some(slot)) }? {
                Some(b) => out_bound[i] = b,
                None => {
                    return invalid!(
                        "{name}: {} is bound with DML_BINDING_TYPE_NONE; outputs need a buffer",
                        out_names[i]
                    )
                }
            }
        }
        let out_bound = &out_bound[..out_slots.len()];
        // Overlap: outputs against each other and against inputs; in place is the exception.
        let mut in_place = false;
        for (i, &o) in out_bound.iter().enumerate() {
            for (j, &p) in out_bound.iter().enumerate().skip(i + 1) {
                if overlaps(o, p) {
                    return invalid!(
                        "{name}: {} [{:#x}, +{}) overlaps {} [{:#x}, +{}); outputs must not overlap",
                        out_names[i], o.addr, o.len, out_names[j], p.addr, p.len
                    );
                }
            }
            for (j, b) in in_bound.iter().enumerate().take(in_slots.len()) {
                let Some(b) = *b else { continue };
                if b.len == 0 || !overlaps(o, b) {
                    continue;
                }
                let same_layout = in_slots[j]
                    .as_ref()
                    .is_some_and(|l| l.same_elements(&out_slots[i]));
                if plan.kind().runs_in_place() && b.addr == o.addr && same_layout {
                    in_place = true;
                    continue;
                }
                return invalid!(
                    "{name}: {} [{:#x}, +{}) overlaps {} [{:#x}, +{}){}",
                    out_names[i],
                    o.addr,
                    o.len,
                    in_names[j],
                    b.addr,
                    b.len,
                    if plan.kind().runs_in_place() {
                        "; in place needs the same address, data type, sizes and strides \
                         (those of dimensions of size 1 aside)"
                    } else {
                        "; outputs must not overlap inputs"
                    }
                );
            }
        }
        let input_views: [Input<'_>; 1] = [match in_bound[0] {
            None => Input::None,
            Some(_) if in_place => Input::InPlace,
            // SAFETY: the caller guarantees `Buffer + Offset` holds `SizeInBytes` readable bytes
            // (checked at least `len`), and no output overlaps it (checked above).
            Some(b) => {
                // SAFETY: see above.
                Input::Bytes(unsafe { core::slice::from_raw_parts(b.addr as *const u8, b.len) })
            }
        }];
        let mut first: &mut [u8] = &mut [];
        let mut second: &mut [u8] = &mut [];
        for (i, b) in out_bound.iter().enumerate() {
            // SAFETY: the caller guarantees `Buffer + Offset` holds `SizeInBytes` writable bytes
            // (checked at least `len`); the output ranges overlap nothing else that is bound
            // (checked above), so this is the only reference to these bytes.
            let s = unsafe { core::slice::from_raw_parts_mut(b.addr as *mut u8, b.len) };
            if i == 0 {
                first = s;
            } else {
                second = s;
            }
        }
        let mut views: [&mut [u8]; 2] = [first, second];
        op.execute_bound(
            &input_views[..in_slots.len()],
            &mut views[..out_slots.len()],
        )
    })
}
