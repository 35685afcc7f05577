//! Helpers for the safe Rust API.

use directml_subset::{DataType, OperatorDesc, TensorDesc, DMLS_DEVICE_FLAG_EXTENSIONS};

/// A device of the safe API with the extensions on (64-bit coordinates) and `threads` workers.
pub fn rust_device(threads: u32) -> directml_subset::Device {
    directml_subset::Device::new(&directml_subset::DeviceOptions {
        thread_count: threads,
        flags: DMLS_DEVICE_FLAG_EXTENSIONS,
        ..Default::default()
    })
    .expect("device")
}

/// A tensor desc, packed when `strides` is `None`.
pub fn tensor_desc(t: DataType, sizes: &[u32], strides: Option<&[u32]>) -> TensorDesc {
    match strides {
        Some(s) => TensorDesc::with_strides(t, sizes, s),
        None => TensorDesc::new(t, sizes),
    }
}

/// A DIAGONAL_MATRIX1 desc whose ValueDataType is the output's type.
pub fn diagonal1_op(
    input: Option<TensorDesc>,
    output: TensorDesc,
    value: [u8; 8],
    begin: i32,
    end: i32,
) -> OperatorDesc {
    OperatorDesc::DiagonalMatrix1 {
        input,
        output,
        value_data_type: output.data_type,
        value,
        diagonal_fill_begin: begin,
        diagonal_fill_end: end,
    }
}
