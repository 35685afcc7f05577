//! The seed corpus: valid operators of every kind (the shapes real programs use, the parallel
//! paths, strides, in place) and one input for each kind of invalid call, so fuzzing starts
//! from both sides of every rule. `cargo test --test corpus -- --ignored write_seed_corpus`
//! (with `DMLS_WRITE_SEEDS=1`) writes them to `corpus/<target>/seed-<name>`.

use crate::case::{BindingSpec, Case, QuerySpec, TensorSpec};
use directml_subset::dml::DML_TENSOR_DATA_TYPE as T;

/// Level field values (index into the known levels, plus one).
const L2_0: u8 = 2;
const L2_1: u8 = 3;
const L3_0: u8 = 4;
const L4_0: u8 = 6;
const L5_1: u8 = 9;

fn nz(input: TensorSpec, count: TensorSpec, coords: TensorSpec) -> Case {
    Case {
        op: 0,
        tensors: [input, count, coords],
        zero_eighths: 3,
        ..Case::default()
    }
}

fn d1(input: Option<TensorSpec>, output: TensorSpec, begin: i32, end: i32, value: [u8; 8]) -> Case {
    let mut input = input.unwrap_or_default();
    let none = input == TensorSpec::default();
    if none {
        input.null = 1;
    }
    let mut c = Case {
        op: 1,
        tensors: [input, output, TensorSpec::default()],
        begin: begin as u32,
        end: end as u32,
        value,
        zero_eighths: 2,
        ..Case::default()
    };
    if none {
        c.bindings[0].ty = 1; // DML_BINDING_TYPE_NONE
    }
    c
}

fn d0(output: TensorSpec, offset: i32, value: f32) -> Case {
    Case {
        op: 2,
        tensors: [TensorSpec::default(), output, TensorSpec::default()],
        offset: offset as u32,
        value_f32: value.to_bits(),
        ..Case::default()
    }
}

fn f32_value(v: f32) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&v.to_ne_bytes());
    b
}

fn t(ty: T, sizes: &[u32]) -> TensorSpec {
    TensorSpec::new(ty, sizes)
}

fn nz_f32_2x3() -> Case {
    nz(
        t(T::FLOAT32, &[2, 3]),
        t(T::UINT32, &[1]),
        t(T::UINT32, &[6, 2]),
    )
}

fn d1_f32() -> Case {
    d1(
        Some(t(T::FLOAT32, &[4, 5])),
        t(T::FLOAT32, &[4, 5]),
        0,
        1,
        f32_value(7.5),
    )
}

/// A change to a seed's case.
type Change = fn(&mut Case);

/// Adds `base()` with each change, under the change's name.
fn variants(
    s: &mut Vec<(&'static str, Case)>,
    base: fn() -> Case,
    changes: &[(&'static str, Change)],
) {
    for &(name, change) in changes {
        let mut c = base();
        change(&mut c);
        s.push((name, c));
    }
}

/// No change.
fn keep(_: &mut Case) {}

/// Every seed, by name.
pub fn seeds() -> Vec<(&'static str, Case)> {
    let mut s: Vec<(&'static str, Case)> =
        vec![("nz-f32-2x3", nz_f32_2x3()), ("d1-f32-band", d1_f32())];
    let strided = TensorSpec::strided;
    let mut nan = [0u8; 8];
    nan[..2].copy_from_slice(&0x7E01u16.to_ne_bytes());
    let mut overflowing = strided(T::FLOAT64, &[u32::MAX, 1], &[u32::MAX, 1]);
    overflowing.total_mode = 3;
    overflowing.total_k = u64::MAX - 15;

    // ---- NONZERO_COORDINATES: (name, [input, count, coordinates], what else is set)
    #[rustfmt::skip]
    let nonzero: [(&str, [TensorSpec; 3], Change); 11] = [
        ("nz-level-3_0-4d", [t(T::FLOAT32, &[1, 1, 2, 3]), t(T::UINT32, &[1, 1, 1, 1]), t(T::UINT32, &[1, 1, 6, 2])], |c| c.level = L3_0),
        // ONNX Runtime: coordinates transposed into the low halves of int64s, strides {2, 2M}.
        ("nz-onnxruntime-transposed", [t(T::INT32, &[3, 4]), t(T::UINT32, &[1]), strided(T::UINT32, &[12, 2], &[2, 24])], keep),
        ("nz-extensions-f64-u64", [t(T::FLOAT64, &[5, 7]), t(T::UINT64, &[1]), t(T::UINT64, &[35, 2])], |c| c.flags = 1),
        ("nz-f16-3d", [t(T::FLOAT16, &[4, 4, 4]), t(T::UINT32, &[1, 1]), t(T::UINT32, &[64, 3])], |c| c.zero_eighths = 4),
        ("nz-int8-8d", [t(T::INT8, &[2, 1, 2, 1, 2, 1, 2, 3]), t(T::UINT32, &[1]), t(T::UINT32, &[48, 8])], keep),
        ("nz-scalar", [t(T::UINT8, &[1]), t(T::UINT32, &[1]), t(T::UINT32, &[1, 1])], keep),
        ("nz-broadcast-input", [strided(T::UINT16, &[3, 4], &[0, 1]), t(T::UINT32, &[1]), t(T::UINT32, &[12, 2])], keep),
        ("bad-nz-aliased-coordinates", [t(T::INT16, &[2, 5]), t(T::UINT32, &[1]), strided(T::UINT32, &[10, 2], &[1, 0])], keep),
        // Interleaved but disjoint: row r, column c at 2r + 3c (no two meet).
        ("nz-interleaved-coordinates", [t(T::INT16, &[2, 5]), t(T::UINT32, &[1]), strided(T::UINT32, &[10, 2], &[2, 3])], keep),
        ("nz-parallel-140000", [t(T::UINT8, &[140_000]), t(T::UINT32, &[1]), t(T::UINT32, &[140_000, 1])], |c| { c.threads = 2; c.zero_eighths = 6; }),
        ("bad-elements-2^32", [t(T::UINT8, &[65536, 65536]), t(T::UINT32, &[1]), t(T::UINT32, &[u32::MAX, 2])], keep),
    ];
    for (name, [input, count, coords], change) in nonzero {
        let mut c = nz(input, count, coords);
        change(&mut c);
        s.push((name, c));
    }

    // ---- DIAGONAL_MATRIX1: (name, input, output, DiagonalFillBegin, DiagonalFillEnd, Value,
    // what else is set)
    type D1 = (
        &'static str,
        Option<TensorSpec>,
        TensorSpec,
        i32,
        i32,
        [u8; 8],
        Change,
    );
    #[rustfmt::skip]
    let diagonal1: [D1; 9] = [
        ("d1-trilu-upper", Some(t(T::FLOAT32, &[4, 5])), t(T::FLOAT32, &[4, 5]), i32::MIN, 1, [0; 8], keep),
        ("d1-trilu-lower", Some(t(T::INT32, &[2, 6, 3])), t(T::INT32, &[2, 6, 3]), 0, i32::MAX, [0; 8], keep),
        ("d1-no-input", None, t(T::UINT16, &[3, 7]), -2, 3, [9, 0, 0, 0, 0, 0, 0, 0], keep),
        ("d1-int64-strided", Some(strided(T::INT64, &[2, 3, 4], &[1, 2, 6])), strided(T::INT64, &[2, 3, 4], &[16, 5, 1]), -1, 2, (-5i64).to_ne_bytes(), keep),
        ("d1-f16-nan-payload", Some(t(T::FLOAT16, &[3, 3])), t(T::FLOAT16, &[3, 3]), 1, -1, nan, keep),
        ("d1-parallel-512x520", None, t(T::FLOAT32, &[512, 520]), -3, 4, f32_value(1.0), |c| c.threads = 3),
        ("bad-extent-overflow", None, overflowing, 0, 1, [0; 8], keep),
        ("bad-in-place-other-layout", Some(strided(T::FLOAT32, &[4, 5], &[1, 4])), t(T::FLOAT32, &[4, 5]), 0, 1, [0; 8], |c| c.bindings[1].share = 1),
        ("bad-input-bound-without-desc", None, t(T::FLOAT32, &[4, 5]), 0, 1, [0; 8], |c| c.bindings[0] = BindingSpec::default()),
    ];
    for (name, input, output, begin, end, value, change) in diagonal1 {
        let mut c = d1(input, output, begin, end, value);
        change(&mut c);
        s.push((name, c));
    }

    // ---- DIAGONAL_MATRIX: (name, output, Offset, Value, what else is set)
    #[rustfmt::skip]
    let diagonal: [(&str, TensorSpec, i32, f32, Change); 7] = [
        ("d0-level-2_0-f16", t(T::FLOAT16, &[1, 1, 4, 4]), 1, 1.0, |c| c.level = L2_0),
        ("d0-level-2_1-int8", t(T::INT8, &[1, 2, 3, 3]), 0, -1.5, |c| c.level = L2_1),
        ("d0-int32-truncate", t(T::INT32, &[5, 3]), -1, 10.6, keep),
        ("d0-uint8-saturate", t(T::UINT8, &[4, 4]), 2, 300.0, keep),
        ("d0-level-4_0-2d", t(T::UINT16, &[3, 3]), 0, 1.0, |c| c.level = L4_0),
        ("d0-strided-f64", strided(T::FLOAT64, &[3, 4], &[8, 2]), -1, 2.5, keep),
        ("bad-d0-f64-level-4_0", t(T::FLOAT64, &[1, 1, 3, 3]), 0, 1.0, |c| c.level = L4_0),
    ];
    for (name, output, offset, value, change) in diagonal {
        let mut c = d0(output, offset, value);
        change(&mut c);
        s.push((name, c));
    }

    // ---- NONZERO_COORDINATES on FLOAT32 {2, 3} with one thing changed
    #[rustfmt::skip]
    let nz_changes: &[(&str, Change)] = &[
        // -- valid NONZERO_COORDINATES
        ("nz-poisoned-descs-released-device", |c| c.after_create = 3),
        // -- invalid descs
        ("bad-null-input", |c| c.tensors[0].null = 1),
        ("bad-null-tensor-desc", |c| c.tensors[2].desc_null = 1),
        ("bad-null-sizes", |c| c.tensors[1].sizes_null = 1),
        ("bad-null-op-desc", |c| c.desc_null = 1),
        ("bad-null-device", |c| c.desc_null = 2),
        ("bad-dims-9", |c| { c.tensors[0].dims = 9; c.tensors[0].sizes = vec![1; 8]; }),
        ("bad-dims-huge", |c| { c.tensors[0].dims = u32::MAX; c.tensors[0].sizes = vec![2, 3]; }),
        ("bad-dims-0", |c| c.tensors[0].dims = 0),
        ("bad-size-0", |c| c.tensors[0].sizes = vec![2, 0]),
        ("bad-total-not-multiple-of-4", |c| { c.tensors[0].total_mode = 4; c.tensors[0].total_k = 2; }),
        ("bad-total-too-small", |c| { c.tensors[2].total_mode = 2; c.tensors[2].total_k = 4; }),
        ("bad-alignment", |c| c.tensors[0].alignment = 3),
        ("bad-flags-owned-by-dml", |c| c.tensors[0].flags = 1),
        ("bad-count-type", |c| c.tensors[1].data_type = 7), // INT32
        ("bad-nonzero-level-2_1", |c| c.level = L2_1),
        ("bad-op-not-implemented", |c| { c.op = 3; c.op_raw = 103; }),
        ("bad-op-unknown", |c| { c.op = 3; c.op_raw = 178; }),
        ("bad-device-level-6_5", |c| { c.level = 16; c.level_raw = 0x6500; }),
        ("bad-device-flags-threads", |c| { c.flags = 6; c.threads = 4; }),
        // -- invalid bindings
        ("bad-offset-past-address-space", |c| c.bindings[2].offset_mode = 2),
        ("bad-offset-not-16", |c| { c.bindings[0].offset_mode = 1; c.bindings[0].offset_k = 8; }),
        ("bad-outputs-overlap", |c| c.bindings[2].share = 2),
        ("bad-output-over-input", |c| { c.bindings[1].share = 1; c.bindings[1].offset_k = 1; }),
        ("bad-misaligned-buffer", |c| c.bindings[0].shift = 2),
        ("bad-buffer-array", |c| c.bindings[1].ty = 2),
        ("bad-binding-type", |c| { c.bindings[1].ty = 3; c.bindings[1].ty_raw = 77; }),
        ("bad-null-buffer", |c| c.bindings[0].buffer_null = 1),
        ("bad-null-binding-desc", |c| c.bindings[2].desc_null = 1),
        ("bad-input-count", |c| { c.input_count_mode = 1; c.input_count_raw = 2; }),
        ("bad-output-count", |c| { c.output_count_mode = 1; c.output_count_raw = 1; }),
        ("bad-null-outputs", |c| c.array_nulls = 2),
        ("bad-binding-too-small", |c| { c.bindings[0].size_mode = 1; c.bindings[0].size_k = 4; }),
        ("bad-size-past-address-space", |c| c.bindings[1].size_mode = 3),
        // -- feature queries
        ("query-levels", |c| { c.level = L4_0; c.query = QuerySpec { feature: 2, levels: vec![3, 14, 7], ..QuerySpec::default() }; }),
        ("query-uint4", |c| { c.query = QuerySpec { feature: 1, data_type: 12, ..QuerySpec::default() }; }),
        ("query-bad-size", |c| { c.query = QuerySpec { feature: 2, nulls: 4, query_size: 8, levels: vec![1], ..QuerySpec::default() }; }),
    ];
    variants(&mut s, nz_f32_2x3, nz_changes);

    // ---- DIAGONAL_MATRIX1 on FLOAT32 {4, 5} with one thing changed
    #[rustfmt::skip]
    let d1_changes: &[(&str, Change)] = &[
        // -- valid DIAGONAL_MATRIX1
        ("d1-in-place", |c| c.bindings[1].share = 1),
        ("d1-level-5_1-poisoned", |c| { c.level = L5_1; c.after_create = 3; }),
        // -- invalid descs
        ("bad-value-type", |c| c.value_type = 3), // FLOAT16
    ];
    variants(&mut s, d1_f32, d1_changes);
    s
}
