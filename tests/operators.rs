//! The operators through the C API: the seed documents' examples verbatim, every operator and
//! data type, strides, feature levels, and each validation rule with its code and message.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod common;

use core::ptr;

use common::data_types::*;
use common::*;
use directml_subset::dml::*;
use directml_subset::ffi::dmls_operator_execute;

/// Runs a NONZERO_COORDINATES op, checked against the reference; returns (count, coordinate
/// bytes buffer).
fn run_nonzero(
    dev: &Device,
    input: &mut Tensor,
    data: &[u8],
    count: &mut Tensor,
    coords: &mut Tensor,
) -> (u32, Buffer) {
    let desc = nonzero_desc(input, count, coords);
    let op = dev.create_op(&*desc).expect("create");
    let (input, count, coords) = (input.rust(), count.rust(), coords.rust());
    let (cb, kb) = run_nonzero_checked(op.0, &input, data, &count, &coords, CANARY);
    (u32s(&cb.bytes()[..4])[0], kb)
}

/// [`run_nonzero`] with a UINT32 count tensor of `count` sizes; asserts the count and the first
/// coordinate words (`want`), and returns the coordinates buffer.
fn nonzero_rows(
    dev: &Device,
    mut input: Tensor,
    data: &[u8],
    count: &[u32],
    mut coords: Tensor,
    want: (u32, &[u32]),
) -> Buffer {
    let mut count = Tensor::new(U32, count);
    let (n, kb) = run_nonzero(dev, &mut input, data, &mut count, &mut coords);
    assert_eq!(n, want.0, "count");
    assert_eq!(&u32s(kb.bytes())[..want.1.len()], want.1, "coordinates");
    kb
}

#[test]
fn seed_nonzero_example() {
    // DML_NONZERO_COORDINATES_OPERATOR_DESC's example: {1,1,2,4} FLOAT32, N = 3.
    let dev = Device::newest();
    let kb = nonzero_rows(
        &dev,
        Tensor::new(F32, &[1, 1, 2, 4]),
        &f32_bytes(&[1.0, 0.0, 0.0, 2.0, -0.0, 3.5, 0.0, -5.2]),
        &[1, 1, 1, 1],
        Tensor::new(U32, &[1, 1, 8, 3]),
        (4, &[0, 0, 0, 0, 0, 3, 0, 1, 1, 0, 1, 3]),
    );
    // Rows from the count on are untouched.
    assert!(kb.bytes()[48..].iter().all(|&b| b == CANARY));
}

#[test]
fn seed_nonzero_order_example() {
    // "3 non-zero values at coordinates {1,0}, {1,2}, and {0,5}" → [[0,5],[1,0],[1,2]].
    let dev = Device::newest();
    let mut v = [0.0f32; 12];
    v[6] = 1.0;
    v[8] = 2.0;
    v[5] = 3.0;
    let input = Tensor::new(F32, &[2, 6]);
    let coords = Tensor::new(U32, &[12, 2]);
    let want: (u32, &[u32]) = (3, &[0, 5, 1, 0, 1, 2]);
    nonzero_rows(&dev, input, &f32_bytes(&v), &[1], coords, want);
}

#[test]
fn nonzero_feature_level_3_and_5_dims() {
    let dev = Device::new(0x3000, 1, 0);
    nonzero_rows(
        &dev,
        Tensor::new(F32, &[1, 1, 1, 2, 3]),
        &f32_bytes(&[0.0, 7.0, 0.0, 0.0, 0.0, 1.0]),
        &[1, 1, 1, 1, 1],
        Tensor::new(U32, &[1, 1, 1, 6, 2]),
        (2, &[0, 1, 1, 2]),
    );
    // Rejected at 3.x, naming the rule: (input, count and coordinates sizes, message parts).
    #[rustfmt::skip]
    let rejected: [([&[u32]; 3], &[&str]); 2] = [
        // An input of 2 dims.
        ([&[2, 3], &[1, 1], &[6, 2]], &["DimensionCount is 2", "4 or 5"]),
        // Different counts.
        ([&[1, 1, 2, 3], &[1, 1, 1, 1, 1], &[1, 1, 6, 2]], &["must be the same"]),
    ];
    for ([i, c, k], parts) in rejected {
        let (mut input, mut count, mut coords) = (
            Tensor::new(F32, i),
            Tensor::new(U32, c),
            Tensor::new(U32, k),
        );
        let desc = nonzero_desc(&mut input, &mut count, &mut coords);
        let (hr, msg) = dev.create_op(&*desc).err().unwrap();
        assert_eq!(hr, E_INVALIDARG);
        assert_has(&msg, parts);
    }
}

/// Asserts that `msg` contains every one of `parts`.
fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} lacks {p:?}");
    }
}

#[test]
fn nonzero_needs_level_3_0() {
    let dev = Device::new(0x2100, 1, 0);
    let mut input = Tensor::new(F32, &[1, 1, 2, 4]);
    let mut count = Tensor::new(U32, &[1, 1, 1, 1]);
    let mut coords = Tensor::new(U32, &[1, 1, 8, 3]);
    let desc = nonzero_desc(&mut input, &mut count, &mut coords);
    let (hr, msg) = dev.create_op(&*desc).err().unwrap();
    assert_eq!(hr, E_INVALIDARG);
    assert!(
        msg.contains("DML_FEATURE_LEVEL_3_0") && msg.contains("2_1"),
        "{msg}"
    );
}

#[test]
fn nonzero_all_input_types() {
    let dev = Device::newest();
    // Element 1 and 3 nonzero in every type; element 2 is -0.0 for floats (zero).
    for (ty, bytes) in [
        (F32, f32_bytes(&[0.0, 1.5, -0.0, f32::NAN])),
        (
            F16,
            [0u16, 0x3C00, 0x8000, 0x7E00]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect::<Vec<u8>>(),
        ),
        (
            U32,
            [0u32, 5, 0, 1 << 31]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect(),
        ),
        (
            4,
            [0u16, 5, 0, 0x8000]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect(),
        ),
        (U8, vec![0u8, 1, 0, 0x80]),
        (
            I32,
            [0i32, -1, 0, i32::MIN]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect(),
        ),
        (
            7,
            [0i16, -1, 0, i16::MIN]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect(),
        ),
        (I8, vec![0u8, 0xFF, 0, 0x80]),
    ] {
        let (input, coords) = (Tensor::new(ty, &[4]), Tensor::new(U32, &[4, 1]));
        nonzero_rows(&dev, input, &bytes, &[1], coords, (2, &[1, 3]));
    }
}

#[test]
fn nonzero_onnx_runtime_output_strides() {
    // ONNX Runtime binds {M, rank} coordinates with strides {2, 2*M} on a UINT32 view of an
    // int64 [rank, M] buffer: coordinate c of row r lands in the low half of int64 [c][r].
    let dev = Device::newest();
    let v = [0.0f32, 1.0, 0.0, 2.0, 3.0, 0.0];
    let m = 6u32;
    let mut input = Tensor::new(F32, &[2, 3]);
    let mut count = Tensor::new(U32, &[1]);
    let mut coords = Tensor::strided(U32, &[m, 2], &[2, 2 * m]);
    assert_eq!(coords.total, ((m - 1) * 2 + 2 * m + 1) as u64 * 4);
    coords.total = 2 * m as u64 * 8; // the whole int64 [2, M] buffer
    let (n, kb) = run_nonzero(&dev, &mut input, &f32_bytes(&v), &mut count, &mut coords);
    assert_eq!(n, 3);
    let words = u32s(kb.bytes());
    let row0: Vec<u32> = (0..3).map(|r| words[2 * r]).collect();
    let row1: Vec<u32> = (0..3).map(|r| words[2 * m as usize + 2 * r]).collect();
    // [[0,1,0],[2,3,0]]: nonzeros at (0,1), (1,0), (1,1).
    assert_eq!(row0, [0, 1, 1]);
    assert_eq!(row1, [1, 0, 1]);
    // High halves and rows from the count on were never written.
    for r in 0..m as usize {
        assert_eq!(words[2 * r + 1], 0xA5A5_A5A5);
        assert_eq!(words[2 * m as usize + 2 * r + 1], 0xA5A5_A5A5);
    }
    assert_eq!(words[6], 0xA5A5_A5A5);
}

#[test]
fn nonzero_broadcast_and_transposed_input() {
    let dev = Device::newest();
    // (input sizes and strides, its buffer, the count and the coordinates)
    type Case = (
        &'static [u32],
        &'static [u32],
        &'static [f32],
        u32,
        &'static [u32],
    );
    #[rustfmt::skip]
    let cases: [Case; 2] = [
        // A [3,4] view of 4 floats with stride 0 on the rows: broadcast.
        (&[3, 4], &[0, 1], &[1.0, 0.0, 2.0, 0.0], 6, &[0, 0, 0, 2, 1, 0, 1, 2, 2, 0, 2, 2]),
        // Transposed: logical [2,3] ([[1,0,3],[0,2,0]]) reading a [3,2] buffer
        // ([[1,0],[0,2],[3,0]]).
        (&[2, 3], &[1, 2], &[1.0, 0.0, 0.0, 2.0, 3.0, 0.0], 3, &[0, 0, 0, 2, 1, 1]),
    ];
    for (sizes, strides, v, n, rows) in cases {
        let m = sizes.iter().product();
        let input = Tensor::strided(F32, sizes, strides);
        let coords = Tensor::new(U32, &[m, 2]);
        nonzero_rows(&dev, input, &f32_bytes(v), &[1], coords, (n, rows));
    }
}

#[test]
fn nonzero_validation_messages() {
    let dev = Device::newest();
    let check = |input: &mut Tensor,
                 count: &mut Tensor,
                 coords: &mut Tensor,
                 hr: HRESULT,
                 parts: &[&str]| {
        let desc = nonzero_desc(input, count, coords);
        let (got, msg) = dev.create_op(&*desc).err().unwrap();
        assert_eq!(got, hr, "{msg}");
        assert!(msg.starts_with("NONZERO_COORDINATES"), "{msg}");
        assert_has(&msg, parts);
    };
    /// A tensor with some fields changed.
    fn with(mut t: Tensor, f: impl FnOnce(&mut Tensor)) -> Tensor {
        f(&mut t);
        t
    }
    let t_ = Tensor::new;
    // (input, count, coordinates, what the E_INVALIDARG message says)
    #[rustfmt::skip]
    let cases: Vec<(Tensor, Tensor, Tensor, &[&str])> = vec![
        // The api.md example message.
        (t_(F32, &[2, 4]), t_(U32, &[1]), t_(U32, &[1, 1, 6, 2]), &["OutputCoordinatesTensor Sizes[2] (M) is 6, must equal the input's element count 8"]),
        (t_(F32, &[1, 2, 4]), t_(U32, &[1]), t_(U32, &[8, 1]), &["(N) is 1", "effective rank 2"]),
        (t_(F32, &[2, 4]), t_(U32, &[1]), t_(U32, &[8, 3]), &["(N) is 3", "DimensionCount 2"]),
        (t_(F32, &[2, 4]), t_(U32, &[2]), t_(U32, &[8, 2]), &["OutputCountTensor Sizes[0] is 2"]),
        (t_(F32, &[2, 4]), t_(I32, &[1]), t_(U32, &[8, 2]), &["OutputCountTensor DataType is INT32 (6), must be UINT32"]),
        (t_(F64, &[2, 4]), t_(U32, &[1]), t_(U32, &[8, 2]), &["InputTensor DataType is FLOAT64", "DMLS_DEVICE_FLAG_EXTENSIONS"]),
        (t_(F32, &[2, 4]), t_(U64, &[1]), t_(U64, &[8, 2]), &["DMLS_DEVICE_FLAG_EXTENSIONS"]),
        (t_(12, &[2, 4]), t_(U32, &[1]), t_(U32, &[8, 2]), &["UINT4 (12)"]),
        (t_(F32, &[2, 4]), t_(U32, &[1]), t_(U32, &[2, 8, 2]), &["OutputCoordinatesTensor Sizes[0] is 2"]),
        (t_(F32, &[2, 4]), t_(U32, &[1]), t_(U32, &[16]), &["OutputCoordinatesTensor DimensionCount is 1, must be 2 to 8"]),
        (with(t_(F32, &[2, 4]), |t| t.sizes[1] = 0), t_(U32, &[1]), t_(U32, &[8, 2]), &["InputTensor Sizes[1] is 0"]),
        (with(t_(F32, &[2, 4]), |t| t.total = 28), t_(U32, &[1]), t_(U32, &[8, 2]), &["TotalTensorSizeInBytes is 28, less than the 32 bytes"]),
        (with(t_(F32, &[2, 4]), |t| t.total = 34), t_(U32, &[1]), t_(U32, &[8, 2]), &["TotalTensorSizeInBytes is 34, must be a multiple of 4"]),
        (with(t_(F32, &[2, 4]), |t| t.flags = 1), t_(U32, &[1]), t_(U32, &[8, 2]), &["OWNED_BY_DML"]),
        (with(t_(F32, &[2, 4]), |t| t.alignment = 2), t_(U32, &[1]), t_(U32, &[8, 2]), &["GuaranteedBaseOffsetAlignment is 2"]),
        (with(t_(F32, &[2, 4]), |t| t.dims_override = Some(9)), t_(U32, &[1]), t_(U32, &[8, 2]), &["InputTensor DimensionCount is 9"]),
        (with(t_(F32, &[65536, 65536]), |t| t.total = !3), t_(U32, &[1]), t_(U32, &[65536, 2]), &["4294967296 elements"]),
        (with(Tensor::strided(F32, &[2, 4], &[u32::MAX, u32::MAX]), |t| t.total = 64), t_(U32, &[1]), t_(U32, &[8, 2]), &["TotalTensorSizeInBytes is 64, less than"]),
    ];
    for (mut input, mut count, mut coords, parts) in cases {
        check(&mut input, &mut count, &mut coords, E_INVALIDARG, parts);
    }
}

/// Runs a DIAGONAL_MATRIX1 operator (output starting as CANARY) and asserts that every output
/// byte equals the reference's; returns the output.
fn run_diag1(
    dev: &Device,
    input: Option<(&mut Tensor, &[u8])>,
    output: &mut Tensor,
    value: [u8; 8],
    b: i32,
    e: i32,
) -> Buffer {
    let (it, data) = match input {
        Some((t, d)) => (Some(t), Some(d)),
        None => (None, None),
    };
    let in_desc = it.as_ref().map(|t| t.rust());
    let desc = diag1_desc(it, output, value, b, e);
    let op = dev.create_op(&*desc).expect("create");
    let input = in_desc.as_ref().zip(data);
    run_diag1_checked(op.0, input, &output.rust(), (value, b, e), CANARY)
}

fn seed_input() -> Vec<u8> {
    f32_bytes(&[
        4., 7., 3., 7., 9., 1., 2., 8., 6., 9., 9., 4., 1., 8., 7., 4., 3., 4., 2., 4.,
    ])
}

#[test]
fn seed_diagonal_matrix1_examples() {
    let dev = Device::newest();
    let data = seed_input();
    // (input given, Value, DiagonalFillBegin, DiagonalFillEnd, the {4,5} output)
    #[rustfmt::skip]
    let cases: [(bool, f32, i32, i32, [f32; 20]); 5] = [
        // Default identity matrix (the page says Value 7 but shows ones; the pseudocode gives 7).
        (false, 7.0, 0, 1, [7., 0., 0., 0., 0., 0., 7., 0., 0., 0., 0., 0., 7., 0., 0., 0., 0., 0., 7., 0.]),
        (false, 1.0, 0, 1, [1., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0., 1., 0.]),
        // A 3-wide strip.
        (false, 7.0, 0, 3, [7., 7., 7., 0., 0., 0., 7., 7., 7., 0., 0., 0., 7., 7., 7., 0., 0., 0., 7., 7.]),
        // Keep the strictly upper triangle.
        (true, 0.0, i32::MIN, 1, [0., 7., 3., 7., 9., 0., 0., 8., 6., 9., 0., 0., 0., 8., 7., 0., 0., 0., 0., 4.]),
        // Keep only the diagonal.
        (true, 0.0, 1, 0, [4., 0., 0., 0., 0., 0., 2., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0., 2., 0.]),
    ];
    for (with_input, value, begin, end, want) in cases {
        let mut input = Tensor::new(F32, &[4, 5]);
        let input = with_input.then_some((&mut input, &data[..]));
        let mut output = Tensor::new(F32, &[4, 5]);
        let ob = run_diag1(&dev, input, &mut output, f32_value(value), begin, end);
        assert_eq!(
            f32s(ob.bytes()),
            want,
            "Value {value} begin {begin} end {end}"
        );
    }
}

#[test]
fn diagonal_matrix1_extreme_bounds() {
    let dev = Device::newest();
    let data = seed_input();
    for (b, e) in [
        (i32::MIN, i32::MAX),
        (i32::MAX, i32::MIN),
        (i32::MIN, i32::MIN),
        (i32::MAX, i32::MAX),
        (0, i32::MAX),
        (i32::MIN, 0),
        (3, 3),
    ] {
        let mut input = Tensor::new(F32, &[4, 5]);
        let mut output = Tensor::new(F32, &[4, 5]);
        // Compared with the reference (every byte) inside.
        run_diag1(
            &dev,
            Some((&mut input, &data)),
            &mut output,
            f32_value(-1.0),
            b,
            e,
        );
    }
}

#[test]
fn diagonal_matrix1_in_place_and_overlap() {
    let dev = Device::newest();
    let mut input = Tensor::new(F32, &[4, 5]);
    let mut output = Tensor::new(F32, &[4, 5]);
    let desc = diag1_desc(Some(&mut input), &mut output, f32_value(0.0), i32::MIN, 1);
    let op = dev.create_op(&*desc).unwrap();
    let mut buf = Buffer::with_bytes(&seed_input());
    let b = buf.binding();
    execute(&op, &[bind(&b)], &[bind(&b)]).expect("in place");
    assert_eq!(
        f32s(buf.bytes()),
        [0., 7., 3., 7., 9., 0., 0., 8., 6., 9., 0., 0., 0., 8., 7., 0., 0., 0., 0., 4.]
    );
    // Overlapping but not the same address: rejected, nothing written.
    let mut big = Buffer::new(80 + 16);
    let before = big.all().to_vec();
    let mut b1 = big.binding();
    b1.SizeInBytes = 80;
    let mut b2 = big.binding();
    b2.Offset += 16;
    b2.SizeInBytes = 80;
    let (hr, msg) = execute(&op, &[bind(&b1)], &[bind(&b2)]).unwrap_err();
    assert_eq!(hr, E_INVALIDARG);
    assert!(msg.contains("overlaps"), "{msg}");
    assert_eq!(big.all(), &before[..]);
}

#[test]
fn diagonal_matrix1_all_types_batched_strided() {
    let dev = Device::newest();
    for ty in 1..=11u32 {
        let size = [0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8][ty as usize];
        let sizes = [2u32, 3, 4, 5];
        let mut input = Tensor::new(ty, &sizes);
        let n: usize = sizes.iter().product::<u32>() as usize;
        let data: Vec<u8> = (0..n * size).map(|i| (i * 7 + 3) as u8).collect();
        // Output strided with padding: row pitch 7 elements.
        let mut output = Tensor::strided(ty, &sizes, &[3 * 4 * 7, 4 * 7, 7, 1]);
        let mut value = [0u8; 8];
        for (i, v) in value.iter_mut().enumerate() {
            *v = 0x10 + i as u8;
        }
        // Compared with the reference (every byte, padding included) inside.
        run_diag1(&dev, Some((&mut input, &data)), &mut output, value, -1, 2);
    }
}

#[test]
fn diagonal_matrix1_validation() {
    let dev = Device::newest();
    // (input type and sizes, FLOAT32 output sizes, ValueDataType, what the message says)
    type Input = Option<(u32, &'static [u32])>;
    #[rustfmt::skip]
    let cases: [(Input, &[u32], u32, &[&str]); 6] = [
        (None, &[4, 5], I32, &["ValueDataType is INT32 (6), must equal OutputTensor's DataType FLOAT32"]),
        (None, &[5], F32, &["OutputTensor DimensionCount is 1, must be 2 to 4"]),
        (None, &[1, 1, 1, 4, 5], F32, &["DimensionCount is 5"]),
        (Some((I32, &[4, 5])), &[4, 5], F32, &["InputTensor DataType is INT32"]),
        (Some((F32, &[4, 6])), &[4, 5], F32, &["InputTensor Sizes [4, 6] must equal OutputTensor Sizes [4, 5]"]),
        (Some((F32, &[1, 4, 5])), &[4, 5], F32, &["InputTensor DimensionCount is 3"]),
    ];
    for (input, output, vt, parts) in cases {
        let mut input = input.map(|(t, sizes)| Tensor::new(t, sizes));
        let mut output = Tensor::new(F32, output);
        let mut desc = diag1_desc(input.as_mut(), &mut output, [0; 8], 0, 1);
        desc.ValueDataType = DML_TENSOR_DATA_TYPE(vt);
        let (hr, msg) = dev.create_op(&*desc).err().unwrap();
        assert_eq!(hr, E_INVALIDARG, "{msg}");
        assert_has(&msg, parts);
    }
    let old = Device::new(0x5000, 1, 0);
    let mut out = Tensor::new(F32, &[4, 5]);
    let desc = diag1_desc(None, &mut out, [0; 8], 0, 1);
    let (hr, msg) = old.create_op(&*desc).err().unwrap();
    assert_eq!(hr, E_INVALIDARG);
    assert!(
        msg.contains("DML_FEATURE_LEVEL_5_1") && msg.contains("5_0"),
        "{msg}"
    );
}

fn diag0(
    dev: &Device,
    out: &mut Tensor,
    offset: i32,
    value: f32,
) -> Result<Buffer, (HRESULT, String)> {
    let op = dev.create_op(&diag_desc(out, offset, value))?;
    let mut ob = Buffer::new(out.total as usize);
    let obb = ob.binding();
    // SAFETY: NULL pointers are what is tested; every other pointer is a live handle or a local binding array of the count given.
    let hr = unsafe { dmls_operator_execute(op.0, 0, ptr::null(), 1, &bind(&obb)) };
    assert_eq!(hr, S_OK, "{}", last_error());
    assert!(ob.guards_intact());
    Ok(ob)
}

#[test]
fn diagonal_matrix_conversions_and_levels() {
    let words = |w: &[i32]| -> Vec<u8> { w.iter().flat_map(|v| v.to_ne_bytes()).collect() };
    // (feature level, type, sizes, Offset, Value, the output's first bytes, or what the
    // E_INVALIDARG message says)
    type Case = (
        u32,
        u32,
        &'static [u32],
        i32,
        f32,
        Result<Vec<u8>, &'static str>,
    );
    #[rustfmt::skip]
    let cases: [Case; 11] = [
        (0, I32, &[3, 3], 0, 10.6, Ok(words(&[10, 0, 0, 0, 10, 0, 0, 0, 10]))),
        (0, I32, &[3, 3], 1, -10.6, Ok(words(&[0, -10, 0, 0, 0, -10, 0, 0, 0]))),
        // 1 + 2^-12 rounds to nearest even: 1.0 (0x3C00).
        (0, F16, &[2, 2], 0, 1.0 + 1.0 / 4096.0, Ok(0x3C00u16.to_ne_bytes().to_vec())),
        (0, F64, &[2, 2], i32::MAX, 2.5, Ok(vec![0; 32])),
        (0, U8, &[2, 3], -1, 300.0, Ok(vec![0, 0, 0, 255, 0, 0])),
        // Levels: 2.0 has only 4-dim FLOAT32/16; 2.1 adds the small ints; 5.1 the 64-bit types.
        (0x2000, F32, &[1, 1, 3, 3], 0, 1.0, Ok(vec![])),
        (0x2000, I32, &[1, 1, 3, 3], 0, 1.0, Err("2_1")),
        (0x2000, F32, &[3, 3], 0, 1.0, Err("must be 4")),
        (0x4000, I8, &[3, 3], 0, 1.0, Ok(vec![])),
        (0x4000, I64, &[3, 3], 0, 1.0, Err("5_1")),
        (0x1000, F32, &[1, 1, 3, 3], 0, 1.0, Err("DML_FEATURE_LEVEL_2_0")),
    ];
    for (level, ty, sizes, offset, value, want) in cases {
        let what =
            format!("level {level:#x} type {ty} sizes {sizes:?} offset {offset} value {value}");
        let dev = Device::new(level, 1, 0);
        match (
            diag0(&dev, &mut Tensor::new(ty, sizes), offset, value),
            want,
        ) {
            (Ok(ob), Ok(bytes)) => assert_eq!(&ob.bytes()[..bytes.len()], &bytes[..], "{what}"),
            (Err((hr, msg)), Err(part)) => {
                assert_eq!(hr, E_INVALIDARG, "{what}: {msg}");
                assert!(msg.contains(part), "{what}: {msg:?} lacks {part:?}");
            }
            (got, _) => panic!("{what}: got {:?}", got.map(|ob| ob.bytes().to_vec())),
        }
    }
}
