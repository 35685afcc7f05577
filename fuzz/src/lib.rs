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
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod case;
mod codec;
mod desc;
mod device;
mod execute;
mod hresult;
pub mod model;
mod query;
pub mod seeds;

use directml_subset::dml::*;
use directml_subset::ffi::*;

pub use case::{BindingSpec, Case, QuerySpec, TensorSpec};
pub use codec::{Io, Reader, Writer};

use desc::{check_calc_size, usual_types, BuiltTensor};
use device::{create_device, resolved_level};
use execute::execute;
use hresult::{check_hr, check_verdict, CREATE_CODES};
use query::{bytes_of, run_query};
use test_support::guarded::{or_null, or_null_mut, GuardedArray};

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
    let mut op_desc_mem = GuardedArray::of_structs(&op_desc_bytes);
    let desc = DML_OPERATOR_DESC {
        Type: op_type,
        Desc: or_null(case.desc_null == 1, op_desc_mem.ptr().cast()),
    };
    let sentinel = 0x0DD5usize as *mut dmls_operator;
    let mut op = sentinel;
    let dev_arg = or_null(case.desc_null == 2, dev);
    let op_arg: *mut *mut dmls_operator = or_null_mut(case.desc_null == 3, &mut op);
    let desc_arg: *const DML_OPERATOR_DESC = or_null(case.desc_null == 4, &desc);
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
    check_verdict("operator creation", hr, &expect, &msg, case);
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
