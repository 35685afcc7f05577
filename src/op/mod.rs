//! Operators: descs as Rust values, validation into plans, and execution on byte slices.

use core::marker::PhantomData;

use crate::dml::{DML_FEATURE_LEVEL, DML_TENSOR_DATA_TYPE};
use crate::error::{invalid, Result};
use crate::pool::LazyPool;
use crate::tensor::{Layout, TensorDesc};

pub(crate) mod diagonal;
mod diagonal_kernel;
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
/// so small operators never wake a pool (nor build one).
#[derive(Clone, Copy)]
pub(crate) struct Workers<'a> {
    pub threads: usize,
    pub pool: Option<&'a LazyPool>,
}

impl Workers<'_> {
    /// Runs `f` on one of this device's worker threads, so that the parallel iterators inside
    /// it start from inside the pool instead of each being injected into it from outside while
    /// the caller blocks. A one-thread device runs `f` on the caller's thread. Fails (before
    /// running `f`) only when the pool has to be started, first in this process, and its
    /// threads cannot be.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> Result<R> {
        match self.pool {
            Some(pool) if self.threads > 1 => Ok(pool.get()?.install(f)),
            _ => Ok(f()),
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

    /// DirectML's name of the operator, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Plan::NonZero(_) => "NONZERO_COORDINATES",
            Plan::Diagonal(p) => p.name,
        }
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
        match self {
            Plan::NonZero(_) => &["InputTensor"],
            Plan::Diagonal(p) if p.name == "DIAGONAL_MATRIX" => &[],
            Plan::Diagonal(_) => &["InputTensor"],
        }
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
        match self {
            Plan::NonZero(_) => &["OutputCountTensor", "OutputCoordinatesTensor"],
            Plan::Diagonal(_) => &["OutputTensor"],
        }
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

/// Element words: the unsigned integer of each element width. Kernels move bits, never values.
pub(crate) trait Word: Copy + Send + Sync + PartialEq + bytemuck::Pod + 'static {
    const ZERO: Self;
    const SIZE: usize;
    fn and(self, other: Self) -> Self;
    /// Reads a value from the first `SIZE` bytes (native endian).
    fn from_bytes(b: &[u8; 8]) -> Self;
    /// The nonzero bitmasks of whole 64-element blocks: bit i of `out[w]` is set when
    /// `data[64 w + i] & mask != 0`. `data` holds exactly `64 * out.len()` elements. Returns the
    /// number of set bits. SIMD when the machine has it (see [`simd`]).
    fn mask_blocks(data: &[Self], mask: Self, out: &mut [u64], isa: simd::Isa) -> u64;
}

macro_rules! word {
    ($t:ty, $sse2:ident, $avx2:ident) => {
        impl Word for $t {
            const ZERO: Self = 0;
            const SIZE: usize = core::mem::size_of::<$t>();
            #[inline(always)]
            fn and(self, other: Self) -> Self {
                self & other
            }
            #[inline(always)]
            fn from_bytes(b: &[u8; 8]) -> Self {
                let mut a = [0u8; core::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..core::mem::size_of::<$t>()]);
                <$t>::from_ne_bytes(a)
            }
            #[inline]
            fn mask_blocks(data: &[Self], mask: Self, out: &mut [u64], isa: simd::Isa) -> u64 {
                match isa {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: `isa` is Avx2 only when the CPU has AVX2, BMI1 and POPCNT
                    // (`simd::isa` detects them at run time).
                    simd::Isa::Avx2 => unsafe { simd::x86::$avx2(data, mask, out) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: SSE2 is part of every x86_64.
                    simd::Isa::Sse2 => unsafe { simd::x86::$sse2(data, mask, out) },
                    _ => simd::mask_blocks_portable(data, mask, out),
                }
            }
        }
    };
}
word!(u8, u8_sse2, u8_avx2);
word!(u16, u16_sse2, u16_avx2);
word!(u32, u32_sse2, u32_avx2);
word!(u64, u64_sse2, u64_avx2);

/// A view of an output slice that several threads may write at once, each at indices no other
/// thread writes. Writers check their largest index once, then write through the pointer.
pub(crate) struct OutView<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: an OutView only hands out its pointer (`as_ptr`), whose writers must keep within
// bounds and never write an element another thread accesses at the same time; the borrow it
// holds is exclusive, so no reader outside the view exists while it lives.
unsafe impl<T: Send> Sync for OutView<'_, T> {}
// SAFETY: as above; moving the view moves the exclusive borrow.
unsafe impl<T: Send> Send for OutView<'_, T> {}

impl<'a, T: Copy> OutView<'a, T> {
    pub fn new(slice: &'a mut [T]) -> Self {
        OutView {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// The number of elements in the view.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The first element's address. Whoever writes through it must keep within `len()`
    /// elements and must not write an element that another thread accesses at the same time.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }
}
