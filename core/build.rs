//! Build script of edgemem-core. Every target: compiles `cxx/index_stream.cpp` (USearch's streamed save and
//! load) against the usearch crate's headers, with the defines usearch's own build uses for that target.
//! wasm32-unknown-unknown: compiles the C/C++ runtime shims in `wasm-shim/` and links Debian's wasm32 wasi-libc, libc++ and libc++abi archives, which
//! USearch's C++ (and cxx) need. See `wasm-shim/libc_shim.cpp` for why some of their symbols are replaced.
//! wasm32-wasip1 (the bench under Wasmtime): only the exception shim, plus Debian's libc++, libc++abi and
//! the wasi-emulated-* archives; the C library is Rust's own wasi-libc for that target.
//!
//! The compilers and flags come from `[env]` in the workspace's `.cargo/config.toml`.

use std::env;
use std::path::{Path, PathBuf};

/// Where Debian's `wasi-libc`, `libc++-19-dev-wasm32` and `libc++abi-19-dev-wasm32` put the archives.
const DEFAULT_WASI_LIBDIR: &str = "/usr/lib/wasm32-wasi";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=wasm-shim");
    println!("cargo:rerun-if-env-changed=EDGEMEM_WASI_LIBDIR");

    println!("cargo:rerun-if-changed=cxx");
    println!("cargo:rerun-if-env-changed=EDGEMEM_USEARCH_DIR");

    let target = env::var("TARGET").unwrap_or_default();
    index_stream(&target);
    match target.as_str() {
        "wasm32-unknown-unknown" => unknown_unknown(),
        "wasm32-wasip1" => wasip1(),
        _ => {}
    }
}

/// Compiles `cxx/index_stream.cpp`. Its inline usearch code must match the copy in usearch's own objects
/// (one definition per symbol in the link), so it gets the same defines: natively usearch's default
/// NumKong kernels (the workspace enables them), on wasm none; the wasm C++ wrapper patches both alike.
fn index_stream(target: &str) {
    let mut build = cc::Build::new();
    build.cpp(true).warnings(false).file("cxx/index_stream.cpp").include(usearch_dir().join("include"));
    build.define("USEARCH_USE_OPENMP", "0");
    if target.starts_with("wasm32") {
        // The C++ runtime is linked below (wasm32-*), not by cc-rs; flags come from CXXFLAGS_<target>.
        build.cpp_link_stdlib(None).define("USEARCH_USE_NUMKONG", "0");
    } else {
        let numkong = env::var("DEP_NUMKONG_INCLUDE").expect("numkong's include dir (DEP_NUMKONG_INCLUDE)");
        build
            .include(numkong)
            .define("USEARCH_USE_NUMKONG", "1")
            .define("NK_DYNAMIC_DISPATCH", "1")
            .define("NK_NATIVE_BF16", "0")
            .define("NK_NATIVE_F16", "0")
            .flag_if_supported("-std=c++17")
            .flag_if_supported("-O3")
            .flag_if_supported("-ffast-math");
    }
    build.compile("edgemem_index_stream");
}

/// The usearch crate's sources, of the version Cargo.lock pins, in Cargo's registry (or `EDGEMEM_USEARCH_DIR`).
fn usearch_dir() -> PathBuf {
    if let Ok(dir) = env::var("EDGEMEM_USEARCH_DIR") {
        return PathBuf::from(dir);
    }
    let lock_path = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    let version = lock
        .split("[[package]]")
        .find_map(|p| {
            let mut fields = p.lines().map(str::trim);
            (fields.next() == Some("") && fields.next() == Some(r#"name = "usearch""#))
                .then(|| fields.next()?.strip_prefix(r#"version = ""#)?.strip_suffix('"'))
                .flatten()
        })
        .expect("usearch's version in Cargo.lock");
    let home = env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env::var("HOME").expect("HOME or CARGO_HOME")).join(".cargo"));
    let registry = home.join("registry/src");
    let found = std::fs::read_dir(&registry).into_iter().flatten().flatten().find_map(|source| {
        let dir = source.path().join(format!("usearch-{version}"));
        dir.join("include/usearch/index_dense.hpp").is_file().then_some(dir)
    });
    found.unwrap_or_else(|| {
        panic!("usearch-{version} not found under {}: set EDGEMEM_USEARCH_DIR to its sources", registry.display())
    })
}

fn unknown_unknown() {
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
    cc::Build::new().cpp(true).cpp_link_stdlib(None).file("wasm-shim/libc_shim.cpp").compile("edgemem_wasm_libc_shim");
    // Plain C (no headers): CC_wasm32_unknown_unknown = clang-19 as is.
    cc::Build::new().file("wasm-shim/stdio_shim.c").compile("edgemem_wasm_stdio_shim");

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

/// Debian archives the wasm32-wasip1 link takes from `/usr/lib/wasm32-wasi`: the C++ runtime for USearch
/// and cxx, and wasi-libc's emulations that libsqlite3-sys compiles SQLite against (it defines
/// `_WASI_EMULATED_{MMAN,GETPID,SIGNAL,PROCESS_CLOCKS}`); usearch needs mman as well (CXXFLAGS).
const WASIP1_LIBS: [&str; 6] = [
    "c++",
    "c++abi",
    "wasi-emulated-mman",
    "wasi-emulated-getpid",
    "wasi-emulated-signal",
    "wasi-emulated-process-clocks",
];

fn wasip1() {
    let libdir = env::var("EDGEMEM_WASI_LIBDIR").unwrap_or_else(|_| DEFAULT_WASI_LIBDIR.to_owned());
    // Compiled by CXX_wasm32_wasip1 (the same wasm-clang++ wrapper) with CXXFLAGS_wasm32_wasip1.
    cc::Build::new()
        .cpp(true)
        .cpp_link_stdlib(None)
        .file("wasm-shim/wasip1_cxa_throw.cpp")
        .compile("edgemem_wasip1_cxa_throw");

    // Link the archives from a folder holding only them: a search path to /usr/lib/wasm32-wasi itself would
    // also offer Debian's libc.a, which could shadow the wasi-libc rustc links for this target.
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("wasi-libs");
    std::fs::create_dir_all(&out).expect("create OUT_DIR/wasi-libs");
    for lib in WASIP1_LIBS {
        let name = format!("lib{lib}.a");
        let src = Path::new(&libdir).join(&name);
        if !src.is_file() {
            panic!(
                "{} not found: the wasm32-wasip1 build needs Debian's wasi-libc, libc++-19-dev-wasm32 and \
                 libc++abi-19-dev-wasm32 (run scripts/bootstrap), or set EDGEMEM_WASI_LIBDIR",
                src.display()
            );
        }
        let dst = out.join(&name);
        let _ = std::fs::remove_file(&dst);
        std::fs::copy(&src, &dst).unwrap_or_else(|e| panic!("copy {} to {}: {e}", src.display(), dst.display()));
    }
    println!("cargo:rustc-link-search=native={}", out.display());
    for lib in WASIP1_LIBS {
        println!("cargo:rustc-link-lib=static:-bundle={lib}");
    }
}
