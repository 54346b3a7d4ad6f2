//! The C allocator (`malloc`, `free`, `calloc`, `realloc`, `aligned_alloc`, `posix_memalign`,
//! `malloc_usable_size` and wasi-libc's `__libc_*` aliases) for the C/C++ code in the wasm32 build,
//! routed to Rust's global allocator.
//!
//! Why: wasi-libc's dlmalloc (`libc.a: dlmalloc.o`) takes the memory from `__heap_base` upwards as its
//! heap, which Rust's allocator also owns: both would hand out the same bytes. Defining every symbol of
//! `dlmalloc.o` here keeps that object out of the link (if something still pulled it in, the duplicate
//! symbols would fail the link instead of corrupting memory).
//!
//! Layout: each block is `[padding][total: usize][align: usize][user bytes]`; the two words right before
//! the user pointer give back the `Layout` that `free`/`realloc` need. Only used on wasm32, where one
//! instance is single-threaded.

use core::ffi::{c_int, c_void};
use core::mem::size_of;
use core::ptr::null_mut;
use std::alloc::{alloc, alloc_zeroed, dealloc, realloc as rust_realloc, Layout};

/// Bytes of bookkeeping before every user pointer.
const HEADER: usize = 2 * size_of::<usize>();
/// `alignof(max_align_t)` for wasm32 C: what `malloc` must guarantee.
const MALLOC_ALIGN: usize = 16;
// wasi-libc errno values (not Linux's).
const EINVAL: c_int = 28;
const ENOMEM: c_int = 48;

/// Allocates `size` user bytes aligned to `align` (a power of two). Null on failure.
// SAFETY (callers): none beyond the C contract; `total` is non-zero (it includes `align`), as alloc needs.
unsafe fn allocate(size: usize, align: usize, zeroed: bool) -> *mut c_void {
    if !align.is_power_of_two() {
        return null_mut();
    }
    // The header must fit before the user pointer and keep it aligned: offset = max(align, HEADER),
    // a multiple of `align` because both are powers of two.
    let align = align.max(HEADER);
    let Some(total) = size.checked_add(align) else {
        return null_mut();
    };
    let Ok(layout) = Layout::from_size_align(total, align) else {
        return null_mut();
    };
    let base = if zeroed { alloc_zeroed(layout) } else { alloc(layout) };
    if base.is_null() {
        return null_mut();
    }
    let user = base.add(align);
    write_header(user, total, align);
    user.cast()
}

// SAFETY (callers): `user` is `align` (≥ HEADER) bytes into a block of `total` bytes, so the two words
// before it are inside the block and aligned.
unsafe fn write_header(user: *mut u8, total: usize, align: usize) {
    let words = user.cast::<usize>();
    words.sub(2).write(total);
    words.sub(1).write(align);
}

/// `(total, align)` of a block returned by [`allocate`].
// SAFETY (callers): `user` came from `allocate` (or `realloc`) and was not freed.
unsafe fn read_header(user: *mut c_void) -> (usize, usize) {
    let words = user.cast::<usize>();
    (words.sub(2).read(), words.sub(1).read())
}

// The C allocator's entry points. SAFETY (C callers): every pointer passed in is null or one these
// functions returned and that was not freed since, as C requires; `out` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
    allocate(size, MALLOC_ALIGN, false)
}

#[no_mangle]
pub unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
    match count.checked_mul(size) {
        Some(bytes) => allocate(bytes, MALLOC_ALIGN, true),
        None => null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    let (total, align) = read_header(ptr);
    let base = ptr.cast::<u8>().sub(align);
    dealloc(base, Layout::from_size_align_unchecked(total, align));
}

#[no_mangle]
pub unsafe extern "C" fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    if ptr.is_null() {
        return malloc(size);
    }
    let (total, align) = read_header(ptr);
    let Some(new_total) = size.checked_add(align) else {
        return null_mut();
    };
    if Layout::from_size_align(new_total, align).is_err() {
        return null_mut();
    }
    let base = ptr.cast::<u8>().sub(align);
    // Keeps the block's alignment (the layout's), so blocks from aligned_alloc stay aligned.
    let new_base = rust_realloc(base, Layout::from_size_align_unchecked(total, align), new_total);
    if new_base.is_null() {
        return null_mut(); // the old block is untouched, as C requires
    }
    let user = new_base.add(align);
    write_header(user, new_total, align);
    user.cast()
}

#[no_mangle]
pub unsafe extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut c_void {
    allocate(size, align, false)
}

#[no_mangle]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> c_int {
    // A power of two is a multiple of the pointer size exactly when it is at least that size.
    if !align.is_power_of_two() || align < size_of::<*mut c_void>() {
        return EINVAL;
    }
    let ptr = allocate(size, align, false);
    if ptr.is_null() {
        return ENOMEM;
    }
    *out = ptr;
    0
}

#[no_mangle]
pub unsafe extern "C" fn malloc_usable_size(ptr: *mut c_void) -> usize {
    if ptr.is_null() {
        return 0;
    }
    let (total, align) = read_header(ptr);
    total - align
}

// wasi-libc's internal names for the same functions (dlmalloc.o defines them too).
#[no_mangle]
pub unsafe extern "C" fn __libc_malloc(size: usize) -> *mut c_void {
    malloc(size)
}

#[no_mangle]
pub unsafe extern "C" fn __libc_calloc(count: usize, size: usize) -> *mut c_void {
    calloc(count, size)
}

#[no_mangle]
pub unsafe extern "C" fn __libc_free(ptr: *mut c_void) {
    free(ptr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn malloc_alignment_and_usable_size() {
        // SAFETY: each pointer used comes from this allocator, is used within its size, and freed once.
        unsafe {
            for size in [0usize, 1, 7, 16, 100, 4096, 1 << 20] {
                let p = malloc(size);
                assert!(!p.is_null());
                assert_eq!(p as usize % MALLOC_ALIGN, 0);
                assert_eq!(malloc_usable_size(p), size);
                free(p);
            }
            free(null_mut());
        }
    }

    #[test]
    fn aligned_allocations() {
        // SAFETY: each pointer used comes from this allocator, is used within its size, and freed once.
        unsafe {
            for align in [1usize, 8, 16, 64, 4096] {
                let p = aligned_alloc(align, 100);
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0);
                free(p);
            }
            let mut out = null_mut();
            assert_eq!(posix_memalign(&mut out, 256, 10), 0);
            assert_eq!(out as usize % 256, 0);
            free(out);
            assert_eq!(posix_memalign(&mut out, 3, 10), EINVAL);
            assert!(aligned_alloc(3, 10).is_null());
        }
    }

    #[test]
    fn calloc_zeroes_and_checks_overflow() {
        // SAFETY: each pointer used comes from this allocator, is used within its size, and freed once.
        unsafe {
            let p = calloc(100, 4).cast::<u8>();
            assert!((0..400).all(|i| *p.add(i) == 0));
            free(p.cast());
            assert!(calloc(usize::MAX, 2).is_null());
        }
    }

    #[test]
    fn realloc_keeps_contents_and_alignment() {
        // SAFETY: each pointer used comes from this allocator, is used within its size, and freed once.
        unsafe {
            let p = realloc(null_mut(), 10).cast::<u8>();
            for i in 0..10 {
                *p.add(i) = i as u8;
            }
            let q = realloc(p.cast(), 100_000).cast::<u8>();
            assert!((0..10).all(|i| *q.add(i) == i as u8));
            assert_eq!(malloc_usable_size(q.cast()), 100_000);
            let r = realloc(q.cast(), 3).cast::<u8>();
            assert!((0..3).all(|i| *r.add(i) == i as u8));
            free(r.cast());

            let a = aligned_alloc(4096, 10);
            let b = realloc(a, 50_000);
            assert_eq!(b as usize % 4096, 0);
            free(b);
        }
    }
}
