//! Guarded memory, so that the library touching a byte it was not given shows: [`Buffer`] (the
//! one buffer type of the tests, the benchmark and the fuzz harness: tensor bytes between canary
//! guards, against an inaccessible page) and [`GuardedArray`] (a caller's array whose last byte
//! is the last accessible one), and on Linux [`Reserved`] (tensor bytes that take address space,
//! not memory, for outputs larger than the machine's memory that a run must leave untouched).
//! The platform part is in `mapping`: inaccessible pages on Unix, canary bytes elsewhere.

use core::ptr;

mod buffer;
mod mapping;
#[cfg(any(target_os = "linux", target_os = "android"))]
mod reserved;

pub use buffer::{Buffer, GUARD};
#[cfg(any(target_os = "linux", target_os = "android"))]
pub use reserved::Reserved;

use mapping::{granule, Mapping};

/// What every guard byte holds, and [`Buffer::new`]'s tensor bytes.
pub const CANARY: u8 = 0xA5;

/// What [`GuardedArray::poison`] writes.
const POISON: u8 = 0xEE;

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

/// A caller's array (sizes, strides, levels, binding descs, a whole desc struct) whose last byte
/// is the last accessible one, so that reading past it faults (on Unix).
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
        let mut map = Mapping::new(bytes.max(1).next_multiple_of(granule()));
        let start = map.accessible() - bytes;
        let dst = map.bytes_mut()[start..].as_mut_ptr();
        // SAFETY: `dst` starts `bytes` bytes before the end of the accessible memory, which
        // `map` owns; `values` holds `bytes` bytes and is a plain `Copy` type, copied verbatim.
        unsafe { ptr::copy_nonoverlapping(values.as_ptr().cast::<u8>(), dst, bytes) };
        GuardedArray { map, bytes }
    }

    /// The first element (the end of the accessible memory for an empty array).
    pub fn ptr(&self) -> *const u32 {
        self.ptr_mut().cast_const().cast()
    }

    /// The first element, writable.
    pub fn ptr_mut(&self) -> *mut u8 {
        self.map.end().wrapping_sub(self.bytes)
    }

    /// The array's bytes.
    pub fn bytes(&self) -> &[u8] {
        let all = self.map.bytes();
        &all[all.len() - self.bytes..]
    }

    /// Overwrites the array (after the library should have copied it).
    pub fn poison(&mut self) {
        let all = self.map.bytes_mut();
        let start = all.len() - self.bytes;
        all[start..].fill(POISON);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_ends_where_the_accessible_memory_does() {
        let values = [7u32, 8, 9];
        let mut a = GuardedArray::new(&values);
        assert_eq!(a.bytes(), bytemuck::cast_slice::<u32, u8>(&values));
        assert_eq!(a.ptr() as usize + 12, a.map.end() as usize);
        a.poison();
        assert!(a.bytes().iter().all(|&b| b == POISON));
        let empty = GuardedArray::new(&[]);
        assert_eq!(empty.ptr() as usize, empty.map.end() as usize);
    }
}
