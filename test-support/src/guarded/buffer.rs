//! [`Buffer`]: tensor bytes between canary guards, against an inaccessible page.

use directml_subset::dml::DML_BUFFER_BINDING;

use super::mapping::{granule, Mapping};
use super::CANARY;

/// Guard bytes (at least) before the tensor bytes; [`Buffer::binding`]'s Offset.
pub const GUARD: usize = 64;

/// Tensor bytes with guards around them: the one buffer type of the tests, the benchmark and the
/// fuzz harness. The tensor bytes start 64-byte aligned, at least [`GUARD`] bytes into the
/// memory, and are followed by guard bytes up to the next multiple of 64, which is the end of the
/// accessible memory: on Unix an inaccessible page follows, so touching a byte past it faults;
/// elsewhere 64 more guard bytes follow. Every guard byte is [`CANARY`], so a write outside the
/// tensor bytes shows in [`Buffer::guards_intact`].
pub struct Buffer {
    map: Mapping,
    len: usize,
    /// Guard bytes between the tensor bytes and the end of the accessible memory.
    trail: usize,
}

impl Buffer {
    /// `len` tensor bytes, all CANARY like the guards.
    pub fn new(len: usize) -> Buffer {
        Buffer::filled(len, CANARY)
    }

    /// `len` tensor bytes (a `usize` or a tensor's `u64` size), each `fill`.
    pub fn filled(len: impl TryInto<usize, Error: core::fmt::Debug>, fill: u8) -> Buffer {
        let len = len.try_into().expect("length fits in usize");
        let trail = (64 - len % 64) % 64;
        let accessible = (GUARD + len + trail).next_multiple_of(granule());
        let mut b = Buffer {
            map: Mapping::new(accessible),
            len,
            trail,
        };
        let start = b.start();
        let all = b.map.bytes_mut();
        all[..start].fill(CANARY);
        all[start..start + len].fill(fill);
        all[start + len..].fill(CANARY);
        b
    }

    /// Tensor bytes that are a copy of `bytes`.
    pub fn with_bytes(bytes: &[u8]) -> Buffer {
        let mut b = Buffer::filled(bytes.len(), 0);
        b.bytes_mut().copy_from_slice(bytes);
        b
    }

    /// Where the tensor bytes start in the accessible memory.
    #[inline]
    fn start(&self) -> usize {
        self.map.accessible() - self.trail - self.len
    }

    /// How many tensor bytes there are.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no tensor bytes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// All the accessible memory: the guards and the tensor bytes.
    #[inline]
    pub fn all(&self) -> &[u8] {
        self.map.bytes()
    }

    /// The tensor bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        let s = self.start();
        &self.all()[s..s + self.len]
    }

    /// The tensor bytes, writable.
    #[inline]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let (s, len) = (self.start(), self.len);
        &mut self.map.bytes_mut()[s..s + len]
    }

    /// The first tensor byte (64-byte aligned), for handing to the library; several bindings may
    /// point into one buffer. Writing through it while a slice of the buffer is borrowed is the
    /// caller's error.
    #[inline]
    pub fn ptr(&self) -> *mut u8 {
        self.map.base().wrapping_add(self.start())
    }

    /// True when every byte outside the tensor bytes is still the canary.
    pub fn guards_intact(&self) -> bool {
        let (s, all) = (self.start(), self.all());
        all[..s].iter().all(|&b| b == CANARY)
            && all[s + self.len..].iter().all(|&b| b == CANARY)
            && self.map.fence_intact()
    }

    /// A binding of the tensor bytes: Buffer [`GUARD`] bytes before them, Offset [`GUARD`].
    pub fn binding(&mut self) -> DML_BUFFER_BINDING {
        DML_BUFFER_BINDING {
            Buffer: self.ptr().wrapping_sub(GUARD).cast(),
            Offset: GUARD as u64,
            SizeInBytes: self.len as u64,
        }
    }
}

impl Clone for Buffer {
    /// The same tensor bytes and guard bytes, in new memory.
    fn clone(&self) -> Buffer {
        let mut c = Buffer::filled(self.len, 0);
        c.map.bytes_mut().copy_from_slice(self.all());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_bytes_are_aligned_filled_and_bound() {
        for len in [0usize, 1, 63, 64, 65, 4096, 5000] {
            let mut b = Buffer::filled(len, 0x11);
            assert_eq!(b.len(), len);
            assert_eq!(b.ptr() as usize % 64, 0, "len {len}");
            assert!(b.bytes().iter().all(|&x| x == 0x11));
            assert!(b.guards_intact());
            let binding = b.binding();
            let first = (binding.Buffer as usize) + binding.Offset as usize;
            assert_eq!(first, b.ptr() as usize);
            assert_eq!(binding.SizeInBytes, len as u64);
            // The tensor bytes end where the accessible memory does, up to 64-byte rounding.
            assert_eq!(b.all().len() % granule(), 0);
            assert!(b.all().len() >= GUARD + len);
        }
    }

    #[test]
    fn a_write_outside_the_tensor_bytes_breaks_the_guards() {
        for len in [1usize, 64, 100] {
            let b = Buffer::new(len);
            for at in [-1isize, -(GUARD as isize), len as isize] {
                if at == len as isize && len.is_multiple_of(64) {
                    continue; // that byte is the inaccessible page (on Unix)
                }
                let c = b.clone();
                assert!(c.guards_intact());
                // SAFETY: `at` is within the accessible memory: at least GUARD bytes before the
                // tensor bytes, and up to the next multiple of 64 after them.
                unsafe { c.ptr().offset(at).write(0) };
                assert!(!c.guards_intact(), "len {len}, byte {at}");
            }
        }
    }

    #[test]
    fn clone_copies_tensor_and_guard_bytes() {
        let mut b = Buffer::with_bytes(&[1, 2, 3]);
        b.bytes_mut()[1] = 9;
        let c = b.clone();
        assert_eq!(c.bytes(), &[1, 9, 3]);
        assert_eq!(c.all(), b.all());
        assert_ne!(c.ptr(), b.ptr());
    }
}
