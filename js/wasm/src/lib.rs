//! edgemem-wasm: a thin wasm-bindgen adapter over edgemem-core — conversions and errors only.
//!
//! Arguments and results cross as JSON strings in the engine's own serde shapes (camelCase, as the TypeScript
//! API; memories and checkpoints, which are also export lines, snake_case; js/src/api/generated/engine.ts
//! declares most of them; a GET without options passes its namespace and key as plain strings, `getLive`), vectors as
//! `Float32Array`, pages as `Uint8Array`; engine errors are thrown as `{ edgemem, code, message }` objects
//! (`errors.rs`). The idiomatic API users import is the TypeScript layer in `js/src/`.

mod errors;
mod host_pages;

use edgemem_core::{
    AsOf, CheckpointData, CheckpointListQuery, CheckpointPut, ConsolidateQuery, ContextQuery, EventFilter, ListQuery,
    MemoryPut, RememberInput, SearchQuery, Storage, Store, StoreConfig, StoreOptions, ValidAt,
};
use errors::{invalid, parse, safe, seq_arg, to_js, utf8};
use host_pages::{HostPages, JsPageStore};
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Joins a namespace's segments in `getLive`'s argument (the TypeScript layer's `SEGMENT_SEPARATOR`).
const SEGMENT_SEPARATOR: char = '\u{1f}';

/// Runs the C/C++ static constructors when the instance starts (also on every re-instantiation).
#[wasm_bindgen(start)]
pub fn start() {
    #[cfg(target_arch = "wasm32")]
    edgemem_core::wasm_rt::init();
}

/// Test-only: executes `unreachable`, poisoning this instance the way a C++ throw or a panic would.
/// The TypeScript layer's trap-recovery test calls it.
#[wasm_bindgen(js_name = "__trap")]
pub fn trap() {
    #[cfg(target_arch = "wasm32")]
    core::arch::wasm32::unreachable();
}

/// Test-only: the `n`-th page write from now (through any host page store) executes `unreachable`
/// instead, so tests can trap in the middle of a write transaction. 0 disarms.
#[wasm_bindgen(js_name = "__trapAfterPageWrites")]
pub fn trap_after_page_writes(n: u32) {
    host_pages::trap_after_page_writes(n);
}

/// Message recorded by the C++ shims right before the last trap, if any.
#[wasm_bindgen(js_name = lastCxxError)]
pub fn last_cxx_error() -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    return edgemem_core::wasm_rt::last_cxx_error();
    #[cfg(not(target_arch = "wasm32"))]
    None
}

fn store_config(c: StoreOptions, pages: Option<JsPageStore>) -> Result<StoreConfig, JsValue> {
    let atomic = c.atomic;
    let mut cfg = StoreConfig::try_from(c).map_err(to_js)?;
    if let Some(p) = pages {
        cfg.storage = Storage::Pages { store: Rc::new(HostPages(p)), atomic };
    }
    Ok(cfg)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryArgs {
    namespace: Vec<String>,
    key: String,
    #[serde(default)]
    after_seq: Option<u64>,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyArgs {
    namespace: Vec<String>,
    key: String,
    #[serde(default)]
    as_of: Option<AsOf>,
    #[serde(default)]
    if_version: Option<u64>,
    /// get: also return the embedding (off by default: 384 floats as JSON cost ~50 µs a read).
    #[serde(default)]
    include_embedding: bool,
    /// get: valid time (default: the read's time).
    #[serde(default)]
    valid_at: Option<ValidAt>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckpointGetArgs {
    thread_id: String,
    #[serde(default)]
    checkpoint_ns: String,
    #[serde(default)]
    checkpoint_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PutWritesArgs {
    thread_id: String,
    #[serde(default)]
    checkpoint_ns: String,
    checkpoint_id: String,
    task_id: String,
    writes: Vec<(String, CheckpointData)>,
}

/// One open store. Every method throws `{ edgemem, code, message }` on an engine error.
#[wasm_bindgen]
pub struct WasmStore {
    store: Option<Store>,
}

impl WasmStore {
    fn s(&mut self) -> Result<&mut Store, JsValue> {
        self.store.as_mut().ok_or_else(|| invalid("the store is closed"))
    }

    /// Serializes a result after checking that the store's seq (the bound of every seq and version it
    /// can return) is exact as a JS number.
    fn out<T: Serialize>(&mut self, v: &T) -> Result<String, JsValue> {
        safe(self.s()?.seq())?;
        serde_json::to_string(v).map_err(|e| to_js(edgemem_core::Error::internal(format!("serialize: {e}"))))
    }
}

fn vector(put: &mut MemoryPut, v: Option<Vec<f32>>) {
    if v.is_some() {
        put.embedding = v;
    }
}

#[wasm_bindgen]
impl WasmStore {
    /// Opens a store: in wasm memory when `pages` is undefined, else over that page store.
    pub fn open(config_json: &str, pages: Option<JsPageStore>) -> Result<WasmStore, JsValue> {
        let cfg = store_config(parse(config_json, "store options")?, pages)?;
        let mut store = Store::open(cfg).map_err(to_js)?;
        // The engine's default wasm clock asks SQLite's VFS, whose host layer makes a JS Date object
        // and reads it (two calls into JS and an object per read); Date.now() is one call, no object.
        store.set_clock(Rc::new(|| js_sys::Date::now() as i64));
        safe(store.seq())?;
        Ok(WasmStore { store: Some(store) })
    }

    /// `MemoryPut` JSON (+ its embedding) -> `WriteAck` JSON.
    pub fn put(&mut self, put_json: &str, embedding: Option<Vec<f32>>) -> Result<String, JsValue> {
        let mut put: MemoryPut = parse(put_json, "memory")?;
        vector(&mut put, embedding);
        let ack = self.s()?.put(put).map_err(to_js)?;
        self.out(&ack)
    }

    /// `MemoryPut[]` JSON; embeddings concatenated in `flat`, `lens[i]` floats for item i (0: none).
    #[wasm_bindgen(js_name = putBatch)]
    pub fn put_batch(&mut self, puts_json: &str, flat: Vec<f32>, lens: Vec<u32>) -> Result<String, JsValue> {
        let mut puts: Vec<MemoryPut> = parse(puts_json, "memories")?;
        if lens.len() != puts.len() || lens.iter().map(|&n| n as usize).sum::<usize>() != flat.len() {
            return Err(invalid("embedding lengths do not match the batch"));
        }
        let mut at = 0;
        for (p, &n) in puts.iter_mut().zip(&lens) {
            if n > 0 {
                p.embedding = Some(flat[at..at + n as usize].to_vec());
                at += n as usize;
            }
        }
        let acks = self.s()?.put_batch(puts).map_err(to_js)?;
        self.out(&acks)
    }

    /// `{ namespace, key, asOf?, includeEmbedding? }` -> `Memory` JSON or `null`.
    /// The engine writes the JSON itself (`Store::get_json`): the stored value is not parsed and re-serialised.
    pub fn get(&mut self, args_json: &str) -> Result<String, JsValue> {
        let a: KeyArgs = parse(args_json, "get arguments")?;
        safe(self.s()?.seq())?;
        self.s()?.get_json_valid(&a.namespace, &a.key, a.as_of, a.include_embedding, a.valid_at).map_err(to_js)
    }

    /// GET without options, its arguments as plain strings (no JSON to build and parse): the namespace's
    /// segments joined by U+001F, which no valid segment contains (the engine rejects control
    /// characters), and the key. -> `Memory` JSON or `null`, as `get`.
    #[wasm_bindgen(js_name = getLive)]
    pub fn get_live(&mut self, namespace: &str, key: &str) -> Result<String, JsValue> {
        let ns: Vec<String> = namespace.split(SEGMENT_SEPARATOR).map(str::to_owned).collect();
        safe(self.s()?.seq())?;
        self.s()?.get_json(&ns, key, None, false).map_err(to_js)
    }

    /// `{ namespace, key, ifVersion? }` -> the delete's seq.
    pub fn delete(&mut self, args_json: &str) -> Result<f64, JsValue> {
        let a: KeyArgs = parse(args_json, "delete arguments")?;
        let seq = self.s()?.delete(&a.namespace, &a.key, a.if_version).map_err(to_js)?;
        safe(seq)
    }

    /// `ListQuery` JSON -> `ListPage` JSON.
    pub fn list(&mut self, query_json: &str) -> Result<String, JsValue> {
        let q: ListQuery = parse(query_json, "list query")?;
        let page = self.s()?.list(&q).map_err(to_js)?;
        self.out(&page)
    }

    /// `NamespaceQuery` JSON -> the namespaces (arrays of segments) JSON.
    #[wasm_bindgen(js_name = listNamespaces)]
    pub fn list_namespaces(&mut self, query_json: &str) -> Result<String, JsValue> {
        let q: edgemem_core::NamespaceQuery = parse(query_json, "namespace query")?;
        let names = self.s()?.list_namespaces(&q).map_err(to_js)?;
        self.out(&names)
    }

    /// `{ namespace, key, afterSeq?, limit? }` -> `HistoryPage` JSON (versions oldest first).
    pub fn history(&mut self, args_json: &str) -> Result<String, JsValue> {
        let a: HistoryArgs = parse(args_json, "history arguments")?;
        let limit = a.limit.unwrap_or(edgemem_core::HISTORY_PAGE_MAX);
        let h = self.s()?.history_page(&a.namespace, &a.key, a.after_seq.unwrap_or(0), limit).map_err(to_js)?;
        self.out(&h)
    }

    /// `SearchQuery` JSON (+ its vector) -> `SearchHit[]` JSON.
    pub fn search(&mut self, query_json: &str, vector: Option<Vec<f32>>) -> Result<String, JsValue> {
        let mut q: SearchQuery = parse(query_json, "search query")?;
        if vector.is_some() {
            q.vector = vector;
        }
        let hits = self.s()?.search(&q).map_err(to_js)?;
        self.out(&hits)
    }

    /// `RememberInput` JSON (+ its embedding) -> `Remembered` JSON; with `assess`, the rules' decision without the
    /// write -> `Assessment` JSON (one export for both: each costs the module its glue).
    pub fn remember(&mut self, input_json: &str, embedding: Option<Vec<f32>>, assess: bool) -> Result<String, JsValue> {
        let mut input: RememberInput = parse(input_json, "remember input")?;
        if embedding.is_some() {
            input.embedding = embedding;
        }
        if assess {
            let a = self.s()?.assess(&input).map_err(to_js)?;
            return self.out(&a);
        }
        let r = self.s()?.remember(input).map_err(to_js)?;
        self.out(&r)
    }

    /// `ConsolidateQuery` JSON -> `ConsolidateReport` JSON.
    pub fn consolidate(&mut self, query_json: &str) -> Result<String, JsValue> {
        let q: ConsolidateQuery = parse(query_json, "consolidate query")?;
        let r = self.s()?.consolidate(&q).map_err(to_js)?;
        self.out(&r)
    }

    /// `ContextQuery` JSON (+ the query's vector) -> `ContextBlock` JSON.
    pub fn context(&mut self, query_json: &str, vector: Option<Vec<f32>>) -> Result<String, JsValue> {
        let mut q: ContextQuery = parse(query_json, "context query")?;
        if vector.is_some() {
            q.vector = vector;
        }
        let c = self.s()?.context(&q).map_err(to_js)?;
        self.out(&c)
    }

    /// `CheckpointPut` JSON as UTF-8 bytes (copied in whole, its payloads kept as text) -> its seq.
    #[wasm_bindgen(js_name = putCheckpoint)]
    pub fn put_checkpoint(&mut self, json: &[u8]) -> Result<f64, JsValue> {
        let c: CheckpointPut = parse(utf8(json)?, "checkpoint")?;
        safe(self.s()?.put_checkpoint(c).map_err(to_js)?)
    }

    /// `{ threadId, checkpointNs?, checkpointId? }` -> `Checkpoint` JSON or `null` (latest when no id).
    #[wasm_bindgen(js_name = getCheckpoint)]
    pub fn get_checkpoint(&mut self, args_json: &str) -> Result<String, JsValue> {
        let a: CheckpointGetArgs = parse(args_json, "checkpoint arguments")?;
        let c = self.s()?.get_checkpoint(&a.thread_id, &a.checkpoint_ns, a.checkpoint_id.as_deref()).map_err(to_js)?;
        self.out(&c)
    }

    /// `CheckpointListQuery` JSON -> `CheckpointPage` JSON (newest first).
    #[wasm_bindgen(js_name = listCheckpoints)]
    pub fn list_checkpoints(&mut self, query_json: &str) -> Result<String, JsValue> {
        let q: CheckpointListQuery = parse(query_json, "checkpoint list query")?;
        let cs = self.s()?.list_checkpoints_page(&q).map_err(to_js)?;
        self.out(&cs)
    }

    /// `{ threadId, checkpointNs?, checkpointId, taskId, writes: [[channel, data]] }` as UTF-8 bytes.
    #[wasm_bindgen(js_name = putWrites)]
    pub fn put_writes(&mut self, args_json: &[u8]) -> Result<(), JsValue> {
        let a: PutWritesArgs = parse(utf8(args_json)?, "pending writes")?;
        self.s()?.put_writes(&a.thread_id, &a.checkpoint_ns, &a.checkpoint_id, &a.task_id, a.writes).map_err(to_js)
    }

    /// Deletes a thread's checkpoints and writes; returns how many checkpoints.
    #[wasm_bindgen(js_name = deleteThread)]
    pub fn delete_thread(&mut self, thread_id: &str) -> Result<f64, JsValue> {
        safe(self.s()?.delete_thread(thread_id).map_err(to_js)?)
    }

    /// Publishes `payload_json` on `channel`; returns the event's seq.
    pub fn notify(&mut self, channel: &str, payload_json: &str) -> Result<f64, JsValue> {
        let payload = parse(payload_json, "notify payload")?;
        safe(self.s()?.notify(channel, payload).map_err(to_js)?)
    }

    /// Events after `after` matching `EventFilter` JSON -> `ChangesPage` JSON (RESUME_GAP carries oldestSeq).
    pub fn changes(&mut self, after: f64, filter_json: &str, limit: u32) -> Result<String, JsValue> {
        let after = seq_arg(after, "after")?;
        let f: EventFilter = parse(filter_json, "event filter")?;
        let events = self.s()?.changes_page(after, &f, limit as usize).map_err(to_js)?;
        self.out(&events)
    }

    /// Calls `callback(eventJson)` for each matching event after the commit that made it; returns the id.
    pub fn subscribe(&mut self, filter_json: &str, callback: js_sys::Function) -> Result<f64, JsValue> {
        let f: EventFilter = parse(filter_json, "event filter")?;
        let id = self.s()?.subscribe(f, move |e| {
            if let Ok(json) = serde_json::to_string(e) {
                // The TypeScript layer only queues the event; it cannot throw back into the engine.
                let _ = callback.call1(&JsValue::UNDEFINED, &JsValue::from_str(&json));
            }
        });
        safe(id)
    }

    pub fn unsubscribe(&mut self, id: f64) -> Result<bool, JsValue> {
        let id = seq_arg(id, "subscription id")?;
        Ok(self.s()?.unsubscribe(id))
    }

    /// `Stats` JSON.
    pub fn stats(&mut self) -> Result<String, JsValue> {
        let st = self.s()?.stats().map_err(to_js)?;
        self.out(&st)
    }

    /// The next chunk of a streamed (NDJSON) export; `cursor` undefined starts one.
    #[wasm_bindgen(js_name = exportChunk)]
    pub fn export_chunk(&mut self, cursor: Option<String>, max_bytes: u32) -> Result<ExportChunkOut, JsValue> {
        let c = self.s()?.export_chunk(cursor.as_deref(), max_bytes as usize).map_err(to_js)?;
        Ok(ExportChunkOut { ndjson: c.ndjson, cursor: c.cursor })
    }

    /// Imports a chunk of NDJSON export lines, `first` / `last` its place in the stream; `ImportProgress` JSON.
    /// `note`: kept with the chunk (`Store::import_ndjson_noting`), read back by `importNote` after a crash.
    #[wasm_bindgen(js_name = importChunk)]
    pub fn import_chunk(
        &mut self,
        ndjson: &str,
        first: bool,
        last: bool,
        note: Option<String>,
    ) -> Result<String, JsValue> {
        let at = edgemem_core::ImportChunk { first, last };
        let p = self.s()?.import_ndjson_noting(ndjson, at, note.as_deref()).map_err(to_js)?;
        self.out(&p)
    }

    /// The note kept with the last chunk of the import in progress, or undefined.
    #[wasm_bindgen(js_name = importNote)]
    pub fn import_note(&mut self) -> Result<Option<String>, JsValue> {
        Ok(self.s()?.import_note())
    }

    /// Abandons an unfinished streamed import (the store is emptied again); false when none was.
    #[wasm_bindgen(js_name = importAbort)]
    pub fn import_abort(&mut self) -> Result<bool, JsValue> {
        self.s()?.abort_import().map_err(to_js)
    }

    /// Idle-time work: buffered writes indexed, the index snapshotted (see `Store::maintain`).
    pub fn maintain(&mut self) -> Result<(), JsValue> {
        self.s()?.maintain().map_err(to_js)
    }

    /// Buffered full-text writes and vectors indexed, nothing else (see `Store::flush_buffers`).
    #[wasm_bindgen(js_name = flushBuffers)]
    pub fn flush_buffers(&mut self) -> Result<(), JsValue> {
        self.s()?.flush_buffers().map_err(to_js)
    }

    /// Whether a search would write pages now (see `Store::search_writes`); true once closed.
    #[wasm_bindgen(js_name = searchWrites)]
    pub fn search_writes(&self) -> bool {
        self.store.as_ref().is_none_or(Store::search_writes)
    }

    /// Removes expired memories; returns how many.
    pub fn sweep(&mut self) -> Result<f64, JsValue> {
        safe(self.s()?.sweep().map_err(to_js)?)
    }

    /// The host metadata entry `name` (see `Store::app_meta`), or undefined.
    #[wasm_bindgen(js_name = appMeta)]
    pub fn app_meta(&mut self, name: &str) -> Result<Option<String>, JsValue> {
        self.s()?.app_meta(name).map_err(to_js)
    }

    /// Sets (a string) or removes (undefined) the host metadata entry `name`.
    #[wasm_bindgen(js_name = setAppMeta)]
    pub fn set_app_meta(&mut self, name: &str, value: Option<String>) -> Result<(), JsValue> {
        self.s()?.set_app_meta(name, value.as_deref()).map_err(to_js)
    }

    /// A replica's outbox on or off (see `Store::set_outbox`): while on, each local write queues its op.
    #[wasm_bindgen(js_name = setOutbox)]
    pub fn set_outbox(&mut self, on: bool) -> Result<(), JsValue> {
        self.s()?.set_outbox(on);
        Ok(())
    }

    /// The oldest `limit` ops still to push, as JSON: `[{"id": n, "op": {...}}, ...]`.
    #[wasm_bindgen(js_name = outboxOps)]
    pub fn outbox_ops(&mut self, limit: u32) -> Result<String, JsValue> {
        let ops = self.s()?.outbox_ops(limit as usize).map_err(to_js)?;
        serde_json::to_string(&ops).map_err(|e| invalid(e.to_string()))
    }

    /// How many ops are still to push.
    #[wasm_bindgen(js_name = outboxLen)]
    pub fn outbox_len(&mut self) -> Result<f64, JsValue> {
        safe(self.s()?.outbox_len().map_err(to_js)?)
    }

    /// Removes the ops up to and including id `through`.
    #[wasm_bindgen(js_name = outboxRemove)]
    pub fn outbox_remove(&mut self, through: f64) -> Result<(), JsValue> {
        let through = seq_arg(through, "through")?;
        self.s()?.outbox_remove(through).map_err(to_js)
    }

    /// At the agent: `put` as op `op` of `replica`, recorded with the write (`Store::put_once`).
    #[wasm_bindgen(js_name = putOnce)]
    pub fn put_once(
        &mut self,
        put_json: &str,
        embedding: Option<Vec<f32>>,
        replica: &str,
        op: f64,
    ) -> Result<String, JsValue> {
        let op = seq_arg(op, "op")?;
        let mut put: MemoryPut = parse(put_json, "memory")?;
        vector(&mut put, embedding);
        let ack = self.s()?.put_once(replica, op, put).map_err(to_js)?;
        self.out(&ack)
    }

    /// At the agent: `delete` as op `op` of `replica`, recorded with the write (`Store::delete_once`).
    #[wasm_bindgen(js_name = deleteOnce)]
    pub fn delete_once(&mut self, args_json: &str, replica: &str, op: f64) -> Result<f64, JsValue> {
        let op = seq_arg(op, "op")?;
        let a: KeyArgs = parse(args_json, "delete arguments")?;
        safe(self.s()?.delete_once(replica, op, &a.namespace, &a.key, a.if_version).map_err(to_js)?)
    }

    /// The seq of the write that applied op `op` of `replica`, or undefined.
    #[wasm_bindgen(js_name = appliedOp)]
    pub fn applied_op(&mut self, replica: &str, op: f64) -> Result<Option<f64>, JsValue> {
        let op = seq_arg(op, "op")?;
        match self.s()?.applied_op(replica, op).map_err(to_js)? {
            Some(seq) => Ok(Some(safe(seq)?)),
            None => Ok(None),
        }
    }

    /// The cursor of the agent's changes applied here.
    #[wasm_bindgen(js_name = replicaCursor)]
    pub fn replica_cursor(&mut self) -> Result<f64, JsValue> {
        safe(self.s()?.replica_cursor().map_err(to_js)?)
    }

    /// Applies a page of pulled memories (JSON `PulledMemory[]`) and moves the cursor, in one transaction.
    #[wasm_bindgen(js_name = applyPulled)]
    pub fn apply_pulled(&mut self, items_json: &str, cursor: f64) -> Result<String, JsValue> {
        let items: Vec<edgemem_core::PulledMemory> = parse(items_json, "pulled memories")?;
        let cursor = seq_arg(cursor, "cursor")?;
        let done = self.s()?.apply_pulled(items, cursor).map_err(to_js)?;
        serde_json::to_string(&done).map_err(|e| invalid(e.to_string()))
    }

    /// The seq of the last committed change.
    pub fn seq(&mut self) -> Result<f64, JsValue> {
        safe(self.s()?.seq())
    }

    /// Flushes and closes; later calls throw INVALID_ARGUMENT. Closing twice is a no-op.
    pub fn close(&mut self) -> Result<(), JsValue> {
        match self.store.take() {
            Some(s) => s.close().map_err(to_js),
            None => Ok(()),
        }
    }
}

/// One chunk of a streamed export: whole NDJSON lines and the cursor of the next (undefined after the last).
#[wasm_bindgen(getter_with_clone)]
pub struct ExportChunkOut {
    pub ndjson: String,
    pub cursor: Option<String>,
}
