//! 64-bit types on a device with the extensions: count and coordinates of one type, the safe
//! API, and every feature level that has NONZERO_COORDINATES.

use crate::common::{calc_desc, execute_nonzero_as, Device as CDevice, NonZeroTensors};
use crate::nonzero;
use directml_subset::dml::*;
use directml_subset::{
    DataType, Device, DeviceOptions, Input, OperatorDesc, TensorDesc, DMLS_DEVICE_FLAG_EXTENSIONS,
};

#[test]
fn counts_and_coordinates_must_have_the_same_type() {
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    use DataType::*;
    for (count, coords) in [
        (UInt64, Int64),
        (Int64, UInt64),
        (UInt32, UInt64),
        (Int64, UInt32),
    ] {
        let nz = nonzero((Float32, &[4], None), count, (coords, &[4, 1], None));
        nz.rejected(ext.0, &["both must be the same"]);
    }
    for other in [Int32, UInt16, Float64, Int8] {
        let nz = nonzero((Float32, &[4], None), other, (other, &[4, 1], None));
        nz.rejected(ext.0, &["must be UINT32, or UINT64 or INT64"]);
    }
}

#[test]
fn safe_api_runs_wide_types() {
    let device = Device::new(&DeviceOptions {
        flags: DMLS_DEVICE_FLAG_EXTENSIONS,
        ..Default::default()
    })
    .unwrap();
    let op = device
        .create_operator(&OperatorDesc::NonZeroCoordinates {
            input: TensorDesc::new(DataType::Float64, &[2, 3]),
            output_count: TensorDesc::new(DataType::Int64, &[1]),
            output_coordinates: TensorDesc::new(DataType::Int64, &[6, 2]),
        })
        .unwrap();
    let input: [f64; 6] = [0.0, -0.0, f64::NAN, 2.5, 0.0, f64::MIN_POSITIVE / 4.0];
    let in_bytes: Vec<u8> = input.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut in_words = vec![0u64; 6];
    bytemuck::cast_slice_mut(&mut in_words).copy_from_slice(&in_bytes);
    let mut count = [-1i64; 1];
    let mut coords = [-1i64; 12];
    op.execute(
        &[Input::Bytes(bytemuck::cast_slice(&in_words))],
        &mut [
            bytemuck::cast_slice_mut(&mut count),
            bytemuck::cast_slice_mut(&mut coords),
        ],
    )
    .unwrap();
    assert_eq!(count[0], 3);
    assert_eq!(&coords[..6], &[0, 2, 1, 0, 1, 2]);
    assert!(coords[6..].iter().all(|&v| v == -1));
}

#[test]
fn extensions_work_at_every_nonzero_feature_level() {
    // DirectML's 3.x rule (4 or 5 dimensions, the same for all three tensors) still holds.
    for level in [0x3000u32, 0x3100, 0x4000, 0x5100, 0x6400] {
        let ext = CDevice::new(level, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
        let nz = NonZeroTensors {
            input: calc_desc(DataType::Int64, &[1, 1, 2, 2], None),
            count: calc_desc(DataType::UInt64, &[1, 1, 1, 1], None),
            coords: calc_desc(DataType::UInt64, &[1, 1, 4, 4], None),
        };
        let op = nz
            .create(ext.0)
            .unwrap_or_else(|e| panic!("level {level:#x}: {e:?}"));
        let input = [0u64, 1 << 40, 0, 3];
        let (hr, count, coords) = execute_nonzero_as(op.0, &input, &[0u64], &[u64::MAX; 16]);
        assert_eq!(hr, S_OK);
        assert_eq!(count[0], 2);
        assert_eq!(&coords[..8], &[0, 0, 0, 1, 0, 0, 1, 1]);
    }
}
