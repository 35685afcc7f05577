//! A workload's operator, created through the C API, and its buffers: filled once (pre-faulted)
//! and bound for every run.

use std::ptr;

use rand::rngs::SmallRng;
use rand::Rng;

use crate::capi::{check, nonzero_desc, operator_desc, Buf, Dev, Op, Tensor};
use crate::workloads::Kind;
use directml_subset::dml::*;
use directml_subset::ffi::*;

/// The element size of a DirectML data type.
fn esize(dt: DML_TENSOR_DATA_TYPE) -> usize {
    directml_subset::DataType::from_raw(dt)
        .expect("a DirectML data type")
        .size()
}

/// The coordinates tensor of NonZero on `m` elements of `n` dimensions.
fn coords_tensor(m: u32, n: u32, ort: bool) -> Box<Tensor> {
    let u32t = DML_TENSOR_DATA_TYPE::UINT32;
    if ort {
        let mut t = Tensor::new(u32t, &[m, n], Some(&[2, 2 * m]));
        // The whole int64 [N, M] buffer.
        t.buffer.TotalTensorSizeInBytes = u64::from(n) * u64::from(m) * 8;
        t
    } else {
        Tensor::new(u32t, &[m, n], None)
    }
}

/// A created operator with its bound buffers.
pub struct Prepared {
    op: Op,
    inputs: Vec<DML_BINDING_DESC>,
    outputs: Vec<DML_BINDING_DESC>,
    _bindings: Vec<Box<DML_BUFFER_BINDING>>,
    _tensors: Vec<Box<Tensor>>,
    /// Bytes read and written, once the count is known (NonZero writes count × N coordinates).
    pub read: usize,
    written: usize,
    count_buf: Option<*const u32>,
    columns: usize,
}

impl Prepared {
    pub fn run(&self) {
        // SAFETY: the bindings point to live buffers of the right sizes.
        let hr = unsafe {
            dmls_operator_execute(
                self.op.0,
                self.inputs.len() as u32,
                if self.inputs.is_empty() {
                    ptr::null()
                } else {
                    self.inputs.as_ptr()
                },
                self.outputs.len() as u32,
                self.outputs.as_ptr(),
            )
        };
        check(hr, "execute");
    }

    /// Bytes the last run wrote (for NONZERO_COORDINATES, the count and count × N coordinates).
    pub fn written_bytes(&self) -> usize {
        match self.count_buf {
            // SAFETY: the count buffer holds the count the operator last wrote.
            Some(c) => 4 + unsafe { c.read() } as usize * self.columns * 4,
            None => self.written,
        }
    }
}

fn binding(buf: &mut Buf, bindings: &mut Vec<Box<DML_BUFFER_BINDING>>) -> DML_BINDING_DESC {
    let b = Box::new(DML_BUFFER_BINDING {
        Buffer: buf.ptr(),
        Offset: 0,
        SizeInBytes: buf.len as u64,
    });
    let desc = DML_BINDING_DESC {
        Type: DML_BINDING_TYPE::BUFFER,
        Desc: (&*b as *const DML_BUFFER_BINDING).cast(),
    };
    bindings.push(b);
    desc
}

/// Buffers of a workload, shared by the 1-thread and all-thread runs.
pub struct Data {
    pub input: Option<Buf>,
    pub outputs: Vec<Buf>,
}

/// NonZero's input, count and coordinates tensors (`kind` is `Kind::NonZero`).
fn nonzero_tensors(kind: &Kind) -> [Box<Tensor>; 3] {
    let Kind::NonZero {
        dt,
        sizes,
        strides,
        ort,
        ..
    } = kind
    else {
        unreachable!("NonZero tensors of a DIAGONAL_MATRIX1 workload")
    };
    let m: u32 = sizes.iter().product();
    let n = sizes.len() as u32;
    [
        Tensor::new(*dt, sizes, strides.as_deref()),
        Tensor::new(DML_TENSOR_DATA_TYPE::UINT32, &[1], None),
        coords_tensor(m, n, *ort),
    ]
}

pub fn make_data(kind: &Kind, rng: &mut SmallRng) -> (Data, Vec<Box<Tensor>>) {
    match kind {
        Kind::NonZero { dt, density, .. } => {
            let [input, count, coords] = nonzero_tensors(kind);
            let mut ib = Buf::new(input.bytes());
            let b = ib.bytes();
            b.fill(0);
            let es = esize(*dt);
            let float = directml_subset::DataType::from_raw(*dt).is_some_and(|t| t.is_float());
            // Element i of the buffer (strided inputs: the buffer's elements, each nonzero with
            // the density); floats also get -0.0, which counts as zero.
            for e in b.chunks_exact_mut(es) {
                if rng.random_bool(*density) {
                    e[0] = 1;
                } else if float && rng.random_bool(0.1) {
                    e[es - 1] = 0x80;
                }
            }
            let outputs = vec![Buf::new(count.bytes()), Buf::new(coords.bytes())];
            (
                Data {
                    input: Some(ib),
                    outputs,
                },
                vec![input, count, coords],
            )
        }
        Kind::Diag {
            dt,
            sizes,
            with_input,
            ..
        } => {
            let out = Tensor::new(*dt, sizes, None);
            let mut tensors = vec![];
            let input = if *with_input {
                let t = Tensor::new(*dt, sizes, None);
                let mut b = Buf::new(t.bytes());
                rng.fill(b.bytes());
                tensors.push(t);
                Some(b)
            } else {
                None
            };
            let outputs = vec![Buf::new(out.bytes())];
            tensors.push(out);
            (Data { input, outputs }, tensors)
        }
    }
}

pub fn prepare(dev: &Dev, kind: &Kind, data: &mut Data) -> Prepared {
    let mut bindings = vec![];
    let mut tensors = vec![];
    let (op, read, columns, has_count) = match kind {
        Kind::NonZero { dt, sizes, .. } => {
            let m: u32 = sizes.iter().product();
            let n = sizes.len() as u32;
            let [input, count, coords] = nonzero_tensors(kind);
            let desc = nonzero_desc(&input, &count, &coords);
            let op = Op::create(
                dev,
                &operator_desc(DML_OPERATOR_TYPE::NONZERO_COORDINATES, &desc),
            );
            tensors.extend([input, count, coords]);
            (op, m as usize * esize(*dt), n as usize, true)
        }
        Kind::Diag {
            dt,
            sizes,
            with_input,
            begin,
            end,
            value,
        } => {
            let out = Tensor::new(*dt, sizes, None);
            let input = with_input.then(|| Tensor::new(*dt, sizes, None));
            // Value in the output's type (FLOAT32 as given; other types: a small integer).
            let mut v = [0u8; 8];
            if *dt == DML_TENSOR_DATA_TYPE::FLOAT32 {
                v[..4].copy_from_slice(&value.to_ne_bytes());
            } else {
                v[0] = *value as u8;
            }
            let desc = DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
                InputTensor: input.as_ref().map_or(ptr::null(), |t| &t.desc),
                OutputTensor: &out.desc,
                ValueDataType: *dt,
                Value: DML_SCALAR_UNION::from_bytes(v),
                DiagonalFillBegin: *begin,
                DiagonalFillEnd: *end,
            };
            let op = Op::create(
                dev,
                &operator_desc(DML_OPERATOR_TYPE::DIAGONAL_MATRIX1, &desc),
            );
            let read = input.as_ref().map_or(0, |t| t.bytes());
            tensors.push(out);
            tensors.extend(input);
            (op, read, 0, false)
        }
    };
    let inputs = match (&mut data.input, kind) {
        (Some(b), _) => vec![binding(b, &mut bindings)],
        (None, _) => vec![DML_BINDING_DESC {
            Type: DML_BINDING_TYPE::NONE,
            Desc: ptr::null(),
        }],
    };
    let outputs: Vec<_> = data
        .outputs
        .iter_mut()
        .map(|b| binding(b, &mut bindings))
        .collect();
    let count_buf = has_count.then(|| data.outputs[0].ptr() as *const u32);
    let written = if has_count { 0 } else { data.outputs[0].len };
    Prepared {
        op,
        inputs,
        outputs,
        _bindings: bindings,
        _tensors: tensors,
        read,
        written,
        count_buf,
        columns,
    }
}
