//! Plans: a validated operator, its binding slots, and the binding checks before a kernel runs.

use super::kind::OpKind;
use super::{diagonal, diagonal_kernel, nonzero, nonzero_kernel};
use super::{Config, Input, OperatorDesc};
use crate::error::{invalid, Result};
use crate::pool::Workers;
use crate::tensor::Layout;

/// A validated operator.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per operator, never moved in a hot path
pub(crate) enum Plan {
    NonZero(nonzero::NonZeroPlan),
    Diagonal(diagonal::DiagonalPlan),
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
    pub fn kind(&self) -> OpKind {
        match self {
            Plan::NonZero(_) => OpKind::NonZeroCoordinates,
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

    /// For the safe API's in place: the input's own `TotalTensorSizeInBytes` must fit in the
    /// output's memory, which is the input's too. (The C API checks the input's binding, whose
    /// `SizeInBytes` may exceed the output's total, and passes the output's total as the
    /// slice.)
    pub fn check_in_place(&self, inputs: &[Input<'_>], outputs: &[&mut [u8]]) -> Result<()> {
        if !matches!(self, Plan::Diagonal(_)) {
            // No other operator runs in place: `execute` says so.
            return Ok(());
        }
        let op = self.name();
        for (i, (input, slot)) in inputs.iter().zip(self.inputs()).enumerate() {
            if let (Input::InPlace, Some(l), Some(out)) = (input, slot, outputs.first()) {
                check_slice(op, self.input_names()[i], out, l)?;
            }
        }
        Ok(())
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
        check_count(op, "inputs", inputs.len(), in_slots.len(), in_names)?;
        check_count(op, "outputs", outputs.len(), out_slots.len(), out_names)?;
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
                    if !l.same_elements(&p.output) {
                        return invalid!(
                            "{op}: {name} and OutputTensor share memory but differ in layout \
                             (in place needs the same data type, sizes and strides, those of \
                             dimensions of size 1 aside)"
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

/// `InvalidArg` unless `bound` slices were passed for the operator's `slots` inputs or outputs
/// (`what`), named `names`.
fn check_count(op: &str, what: &str, bound: usize, slots: usize, names: &[&str]) -> Result<()> {
    if bound != slots {
        return invalid!(
            "{op}: {bound} {what} bound, the operator has {slots} ({})",
            names.join(", ")
        );
    }
    Ok(())
}

fn check_slice(op: &str, name: &str, bytes: &[u8], l: &Layout) -> Result<()> {
    if (bytes.len() as u64) < l.total_bytes {
        return invalid!(
            "{op}: {name} is bound to {} bytes, less than its TotalTensorSizeInBytes {}; bind at \
             least {} bytes",
            bytes.len(),
            l.total_bytes,
            l.total_bytes
        );
    }
    let align = (l.alignment as usize).max(l.dtype.size());
    let addr = bytes.as_ptr() as usize;
    if !addr.is_multiple_of(align) {
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
