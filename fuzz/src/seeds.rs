//! The seed corpus: valid operators of every kind (the shapes real programs use, the parallel
//! paths, strides, in place) and one input for each kind of invalid call, so fuzzing starts
//! from both sides of every rule. `cargo test --test corpus -- --ignored write_seed_corpus`
//! (with `DMLS_WRITE_SEEDS=1`) writes them to `corpus/<target>/seed-<name>`.

use crate::{BindingSpec, Case, QuerySpec, TensorSpec};
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

/// Every seed, by name.
pub fn seeds() -> Vec<(&'static str, Case)> {
    let mut s: Vec<(&'static str, Case)> = Vec::new();

    // ---- valid NONZERO_COORDINATES
    s.push(("nz-f32-2x3", nz_f32_2x3()));
    let mut c = nz(
        t(T::FLOAT32, &[1, 1, 2, 3]),
        t(T::UINT32, &[1, 1, 1, 1]),
        t(T::UINT32, &[1, 1, 6, 2]),
    );
    c.level = L3_0;
    s.push(("nz-level-3_0-4d", c));
    // ONNX Runtime: coordinates transposed into the low halves of int64s, strides {2, 2M}.
    s.push((
        "nz-onnxruntime-transposed",
        nz(
            t(T::INT32, &[3, 4]),
            t(T::UINT32, &[1]),
            TensorSpec::strided(T::UINT32, &[12, 2], &[2, 24]),
        ),
    ));
    let mut c = nz(
        t(T::FLOAT64, &[5, 7]),
        t(T::UINT64, &[1]),
        t(T::UINT64, &[35, 2]),
    );
    c.flags = 1;
    s.push(("nz-extensions-f64-u64", c));
    let mut c = nz(
        t(T::FLOAT16, &[4, 4, 4]),
        t(T::UINT32, &[1, 1]),
        t(T::UINT32, &[64, 3]),
    );
    c.zero_eighths = 4;
    s.push(("nz-f16-3d", c));
    s.push((
        "nz-int8-8d",
        nz(
            t(T::INT8, &[2, 1, 2, 1, 2, 1, 2, 3]),
            t(T::UINT32, &[1]),
            t(T::UINT32, &[48, 8]),
        ),
    ));
    s.push((
        "nz-scalar",
        nz(t(T::UINT8, &[1]), t(T::UINT32, &[1]), t(T::UINT32, &[1, 1])),
    ));
    s.push((
        "nz-broadcast-input",
        nz(
            TensorSpec::strided(T::UINT16, &[3, 4], &[0, 1]),
            t(T::UINT32, &[1]),
            t(T::UINT32, &[12, 2]),
        ),
    ));
    s.push((
        "bad-nz-aliased-coordinates",
        nz(
            t(T::INT16, &[2, 5]),
            t(T::UINT32, &[1]),
            TensorSpec::strided(T::UINT32, &[10, 2], &[1, 0]),
        ),
    ));
    // Interleaved but disjoint: row r, column c at 2r + 3c (no two meet).
    s.push((
        "nz-interleaved-coordinates",
        nz(
            t(T::INT16, &[2, 5]),
            t(T::UINT32, &[1]),
            TensorSpec::strided(T::UINT32, &[10, 2], &[2, 3]),
        ),
    ));
    let mut c = nz(
        t(T::UINT8, &[140_000]),
        t(T::UINT32, &[1]),
        t(T::UINT32, &[140_000, 1]),
    );
    c.threads = 2;
    c.zero_eighths = 6;
    s.push(("nz-parallel-140000", c));
    let mut c = nz_f32_2x3();
    c.after_create = 3;
    s.push(("nz-poisoned-descs-released-device", c));

    // ---- valid DIAGONAL_MATRIX1
    s.push(("d1-f32-band", d1_f32()));
    s.push((
        "d1-trilu-upper",
        d1(
            Some(t(T::FLOAT32, &[4, 5])),
            t(T::FLOAT32, &[4, 5]),
            i32::MIN,
            1,
            [0; 8],
        ),
    ));
    s.push((
        "d1-trilu-lower",
        d1(
            Some(t(T::INT32, &[2, 6, 3])),
            t(T::INT32, &[2, 6, 3]),
            0,
            i32::MAX,
            [0; 8],
        ),
    ));
    let mut c = d1_f32();
    c.bindings[1].share = 1;
    s.push(("d1-in-place", c));
    s.push((
        "d1-no-input",
        d1(None, t(T::UINT16, &[3, 7]), -2, 3, [9, 0, 0, 0, 0, 0, 0, 0]),
    ));
    s.push((
        "d1-int64-strided",
        d1(
            Some(TensorSpec::strided(T::INT64, &[2, 3, 4], &[1, 2, 6])),
            TensorSpec::strided(T::INT64, &[2, 3, 4], &[16, 5, 1]),
            -1,
            2,
            (-5i64).to_ne_bytes(),
        ),
    ));
    let mut nan = [0u8; 8];
    nan[..2].copy_from_slice(&0x7E01u16.to_ne_bytes());
    s.push((
        "d1-f16-nan-payload",
        d1(
            Some(t(T::FLOAT16, &[3, 3])),
            t(T::FLOAT16, &[3, 3]),
            1,
            -1,
            nan,
        ),
    ));
    let mut c = d1(None, t(T::FLOAT32, &[512, 520]), -3, 4, f32_value(1.0));
    c.threads = 3;
    s.push(("d1-parallel-512x520", c));
    let mut c = d1_f32();
    c.level = L5_1;
    c.after_create = 3;
    s.push(("d1-level-5_1-poisoned", c));

    // ---- valid DIAGONAL_MATRIX
    let mut c = d0(t(T::FLOAT16, &[1, 1, 4, 4]), 1, 1.0);
    c.level = L2_0;
    s.push(("d0-level-2_0-f16", c));
    let mut c = d0(t(T::INT8, &[1, 2, 3, 3]), 0, -1.5);
    c.level = L2_1;
    s.push(("d0-level-2_1-int8", c));
    s.push(("d0-int32-truncate", d0(t(T::INT32, &[5, 3]), -1, 10.6)));
    s.push(("d0-uint8-saturate", d0(t(T::UINT8, &[4, 4]), 2, 300.0)));
    let mut c = d0(t(T::UINT16, &[3, 3]), 0, 1.0);
    c.level = L4_0;
    s.push(("d0-level-4_0-2d", c));
    s.push((
        "d0-strided-f64",
        d0(TensorSpec::strided(T::FLOAT64, &[3, 4], &[8, 2]), -1, 2.5),
    ));

    // ---- invalid descs
    let mut c = nz_f32_2x3();
    c.tensors[0].null = 1;
    s.push(("bad-null-input", c));
    let mut c = nz_f32_2x3();
    c.tensors[2].desc_null = 1;
    s.push(("bad-null-tensor-desc", c));
    let mut c = nz_f32_2x3();
    c.tensors[1].sizes_null = 1;
    s.push(("bad-null-sizes", c));
    let mut c = nz_f32_2x3();
    c.desc_null = 1;
    s.push(("bad-null-op-desc", c));
    let mut c = nz_f32_2x3();
    c.desc_null = 2;
    s.push(("bad-null-device", c));
    let mut c = nz_f32_2x3();
    c.tensors[0].dims = 9;
    c.tensors[0].sizes = vec![1; 8];
    s.push(("bad-dims-9", c));
    let mut c = nz_f32_2x3();
    c.tensors[0].dims = u32::MAX;
    c.tensors[0].sizes = vec![2, 3];
    s.push(("bad-dims-huge", c));
    let mut c = nz_f32_2x3();
    c.tensors[0].dims = 0;
    s.push(("bad-dims-0", c));
    let mut c = nz_f32_2x3();
    c.tensors[0].sizes = vec![2, 0];
    s.push(("bad-size-0", c));
    s.push((
        "bad-elements-2^32",
        nz(
            t(T::UINT8, &[65536, 65536]),
            t(T::UINT32, &[1]),
            t(T::UINT32, &[u32::MAX, 2]),
        ),
    ));
    let mut out = TensorSpec::strided(T::FLOAT64, &[u32::MAX, 1], &[u32::MAX, 1]);
    out.total_mode = 3;
    out.total_k = u64::MAX - 15;
    s.push(("bad-extent-overflow", d1(None, out, 0, 1, [0; 8])));
    let mut c = nz_f32_2x3();
    c.tensors[0].total_mode = 4;
    c.tensors[0].total_k = 2;
    s.push(("bad-total-not-multiple-of-4", c));
    let mut c = nz_f32_2x3();
    c.tensors[2].total_mode = 2;
    c.tensors[2].total_k = 4;
    s.push(("bad-total-too-small", c));
    let mut c = nz_f32_2x3();
    c.tensors[0].alignment = 3;
    s.push(("bad-alignment", c));
    let mut c = nz_f32_2x3();
    c.tensors[0].flags = 1;
    s.push(("bad-flags-owned-by-dml", c));
    let mut c = nz_f32_2x3();
    c.tensors[1].data_type = 7; // INT32
    s.push(("bad-count-type", c));
    let mut c = nz_f32_2x3();
    c.level = L2_1;
    s.push(("bad-nonzero-level-2_1", c));
    let mut c = d1_f32();
    c.value_type = 3; // FLOAT16
    s.push(("bad-value-type", c));
    let mut c = d0(t(T::FLOAT64, &[1, 1, 3, 3]), 0, 1.0);
    c.level = L4_0;
    s.push(("bad-d0-f64-level-4_0", c));
    let mut c = nz_f32_2x3();
    c.op = 3;
    c.op_raw = 103;
    s.push(("bad-op-not-implemented", c));
    let mut c = nz_f32_2x3();
    c.op = 3;
    c.op_raw = 178;
    s.push(("bad-op-unknown", c));
    let mut c = nz_f32_2x3();
    c.level = 16;
    c.level_raw = 0x6500;
    s.push(("bad-device-level-6_5", c));
    let mut c = nz_f32_2x3();
    c.flags = 6;
    c.threads = 4;
    s.push(("bad-device-flags-threads", c));

    // ---- invalid bindings
    let mut c = nz_f32_2x3();
    c.bindings[2].offset_mode = 2;
    s.push(("bad-offset-past-address-space", c));
    let mut c = nz_f32_2x3();
    c.bindings[0].offset_mode = 1;
    c.bindings[0].offset_k = 8;
    s.push(("bad-offset-not-16", c));
    let mut c = nz_f32_2x3();
    c.bindings[2].share = 2;
    s.push(("bad-outputs-overlap", c));
    let mut c = nz_f32_2x3();
    c.bindings[1].share = 1;
    c.bindings[1].offset_k = 1;
    s.push(("bad-output-over-input", c));
    let mut c = nz_f32_2x3();
    c.bindings[0].shift = 2;
    s.push(("bad-misaligned-buffer", c));
    let mut c = nz_f32_2x3();
    c.bindings[1].ty = 2;
    s.push(("bad-buffer-array", c));
    let mut c = nz_f32_2x3();
    c.bindings[1].ty = 3;
    c.bindings[1].ty_raw = 77;
    s.push(("bad-binding-type", c));
    let mut c = nz_f32_2x3();
    c.bindings[0].buffer_null = 1;
    s.push(("bad-null-buffer", c));
    let mut c = nz_f32_2x3();
    c.bindings[2].desc_null = 1;
    s.push(("bad-null-binding-desc", c));
    let mut c = nz_f32_2x3();
    c.input_count_mode = 1;
    c.input_count_raw = 2;
    s.push(("bad-input-count", c));
    let mut c = nz_f32_2x3();
    c.output_count_mode = 1;
    c.output_count_raw = 1;
    s.push(("bad-output-count", c));
    let mut c = nz_f32_2x3();
    c.array_nulls = 2;
    s.push(("bad-null-outputs", c));
    let mut c = nz_f32_2x3();
    c.bindings[0].size_mode = 1;
    c.bindings[0].size_k = 4;
    s.push(("bad-binding-too-small", c));
    let mut c = nz_f32_2x3();
    c.bindings[1].size_mode = 3;
    s.push(("bad-size-past-address-space", c));
    let mut c = d1(
        Some(TensorSpec::strided(T::FLOAT32, &[4, 5], &[1, 4])),
        t(T::FLOAT32, &[4, 5]),
        0,
        1,
        [0; 8],
    );
    c.bindings[1].share = 1;
    s.push(("bad-in-place-other-layout", c));
    let mut c = d1(None, t(T::FLOAT32, &[4, 5]), 0, 1, [0; 8]);
    c.bindings[0] = BindingSpec::default();
    s.push(("bad-input-bound-without-desc", c));

    // ---- feature queries
    let mut c = nz_f32_2x3();
    c.level = L4_0;
    c.query = QuerySpec {
        feature: 2,
        levels: vec![3, 14, 7],
        ..QuerySpec::default()
    };
    s.push(("query-levels", c));
    let mut c = nz_f32_2x3();
    c.query = QuerySpec {
        feature: 1,
        data_type: 12,
        ..QuerySpec::default()
    };
    s.push(("query-uint4", c));
    let mut c = nz_f32_2x3();
    c.query = QuerySpec {
        feature: 2,
        nulls: 4,
        query_size: 8,
        levels: vec![1],
        ..QuerySpec::default()
    };
    s.push(("query-bad-size", c));
    s
}
