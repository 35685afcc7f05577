//! The memory under guarded buffers and arrays: `accessible` writable bytes followed by a fence.
//! On Unix the fence is one inaccessible page (`mmap`, then `mprotect(PROT_NONE)`), so reading or
//! writing one byte past the accessible bytes faults, even without AddressSanitizer. Elsewhere
//! it is [`FENCE`] canary bytes of an ordinary allocation, which [`Mapping::fence_intact`]
//! checks: a write past the end is still caught, a read is not. On Linux a mapping may also be
//! address space only ([`Mapping::reserve`]), and tell how many of its pages were touched.

#[cfg(not(unix))]
use super::CANARY;

/// Accessible bytes followed by a fence; released on drop.
pub(crate) struct Mapping {
    base: *mut u8,
    accessible: usize,
}

// SAFETY: a `Mapping` owns its memory exclusively, like a `Box<[u8]>`; shared references only
// read it, and writes through the raw pointers it hands out are the caller's responsibility.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// The start of the accessible bytes (aligned to [`granule`]).
    pub fn base(&self) -> *mut u8 {
        self.base
    }

    /// How many bytes are accessible.
    pub fn accessible(&self) -> usize {
        self.accessible
    }

    /// The end of the accessible bytes: the fence's first byte.
    pub fn end(&self) -> *mut u8 {
        self.base.wrapping_add(self.accessible)
    }

    /// The accessible bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the accessible bytes are initialised (zeroed when mapped) and live as long as
        // `self`; a shared borrow of `self` only reads them.
        unsafe { core::slice::from_raw_parts(self.base, self.accessible) }
    }

    /// The accessible bytes, writable.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`; the exclusive borrow of `self` makes this the only reference.
        unsafe { core::slice::from_raw_parts_mut(self.base, self.accessible) }
    }
}

/// The unit that accessible sizes are rounded up to: the page size on Unix, 64 elsewhere.
#[cfg(unix)]
pub(crate) fn granule() -> usize {
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page)
        .ok()
        .filter(|&p| p >= 64)
        .unwrap_or(4096)
}

#[cfg(unix)]
impl Mapping {
    /// `accessible` zeroed bytes (a multiple of [`granule`]) followed by one inaccessible page.
    pub fn new(accessible: usize) -> Mapping {
        let len = accessible + granule();
        Self::map(accessible, 0).unwrap_or_else(|e| panic!("mmap of {len} bytes failed: {e}"))
    }

    /// The same, as address space only (`MAP_NORESERVE`): no page takes memory until it is
    /// touched, and none is counted against the commit limit, so that more than RAM and swap
    /// can be mapped (with `vm.overcommit_memory` 0 or 1; 2 refuses it). Fails with the
    /// system's error when the mapping cannot be made.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn reserve(accessible: usize) -> std::io::Result<Mapping> {
        Self::map(accessible, libc::MAP_NORESERVE)
    }

    /// A private anonymous mapping of `accessible` bytes and a fence page, with `flags` added.
    fn map(accessible: usize, flags: libc::c_int) -> std::io::Result<Mapping> {
        let page = granule();
        assert!(
            accessible.is_multiple_of(page),
            "{accessible} is not a whole number of pages"
        );
        let len = accessible
            .checked_add(page)
            .expect("mapping size fits in usize");
        // SAFETY: a fresh private anonymous mapping, which touches no existing memory; the
        // result is checked below.
        let base = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | flags,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let base = base.cast::<u8>();
        // SAFETY: the last page lies inside the mapping just made, which nothing else uses.
        let rc = unsafe { libc::mprotect(base.add(accessible).cast(), page, libc::PROT_NONE) };
        assert_eq!(rc, 0, "mprotect failed");
        Ok(Mapping { base, accessible })
    }

    /// How many pages of the accessible bytes are in memory: on Linux, a page that was never
    /// read or written has none (its first read maps the shared zero page, its first write a
    /// page of its own, and both count), so 0 means untouched. Reads nothing of the bytes.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn resident_pages(&self) -> usize {
        let mut vec = vec![0u8; self.accessible / granule()];
        // SAFETY: `base` is page-aligned and the range is the accessible part of this live
        // mapping; `vec` holds one byte per page of it, as mincore writes.
        let rc = unsafe { libc::mincore(self.base.cast(), self.accessible, vec.as_mut_ptr()) };
        assert_eq!(rc, 0, "mincore failed: {}", std::io::Error::last_os_error());
        vec.iter().filter(|&&v| v & 1 != 0).count()
    }

    /// True: a touch of the fence page would have faulted.
    pub fn fence_intact(&self) -> bool {
        true
    }
}

#[cfg(unix)]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped; no reference into it outlives `self`.
        unsafe { libc::munmap(self.base.cast(), self.accessible + granule()) };
    }
}

/// The canary bytes after the accessible ones where pages cannot be protected.
#[cfg(not(unix))]
const FENCE: usize = 64;

#[cfg(not(unix))]
pub(crate) fn granule() -> usize {
    64
}

#[cfg(not(unix))]
impl Mapping {
    fn layout(accessible: usize) -> std::alloc::Layout {
        std::alloc::Layout::from_size_align(accessible + FENCE, 64).expect("buffer size")
    }

    /// `accessible` zeroed bytes (a multiple of [`granule`]) followed by [`FENCE`] canary bytes.
    pub fn new(accessible: usize) -> Mapping {
        assert!(accessible.is_multiple_of(granule()));
        let layout = Self::layout(accessible);
        // SAFETY: the layout has a nonzero size (it includes the fence).
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        if base.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let mut m = Mapping { base, accessible };
        m.fence_mut().fill(CANARY);
        m
    }

    fn fence_mut(&mut self) -> &mut [u8] {
        // SAFETY: the fence lies inside the allocation, which `self` owns exclusively.
        unsafe { core::slice::from_raw_parts_mut(self.end(), FENCE) }
    }

    /// True when every fence byte is still the canary.
    pub fn fence_intact(&self) -> bool {
        // SAFETY: the fence lies inside the allocation and was initialised in `new`.
        let fence = unsafe { core::slice::from_raw_parts(self.end(), FENCE) };
        fence.iter().all(|&b| b == CANARY)
    }
}

#[cfg(not(unix))]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: frees exactly what `new` allocated, with the same layout.
        unsafe { std::alloc::dealloc(self.base, Self::layout(self.accessible)) };
    }
}
