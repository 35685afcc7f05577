//! The one guarded buffer type of the tests, and byte helpers.

use directml_subset::dml::*;

/// Tensor bytes with guard space around them: the one buffer type of the tests. The tensor
/// bytes start 64 bytes into 8-byte-aligned storage (so they are aligned to the largest element
/// size) and are followed by 64 more guard bytes; every guard byte is CANARY, so a write past
/// either end shows in [`Buffer::guards_intact`].
#[derive(Clone)]
pub struct Buffer {
    storage: Vec<u64>,
    pub offset: usize,
    pub len: usize,
}

pub const GUARD: usize = 64;
pub const CANARY: u8 = 0xA5;

impl Buffer {
    /// `len` tensor bytes, all CANARY like the guards.
    pub fn new(len: usize) -> Buffer {
        Buffer::filled(len, CANARY)
    }

    /// `len` tensor bytes (a `usize` or a tensor's `u64` size), each `fill`.
    pub fn filled(len: impl TryInto<usize, Error: core::fmt::Debug>, fill: u8) -> Buffer {
        let len = len.try_into().expect("length fits in usize");
        let words = (GUARD * 2 + len).div_ceil(8) + 8;
        let mut b = Buffer {
            storage: vec![0; words],
            offset: GUARD,
            len,
        };
        b.all_mut().fill(CANARY);
        b.bytes_mut().fill(fill);
        b
    }

    /// Tensor bytes that are a copy of `bytes`.
    pub fn with_bytes(bytes: &[u8]) -> Buffer {
        let mut b = Buffer::new(bytes.len());
        b.bytes_mut().copy_from_slice(bytes);
        b
    }

    pub fn all(&self) -> &[u8] {
        bytemuck::cast_slice(&self.storage)
    }

    pub fn all_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(&mut self.storage)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.all()[self.offset..self.offset + self.len]
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let (o, l) = (self.offset, self.len);
        &mut self.all_mut()[o..o + l]
    }

    /// True when every byte outside the tensor bytes is still the canary.
    pub fn guards_intact(&self) -> bool {
        let all = self.all();
        all[..self.offset].iter().all(|&b| b == CANARY)
            && all[self.offset + self.len..].iter().all(|&b| b == CANARY)
    }

    /// A binding of the tensor bytes (Offset 64 into the storage).
    pub fn binding(&mut self) -> DML_BUFFER_BINDING {
        let len = self.len as u64;
        DML_BUFFER_BINDING {
            Buffer: self.all_mut().as_mut_ptr().cast(),
            Offset: GUARD as u64,
            SizeInBytes: len,
        }
    }
}

/// The index of the first byte at which `got` and `want` differ, if any.
pub fn first_difference(got: &[u8], want: &[u8]) -> Option<usize> {
    assert_eq!(got.len(), want.len(), "lengths differ");
    got.iter().zip(want).position(|(a, b)| a != b)
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

pub fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}
