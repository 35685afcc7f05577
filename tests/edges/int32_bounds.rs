//! DIAGONAL_MATRIX1 fill bounds and DIAGONAL_MATRIX offsets at and near INT32_MIN and INT32_MAX.

use crate::common::*;
use crate::{run_diagonal1, value_of, words};
use directml_subset::reference;
use directml_subset::{DataType, TensorDesc};

const BOUNDS: [i32; 11] = [
    i32::MIN,
    i32::MIN + 1,
    -5,
    -1,
    0,
    1,
    2,
    5,
    i32::MAX - 1,
    i32::MAX,
    -3,
];

/// DiagonalFillBegin and DiagonalFillEnd at and near INT32_MIN and INT32_MAX (ONNX Trilu's
/// mapping among them), every pair, against the reference and the rule computed here.
#[test]
fn fill_bounds_at_int32_min_and_max() {
    let out = TensorDesc::new(DataType::Int32, &[2, 5, 7]);
    let input = TensorDesc::new(DataType::Int32, &[2, 5, 7]);
    let data: Vec<i32> = (0..70).map(|i| 1000 + i).collect();
    let data = words(&data);
    let value = value_of(&(-9i32).to_ne_bytes());
    for &begin in &BOUNDS {
        for &end in &BOUNDS {
            let got = run_diagonal1(Some((&input, &data)), &out, value, begin, end);
            let got: &[i32] = bytemuck::cast_slice(&got);
            for (i, &v) in got.iter().enumerate() {
                let (y, x) = ((i / 7) % 5, i % 7);
                let top = x as i64 - y as i64;
                let (b, e) = (i64::from(begin), i64::from(end));
                let fill = (e >= b) ^ (top >= b) ^ (top < e);
                assert_eq!(
                    v,
                    if fill { -9 } else { 1000 + i as i32 },
                    "[{begin}, {end}) {i}"
                );
            }
        }
    }
    // Begin = INT32_MIN, End = INT32_MAX fills everything; the reverse fills nothing.
    let all = run_diagonal1(None, &out, value, i32::MIN, i32::MAX);
    assert!(bytemuck::cast_slice::<u8, i32>(&all)
        .iter()
        .all(|&v| v == -9));
    let none = run_diagonal1(Some((&input, &data)), &out, value, i32::MAX, i32::MIN);
    assert_eq!(none, data);
}

/// DIAGONAL_MATRIX's Offset at INT32_MIN and INT32_MAX: `y + Offset` must not wrap.
#[test]
fn diagonal_matrix_offsets_at_int32_bounds() {
    let dev = Device::newest();
    let out = TensorDesc::new(DataType::Float32, &[4, 6]);
    for offset in [
        i32::MIN,
        i32::MIN + 1,
        -6,
        -3,
        0,
        5,
        6,
        i32::MAX - 1,
        i32::MAX,
    ] {
        let op = dev.diagonal(&out, offset, 3.0).expect("create");
        let mut ob = Buffer::filled(out.total_size, 0xCD);
        let bo = ob.binding();
        execute(&op, &[], &[bind(&bo)]).expect("execute");
        let mut want = vec![0xCDu8; out.total_size as usize];
        reference::diagonal_matrix(&out, &mut want, offset, 3.0);
        assert_eq!(ob.bytes(), &want[..], "offset {offset}");
        let ones = bytemuck::cast_slice::<u8, f32>(ob.bytes())
            .iter()
            .filter(|&&v| v == 3.0)
            .count();
        let expect = (0..4i64)
            .filter(|&y| (0..6).contains(&(y + i64::from(offset))))
            .count();
        assert_eq!(ones, expect, "offset {offset}");
    }
}
