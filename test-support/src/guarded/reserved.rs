//! [`Reserved`]: tensor bytes that take address space, not memory, against an inaccessible
//! page; for outputs larger than the machine's memory that a run must not touch.

use directml_subset::dml::DML_BUFFER_BINDING;

use super::mapping::{granule, Mapping};

/// Tensor bytes in a mapping that reserves no memory (Linux: `MAP_NORESERVE`), all zero and
/// never touched by this type, so that a tensor of tens of GB can be bound on a machine with
/// less memory, as long as the run leaves (nearly) all of it alone: a NONZERO_COORDINATES output
/// whose count is 0, say. [`Reserved::touched_pages`] tells whether anything read or wrote it.
/// As in [`Buffer`](super::Buffer), the tensor bytes start 64-byte aligned and end at most 63
/// bytes before an inaccessible page. There are no guard bytes before them (writing those
/// would touch a page). Unmapped on drop.
pub struct Reserved {
    map: Mapping,
    len: usize,
    /// Where the tensor bytes start in the mapping.
    start: usize,
}

impl Reserved {
    /// `len` tensor bytes (a `usize` or a tensor's `u64` size). Fails with a message naming
    /// the size and the system's error when the address space cannot be mapped (too little of
    /// it, a `ulimit -v`, or `vm.overcommit_memory` 2).
    pub fn new(len: impl TryInto<usize, Error: core::fmt::Debug>) -> Result<Reserved, String> {
        let len = len.try_into().expect("length fits in usize");
        let trail = (64 - len % 64) % 64;
        let accessible = (len + trail).max(1).next_multiple_of(granule());
        let map = Mapping::reserve(accessible).map_err(|e| {
            format!(
                "could not reserve {accessible} bytes ({:.1} GiB) of address space for a \
                 {len}-byte tensor (mmap with MAP_NORESERVE): {e}",
                accessible as f64 / (1u64 << 30) as f64
            )
        })?;
        Ok(Reserved {
            start: accessible - trail - len,
            map,
            len,
        })
    }

    /// A binding of the tensor bytes: Buffer the start of the mapping, Offset where they start
    /// in it (a multiple of 64).
    pub fn binding(&mut self) -> DML_BUFFER_BINDING {
        DML_BUFFER_BINDING {
            Buffer: self.map.base().cast(),
            Offset: self.start as u64,
            SizeInBytes: self.len as u64,
        }
    }

    /// How many pages of the mapping anything has read or written since it was made (0 for
    /// untouched tensor bytes). Reads none of them.
    pub fn touched_pages(&self) -> usize {
        self.map.resident_pages()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_buffer_is_bound_untouched_and_shows_touches() {
        let page = granule();
        let len = 3 * page + 16;
        let mut r = Reserved::new(len).expect("reserve");
        let b = r.binding();
        let first = b.Buffer as usize + b.Offset as usize;
        assert_eq!(first % 64, 0);
        assert_eq!(b.SizeInBytes, len as u64);
        // The tensor bytes end at the last multiple of 64 before the inaccessible page.
        assert_eq!(first + len + 48, r.map.end() as usize);
        assert_eq!(r.touched_pages(), 0);
        let p = first as *mut u8;
        // SAFETY: the first tensor byte lies in the mapping, which is readable and writable.
        let v = unsafe { p.read_volatile() };
        assert_eq!(v, 0);
        assert_eq!(r.touched_pages(), 1, "a read touches a page");
        // SAFETY: the last tensor byte lies in the mapping, which is readable and writable.
        unsafe { p.add(len - 1).write_volatile(7) };
        assert_eq!(r.touched_pages(), 2, "a write touches a page");
    }
}
