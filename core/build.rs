//! Build script of edgemem-core. Native builds: nothing to do. wasm32-unknown-unknown: compiles the C/C++
//! runtime shims in `wasm-shim/` and links Debian's wasm32 wasi-libc, libc++ and libc++abi archives, which
//! USearch's C++ (and cxx) need. See `wasm-shim/libc_shim.cpp` for why some of their symbols are replaced.
//!
//! The compilers and flags come from `[env]` in the workspace's `.cargo/config.toml`.

use std::env;
use std::path::Path;

/// Where Debian's `wasi-libc`, `libc++-19-dev-wasm32` and `libc++abi-19-dev-wasm32` put the archives.
const DEFAULT_WASI_LIBDIR: &str = "/usr/lib/wasm32-wasi";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=wasm-shim");
    println!("cargo:rerun-if-env-changed=EDGEMEM_WASI_LIBDIR");

    if env::var("TARGET").as_deref() != Ok("wasm32-unknown-unknown") {
        return;
    }

    let libdir = env::var("EDGEMEM_WASI_LIBDIR").unwrap_or_else(|_| DEFAULT_WASI_LIBDIR.to_owned());
    for lib in ["libc.a", "libc++.a", "libc++abi.a"] {
        if !Path::new(&libdir).join(lib).is_file() {
            panic!(
                "{libdir}/{lib} not found: the wasm32 build needs Debian's wasi-libc, libc++-19-dev-wasm32 \
                 and libc++abi-19-dev-wasm32 (run scripts/bootstrap), or set EDGEMEM_WASI_LIBDIR"
            );
        }
    }

    // C++ overrides of libc/libc++abi entry points. Compiled by CXX_wasm32_unknown_unknown (the
    // wasm-shim/bin/wasm-clang++ wrapper) with CXXFLAGS_wasm32_unknown_unknown. cpp_link_stdlib(None):
    // libc++ is linked below, from the wasm32 directory, not by cc-rs.
    cc::Build::new()
        .cpp(true)
        .cpp_link_stdlib(None)
        .file("wasm-shim/libc_shim.cpp")
        .compile("edgemem_wasm_libc_shim");
    // Plain C (no headers): CC_wasm32_unknown_unknown = clang-19 as is.
    cc::Build::new()
        .file("wasm-shim/stdio_shim.c")
        .compile("edgemem_wasm_stdio_shim");

    println!("cargo:rustc-link-search=native={libdir}");
    // -bundle: leave the archives where they are and link them at the final link, instead of copying
    // several MB of libc++ into this crate's rlib on every build. Order: libc++ needs libc++abi and libc.
    // Archive members are only pulled for symbols still undefined, so what the shims and libc_alloc.rs
    // define wins; a member pulled for another symbol that also defines one of those fails the link with
    // a duplicate symbol (never silently). Imports that do get in are caught by scripts/check-wasm-imports.
    for lib in ["c++", "c++abi", "c"] {
        println!("cargo:rustc-link-lib=static:-bundle={lib}");
    }
}
