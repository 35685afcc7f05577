//! Element limits: 64-bit outputs lift the 2^32 - 1 cap on the coordinates and the input, with
//! their rows spread over the dimensions before N.

use crate::common::{execute_nonzero_as, Device as CDevice};
use crate::{model, nonzero, FLAG, WIDE_OUTPUTS};
use directml_subset::dml::*;
use directml_subset::{DataType, DMLS_DEVICE_FLAG_EXTENSIONS};

/// Coordinates tensors of more than 2^32 - 1 elements need 64-bit outputs. The input is
/// broadcast (stride 0); outputs may not overlap themselves, so the coordinates are packed.
/// Only creation is checked here (no memory is bound).
#[test]
fn wide_outputs_lift_the_element_limit_of_the_coordinates() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    // 65535 * 65537 = 2^32 - 1 input elements; coordinates {2^32 - 1, 2}: 2^33 - 2 elements.
    let make = |t: DataType| {
        nonzero(
            (DataType::UInt8, &[65535, 65537], Some(&[0, 0])),
            t,
            (t, &[u32::MAX, 2], Some(&[2, 1])),
        )
    };
    for device in [&strict, &ext] {
        make(DataType::UInt32).rejected(
            device.0,
            &["OutputCoordinatesTensor has 8589934590 elements"],
        );
    }
    for t in WIDE_OUTPUTS {
        make(t).rejected(strict.0, &[FLAG]);
        make(t)
            .create(ext.0)
            .expect("64-bit coordinates may hold 2^33 - 2 elements");
    }
}

/// With UINT64 or INT64 counts and coordinates the input's element count may exceed 2^32 - 1
/// (docs/feature-levels.md, "Extensions"). Such an input (broadcast, so it takes 1 byte) is
/// refused by a strict device and, with 32-bit outputs, by an extensions device. With 64-bit outputs its
/// coordinates' rows spread over the dimensions before N: {65536, 65537, 2}.
#[test]
fn wide_outputs_allow_inputs_above_the_element_limit() {
    let strict = CDevice::new(0, 1, 0);
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let narrow = nonzero(
        (DataType::UInt8, &[65536, 65537], Some(&[0, 0])),
        DataType::UInt32,
        (DataType::UInt32, &[65536, 2], None),
    );
    for device in [&strict, &ext] {
        narrow.rejected(device.0, &["InputTensor has 4295032832 elements"]);
    }
    for t in WIDE_OUTPUTS {
        let wide = nonzero(
            (DataType::UInt8, &[65536, 65537], Some(&[0, 0])),
            t,
            (t, &[65536, 65537, 2], Some(&[131074, 2, 1])),
        );
        wide.rejected(strict.0, &[FLAG]);
        wide.create(ext.0)
            .unwrap_or_else(|e| panic!("{}: {e:?}", t.name()));
    }
    // The rows must add up to the element count.
    let short = nonzero(
        (DataType::UInt8, &[65536, 65537], Some(&[0, 0])),
        DataType::UInt64,
        (DataType::UInt64, &[65536, 65536, 2], Some(&[131072, 2, 1])),
    );
    let msg = short.rejected(ext.0, &[]);
    assert!(
        msg.contains("must equal the input's element count 4295032832"),
        "{msg}"
    );
}

/// Spread rows on small inputs, run against the model: {..., M_i, ..., N} coordinates hold the
/// same rows as {M, N}, packed or evenly spaced; uneven spacing is refused, and 32-bit outputs
/// keep DirectML's {1, ..., 1, M, N}.
#[test]
fn spread_rows_run_like_packed_rows() {
    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let strict = CDevice::new(0, 1, 0);
    let sizes = [2u32, 3, 2];
    let m = 12u32;
    let mut input = [0u64; 2];
    bytemuck::cast_slice_mut::<u64, u8>(&mut input)[..12]
        .copy_from_slice(&[0, 1, 0, 0, 7, 0, 0, 0, 0, 3, 3, 0]);
    let strides: Vec<u64> = vec![6, 2, 1];
    let want = model(
        DataType::UInt8,
        bytemuck::cast_slice(&input),
        &sizes,
        &strides,
        3,
    );
    assert_eq!(want.len(), 4);
    for (coords_sizes, coords_strides, row_stride) in [
        (vec![2u32, 3, 2, 3], None, 3usize),
        (vec![2, 3, 2, 3], Some(vec![24u32, 8, 4, 1]), 4),
        (vec![4, 3, 3], Some(vec![15, 5, 1]), 5),
        (vec![1, 12, 3], Some(vec![0, 3, 1]), 3),
    ] {
        for t in WIDE_OUTPUTS {
            let nz = nonzero(
                (DataType::UInt8, &sizes, None),
                t,
                (t, &coords_sizes, coords_strides.as_deref()),
            );
            let what = format!("{coords_sizes:?} {coords_strides:?} {}", t.name());
            let op = nz.create(ext.0).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            let coords = vec![0xEEu64; (nz.coords.total_size as usize).div_ceil(8)];
            let (hr, count, coords) = execute_nonzero_as(op.0, &input, &[u64::MAX], &coords);
            assert_eq!(hr, S_OK, "{what}");
            assert_eq!(count[0], 4, "{what}");
            for r in 0..m as usize {
                for c in 0..3 {
                    let v = coords[r * row_stride + c];
                    let expect = want.get(r).map_or(0xEE, |row| row[c]);
                    assert_eq!(v, expect, "{what}: row {r} column {c}");
                }
            }
            if coords_sizes[0] != 1 {
                let narrow = nonzero(
                    (DataType::UInt8, &sizes, None),
                    DataType::UInt32,
                    (DataType::UInt32, &coords_sizes, coords_strides.as_deref()),
                );
                for device in [&ext, &strict] {
                    let msg = narrow.rejected(device.0, &[]);
                    assert!(msg.contains("must be 1"), "{what}: {msg}");
                }
            }
        }
    }
    // Unevenly spaced rows.
    let nz = nonzero(
        (DataType::UInt8, &sizes, None),
        DataType::Int64,
        (DataType::Int64, &[2, 6, 3], Some(&[19, 3, 1])),
    );
    nz.rejected(ext.0, &["evenly spaced"]);
}

/// Runs an operator whose coordinates tensor has 2^33 - 2 elements (2^32 - 1 input elements,
/// all zero): 64-bit outputs end to end. The coordinates are packed, {2^32 - 1, 2} UINT64, so
/// they take 64 GiB: reserved address space, not memory. The count is 0, so no row is written,
/// and the library must leave every page of them untouched (not even read). Slow (it scans
/// 2^32 elements): run with `cargo test --release --test extensions -- --ignored`. Linux only
/// (the reservation needs MAP_NORESERVE); it fails, naming the size, where the 64 GiB cannot
/// be mapped.
#[test]
#[ignore]
#[cfg(any(target_os = "linux", target_os = "android"))]
fn wide_outputs_run_on_2_pow_32_elements() {
    use crate::common::{bind, execute_raw, last_error, Buffer, Reserved};

    let ext = CDevice::new(0, 1, DMLS_DEVICE_FLAG_EXTENSIONS);
    let nz = nonzero(
        (DataType::UInt8, &[65535, 65537], Some(&[0, 0])),
        DataType::UInt64,
        (DataType::UInt64, &[u32::MAX, 2], None),
    );
    assert_eq!(nz.coords.total_size, ((1u64 << 33) - 2) * 8);
    let op = nz.create(ext.0).expect("create");
    let mut input = Buffer::filled(nz.input.total_size, 0);
    let mut count = Buffer::with_bytes(&u64::MAX.to_ne_bytes());
    let mut coords = Reserved::new(nz.coords.total_size).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(coords.touched_pages(), 0);
    let (bi, bc, bk) = (input.binding(), count.binding(), coords.binding());
    let hr = execute_raw(op.0, &[bind(&bi)], &[bind(&bc), bind(&bk)]);
    assert_eq!(hr, S_OK, "{}", last_error());
    assert!(input.guards_intact() && count.guards_intact());
    let n: u64 = bytemuck::pod_read_unaligned(count.bytes());
    assert_eq!(n, 0, "count");
    assert_eq!(
        coords.touched_pages(),
        0,
        "pages of the coordinates touched with a count of 0"
    );
}
