//! DIAGONAL_MATRIX1 and DIAGONAL_MATRIX: the seed examples, extreme bounds, in place and
//! overlap, every type batched and strided, and the validation messages.

use super::*;

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

/// The 4×5 seed input's upper triangle (k = 1) run in place through `input` and `output`
/// (descs of its 20 elements): returns the operator.
fn upper_in_place(dev: &Device, input: &mut Tensor, output: &mut Tensor, what: &str) -> Operator {
    let desc = diag1_desc(Some(input), output, f32_value(0.0), i32::MIN, 1);
    let op = dev.create_op(&*desc).unwrap();
    let mut buf = Buffer::with_bytes(&seed_input());
    let b = buf.binding();
    execute(&op, &[bind(&b)], &[bind(&b)]).expect(what);
    assert_eq!(
        f32s(buf.bytes()),
        [0., 7., 3., 7., 9., 0., 0., 8., 6., 9., 0., 0., 0., 8., 7., 0., 0., 0., 0., 4.],
        "{what}"
    );
    op
}

#[test]
fn diagonal_matrix1_in_place_and_overlap() {
    let dev = Device::newest();
    let (mut input, mut output) = (Tensor::new(F32, &[4, 5]), Tensor::new(F32, &[4, 5]));
    let op = upper_in_place(&dev, &mut input, &mut output, "in place");
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
    // In place with an input desc whose TotalTensorSizeInBytes exceeds the output's: the
    // binding holds the input's total, which is all the C API asks.
    let mut wide_input = Tensor::raw(F32, &[4, 5], None, 1 << 12);
    let mut output = Tensor::new(F32, &[4, 5]);
    let desc = diag1_desc(
        Some(&mut wide_input),
        &mut output,
        f32_value(0.0),
        i32::MIN,
        1,
    );
    let op = dev.create_op(&*desc).unwrap();
    let mut wide = Buffer::new(1 << 12);
    wide.bytes_mut()[..80].copy_from_slice(&seed_input());
    let b = wide.binding();
    execute(&op, &[bind(&b)], &[bind(&b)]).expect("in place, input total past the output's");
    assert_eq!(
        f32s(&wide.bytes()[..80]),
        [0., 7., 3., 7., 9., 0., 0., 8., 6., 9., 0., 0., 0., 8., 7., 0., 0., 0., 0., 4.]
    );
    // In place where the strides differ only on a dimension of size 1 (which places no
    // element): every element is at the same address, so it runs in place.
    let mut input = Tensor::strided(F32, &[1, 4, 5], &[0, 5, 1]);
    let mut output = Tensor::new(F32, &[1, 4, 5]);
    upper_in_place(
        &dev,
        &mut input,
        &mut output,
        "in place, a size-1 stride aside",
    );
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

/// The safe API's in place: the input's own TotalTensorSizeInBytes must fit in the output's
/// memory, as a C caller's input binding must hold it.
#[test]
fn rust_in_place_checks_the_inputs_total_too() {
    use directml_subset::{DataType, Error, Input, TensorDesc};
    let dev = rust_device(1);
    let output = TensorDesc::new(DataType::Float32, &[4, 5]);
    let input = TensorDesc::new(DataType::Float32, &[4, 5]).total_size(1 << 20);
    let op = dev
        .create_operator(&diagonal1_op(Some(input), output, [0; 8], i32::MIN, 1))
        .expect("create");
    #[repr(align(16))]
    struct Aligned([u8; 80]);
    let mut aligned = Aligned([0x55; 80]);
    let buf = &mut aligned.0;
    let err = op
        .execute(&[Input::InPlace], &mut [&mut buf[..]])
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArg(m) if m.contains("InputTensor is bound to 80 bytes")),
        "{err}"
    );
    assert!(buf.iter().all(|&b| b == 0x55), "nothing written");
    // With the input's total as the output's, in place runs.
    let same = dev
        .create_operator(&diagonal1_op(Some(output), output, [0; 8], i32::MIN, 1))
        .expect("create");
    same.execute(&[Input::InPlace], &mut [&mut buf[..]])
        .expect("in place");
}
