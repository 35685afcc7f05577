//! The coordinates output as the row writers see it: a pointer and a length, written by one
//! thread ([`Exclusive`]) or by several at once ([`Shared`]). Only a layout proven disjoint
//! ([`Disjoint`]) makes a shared view, so the parallel path cannot be taken with an output whose
//! elements may share memory: the compiler refuses to share an exclusive view.

use core::marker::PhantomData;

use crate::tensor::Disjoint;

/// A view that only the thread holding it writes.
pub(super) struct Exclusive;
/// A view that several threads may write at once, each at elements no other thread writes.
pub(super) struct Shared;

/// An output slice that the row writers write through its pointer, checking their largest index
/// once instead of at every store.
pub(super) struct OutView<'a, T, S> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
    _sharing: PhantomData<S>,
}

// SAFETY: a shared view hands out only its pointer (`as_ptr`), whose writers must keep within
// bounds and never write an element another thread accesses at the same time; it is made only
// from a layout whose elements have distinct addresses, so threads writing distinct elements
// write distinct memory. The borrow it holds is exclusive, so no reader outside it exists.
unsafe impl<T: Send> Sync for OutView<'_, T, Shared> {}
// SAFETY: moving a view moves the exclusive borrow it holds, as moving a `&mut [T]` does.
unsafe impl<T: Send, S> Send for OutView<'_, T, S> {}

impl<'a, T: Copy> OutView<'a, T, Exclusive> {
    /// A view for this thread alone.
    pub fn exclusive(slice: &'a mut [T]) -> Self {
        OutView::new(slice)
    }
}

impl<'a, T: Copy> OutView<'a, T, Shared> {
    /// A view that threads may share: `slice` holds the output whose layout `proof` shows
    /// disjoint.
    pub fn shared(slice: &'a mut [T], proof: Disjoint<'_>) -> Self {
        debug_assert_eq!(proof.layout().dtype.size(), size_of::<T>());
        OutView::new(slice)
    }
}

impl<'a, T: Copy, S> OutView<'a, T, S> {
    fn new(slice: &'a mut [T]) -> Self {
        OutView {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
            _sharing: PhantomData,
        }
    }

    /// The number of elements in the view.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The first element's address. Whoever writes through it must keep within `len()`
    /// elements, write only elements of the output's layout, and not write an element that
    /// another thread accesses at the same time.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }
}
