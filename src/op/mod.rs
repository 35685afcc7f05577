//! Operators: descs as Rust values, validation into plans, and execution on byte slices.

use crate::dml::{DML_FEATURE_LEVEL, DML_TENSOR_DATA_TYPE};
use crate::error::{invalid, Result};
use crate::tensor::{Layout, TensorDesc};

pub(crate) mod diagonal;
mod diagonal_kernel;
pub(crate) mod kind;
pub(crate) mod nonzero;
mod nonzero_kernel;
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

/// A validated operator.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per operator, never moved in a hot path
pub(crate) enum Plan {
    NonZero(nonzero::NonZeroPlan),
    Diagonal(diagonal::DiagonalPlan),
}

/// The threads an execution may use. Kernels call [`Workers::run`] only on their parallel path,
/// so small operators never wake a pool.
#[derive(Clone, Copy)]
pub(crate) struct Workers<'a> {
    pub threads: usize,
    pub pool: Option<&'a rayon::ThreadPool>,
}

impl Workers<'_> {
    /// Runs `f` on one of this device's worker threads, so that the parallel iterators inside
    /// it start from inside the pool instead of each being injected into it from outside while
    /// the caller blocks. A one-thread device runs `f` on the caller's thread.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self.pool {
            _ if self.threads <= 1 => f(),
            Some(pool) => pool.install(f),
            // The process-wide pool: `join` called from outside it runs both halves on its
            // workers; from inside it, `f` runs right here.
            None if rayon::current_thread_index().is_none() => rayon::join(f, || ()).0,
            None => f(),
        }
    }
}

/// One input binding, as the safe core sees it.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// Nothing bound (`DML_BINDING_TYPE_NONE`).
    None,
    /// The tensor's bytes.
    Bytes(&'a [u8]),
    /// DIAGONAL_MATRIX1 only: the input is the output's own memory, with the same layout.
    InPlace,
}

impl Plan {
    pub fn new(cfg: &Config, desc: &OperatorDesc) -> Result<Plan> {
        match desc {
            OperatorDesc::NonZeroCoordinates {
                input,
                output_count,
                output_coordinates,
            } => nonzero::plan(cfg, input, output_count, output_coordinates).map(Plan::NonZero),
            OperatorDesc::DiagonalMatrix1 {
                input,
                output,
                value_data_type,
                value,
                diagonal_fill_begin,
                diagonal_fill_end,
            } => diagonal::plan1(
                cfg,
                input.as_ref(),
                output,
                *value_data_type,
                *value,
                *diagonal_fill_begin,
                *diagonal_fill_end,
            )
            .map(Plan::Diagonal),
            OperatorDesc::DiagonalMatrix {
                output,
                offset,
                value,
            } => diagonal::plan0(cfg, output, *offset, *value).map(Plan::Diagonal),
        }
    }

    /// Which operator this is.
    pub fn kind(&self) -> kind::OpKind {
        match self {
            Plan::NonZero(_) => kind::OpKind::NonZeroCoordinates,
            Plan::Diagonal(p) => p.kind,
        }
    }

    /// DirectML's name of the operator, for messages.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The input slots: each tensor's layout, `None` for an optional tensor left out.
    pub fn inputs(&self) -> &[Option<Layout>] {
        match self {
            Plan::NonZero(p) => core::slice::from_ref(&p.input_slot),
            Plan::Diagonal(p) => p.input_slots(),
        }
    }

    /// The names of the input slots.
    pub fn input_names(&self) -> &'static [&'static str] {
        self.kind().input_names()
    }

    /// The output slots' layouts.
    pub fn outputs(&self) -> &[Layout] {
        match self {
            Plan::NonZero(p) => &p.outputs,
            Plan::Diagonal(p) => core::slice::from_ref(&p.output),
        }
    }

    /// The names of the output slots.
    pub fn output_names(&self) -> &'static [&'static str] {
        self.kind().output_names()
    }

    /// Checks the bindings and runs the operator. Nothing is written unless every check passes.
    pub fn execute(
        &self,
        inputs: &[Input<'_>],
        outputs: &mut [&mut [u8]],
        workers: Workers<'_>,
    ) -> Result<()> {
        let op = self.name();
        let (in_slots, in_names) = (self.inputs(), self.input_names());
        let (out_slots, out_names) = (self.outputs(), self.output_names());
        if inputs.len() != in_slots.len() {
            return invalid!(
                "{op}: {} inputs bound, the operator has {} ({})",
                inputs.len(),
                in_slots.len(),
                in_names.join(", ")
            );
        }
        if outputs.len() != out_slots.len() {
            return invalid!(
                "{op}: {} outputs bound, the operator has {} ({})",
                outputs.len(),
                out_slots.len(),
                out_names.join(", ")
            );
        }
        for (i, (input, slot)) in inputs.iter().zip(in_slots).enumerate() {
            let name = in_names[i];
            match (input, slot) {
                (Input::None, None) => {}
                (Input::None, Some(_)) => {
                    return invalid!(
                    "{op}: {name} (input {i}) is bound with DML_BINDING_TYPE_NONE, but the desc \
                         gives the tensor; bind a buffer"
                )
                }
                (_, None) => {
                    return invalid!(
                        "{op}: {name} (input {i}) is bound, but the desc's {name} is NULL; bind it \
                         with DML_BINDING_TYPE_NONE"
                    )
                }
                (Input::Bytes(b), Some(l)) => check_slice(op, name, b, l)?,
                (Input::InPlace, Some(l)) => {
                    let Plan::Diagonal(p) = self else {
                        return invalid!("{op}: {name} cannot share memory with an output");
                    };
                    if *l != p.output {
                        return invalid!(
                            "{op}: {name} and OutputTensor share memory but differ in layout \
                             (in place needs the same data type, sizes and strides)"
                        );
                    }
                }
            }
        }
        for (i, (out, l)) in outputs.iter().zip(out_slots).enumerate() {
            check_slice(op, out_names[i], out, l)?;
        }
        match self {
            Plan::NonZero(p) => {
                let Input::Bytes(input) = inputs[0] else {
                    return invalid!("{op}: InputTensor must be a buffer");
                };
                let [count, coords] = outputs else {
                    return invalid!("{op}: two outputs expected");
                };
                nonzero_kernel::execute(p, input, count, coords, workers)
            }
            Plan::Diagonal(p) => {
                let input = inputs.first().copied().unwrap_or(Input::None);
                diagonal_kernel::execute(p, input, &mut outputs[0][..], workers)
            }
        }
    }
}

fn check_slice(op: &str, name: &str, bytes: &[u8], l: &Layout) -> Result<()> {
    if (bytes.len() as u64) < l.total_bytes {
        return invalid!(
            "{op}: {name} is bound to {} bytes, less than its TotalTensorSizeInBytes {}",
            bytes.len(),
            l.total_bytes
        );
    }
    let align = (l.alignment as usize).max(l.dtype.size());
    let addr = bytes.as_ptr() as usize;
    if addr % align != 0 {
        return invalid!(
            "{op}: {name} starts at address {addr:#x}, which is not aligned to {align} bytes (the \
             element size{})",
            if l.alignment != 0 {
                " and GuaranteedBaseOffsetAlignment"
            } else {
                ""
            }
        );
    }
    Ok(())
}
