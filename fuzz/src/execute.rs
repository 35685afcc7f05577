//! `dmls_operator_execute` with the case's bindings on guarded buffers, against the model and
//! `directml_subset::reference`: a failure changes nothing, a success changes exactly what the
//! reference writes, and no guard byte is touched.

use std::ptr;

use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::reference;
use test_support::guarded::{or_null, or_null_mut, Buffer, GuardedArray};

use crate::case::Case;
use crate::hresult::{check_hr, check_verdict, EXECUTE_CODES};
use crate::model;

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

pub(crate) fn execute(
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
    let regions: Vec<Option<Buffer>> = (0..3)
        .map(|b| {
            (owner[b] == b).then(|| {
                let mut r = Buffer::filled(need[b] as usize, 0);
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
        let r = regions[owner[b]].as_ref().expect("owner has a buffer");
        // Within the buffer: `need` counts the shift.
        r.ptr()
            .wrapping_add(usize::from(case.bindings[b].shift % 64))
    };
    let buffer_bindings: Vec<DML_BUFFER_BINDING> = (0..3)
        .map(|b| {
            let spec = &case.bindings[b];
            DML_BUFFER_BINDING {
                Buffer: or_null_mut(spec.buffer_null == 1, buffer_base(b).cast()),
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
    let inputs_ptr: *const DML_BINDING_DESC =
        or_null(case.array_nulls & 1 != 0, in_mem.ptr().cast());
    let outputs_ptr: *const DML_BINDING_DESC =
        or_null(case.array_nulls & 2 != 0, out_mem.ptr().cast());
    let op_arg = or_null(case.array_nulls & 4 != 0, op);

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
    check_verdict("execution", hr, &expect, &msg, case);
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

fn check_guards(regions: &[Option<Buffer>], case: &Case) {
    for (b, r) in regions.iter().enumerate() {
        if let Some(r) = r {
            assert!(
                r.guards_intact(),
                "a guard byte around buffer {b} was written\n{case:#?}"
            );
        }
    }
}
