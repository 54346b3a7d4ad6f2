//! wasm32-only runtime glue for the C and C++ linked into edgemem-core (SQLite via sqlite-wasm-rs,
//! USearch via cxx): the C allocator ([`libc_alloc`]), the hooks the C++ shims call right before they trap
//! ([`last_cxx_error`]), and running the C++ static constructors once ([`init`]).
//!
//! The C/C++ half of this lives in `core/wasm-shim/` and is compiled by `core/build.rs`; how and why is in
//! `shared/notes/wasm-toolchain.md`.

use std::ffi::{c_char, c_int, CStr};
use std::sync::{Mutex, Once};

mod libc_alloc;
#[cfg(test)]
mod toolchain_tests;

extern "C" {
    /// Synthesized by wasm-ld: runs the C/C++ static constructors of everything linked in.
    ///
    /// Referencing it also matters by itself: when no object file references it, wasm-ld instead wraps
    /// every export in a shim that runs the constructors on *each* call.
    fn __wasm_call_ctors();
}

static INIT: Once = Once::new();

/// Runs the C/C++ static constructors, exactly once per wasm instance; later calls do nothing.
///
/// Call it before the first use of SQLite or USearch (`Store::open` does).
pub fn init() {
    // SAFETY: `__wasm_call_ctors` is defined by the linker for every module; `Once` guarantees the
    // constructors run a single time, as C++ expects.
    INIT.call_once(|| unsafe { __wasm_call_ctors() });
}

/// Message of the last C++ failure (exception, assertion, libc++/libc++abi abort) recorded before it
/// trapped, if any. A trap leaves the instance poisoned: the caller should rebuild it from storage.
///
/// Exception and assertion messages are exact; abort messages are the unformatted printf format string.
pub fn last_cxx_error() -> Option<String> {
    LAST_CXX_ERROR.lock().ok().and_then(|g| g.clone())
}

static LAST_CXX_ERROR: Mutex<Option<String>> = Mutex::new(None);

fn record(message: String) {
    // try_lock: never block or panic on the way to a trap. The guard is dropped before returning, so the
    // trap that follows cannot leave the mutex locked (a trap runs no destructors).
    if let Ok(mut slot) = LAST_CXX_ERROR.try_lock() {
        *slot = Some(message);
    }
}

/// # Safety
/// `ptr` is null or a NUL-terminated string.
unsafe fn c_str(ptr: *const c_char) -> String {
    if ptr.is_null() {
        String::from("(null)")
    } else {
        CStr::from_ptr(ptr).to_string_lossy().into_owned()
    }
}

/// Called by `wasm-shim/libc_shim.cpp` (`__cxa_throw`, `abort_message`, `__libcpp_verbose_abort`) right
/// before it traps. `kind` says which path; `what` is the exception's `what()` or the abort format string.
///
/// # Safety
/// Both arguments are null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn edgemem_wasm_cxx_error(kind: *const c_char, what: *const c_char) {
    let (kind, what) = (c_str(kind), c_str(what));
    record(format!("C++ {kind}: {what}"));
}

/// Called by `__assert_fail` in `wasm-shim/libc_shim.cpp` right before it traps.
///
/// # Safety
/// `expr` and `file` are null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn edgemem_wasm_cxx_assert(expr: *const c_char, file: *const c_char, line: c_int) {
    let (expr, file) = (c_str(expr), c_str(file));
    record(format!("C++ assertion failed: {expr} ({file}:{line})"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn init_is_idempotent() {
        init();
        init();
    }

    #[test]
    fn hooks_record_the_last_message() {
        // SAFETY: every argument is a C string literal or null, which the hooks accept.
        unsafe {
            edgemem_wasm_cxx_error(c"exception".as_ptr(), c"boom".as_ptr());
            assert_eq!(last_cxx_error().as_deref(), Some("C++ exception: boom"));
            edgemem_wasm_cxx_assert(c"x > 0".as_ptr(), c"index.hpp".as_ptr(), 12);
            assert_eq!(last_cxx_error().as_deref(), Some("C++ assertion failed: x > 0 (index.hpp:12)"));
            edgemem_wasm_cxx_error(std::ptr::null(), std::ptr::null());
            assert_eq!(last_cxx_error().as_deref(), Some("C++ (null): (null)"));
        }
    }
}
