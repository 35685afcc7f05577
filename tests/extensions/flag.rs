//! The device flag: unknown bits are refused, and a strict device refuses 64-bit inputs and
//! outputs with a message naming DMLS_DEVICE_FLAG_EXTENSIONS.

use crate::common::{try_create_device, Device as CDevice};
use crate::{nonzero, FLAG, WIDE_INPUTS, WIDE_OUTPUTS};
use directml_subset::dml::*;
use directml_subset::ffi::*;
use directml_subset::{
    DataType, Device, DeviceOptions, Error, OperatorDesc, TensorDesc, DMLS_DEVICE_FLAG_EXTENSIONS,
};

#[test]
fn unknown_flag_bits_are_rejected() {
    for flags in [0x2u32, 0x3, 0x10, 0x8000_0000, u32::MAX] {
        let desc = dmls_device_desc {
            feature_level: DML_FEATURE_LEVEL(0),
            thread_count: 0,
            flags,
        };
        // try_create_device also asserts that the failure leaves the device pointer alone.
        let (hr, msg) = try_create_device(Some(&desc))
            .err()
            .unwrap_or_else(|| panic!("flags {flags:#x} accepted"));
        assert_eq!(hr, E_INVALIDARG, "flags {flags:#x}");
        assert!(
            msg.contains(FLAG) && msg.contains(&format!("{flags:#x}")),
            "{msg}"
        );

        let err = Device::new(&DeviceOptions {
            flags,
            ..Default::default()
        })
        .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArg(m) if m.contains(FLAG)),
            "{err:?}"
        );
        assert_eq!(err.hresult(), E_INVALIDARG);
    }
    for flags in [0, DMLS_DEVICE_FLAG_EXTENSIONS] {
        let d = Device::new(&DeviceOptions {
            flags,
            ..Default::default()
        })
        .expect("device");
        assert_eq!(d.extensions(), flags != 0);
        drop(CDevice::new(0, 1, flags));
    }
    assert_eq!(DMLS_DEVICE_FLAG_EXTENSIONS, 1);
}

#[test]
fn strict_device_rejects_wide_inputs_naming_the_flag() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    for t in WIDE_INPUTS {
        let nz = nonzero(
            (t, &[2, 3], None),
            DataType::UInt32,
            (DataType::UInt32, &[6, 2], None),
        );
        let msg = nz.rejected(strict.0, &[FLAG]);
        assert!(
            msg.contains(&format!(
                "InputTensor DataType is {} ({})",
                t.name(),
                t.raw().0
            )),
            "{msg}"
        );
        nz.create(ext.0).expect("extensions allow 64-bit inputs");

        // The safe API says the same.
        let device = Device::new(&DeviceOptions::default()).unwrap();
        let desc = OperatorDesc::NonZeroCoordinates {
            input: TensorDesc::new(t, &[2, 3]),
            output_count: TensorDesc::new(DataType::UInt32, &[1]),
            output_coordinates: TensorDesc::new(DataType::UInt32, &[6, 2]),
        };
        match device.create_operator(&desc) {
            Err(Error::InvalidArg(m)) => assert!(m.contains(FLAG), "{m}"),
            other => panic!("expected InvalidArg, got {other:?}"),
        }
    }
}

#[test]
fn strict_device_rejects_wide_outputs_naming_the_flag() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    for t in WIDE_OUTPUTS {
        let nz = nonzero((DataType::Float32, &[2, 3], None), t, (t, &[6, 2], None));
        let msg = nz.rejected(strict.0, &[FLAG]);
        assert!(msg.contains("OutputCountTensor DataType is"), "{msg}");
        nz.create(ext.0).expect("extensions allow 64-bit outputs");

        // Only the coordinates wide: the strict device names them and the flag.
        let nz = nonzero(
            (DataType::Float32, &[2, 3], None),
            DataType::UInt32,
            (t, &[6, 2], None),
        );
        let msg = nz.rejected(strict.0, &[]);
        assert!(
            msg.contains("OutputCoordinatesTensor") && msg.contains(FLAG),
            "{msg}"
        );
    }
}
