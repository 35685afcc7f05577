//! Operators: descs as Rust values, validation into plans, and execution on byte slices.
//!
//! This module holds what the others share: the desc ([`OperatorDesc`]), the bindings
//! ([`Input`]) and what validation checks against ([`Config`]). The threads the kernels run
//! on are the device's ([`crate::pool::Workers`]).
//! [`plan`] validates descs into plans and checks bindings; `nonzero` and `diagonal` validate
//! each operator; `nonzero_kernel` and `diagonal_kernel` run them with [`simd`].

use crate::dml::{DML_FEATURE_LEVEL, DML_TENSOR_DATA_TYPE};
use crate::error::{invalid, Result};
use crate::level;
use crate::tensor::TensorDesc;

pub(crate) mod cost;
pub(crate) mod diagonal;
mod diagonal_kernel;
pub(crate) use diagonal_kernel::force_streaming_from;
pub(crate) mod kind;
pub(crate) mod nonzero;
mod nonzero_kernel;
pub(crate) use nonzero_kernel::force_slots_max;
pub(crate) mod plan;
pub(crate) mod simd;

/// An operator desc as a Rust value: what `DML_OPERATOR_DESC` points to, with its tensor descs
/// owned. [`crate::Device::create_operator`] validates it against the device's feature level.
///
/// ONNX Trilu (upper, k = 0) as ONNX Runtime maps it: DIAGONAL_MATRIX1 with Value 0 outside
/// `x - y >= 0`, here run in place:
///
/// ```
/// use directml_subset::{DataType, Device, DeviceOptions, Input, OperatorDesc, TensorDesc};
///
/// let device = Device::new(&DeviceOptions::default())?;
/// let t = TensorDesc::new(DataType::Float32, &[3, 3]);
/// let op = device.create_operator(&OperatorDesc::DiagonalMatrix1 {
///     input: Some(t),
///     output: t,
///     value_data_type: DataType::Float32.into(),
///     value: [0; 8],
///     diagonal_fill_begin: i32::MIN,
///     diagonal_fill_end: 0,
/// })?;
/// let mut m: [f32; 9] = [1., 2., 3., 4., 5., 6., 7., 8., 9.];
/// op.execute(&[Input::InPlace], &mut [bytemuck::cast_slice_mut(&mut m)])?;
/// assert_eq!(m, [1., 2., 3., 0., 5., 6., 0., 0., 9.]);
/// # Ok::<(), directml_subset::Error>(())
/// ```
///
/// A rule broken is an [`crate::Error`] whose message names the operator, tensor and values:
///
/// ```
/// use directml_subset::{DataType, Device, DeviceOptions, Error, OperatorDesc, TensorDesc};
///
/// let device = Device::new(&DeviceOptions::default())?;
/// let err = device
///     .create_operator(&OperatorDesc::NonZeroCoordinates {
///         input: TensorDesc::new(DataType::Float32, &[2, 4]),
///         output_count: TensorDesc::new(DataType::UInt32, &[1]),
///         output_coordinates: TensorDesc::new(DataType::UInt32, &[1, 1, 6, 2]),
///     })
///     .unwrap_err();
/// assert!(matches!(err, Error::InvalidArg(_)));
/// assert_eq!(
///     err.to_string(),
///     "NONZERO_COORDINATES: OutputCoordinatesTensor Sizes[2] (M) is 6, must equal the input's element count 8"
/// );
/// # Ok::<(), directml_subset::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OperatorDesc {
    /// `DML_NONZERO_COORDINATES_OPERATOR_DESC`.
    NonZeroCoordinates {
        /// InputTensor.
        input: TensorDesc,
        /// OutputCountTensor.
        output_count: TensorDesc,
        /// OutputCoordinatesTensor.
        output_coordinates: TensorDesc,
    },
    /// `DML_DIAGONAL_MATRIX1_OPERATOR_DESC`.
    DiagonalMatrix1 {
        /// InputTensor (optional).
        input: Option<TensorDesc>,
        /// OutputTensor.
        output: TensorDesc,
        /// ValueDataType.
        value_data_type: DML_TENSOR_DATA_TYPE,
        /// Value: the bytes of the `DML_SCALAR_UNION`.
        value: [u8; 8],
        /// DiagonalFillBegin.
        diagonal_fill_begin: i32,
        /// DiagonalFillEnd.
        diagonal_fill_end: i32,
    },
    /// `DML_DIAGONAL_MATRIX_OPERATOR_DESC`.
    DiagonalMatrix {
        /// OutputTensor.
        output: TensorDesc,
        /// Offset.
        offset: i32,
        /// Value.
        value: f32,
    },
}

/// What an operator is validated against.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    pub level: DML_FEATURE_LEVEL,
    pub extensions: bool,
}

impl Config {
    /// `InvalidArg` when the device's feature level is older than `introduced`, the level that
    /// introduced operator `op`.
    pub fn require(&self, op: &str, introduced: DML_FEATURE_LEVEL) -> Result<()> {
        if self.level < introduced {
            let need = level::name(introduced);
            return invalid!(
                "{op} was introduced in DML_FEATURE_LEVEL_{need}; this device emulates \
                 DML_FEATURE_LEVEL_{}; create the device with feature level {need} or newer",
                level::name(self.level)
            );
        }
        Ok(())
    }
}

/// One input binding, as the safe core sees it.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// Nothing bound (`DML_BINDING_TYPE_NONE`).
    None,
    /// The tensor's bytes.
    Bytes(&'a [u8]),
    /// DIAGONAL_MATRIX1 only: the input is the output's own memory, with the same data type,
    /// sizes and strides.
    InPlace,
}
