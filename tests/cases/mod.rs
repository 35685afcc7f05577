//! Random operator cases with their expected outputs from `directml_subset::reference`, for the
//! thread-count differential test (tests/threads.rs) and the soak (tests/soak.rs).
//!
//! A case holds an operator desc, its input bytes, the bytes each output starts with (a canary,
//! or random bytes when DIAGONAL_MATRIX1 runs in place) and the reference's outputs. Outputs are
//! compared whole, so padding, rows from the count on and every byte the operator must leave
//! alone are checked too.
#![allow(dead_code)]

use directml_subset::{
    reference, DataType, Device, DeviceOptions, Input, Operator, OperatorDesc, TensorDesc,
    DMLS_DEVICE_FLAG_EXTENSIONS,
};
use rand::rngs::SmallRng;

use crate::common::{element, random_elements};
use rand::Rng;

pub const CANARY: u8 = 0xA5;

/// A buffer of 8-aligned bytes (every element type is aligned in it).
#[derive(Clone, PartialEq, Eq)]
pub struct Buf {
    words: Vec<u64>,
    len: usize,
}

impl Buf {
    pub fn new(len: u64, fill: u8) -> Buf {
        let len = usize::try_from(len).expect("size fits in usize");
        Buf {
            words: vec![u64::from_ne_bytes([fill; 8]); len.div_ceil(8)],
            len,
        }
    }
    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len]
    }
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut(&mut self.words)[..self.len]
    }
}

/// A device with the extensions on (64-bit coordinates) and `threads` workers.
pub fn device(threads: u32) -> Device {
    Device::new(&DeviceOptions {
        thread_count: threads,
        flags: DMLS_DEVICE_FLAG_EXTENSIONS,
        ..Default::default()
    })
    .expect("device")
}

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
    pub input: Buf,
    /// The outputs before execution.
    pub before: Vec<Buf>,
    /// The outputs after execution, from the reference.
    pub want: Vec<Buf>,
    /// A short description for failure messages.
    pub what: String,
}

/// `bytes` bytes of random elements of `t` (tests/common's generator), in a [`Buf`].
fn random_bytes(rng: &mut SmallRng, t: DataType, bytes: u64, density: f64) -> Buf {
    let elements = random_elements(rng, t, bytes as usize, density);
    let mut b = Buf::new(bytes, 0);
    b.bytes_mut().copy_from_slice(elements.bytes());
    b
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

fn packed(sizes: &[u32]) -> Vec<u32> {
    let mut s = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for i in (0..sizes.len()).rev() {
        s[i] = acc;
        acc *= sizes[i];
    }
    s
}

/// Packed, padded, permuted or broadcasting strides (None: packed, no Strides array).
fn random_strides(rng: &mut SmallRng, sizes: &[u32], broadcast: bool) -> Option<Vec<u32>> {
    match rng.random_range(0..5) {
        0 | 1 => None,
        2 => {
            let mut s = vec![0u32; sizes.len()];
            let mut acc = 1u32;
            for i in (0..sizes.len()).rev() {
                s[i] = acc;
                acc = acc * sizes[i] + rng.random_range(0..3);
            }
            Some(s)
        }
        3 => {
            let d = sizes.len();
            let mut order: Vec<usize> = (0..d).collect();
            for i in (1..d).rev() {
                order.swap(i, rng.random_range(0..=i));
            }
            let mut s = vec![0u32; d];
            let mut acc = 1u32;
            for &i in order.iter().rev() {
                s[i] = acc;
                acc *= sizes[i];
            }
            Some(s)
        }
        _ => {
            let mut s = packed(sizes);
            for x in s.iter_mut() {
                if broadcast && rng.random_bool(0.3) {
                    *x = 0;
                }
            }
            Some(s)
        }
    }
}

fn desc(t: DataType, sizes: &[u32], strides: Option<&[u32]>) -> TensorDesc {
    match strides {
        Some(s) => TensorDesc::with_strides(t, sizes, s),
        None => TensorDesc::new(t, sizes),
    }
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
        let lead = sizes.iter().take_while(|&&s| s == 1).count();
        let rank = (dims - lead).max(1);
        let n = rng.random_range(rank..=dims) as u32;
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
        let data = random_bytes(rng, t, input.total_size, density);
        let before = vec![
            Buf::new(count.total_size, CANARY),
            Buf::new(coords.total_size, CANARY),
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
            InputKind::Bytes => random_bytes(rng, t, in_desc.unwrap().total_size, 0.7),
            _ => Buf::new(0, 0),
        };
        let mut value = [0u8; 8];
        let nz = rng.random_bool(0.8);
        element(rng, t, nz, &mut value[..t.size()]);
        let (begin, end) = Case::fill(rng, &sizes);
        let before = if kind == InputKind::InPlace {
            random_bytes(rng, t, out.total_size, 0.7)
        } else {
            Buf::new(out.total_size, CANARY)
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
            desc: OperatorDesc::DiagonalMatrix1 {
                input: in_desc,
                output: out,
                value_data_type: t.raw(),
                value,
                diagonal_fill_begin: begin,
                diagonal_fill_end: end,
            },
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
        let before = Buf::new(out.total_size, CANARY);
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
            input: Buf::new(0, 0),
            before: vec![before],
            want: vec![want],
            what,
        }
    }

    /// Executes `op` (created from this case's desc) on fresh copies of the outputs; returns
    /// them.
    pub fn execute(&self, op: &Operator) -> directml_subset::Result<Vec<Buf>> {
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
    /// reference's outputs exactly.
    pub fn check(&self, got: &[Buf], context: &str) {
        for (o, (g, w)) in got.iter().zip(&self.want).enumerate() {
            if let Some(i) = (0..w.len).find(|&i| g.bytes()[i] != w.bytes()[i]) {
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
