//! Streamed save and load of a USearch index (`cxx/index_stream.cpp`): the serialised index passes
//! through a callback in pieces, so neither side of a snapshot ever holds it whole beside the index. And
//! `use_i4_metric`, the i4 kind's distance function for an index.

use std::ffi::{c_char, c_void, CStr};
use usearch::Index;

extern "C" {
    fn edgemem_index_save_stream(
        native: *mut c_void,
        dimensions: usize,
        write: extern "C" fn(*mut c_void, *const c_void, usize) -> bool,
        state: *mut c_void,
    ) -> *const c_char;
    fn edgemem_index_load_stream(
        native: *mut c_void,
        dimensions: usize,
        read: extern "C" fn(*mut c_void, *mut c_void, usize) -> bool,
        state: *mut c_void,
    ) -> *const c_char;
    fn edgemem_index_use_i4_metric(native: *mut c_void, dimensions: usize, dims: usize) -> *const c_char;
    /// The i4 kind's distance (cxx/index_stream.cpp; src/vectors/nibbles.rs has the layout), which the
    /// index calls itself; here for the tests.
    #[cfg(test)]
    pub(crate) fn edgemem_i4_distance(a: usize, b: usize, dims: usize) -> f32;
}

/// Makes the i4 kind's cosine, over `dims` components, `index`'s distance function, until a load resets it
/// to the one its snapshot names.
pub(crate) fn use_i4_metric(index: &Index, dims: usize) -> Result<(), String> {
    let native = native(index);
    if native.is_null() {
        return Err("no index".into());
    }
    // SAFETY: `native` is the live index's C++ object.
    outcome(unsafe { edgemem_index_use_i4_metric(native, index.dimensions(), dims) })
}

/// `usearch::Index`'s fields, in its order and of its types (usearch 2.26, rust/lib.rs): rustc lays
/// both out alike, which is how a `&Index` reaches its C++ object, which the crate keeps private.
struct IndexFields {
    inner: cxx::UniquePtr<usearch::ffi::NativeIndex>,
    _metric_fn: Option<usearch::MetricFunction>,
}

const _: () = assert!(
    std::mem::size_of::<IndexFields>() == std::mem::size_of::<Index>()
        && std::mem::align_of::<IndexFields>() == std::mem::align_of::<Index>()
);

fn native(index: &Index) -> *mut c_void {
    // SAFETY: `IndexFields` mirrors `Index`'s fields (same types, same order, same size and alignment,
    // checked above), so reading the one through the other reads its `inner` pointer; nothing is written.
    let fields = unsafe { &*(index as *const Index).cast::<IndexFields>() };
    fields.inner.as_ref().map_or(std::ptr::null_mut(), |n| n as *const usearch::ffi::NativeIndex as *mut c_void)
}

fn outcome(error: *const c_char) -> Result<(), String> {
    if error.is_null() {
        return Ok(());
    }
    // SAFETY: usearch's errors are static NUL-terminated strings.
    Err(unsafe { CStr::from_ptr(error) }.to_string_lossy().into_owned())
}

/// Serialises `index` through `write`, which takes every piece in order and returns false to stop.
pub(crate) fn save<W: FnMut(&[u8]) -> bool>(index: &Index, mut write: W) -> Result<(), String> {
    extern "C" fn piece<W: FnMut(&[u8]) -> bool>(state: *mut c_void, bytes: *const c_void, len: usize) -> bool {
        // SAFETY: `state` is the `W` passed below, alive for the call; usearch passes `len` readable bytes.
        let (write, bytes) = unsafe { (&mut *state.cast::<W>(), std::slice::from_raw_parts(bytes.cast::<u8>(), len)) };
        write(bytes)
    }
    let native = native(index);
    if native.is_null() {
        return Err("no index".into());
    }
    // SAFETY: `native` is the live index's C++ object; `write` outlives the call, which does not keep it.
    outcome(unsafe { edgemem_index_save_stream(native, index.dimensions(), piece::<W>, (&mut write as *mut W).cast()) })
}

/// Replaces `index`'s contents with the index `read` yields: each call fills its whole buffer, or
/// returns false (the stream ended or failed).
pub(crate) fn load<R: FnMut(&mut [u8]) -> bool>(index: &Index, mut read: R) -> Result<(), String> {
    extern "C" fn piece<R: FnMut(&mut [u8]) -> bool>(state: *mut c_void, bytes: *mut c_void, len: usize) -> bool {
        // SAFETY: `state` is the `R` passed below, alive for the call; usearch passes `len` writable bytes.
        let (read, bytes) =
            unsafe { (&mut *state.cast::<R>(), std::slice::from_raw_parts_mut(bytes.cast::<u8>(), len)) };
        read(bytes)
    }
    let native = native(index);
    if native.is_null() {
        return Err("no index".into());
    }
    // SAFETY: as in `save`; the index is not shared while it loads (the caller has just made it).
    outcome(unsafe { edgemem_index_load_stream(native, index.dimensions(), piece::<R>, (&mut read as *mut R).cast()) })
}
