//! The largest valid tensors, created (validation only), and one element more refused.

use crate::common::*;
use crate::with_total;
use directml_subset::dml::*;
use directml_subset::{DataType, TensorDesc, DMLS_DEVICE_FLAG_EXTENSIONS};

/// Tensors of exactly 2^32 − 1 elements are valid (created, never executed: they would need
/// 4 to 32 GiB); one element more is not.
#[test]
fn largest_valid_tensors_are_created() {
    let dev = Device::newest();
    let max = u32::MAX; // 2^32 - 1 = 3 x 5 x 17 x 257 x 65537
    let count = TensorDesc::new(DataType::UInt32, &[1]);
    // With UINT32 outputs every tensor holds at most 2^32 - 1 elements, the coordinates {M, N}
    // included: M = 2^32 - 1 for a 1-D input, M = 2^31 - 2^15 - 1 (< 2^31) for N = 2.
    for (sizes, n) in [
        (vec![max], 1u32),
        (vec![32767u32, 65537], 2),
        (vec![1, 1, 1, 1, 1, 1, 32767, 65537], 2),
    ] {
        let input = TensorDesc::new(DataType::UInt8, &sizes);
        let m: u32 = sizes.iter().product();
        let coords = TensorDesc::new(DataType::UInt32, &[m, n]);
        let op = dev.nonzero(&input, &count, &coords);
        assert!(op.is_ok(), "{sizes:?}: {op:?}", op = op.err());
    }
    let input = TensorDesc::new(DataType::UInt8, &[65535, 65537]);
    assert_eq!(input.total_size, 1 << 32);
    let coords = TensorDesc::new(DataType::UInt32, &[max, 2]);
    let (hr, msg) = dev
        .nonzero(&input, &count, &coords)
        .err()
        .expect("rejected");
    assert_eq!(hr, E_INVALIDARG);
    assert!(
        msg.contains("OutputCoordinatesTensor has 8589934590 elements"),
        "{msg}"
    );
    // At feature level 3.0 (4 or 5 dimensions).
    let dev30 = Device::new(DML_FEATURE_LEVEL_3_0.0, 1, 0);
    let input = TensorDesc::new(DataType::Int16, &[1, 1, 1, 32767, 65537]);
    let count5 = TensorDesc::new(DataType::UInt32, &[1, 1, 1, 1, 1]);
    let coords5 = TensorDesc::new(DataType::UInt32, &[1, 1, 1, 32767 * 65537, 2]);
    assert!(dev30.nonzero(&input, &count5, &coords5).is_ok());
    // 64-bit coordinates with the extensions lift the limit for the coordinates; the input
    // (M) still holds at most 2^32 - 1 elements.
    let ext = Device::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let count64 = TensorDesc::new(DataType::Int64, &[1]);
    for (t, sizes) in [
        (DataType::Float64, vec![65535u32, 65537]),
        (DataType::UInt8, vec![1, 1, 1, 3, 5, 17, 257, 65537]),
    ] {
        let input = TensorDesc::new(t, &sizes);
        let coords64 = TensorDesc::new(DataType::Int64, &[max, sizes.len() as u32]);
        let op = ext.nonzero(&input, &count64, &coords64);
        assert!(op.is_ok(), "{sizes:?}: {op:?}", op = op.err());
    }

    // DIAGONAL_MATRIX1 and DIAGONAL_MATRIX outputs of 2^32 - 1 FLOAT64 elements (32 GiB).
    let out = TensorDesc::new(DataType::Float64, &[65535, 65537]);
    assert_eq!(out.total_size, 8 * u64::from(max));
    assert!(dev.diagonal1(Some(&out), &out, [0; 8], i32::MIN, 0).is_ok());
    let out4 = TensorDesc::new(DataType::Int64, &[1, 1, 65535, 65537]);
    assert!(dev.diagonal(&out4, 0, 1.0).is_ok());

    // One element more: E_INVALIDARG with a message naming the count.
    for (sizes, what) in [
        (vec![65536u32, 65536], "4294967296 elements"),
        (vec![2, 65535, 65537], "8589934590 elements"),
    ] {
        let input = TensorDesc::new(DataType::UInt8, &sizes);
        let coords = TensorDesc::new(DataType::UInt32, &[max, sizes.len() as u32]);
        let (hr, msg) = dev
            .nonzero(&input, &count, &coords)
            .err()
            .expect("rejected");
        assert_eq!(hr, E_INVALIDARG);
        assert!(msg.contains(what), "{msg}");
        let out = TensorDesc::new(DataType::UInt8, &sizes[sizes.len() - 2..]);
        if sizes.len() == 2 {
            let (hr, msg) = dev
                .diagonal1(None, &out, [0; 8], 0, 1)
                .err()
                .expect("rejected");
            assert_eq!(hr, E_INVALIDARG);
            assert!(msg.contains(what), "{msg}");
        }
    }

    // TotalTensorSizeInBytes: the largest the address space allows is valid; past it is not.
    let small = TensorDesc::new(DataType::Float32, &[2, 2]);
    let largest = with_total(small, (i64::MAX as u64) & !3);
    assert!(dev.diagonal1(None, &largest, [0; 8], 0, 1).is_ok());
    let (hr, msg) = dev
        .diagonal1(None, &with_total(small, 1 << 63), [0; 8], 0, 1)
        .err()
        .expect("rejected");
    assert_eq!(hr, E_INVALIDARG);
    assert!(msg.contains("TotalTensorSizeInBytes"), "{msg}");
}
