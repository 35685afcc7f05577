//! A workload's operator, created through the C API, and its buffers: filled once (pre-faulted)
//! and bound for every run.

use rand::rngs::SmallRng;
use rand::Rng;
use test_support::{
    bind, diag1_desc, execute_raw, last_error, nonzero_desc, Buffer, Device, Operator, Tensor,
    NONE_BINDING,
};

use crate::workloads::{Coords, Kind};
use directml_subset::dml::*;

/// What every byte of a buffer holds when it is made (which also faults its pages in).
pub const PREFAULT: u8 = 0x01;

/// The operator `desc` describes, created on `dev`; panics with the HRESULT and message.
fn create(dev: &Device, desc: &impl test_support::OpDesc) -> Operator {
    dev.create_op(desc)
        .unwrap_or_else(|(hr, msg)| panic!("create: HRESULT {hr:#x}: {msg}"))
}

/// The element size of a DirectML data type.
fn esize(dt: DML_TENSOR_DATA_TYPE) -> usize {
    directml_subset::DataType::from_raw(dt)
        .expect("a DirectML data type")
        .size()
}

/// The coordinates tensor of NonZero on `m` elements of `n` dimensions.
fn coords_tensor(m: u32, n: u32, coords: Coords) -> Tensor {
    let u32t = DML_TENSOR_DATA_TYPE::UINT32.0;
    match coords {
        Coords::Ort => {
            let mut t = Tensor::strided(u32t, &[m, n], &[2, 2 * m]);
            // The whole int64 [N, M] buffer.
            t.total = u64::from(n) * u64::from(m) * 8;
            t
        }
        Coords::Packed => Tensor::new(u32t, &[m, n]),
        Coords::Wide => Tensor::new(DML_TENSOR_DATA_TYPE::UINT64.0, &[m, n]),
    }
}

/// A created operator with its bound buffers.
pub struct Prepared {
    op: Operator,
    inputs: Vec<DML_BINDING_DESC>,
    outputs: Vec<DML_BINDING_DESC>,
    _bindings: Vec<Box<DML_BUFFER_BINDING>>,
    _tensors: Vec<Tensor>,
    /// Bytes read and written, once the count is known (NonZero writes count × N coordinates).
    pub read: usize,
    written: usize,
    count_buf: Option<*const u32>,
    columns: usize,
    /// The size of a count and of a coordinate (4, or 8 for UINT64 coordinates).
    coord_size: usize,
}

impl Prepared {
    pub fn run(&self) {
        // The bindings point to live buffers of the right sizes.
        let hr = execute_raw(self.op.0, &self.inputs, &self.outputs);
        assert_eq!(hr, S_OK, "execute: {}", last_error());
    }

    /// Bytes the last run wrote (for NONZERO_COORDINATES, the count and count × N coordinates).
    pub fn written_bytes(&self) -> usize {
        match self.count_buf {
            // SAFETY: the count buffer holds the count the operator last wrote.
            // (a UINT64 count's low half: little-endian, and counts stay below 2^32).
            Some(c) => (1 + unsafe { c.read() } as usize * self.columns) * self.coord_size,
            None => self.written,
        }
    }
}

fn binding(buf: &mut Buffer, bindings: &mut Vec<Box<DML_BUFFER_BINDING>>) -> DML_BINDING_DESC {
    let b = Box::new(buf.binding());
    let desc = bind(&b);
    bindings.push(b);
    desc
}

/// Buffers of a workload, shared by the 1-thread and all-thread runs.
pub struct Data {
    pub input: Option<Buffer>,
    pub outputs: Vec<Buffer>,
}

/// NonZero's input, count and coordinates tensors (`kind` is `Kind::NonZero`).
fn nonzero_tensors(kind: &Kind) -> [Tensor; 3] {
    let Kind::NonZero {
        dt,
        sizes,
        strides,
        coords,
        ..
    } = kind
    else {
        unreachable!("NonZero tensors of a DIAGONAL_MATRIX1 workload")
    };
    let m: u32 = sizes.iter().product();
    let n = sizes.len() as u32;
    let count_type = match coords {
        Coords::Wide => DML_TENSOR_DATA_TYPE::UINT64,
        _ => DML_TENSOR_DATA_TYPE::UINT32,
    };
    [
        Tensor::with_strides(dt.0, sizes, strides.as_deref()),
        Tensor::new(count_type.0, &[1]),
        coords_tensor(m, n, *coords),
    ]
}

pub fn make_data(kind: &Kind, rng: &mut SmallRng) -> (Data, Vec<Tensor>) {
    match kind {
        Kind::NonZero { dt, density, .. } => {
            let [input, count, coords] = nonzero_tensors(kind);
            let mut ib = Buffer::filled(input.total, PREFAULT);
            let b = ib.bytes_mut();
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
            let outputs = vec![
                Buffer::filled(count.total, PREFAULT),
                Buffer::filled(coords.total, PREFAULT),
            ];
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
            let out = Tensor::new(dt.0, sizes);
            let mut tensors = vec![];
            let input = if *with_input {
                let t = Tensor::new(dt.0, sizes);
                let mut b = Buffer::filled(t.total, PREFAULT);
                rng.fill(b.bytes_mut());
                tensors.push(t);
                Some(b)
            } else {
                None
            };
            let outputs = vec![Buffer::filled(out.total, PREFAULT)];
            tensors.push(out);
            (Data { input, outputs }, tensors)
        }
    }
}

pub fn prepare(dev: &Device, kind: &Kind, data: &mut Data) -> Prepared {
    let mut bindings = vec![];
    let mut tensors = vec![];
    let coord_size = match kind {
        Kind::NonZero {
            coords: Coords::Wide,
            ..
        } => 8,
        _ => 4,
    };
    let (op, read, columns, has_count) = match kind {
        Kind::NonZero { dt, sizes, .. } => {
            let m: u32 = sizes.iter().product();
            let n = sizes.len() as u32;
            let [mut input, mut count, mut coords] = nonzero_tensors(kind);
            let op = create(dev, &*nonzero_desc(&mut input, &mut count, &mut coords));
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
            let mut out = Tensor::new(dt.0, sizes);
            let mut input = with_input.then(|| Tensor::new(dt.0, sizes));
            // Value in the output's type (FLOAT32 as given; other types: a small integer).
            let mut v = [0u8; 8];
            if *dt == DML_TENSOR_DATA_TYPE::FLOAT32 {
                v[..4].copy_from_slice(&value.to_ne_bytes());
            } else {
                v[0] = *value as u8;
            }
            // ValueDataType is the output's type.
            let op = create(dev, &*diag1_desc(input.as_mut(), &mut out, v, *begin, *end));
            let read = input.as_ref().map_or(0, |t| t.total as usize);
            tensors.push(out);
            tensors.extend(input);
            (op, read, 0, false)
        }
    };
    let inputs = match (&mut data.input, kind) {
        (Some(b), _) => vec![binding(b, &mut bindings)],
        (None, _) => vec![NONE_BINDING],
    };
    let outputs: Vec<_> = data
        .outputs
        .iter_mut()
        .map(|b| binding(b, &mut bindings))
        .collect();
    let count_buf = has_count.then(|| data.outputs[0].ptr() as *const u32);
    let written = if has_count { 0 } else { data.outputs[0].len() };
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
        coord_size,
    }
}
