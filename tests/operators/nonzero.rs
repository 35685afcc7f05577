//! NONZERO_COORDINATES: the seed examples, feature levels, every input type, ONNX Runtime's
//! output strides, broadcast and transposed inputs, and the validation messages.

use super::*;

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
    let rejected: [([&[u32]; 3], &[&str]); 3] = [
        // An input of 2 dims.
        ([&[2, 3], &[1, 1], &[6, 2]], &["DimensionCount is 2", "4 or 5", "(1 to 8 from"]),
        // Coordinates of 1 dim, which no level allows.
        ([&[1, 1, 2, 3], &[1, 1, 1, 1], &[6]],
            &["OutputCoordinatesTensor DimensionCount is 1", "(2 to 8 from"]),
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
        // The example message of the API's specification.
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

#[test]
fn an_unknown_input_type_lists_the_types_the_device_allows() {
    // (flags, whether the extension types are listed): 1 is DMLS_DEVICE_FLAG_EXTENSIONS.
    for (flags, extensions) in [(0, false), (1, true)] {
        let dev = Device::new(0x6400, 1, flags);
        let (mut input, mut count, mut coords) = (
            Tensor::new(12, &[2, 4]),
            Tensor::new(U32, &[1]),
            Tensor::new(U32, &[8, 2]),
        );
        let desc = nonzero_desc(&mut input, &mut count, &mut coords);
        let (hr, msg) = dev.create_op(&*desc).err().unwrap();
        assert_eq!(hr, E_INVALIDARG);
        assert_has(&msg, &["InputTensor DataType is UINT4 (12)", "UINT8"]);
        assert_eq!(msg.contains("FLOAT64, INT64, UINT64"), extensions, "{msg}");
    }
}

/// The safe API's in place on NONZERO_COORDINATES, which cannot run in place: refused as such,
/// not as an input too small for its first output (the count).
#[test]
fn rust_in_place_nonzero_is_refused_as_in_place() {
    use directml_subset::{DataType, Error, Input, OperatorDesc, TensorDesc};
    let dev = rust_device(1);
    let op = dev
        .create_operator(&OperatorDesc::NonZeroCoordinates {
            input: TensorDesc::new(DataType::Float32, &[2, 4]),
            output_count: TensorDesc::new(DataType::UInt32, &[1]),
            output_coordinates: TensorDesc::new(DataType::UInt32, &[8, 2]),
        })
        .expect("create");
    let (mut count, mut coords) = ([0x55u8; 4], [0x55u8; 64]);
    let err = op
        .execute(&[Input::InPlace], &mut [&mut count[..], &mut coords[..]])
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArg(m) if m.contains("InputTensor cannot share memory with an output")),
        "{err}"
    );
    assert!(
        count.iter().chain(&coords).all(|&b| b == 0x55),
        "nothing written"
    );
}
