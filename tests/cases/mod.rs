//! Random operator cases with their expected outputs from `directml_subset::reference`, for the
//! thread-count differential test (tests/threads.rs) and the soak (tests/soak.rs).
//!
//! A case holds an operator desc, its input bytes, the bytes each output starts with (a canary,
//! or random bytes when DIAGONAL_MATRIX1 runs in place) and the reference's outputs. Outputs are
//! compared whole, so padding, rows from the count on and every byte the operator must leave
//! alone are checked too.
#![allow(dead_code)]

use directml_subset::{reference, DataType, Input, Operator, OperatorDesc, TensorDesc};
use rand::rngs::SmallRng;
use rand::Rng;

use crate::common::{
    diagonal1_op, element, first_difference, min_columns, random_elements, random_strides,
    tensor_desc as desc, Buffer, CANARY,
};

/// How the input is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    None,
    Bytes,
    InPlace,
}

pub struct Case {
    pub desc: OperatorDesc,
    pub input_kind: InputKind,
    pub input: Buffer,
    /// The outputs before execution.
    pub before: Vec<Buffer>,
    /// The outputs after execution, from the reference.
    pub want: Vec<Buffer>,
    /// A short description for failure messages.
    pub what: String,
}

/// Sizes of `dims` dimensions whose product is about `elements`.
fn random_sizes(rng: &mut SmallRng, dims: usize, elements: u32) -> Vec<u32> {
    let mut sizes = vec![1u32; dims];
    let mut left = elements.max(1);
    for s in sizes.iter_mut().skip(1) {
        let d = rng.random_range(1..=left.clamp(1, 9));
        *s = d;
        left = left.div_ceil(d);
    }
    sizes[0] = left;
    // Shuffle so that the large dimension lands anywhere.
    for i in (1..dims).rev() {
        sizes.swap(i, rng.random_range(0..=i));
    }
    sizes
}

impl Case {
    /// A random case. `large` picks sizes that take the kernels' parallel paths (NONZERO:
    /// at least 2^17 elements; DIAGONAL_MATRIX(1): at least 1 MiB of packed output) and
    /// sometimes the streaming-store path (8 MiB); otherwise small to medium sizes.
    pub fn random(rng: &mut SmallRng, large: bool) -> Case {
        match rng.random_range(0..5) {
            0..=2 => Case::nonzero(rng, large),
            3 => Case::diagonal1(rng, large),
            _ => Case::diagonal0(rng, large),
        }
    }

    fn nonzero(rng: &mut SmallRng, large: bool) -> Case {
        let t = DataType::ALL[rng.random_range(0..DataType::ALL.len())];
        let elements = if large {
            rng.random_range((1u32 << 17)..(1 << 19) + 5000)
        } else {
            rng.random_range(1..5000)
        };
        let dims = rng.random_range(1..=5usize);
        let sizes = random_sizes(rng, dims, elements);
        let in_strides = random_strides(rng, &sizes, true);
        let input = desc(t, &sizes, in_strides.as_deref());
        let m: u32 = sizes.iter().product();
        let n = rng.random_range(min_columns(&sizes)..=dims) as u32;
        let out_t = match rng.random_range(0..4) {
            0 => DataType::UInt64,
            1 => DataType::Int64,
            _ => DataType::UInt32,
        };
        let count = TensorDesc::new(out_t, &[1]);
        let coords = match rng.random_range(0..4) {
            0 => TensorDesc::with_strides(out_t, &[m, n], &[n + rng.random_range(1..3), 1]),
            1 => TensorDesc::with_strides(out_t, &[m, n], &[1, m]),
            _ => TensorDesc::new(out_t, &[m, n]),
        };
        let density = [0.0, 0.02, 0.5, 0.97, 1.0][rng.random_range(0..5)];
        let data = random_elements(rng, t, input.total_size as usize, density);
        let before = vec![
            Buffer::filled(count.total_size, CANARY),
            Buffer::filled(coords.total_size, CANARY),
        ];
        let mut want = before.clone();
        let [wc, wr] = &mut want[..] else {
            unreachable!()
        };
        let rows = reference::nonzero_coordinates(
            &input,
            data.bytes(),
            &count,
            &coords,
            wc.bytes_mut(),
            wr.bytes_mut(),
        );
        let what = format!(
            "NONZERO_COORDINATES {t:?} sizes {sizes:?} strides {in_strides:?} -> {out_t:?} \
             {:?} strides {:?}, {rows} of {m} nonzero",
            coords.sizes(),
            coords.strides()
        );
        Case {
            desc: OperatorDesc::NonZeroCoordinates {
                input,
                output_count: count,
                output_coordinates: coords,
            },
            input_kind: InputKind::Bytes,
            input: data,
            before,
            want,
            what,
        }
    }

    fn out_sizes(rng: &mut SmallRng, t: DataType, large: bool) -> Vec<u32> {
        let elements = if large {
            let bytes = if rng.random_bool(0.2) {
                rng.random_range((8u32 << 20)..(9 << 20))
            } else {
                rng.random_range((1u32 << 20)..(3 << 20))
            };
            bytes / t.size() as u32
        } else {
            rng.random_range(1..6000)
        };
        let dims = rng.random_range(2..=4usize);
        let w = rng.random_range(1..=2000u32).min(elements);
        let mut sizes = random_sizes(rng, dims - 1, elements.div_ceil(w));
        sizes.push(w);
        sizes
    }

    fn fill(rng: &mut SmallRng, sizes: &[u32]) -> (i32, i32) {
        let d = sizes.len();
        let (w, h) = (sizes[d - 1] as i32, sizes[d - 2] as i32);
        let mut pick = || match rng.random_range(0..6) {
            0 => i32::MIN,
            1 => i32::MAX,
            2 => 0,
            _ => rng.random_range(-h - 2..=w + 2),
        };
        (pick(), pick())
    }

    fn diagonal1(rng: &mut SmallRng, large: bool) -> Case {
        let t = DataType::ALL[rng.random_range(0..DataType::ALL.len())];
        let sizes = Case::out_sizes(rng, t, large);
        // Large cases keep the output packed (the parallel path needs it).
        let out_strides = if large {
            None
        } else {
            random_strides(rng, &sizes, false).filter(|s| !s.contains(&0))
        };
        let out = desc(t, &sizes, out_strides.as_deref());
        let kind = match rng.random_range(0..3) {
            0 => InputKind::None,
            1 => InputKind::Bytes,
            _ => InputKind::InPlace,
        };
        let in_strides = if large {
            None
        } else {
            random_strides(rng, &sizes, true)
        };
        let in_desc = match kind {
            InputKind::None => None,
            InputKind::Bytes => Some(desc(t, &sizes, in_strides.as_deref())),
            InputKind::InPlace => Some(out),
        };
        let input = match kind {
            InputKind::Bytes => random_elements(rng, t, in_desc.unwrap().total_size as usize, 0.7),
            _ => Buffer::filled(0usize, 0),
        };
        let mut value = [0u8; 8];
        let nz = rng.random_bool(0.8);
        element(rng, t, nz, &mut value[..t.size()]);
        let (begin, end) = Case::fill(rng, &sizes);
        let before = if kind == InputKind::InPlace {
            random_elements(rng, t, out.total_size as usize, 0.7)
        } else {
            Buffer::filled(out.total_size, CANARY)
        };
        let mut want = before.clone();
        let ref_in = match kind {
            InputKind::None => None,
            InputKind::Bytes => Some((in_desc.as_ref().unwrap(), input.bytes())),
            InputKind::InPlace => Some((&out, before.bytes())),
        };
        reference::diagonal_matrix1(ref_in, &out, want.bytes_mut(), value, begin, end);
        let what = format!(
            "DIAGONAL_MATRIX1 {t:?} sizes {sizes:?} out strides {out_strides:?} input {kind:?} \
             strides {in_strides:?} begin {begin} end {end}"
        );
        Case {
            desc: diagonal1_op(in_desc, out, value, begin, end),
            input_kind: kind,
            input,
            before: vec![before],
            want: vec![want],
            what,
        }
    }

    fn diagonal0(rng: &mut SmallRng, large: bool) -> Case {
        let t = DataType::ALL[rng.random_range(0..DataType::ALL.len())];
        let mut sizes = Case::out_sizes(rng, t, large);
        // DIAGONAL_MATRIX outputs have 4 dimensions.
        while sizes.len() < 4 {
            sizes.insert(0, 1);
        }
        let out_strides = if large {
            None
        } else {
            random_strides(rng, &sizes, false).filter(|s| !s.contains(&0))
        };
        let out = desc(t, &sizes, out_strides.as_deref());
        let offset = Case::fill(rng, &sizes).0;
        let value = match rng.random_range(0..4) {
            0 => f32::NAN,
            1 => -1e30,
            2 => 0.0,
            _ => rng.random_range(-300.0f32..300.0),
        };
        let before = Buffer::filled(out.total_size, CANARY);
        let mut want = before.clone();
        reference::diagonal_matrix(&out, want.bytes_mut(), offset, value);
        let what = format!(
            "DIAGONAL_MATRIX {t:?} sizes {sizes:?} strides {out_strides:?} offset {offset} \
             value {value}"
        );
        Case {
            desc: OperatorDesc::DiagonalMatrix {
                output: out,
                offset,
                value,
            },
            input_kind: InputKind::None,
            input: Buffer::filled(0usize, 0),
            before: vec![before],
            want: vec![want],
            what,
        }
    }

    /// Executes `op` (created from this case's desc) on fresh copies of the outputs; returns
    /// them.
    pub fn execute(&self, op: &Operator) -> directml_subset::Result<Vec<Buffer>> {
        let mut outs = self.before.clone();
        let input = match self.input_kind {
            InputKind::None => Input::None,
            InputKind::Bytes => Input::Bytes(self.input.bytes()),
            InputKind::InPlace => Input::InPlace,
        };
        let inputs: &[Input<'_>] = match self.desc {
            OperatorDesc::DiagonalMatrix { .. } => &[],
            _ => std::slice::from_ref(&input),
        };
        let mut slices: Vec<&mut [u8]> = outs.iter_mut().map(|b| b.bytes_mut()).collect();
        op.execute(inputs, &mut slices)?;
        Ok(outs)
    }

    /// Panics with a description of the first differing byte unless `got` equals the
    /// reference's outputs exactly, and unless the guards around them are intact.
    pub fn check(&self, got: &[Buffer], context: &str) {
        for (o, (g, w)) in got.iter().zip(&self.want).enumerate() {
            assert!(
                g.guards_intact(),
                "{context}: output {o} written out of bounds: {}",
                self.what
            );
            if let Some(i) = first_difference(g.bytes(), w.bytes()) {
                panic!(
                    "{context}: output {o} differs from the reference at byte {i} (got {:#04x}, \
                     want {:#04x}): {}",
                    g.bytes()[i],
                    w.bytes()[i],
                    self.what
                );
            }
        }
    }
}
