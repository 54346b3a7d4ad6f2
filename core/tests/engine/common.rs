//! Shared helpers: store constructors, a controllable clock, a deterministic RNG.

#![allow(dead_code)]

use edgemem_core::{CheckpointData, CheckpointPut, ImportChunk, MemoryPut, Store, StoreConfig};
use serde_json::{json, Value};
use std::cell::Cell;
use std::rc::Rc;

/// A root-namespace checkpoint of `thread` with `data`: no parent, channel versions, blobs or metadata.
pub fn checkpoint(thread: &str, id: &str, data: Value) -> CheckpointPut {
    CheckpointPut {
        channel_versions: Default::default(),
        blobs: Vec::new(),
        thread_id: thread.into(),
        checkpoint_ns: String::new(),
        checkpoint_id: id.into(),
        parent_id: None,
        data: CheckpointData::json(&data),
        metadata: Default::default(),
    }
}

pub fn ns(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

pub fn store(dims: usize) -> Store {
    Store::open(StoreConfig::memory(dims)).expect("open")
}

pub fn store_with(cfg: StoreConfig) -> Store {
    Store::open(cfg).expect("open")
}

/// A clock the test moves by hand (ms since epoch).
pub fn manual_clock(store: &mut Store, start: i64) -> Rc<Cell<i64>> {
    let t = Rc::new(Cell::new(start));
    let t2 = t.clone();
    store.set_clock(Rc::new(move || t2.get()));
    t
}

pub fn put_text(s: &mut Store, namespace: &[&str], key: &str, text: &str) -> u64 {
    s.put(MemoryPut::new(namespace, key, json!(text))).expect("put").seq
}

pub fn value_of(s: &mut Store, namespace: &[&str], key: &str) -> Option<Value> {
    s.get(&ns(namespace), key).expect("get").map(|m| m.value)
}

/// splitmix64: deterministic, identical on native and wasm.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn f32(&mut self) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    pub fn unit_vec(&mut self, dims: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..dims).map(|_| self.f32()).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
        v.iter_mut().for_each(|x| *x /= n);
        v
    }
}

/// The whole export as NDJSON chunks of about `max` bytes.
pub fn export_chunks(s: &mut Store, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let c = s.export_chunk(cursor.as_deref(), max).unwrap();
        out.push(c.ndjson);
        match c.cursor {
            Some(next) => cursor = Some(next),
            None => return out,
        }
    }
}

/// Imports `chunks` as a whole stream (the first chunk `first`, the last `last`).
pub fn import_all(s: &mut Store, chunks: &[String]) -> edgemem_core::Result<edgemem_core::ImportProgress> {
    import_part(s, chunks, true, true)
}

/// Imports `chunks` as a part of a stream: its first chunk is the stream's first when `first`, its last
/// chunk the stream's last when `last`.
pub fn import_part(
    s: &mut Store,
    chunks: &[String],
    first: bool,
    last: bool,
) -> edgemem_core::Result<edgemem_core::ImportProgress> {
    let mut progress = None;
    for (i, c) in chunks.iter().enumerate() {
        let at = ImportChunk { first: first && i == 0, last: last && i + 1 == chunks.len() };
        progress = Some(s.import_ndjson(c, at)?);
    }
    Ok(progress.expect("at least one chunk"))
}
