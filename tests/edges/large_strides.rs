//! Strides near 2^32: validated in 64 bits, and executed like packed tensors on dimensions
//! of size 1.

use crate::common::*;
use crate::{run_diagonal1, run_nonzero, value_of, with_total, words};
use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::reference;
use directml_subset::{DataType, TensorDesc};

/// Strides near 2^32 validate with 64-bit extents (DirectMLX's 32-bit sum would wrap), and
/// `dmls_calc_buffer_tensor_size` agrees.
#[test]
fn strides_near_2_pow_32_validate_in_64_bits() {
    let dev = Device::newest();
    let calc = |t: DataType, sizes: &[u32], strides: &[u32]| {
        // SAFETY: both arrays hold sizes.len() entries.
        unsafe {
            dmls_calc_buffer_tensor_size(
                t.raw(),
                sizes.len() as u32,
                sizes.as_ptr(),
                strides.as_ptr(),
            )
        }
    };
    let cases: [(DataType, &[u32], &[u32]); 4] = [
        (DataType::Float32, &[3, 2], &[u32::MAX, 1]),
        (DataType::Float64, &[2, 2], &[u32::MAX, u32::MAX - 1]),
        (DataType::UInt8, &[2, 3, 4], &[1 << 31, 0xFFFF_FFF0, 1]),
        (DataType::Int16, &[4, 5], &[0x8000_0001, 1]),
    ];
    for (t, sizes, strides) in cases {
        let last: u128 = sizes
            .iter()
            .zip(strides)
            .map(|(&s, &st)| u128::from(s - 1) * u128::from(st))
            .sum();
        let want = ((last + 1) * t.size() as u128).div_ceil(4) * 4;
        assert!(want > u128::from(u32::MAX), "a case past 32 bits");
        assert_eq!(
            u128::from(calc(t, sizes, strides)),
            want,
            "{t:?} {sizes:?} {strides:?}"
        );
        let out = TensorDesc::with_strides(t, sizes, strides);
        assert_eq!(u128::from(out.total_size), want);
        if sizes.len() <= 4 {
            assert!(
                dev.diagonal1(None, &out, [0; 8], 0, 1).is_ok(),
                "{t:?} {sizes:?} {strides:?}"
            );
            let short = with_total(out, out.total_size - 4);
            let (hr, _) = dev
                .diagonal1(None, &short, [0; 8], 0, 1)
                .err()
                .expect("too small");
            assert_eq!(hr, E_INVALIDARG);
        }
    }
}

/// A stride near 2^32 on a dimension of size 1 never moves an address: such tensors execute
/// exactly like packed ones (all three operators, against the reference).
#[test]
fn strides_near_2_pow_32_on_size_1_dimensions_execute() {
    let sizes = [1u32, 3, 1, 4];
    let strides = [u32::MAX, 4, 0xFFFF_FFFE, 1];
    let data: Vec<f32> = vec![
        0.0,
        1.5,
        -0.0,
        2.0,
        f32::NAN,
        0.0,
        7.0,
        0.0,
        0.0,
        3.0,
        0.0,
        -1.0,
    ];
    let data = words(&data);
    let strided = TensorDesc::with_strides(DataType::Float32, &sizes, &strides);
    let packed = TensorDesc::new(DataType::Float32, &sizes);
    assert_eq!(strided.total_size, packed.total_size);

    let (count_s, coords_s) = run_nonzero(&strided, &data, 4);
    let (count_p, coords_p) = run_nonzero(&packed, &data, 4);
    assert_eq!((count_s, &coords_s), (count_p, &coords_p));
    assert_eq!(count_s, 6);

    let value = value_of(&9.0f32.to_ne_bytes());
    let got = run_diagonal1(Some((&strided, &data)), &strided, value, 0, 2);
    let want = run_diagonal1(Some((&packed, &data)), &packed, value, 0, 2);
    assert_eq!(got, want);

    let dev = Device::newest();
    let op = dev.diagonal(&strided, 1, 4.0).expect("create");
    let mut ob = Buffer::filled(strided.total_size, 0xCD);
    let bo = ob.binding();
    execute(&op, &[], &[bind(&bo)]).expect("execute");
    let mut want = vec![0xCDu8; strided.total_size as usize];
    reference::diagonal_matrix(&strided, &mut want, 1, 4.0);
    assert_eq!(ob.bytes(), &want[..]);
}
