//! Memory that ends at an inaccessible page, so reading or writing one byte past it faults even
//! without AddressSanitizer, plus guard bytes around bound buffers.

use core::ptr;

const PAGE: usize = 4096;

/// Guard bytes before a [`Region`]'s payload.
pub const LEAD: usize = 64;
/// What guard bytes hold.
pub const GUARD_BYTE: u8 = 0xC7;

/// An anonymous mapping whose last page is `PROT_NONE`.
struct Mapping {
    base: *mut u8,
    len: usize,
}

impl Mapping {
    /// `accessible` bytes (a multiple of the page size) followed by one inaccessible page.
    fn new(accessible: usize) -> Mapping {
        let len = accessible + PAGE;
        // SAFETY: a fresh private anonymous mapping; the result is checked.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(base != libc::MAP_FAILED, "mmap of {len} bytes failed");
        let base = base.cast::<u8>();
        // SAFETY: the last page lies inside the mapping just made.
        let rc = unsafe { libc::mprotect(base.add(accessible).cast(), PAGE, libc::PROT_NONE) };
        assert_eq!(rc, 0, "mprotect failed");
        Mapping { base, len }
    }

    /// The end of the accessible bytes.
    fn end(&self) -> *mut u8 {
        // SAFETY: within the mapping.
        unsafe { self.base.add(self.len - PAGE) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// `p`, or NULL when `null` (a case that asks for a NULL pointer in its place).
pub fn or_null<T>(null: bool, p: *const T) -> *const T {
    if null {
        ptr::null()
    } else {
        p
    }
}

/// [`or_null`] for a pointer to writable memory.
pub fn or_null_mut<T>(null: bool, p: *mut T) -> *mut T {
    if null {
        ptr::null_mut()
    } else {
        p
    }
}

fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

/// A caller's array (sizes, strides, levels, binding descs) whose last byte is the last
/// accessible one.
pub struct GuardedArray {
    map: Mapping,
    bytes: usize,
}

impl GuardedArray {
    /// An array holding `values`.
    pub fn new(values: &[u32]) -> GuardedArray {
        Self::of_structs(values)
    }

    /// An array holding `values` (plain C structs), 8-byte aligned when their size is.
    pub fn of_structs<T: Copy>(values: &[T]) -> GuardedArray {
        let bytes = size_of_val(values);
        let map = Mapping::new(round_up(bytes.max(1), PAGE));
        let a = GuardedArray { map, bytes };
        // SAFETY: `bytes` bytes before the end are inside the accessible part; T is Copy.
        unsafe {
            ptr::copy_nonoverlapping(values.as_ptr().cast::<u8>(), a.map.end().sub(bytes), bytes)
        };
        a
    }

    /// The first element (the end of the accessible memory for an empty array).
    pub fn ptr(&self) -> *const u32 {
        // SAFETY: within the mapping.
        unsafe { self.map.end().sub(self.bytes).cast::<u32>() }
    }

    /// The array's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the array's bytes are accessible and live as long as `self`.
        unsafe { core::slice::from_raw_parts(self.map.end().sub(self.bytes), self.bytes) }
    }

    /// The first element, writable.
    pub fn ptr_mut(&self) -> *mut u8 {
        // SAFETY: within the mapping.
        unsafe { self.map.end().sub(self.bytes) }
    }

    /// Overwrites the array (after the library should have copied it).
    pub fn poison(&self) {
        // SAFETY: the array's bytes are accessible and owned by this value.
        unsafe { ptr::write_bytes(self.map.end().sub(self.bytes), 0xEE, self.bytes) };
    }
}

/// A bound buffer: [`LEAD`] guard bytes, a 64-aligned payload, then guard bytes up to the next
/// multiple of 64, which is also the end of the accessible memory.
pub struct Region {
    map: Mapping,
    payload: usize,
    trail: usize,
}

impl Region {
    /// A payload of `len` bytes, each `fill`; the guards hold [`GUARD_BYTE`].
    pub fn new(len: usize, fill: u8) -> Region {
        let trail = (64 - len % 64) % 64;
        let accessible = round_up(LEAD + len + trail, PAGE);
        let map = Mapping::new(accessible);
        let r = Region {
            map,
            payload: len,
            trail,
        };
        // SAFETY: the whole accessible part is writable.
        unsafe {
            ptr::write_bytes(r.map.base, GUARD_BYTE, accessible);
            ptr::write_bytes(r.ptr(), fill, len);
        }
        r
    }

    /// The payload's first byte (64-aligned).
    pub fn ptr(&self) -> *mut u8 {
        // SAFETY: within the mapping.
        unsafe { self.map.end().sub(self.trail + self.payload) }
    }

    /// The payload.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the payload is accessible and lives as long as `self`.
        unsafe { core::slice::from_raw_parts(self.ptr(), self.payload) }
    }

    /// The payload, writable.
    #[allow(clippy::mut_from_ref)]
    pub fn bytes_mut(&self) -> &mut [u8] {
        // SAFETY: as above; callers hold no other reference to the payload meanwhile.
        unsafe { core::slice::from_raw_parts_mut(self.ptr(), self.payload) }
    }

    /// True when every guard byte (everything accessible outside the payload) is intact.
    pub fn guards_intact(&self) -> bool {
        let accessible = self.map.len - PAGE;
        // SAFETY: the accessible part of the mapping.
        let all = unsafe { core::slice::from_raw_parts(self.map.base, accessible) };
        let start = accessible - self.trail - self.payload;
        all[..start].iter().all(|&b| b == GUARD_BYTE)
            && all[start + self.payload..].iter().all(|&b| b == GUARD_BYTE)
    }

    /// Overwrites the payload (for memory handed to the library that it must have copied).
    pub fn poison(&self) {
        self.bytes_mut().fill(0xEE);
    }
}
