//! Byte helpers: comparing buffers and reading them as elements.

/// The index of the first byte at which `got` and `want` differ, if any.
pub fn first_difference(got: &[u8], want: &[u8]) -> Option<usize> {
    assert_eq!(got.len(), want.len(), "lengths differ");
    if got == want {
        return None; // (a memcmp: the common case, and the one large outputs make slow)
    }
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
