//! `dmls_operator_execute`: which bindings a valid operator accepts (types, alignment, sizes,
//! overlap, in place).

use super::codes::{codes, Codes};
use super::create::{Op, Plan};
use super::tensor::{element_size, Tensor};

/// One binding as the library is given it.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// `DML_BINDING_DESC.Type`.
    pub ty: u32,
    /// `DML_BINDING_DESC.Desc` is NULL.
    pub desc_null: bool,
    /// `DML_BUFFER_BINDING.Buffer` (0 for NULL).
    pub buffer: u64,
    /// `Offset`.
    pub offset: u64,
    /// `SizeInBytes`.
    pub size: u64,
}

/// `dmls_operator_execute` on a valid operator. `bindings` are input slot 0, output slots 0
/// and 1; `array_nulls` bit 0: `inputs` NULL, bit 1: `outputs` NULL, bit 2: `op` NULL.
pub fn execute(
    plan: &Plan,
    t: &[Tensor; 3],
    input_count: u32,
    output_count: u32,
    array_nulls: u8,
    bindings: &[Binding],
) -> Result<(), Codes> {
    if array_nulls & 4 != 0 {
        return Err(codes(true, false, false));
    }
    // (tensor of each input slot (None: optional and absent)), tensors of output slots.
    let (ins, outs): (Vec<Option<usize>>, Vec<usize>) = match plan.op {
        Op::NonZero => (vec![Some(0)], vec![1, 2]),
        Op::Diagonal1 { has_input } => (vec![has_input.then_some(0)], vec![1]),
        Op::Diagonal => (vec![], vec![1]),
    };
    if input_count as usize != ins.len() || output_count as usize != outs.len() {
        return Err(codes(false, true, false));
    }
    if (!ins.is_empty() && array_nulls & 1 != 0) || array_nulls & 2 != 0 {
        return Err(codes(true, false, false));
    }
    let mut pointer = false;
    let mut invalid = false;
    // (start, length, tensor) of each bound range, inputs first.
    let mut in_ranges: Vec<(u128, u128, usize)> = Vec::new();
    let mut out_ranges: Vec<(u128, u128, usize)> = Vec::new();
    let slots = ins.iter().map(|&s| (0usize, s, true)).chain(
        outs.iter()
            .enumerate()
            .map(|(i, &s)| (i + 1, Some(s), false)),
    );
    for (b, tensor, is_input) in slots {
        let x = bindings[b];
        match x.ty {
            0 => {
                // NONE: only for an input the desc left out.
                if !is_input || tensor.is_some() {
                    invalid = true;
                }
                continue;
            }
            1 => {}
            _ => {
                invalid = true;
                continue;
            }
        }
        if x.desc_null || x.buffer == 0 {
            pointer = true;
            continue;
        }
        let Some(ti) = tensor else {
            // A buffer for an input the desc left out.
            invalid = true;
            continue;
        };
        let tensor = &t[ti];
        let size = element_size(tensor.data_type).expect("valid tensor");
        let align = u64::from(tensor.alignment);
        let need = if align != 0 { align } else { 16 };
        let start = u128::from(x.buffer) + u128::from(x.offset);
        let end = start + u128::from(x.size);
        if !x.offset.is_multiple_of(need)
            || x.size < tensor.total
            || end > i64::MAX as u128
            || start % u128::from(align.max(size)) != 0
        {
            invalid = true;
            continue;
        }
        let r = (start, u128::from(tensor.total), ti);
        if is_input {
            in_ranges.push(r);
        } else {
            out_ranges.push(r);
        }
    }
    let overlap =
        |a: (u128, u128, usize), b: (u128, u128, usize)| a.0 < b.0 + b.1 && b.0 < a.0 + a.1;
    for (i, &o) in out_ranges.iter().enumerate() {
        for &p in &out_ranges[i + 1..] {
            if overlap(o, p) {
                invalid = true;
            }
        }
        for &r in &in_ranges {
            if !overlap(o, r) {
                continue;
            }
            let in_place = matches!(plan.op, Op::Diagonal1 { .. })
                && o.0 == r.0
                && t[o.2].layout_key() == t[r.2].layout_key();
            if !in_place {
                invalid = true;
            }
        }
    }
    if pointer || invalid {
        return Err(codes(pointer, invalid, false));
    }
    Ok(())
}
