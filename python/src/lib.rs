//! edgemem-python: the `edgemem._native` extension module — a thin PyO3 adapter over edgemem-core, conversions and
//! errors only (as js/wasm is for JavaScript). The idiomatic API is the Python package in `python/edgemem/`.
//!
//! Arguments and results cross as JSON text in the engine's own serde shapes (Python's `json` module is C, and
//! so is serde_json), vectors as lists of floats; checkpoint payloads as `(kind, bytes)` pairs, kind `json` (the
//! bytes are JSON text, stored verbatim) or `bytes`. Engine errors are raised as `edgemem.EdgememError` with the
//! engine's code. Each store lives on its own thread (`worker.rs`); every call releases the GIL while it runs.

mod convert;
mod e5;
mod feed;
mod objects;
mod pages;
mod redo;
mod worker;

use convert::{checkpoint_out, data_in, hit_to_py, memory_to_py, namespace_arg, parse, to_json, HIT_CLASS};
use e5::NativeE5;
use edgemem_core::{
    AsOf, ChannelBlob, CheckpointListQuery, CheckpointPut, Condition, ConsolidateQuery, ContextQuery, Error,
    EventFilter, ListQuery, MemoryPut, NamespaceQuery, RememberInput, SearchQuery, Storage, Store, StoreConfig,
    StoreOptions, ValidAt,
};
use feed::{close_feed, FeedQueue, NativeFeed};
use objects::FrozenClass;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex};
use worker::Worker;

/// `edgemem.errors.EdgememError`, looked up once.
static ERROR_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// An engine error as `edgemem.EdgememError(code, message, oldest_seq)`.
pub(crate) fn py_err(py: Python<'_>, e: Error) -> PyErr {
    let class = ERROR_CLASS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("edgemem.errors")?.getattr("EdgememError")?.unbind())
    });
    match class.and_then(|c| c.bind(py).call1((e.code_str(), e.message.clone(), e.oldest_seq))) {
        Ok(v) => PyErr::from_value(v),
        Err(_) => PyRuntimeError::new_err(e.to_string()),
    }
}

/// One open store (`edgemem.Store` wraps it). Thread-safe: calls from any thread run one at a time on the
/// store's own thread.
#[pyclass(frozen, module = "edgemem._native")]
struct NativeStore {
    worker: Worker,
}

impl NativeStore {
    /// Runs `f` on the store's thread with the GIL released.
    fn call<R: Send + 'static>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Store) -> Result<R, Error> + Send + 'static,
    ) -> PyResult<R> {
        py.detach(|| self.worker.run(f)).map_err(|e| py_err(py, e))
    }
}

#[pymethods]
impl NativeStore {
    /// Opens a store: `path` None is in memory, else the npm package's file layout at that path.
    /// `options_json` is the engine's `StoreOptions` (camelCase).
    #[staticmethod]
    #[pyo3(signature = (options_json, path=None))]
    fn open(py: Python<'_>, options_json: &str, path: Option<PathBuf>) -> PyResult<NativeStore> {
        let options: StoreOptions = parse(options_json, "store options").map_err(|e| py_err(py, e))?;
        let worker = py
            .detach(move || {
                Worker::spawn(move || {
                    let durable = options.sync_full;
                    let mut cfg = StoreConfig::try_from(options)?;
                    let mut host: Option<Rc<dyn worker::Host>> = None;
                    if let Some(p) = path {
                        let pages = Rc::new(pages::FilePages::open(&p, durable)?);
                        // Each call one transaction, committed by the store's thread (pages.rs).
                        cfg.storage = Storage::Pages { store: pages.clone(), atomic: true };
                        host = Some(pages);
                    }
                    Ok((Store::open(cfg)?, host))
                })
            })
            .map_err(|e| py_err(py, e))?;
        Ok(NativeStore { worker })
    }

    /// `MemoryPut` JSON (+ its embedding) -> `WriteAck` JSON.
    #[pyo3(signature = (put_json, embedding=None))]
    fn put(&self, py: Python<'_>, put_json: String, embedding: Option<Bound<'_, PyAny>>) -> PyResult<String> {
        let embedding = embedding.map(|v| objects::vector(&v)).transpose()?;
        self.call(py, move |s| {
            let mut put: MemoryPut = parse(&put_json, "memory")?;
            if embedding.is_some() {
                put.embedding = embedding;
            }
            to_json(&s.put(put)?)
        })
    }

    /// `MemoryPut[]` JSON -> `WriteAck[]` JSON, one transaction.
    fn put_batch(&self, py: Python<'_>, puts_json: String) -> PyResult<String> {
        self.call(py, move |s| {
            let puts: Vec<MemoryPut> = parse(&puts_json, "memories")?;
            to_json(&s.put_batch(puts)?)
        })
    }

    /// -> `Memory` JSON, or `null`. `valid_at_json`: a time or `"any"` (default: valid at the read's time).
    #[pyo3(signature = (namespace, key, as_of_json=None, include_embedding=false, valid_at_json=None))]
    fn get(
        &self,
        py: Python<'_>,
        namespace: Vec<String>,
        key: String,
        as_of_json: Option<String>,
        include_embedding: bool,
        valid_at_json: Option<String>,
    ) -> PyResult<String> {
        self.call(py, move |s| {
            let as_of: Option<AsOf> = as_of_json.map(|j| parse(&j, "as_of")).transpose()?;
            let valid_at: Option<ValidAt> = valid_at_json.map(|j| parse(&j, "valid_at")).transpose()?;
            s.get_json_valid(&namespace, &key, as_of, include_embedding, valid_at)
        })
    }

    /// -> `edgemem.Memory` or None, built in Rust (the engine's parsed row; no JSON in between). `namespace`: a
    /// string (one segment) or a sequence of strings.
    #[pyo3(signature = (namespace, key, as_of_json=None, include_embedding=false, valid_at_json=None))]
    fn get_memory<'py>(
        &self,
        py: Python<'py>,
        namespace: &Bound<'py, PyAny>,
        key: String,
        as_of_json: Option<String>,
        include_embedding: bool,
        valid_at_json: Option<String>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let namespace = namespace_arg(py, namespace)?;
        let m = self.call(py, move |s| {
            let as_of: Option<AsOf> = as_of_json.map(|j| parse(&j, "as_of")).transpose()?;
            let valid_at: Option<ValidAt> = valid_at_json.map(|j| parse(&j, "valid_at")).transpose()?;
            s.get_valid(&namespace, &key, as_of, include_embedding, valid_at)
        })?;
        m.map(|m| memory_to_py(py, m)).transpose()
    }

    /// -> the delete's seq.
    #[pyo3(signature = (namespace, key, if_version=None))]
    fn delete(&self, py: Python<'_>, namespace: Vec<String>, key: String, if_version: Option<u64>) -> PyResult<u64> {
        self.call(py, move |s| s.delete(&namespace, &key, if_version))
    }

    /// `ListQuery` JSON -> `ListPage` JSON.
    fn list(&self, py: Python<'_>, query_json: String) -> PyResult<String> {
        self.call(py, move |s| to_json(&s.list(&parse::<ListQuery>(&query_json, "list query")?)?))
    }

    /// `NamespaceQuery` JSON -> the namespaces JSON.
    fn list_namespaces(&self, py: Python<'_>, query_json: String) -> PyResult<String> {
        self.call(py, move |s| to_json(&s.list_namespaces(&parse::<NamespaceQuery>(&query_json, "namespace query")?)?))
    }

    /// -> `HistoryPage` JSON (versions oldest first).
    #[pyo3(signature = (namespace, key, after_seq=0, limit=None))]
    fn history(
        &self,
        py: Python<'_>,
        namespace: Vec<String>,
        key: String,
        after_seq: u64,
        limit: Option<usize>,
    ) -> PyResult<String> {
        self.call(py, move |s| {
            let limit = limit.unwrap_or(edgemem_core::HISTORY_PAGE_MAX);
            to_json(&s.history_page(&namespace, &key, after_seq, limit)?)
        })
    }

    /// `SearchQuery` JSON (+ its vector) -> `SearchHit[]` JSON.
    #[pyo3(signature = (query_json, vector=None))]
    fn search(&self, py: Python<'_>, query_json: String, vector: Option<Bound<'_, PyAny>>) -> PyResult<String> {
        let vector = vector.map(|v| objects::vector(&v)).transpose()?;
        self.call(py, move |s| {
            let mut q: SearchQuery = parse(&query_json, "search query")?;
            if vector.is_some() {
                q.vector = vector;
            }
            to_json(&s.search(&q)?)
        })
    }

    /// `SearchQuery` JSON (+ its vector) -> `[edgemem.SearchHit]`, built in Rust (no JSON in between).
    #[pyo3(signature = (query_json, vector=None))]
    fn search_hits<'py>(
        &self,
        py: Python<'py>,
        query_json: String,
        vector: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let vector = vector.map(|v| objects::vector(&v)).transpose()?;
        let hits = self.call(py, move |s| {
            let mut q: SearchQuery = parse(&query_json, "search query")?;
            if vector.is_some() {
                q.vector = vector;
            }
            s.search(&q)
        })?;
        let class = HIT_CLASS.get_or_try_init(py, || FrozenClass::load(py, "SearchHit"))?;
        hits.into_iter().map(|h| hit_to_py(py, class, h)).collect()
    }

    /// A fact (`RememberInput` JSON, + its embedding) remembered -> `Remembered` JSON; with `assess_only`, the
    /// rules' decision without a write -> `Assessment` JSON.
    #[pyo3(signature = (fact_json, embedding=None, assess_only=false))]
    fn remember(
        &self,
        py: Python<'_>,
        fact_json: String,
        embedding: Option<Bound<'_, PyAny>>,
        assess_only: bool,
    ) -> PyResult<String> {
        let embedding = embedding.map(|v| objects::vector(&v)).transpose()?;
        self.call(py, move |s| {
            let mut fact: RememberInput = parse(&fact_json, "fact")?;
            if embedding.is_some() {
                fact.embedding = embedding;
            }
            if assess_only {
                to_json(&s.assess(&fact)?)
            } else {
                to_json(&s.remember(fact)?)
            }
        })
    }

    /// `ConsolidateQuery` JSON -> `ConsolidateReport` JSON.
    fn consolidate(&self, py: Python<'_>, query_json: String) -> PyResult<String> {
        self.call(py, move |s| {
            to_json(&s.consolidate(&parse::<ConsolidateQuery>(&query_json, "consolidate options")?)?)
        })
    }

    /// `ContextQuery` JSON (+ the query's vector) -> `ContextBlock` JSON.
    #[pyo3(signature = (query_json, vector=None))]
    fn context(&self, py: Python<'_>, query_json: String, vector: Option<Bound<'_, PyAny>>) -> PyResult<String> {
        let vector = vector.map(|v| objects::vector(&v)).transpose()?;
        self.call(py, move |s| {
            let mut q: ContextQuery = parse(&query_json, "context options")?;
            if vector.is_some() {
                q.vector = vector;
            }
            to_json(&s.context(&q)?)
        })
    }

    /// Stores a checkpoint; `data` and each blob's payload are `(kind, bytes)`. -> its seq.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (thread_id, checkpoint_ns, checkpoint_id, parent_id, data, metadata_json, channel_versions_json, blobs))]
    fn put_checkpoint(
        &self,
        py: Python<'_>,
        thread_id: String,
        checkpoint_ns: String,
        checkpoint_id: String,
        parent_id: Option<String>,
        data: (String, Vec<u8>),
        metadata_json: String,
        channel_versions_json: String,
        blobs: Vec<(String, String, (String, Vec<u8>))>,
    ) -> PyResult<u64> {
        self.call(py, move |s| {
            let blobs = blobs
                .into_iter()
                .map(|(channel, version, (kind, bytes))| {
                    Ok(ChannelBlob { channel, version, data: data_in(&kind, bytes)? })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            s.put_checkpoint(CheckpointPut {
                thread_id,
                checkpoint_ns,
                checkpoint_id,
                parent_id,
                data: data_in(&data.0, data.1)?,
                metadata: parse(&metadata_json, "checkpoint metadata")?,
                channel_versions: parse(&channel_versions_json, "channel versions")?,
                blobs,
            })
        })
    }

    /// The checkpoint (the latest when `checkpoint_id` is None) as a tuple (see `checkpoint_out`), or None.
    #[pyo3(signature = (thread_id, checkpoint_ns="".to_string(), checkpoint_id=None))]
    fn get_checkpoint<'py>(
        &self,
        py: Python<'py>,
        thread_id: String,
        checkpoint_ns: String,
        checkpoint_id: Option<String>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let c = self.call(py, move |s| s.get_checkpoint(&thread_id, &checkpoint_ns, checkpoint_id.as_deref()))?;
        c.map(|c| checkpoint_out(py, &c)).transpose()
    }

    /// `CheckpointListQuery` JSON -> (checkpoint tuples newest first, next_before).
    fn list_checkpoints<'py>(
        &self,
        py: Python<'py>,
        query_json: String,
    ) -> PyResult<(Vec<Bound<'py, PyTuple>>, Option<String>)> {
        let page = self.call(py, move |s| {
            s.list_checkpoints_page(&parse::<CheckpointListQuery>(&query_json, "checkpoint list query")?)
        })?;
        let items = page.checkpoints.iter().map(|c| checkpoint_out(py, c)).collect::<PyResult<Vec<_>>>()?;
        Ok((items, page.next_before))
    }

    /// Stores a task's pending writes `[(channel, (kind, bytes))]` on a checkpoint.
    fn put_writes(
        &self,
        py: Python<'_>,
        thread_id: String,
        checkpoint_ns: String,
        checkpoint_id: String,
        task_id: String,
        writes: Vec<(String, (String, Vec<u8>))>,
    ) -> PyResult<()> {
        self.call(py, move |s| {
            let writes = writes
                .into_iter()
                .map(|(c, (kind, bytes))| Ok((c, data_in(&kind, bytes)?)))
                .collect::<Result<Vec<_>, Error>>()?;
            s.put_writes(&thread_id, &checkpoint_ns, &checkpoint_id, &task_id, writes)
        })
    }

    /// Deletes a thread's checkpoints and writes; -> how many checkpoints.
    fn delete_thread(&self, py: Python<'_>, thread_id: String) -> PyResult<u64> {
        self.call(py, move |s| s.delete_thread(&thread_id))
    }

    /// Deletes, in one transaction, the checkpoints of `thread_id` (every thread: None) whose id is one of
    /// `checkpoint_ids` (any: empty) and whose metadata matches `filter_json` (conditions JSON); -> how many.
    #[pyo3(signature = (thread_id=None, checkpoint_ids=Vec::new(), filter_json=None))]
    fn delete_checkpoints(
        &self,
        py: Python<'_>,
        thread_id: Option<String>,
        checkpoint_ids: Vec<String>,
        filter_json: Option<String>,
    ) -> PyResult<u64> {
        self.call(py, move |s| {
            let filter: Vec<Condition> = filter_json.map(|j| parse(&j, "filter")).transpose()?.unwrap_or_default();
            s.delete_checkpoints(thread_id.as_deref(), &checkpoint_ids, &filter)
        })
    }

    /// Keeps the newest `keep_latest` checkpoints of each namespace of each thread and deletes the others, in one
    /// transaction; -> how many were deleted.
    #[pyo3(signature = (thread_ids, keep_latest=1))]
    fn prune_threads(&self, py: Python<'_>, thread_ids: Vec<String>, keep_latest: u64) -> PyResult<u64> {
        self.call(py, move |s| s.prune_threads(&thread_ids, keep_latest))
    }

    /// Publishes `payload_json` on `channel`; -> the event's seq.
    fn notify(&self, py: Python<'_>, channel: String, payload_json: String) -> PyResult<u64> {
        self.call(py, move |s| s.notify(&channel, parse(&payload_json, "notify payload")?))
    }

    /// Events after `after` matching `EventFilter` JSON -> `ChangesPage` JSON.
    fn changes(&self, py: Python<'_>, after: u64, filter_json: String, limit: usize) -> PyResult<String> {
        self.call(py, move |s| {
            to_json(&s.changes_page(after, &parse::<EventFilter>(&filter_json, "event filter")?, limit)?)
        })
    }

    /// Subscribes to the events committed from now on that match `EventFilter` JSON: a `NativeFeed` to take them
    /// from. `unsubscribe(feed)` ends it (and wakes a waiting `next`).
    fn subscribe(&self, py: Python<'_>, filter_json: String) -> PyResult<NativeFeed> {
        let queue: Arc<(Mutex<FeedQueue>, Condvar)> = Arc::default();
        let q = queue.clone();
        let id = self.call(py, move |s| {
            let f: EventFilter = parse(&filter_json, "event filter")?;
            Ok(s.subscribe(f, move |e| {
                if let Ok(json) = serde_json::to_string(e) {
                    q.0.lock().unwrap_or_else(|e| e.into_inner()).events.push_back(json);
                    q.1.notify_all();
                }
            }))
        })?;
        Ok(NativeFeed { queue, id })
    }

    /// Ends a subscription: no more events, and its `next` answers None once the queued ones are taken.
    fn unsubscribe(&self, py: Python<'_>, feed: &NativeFeed) -> PyResult<bool> {
        let id = feed.id;
        let r = self.call(py, move |s| Ok(s.unsubscribe(id)));
        close_feed(&feed.queue);
        r
    }

    /// `Stats` JSON.
    fn stats(&self, py: Python<'_>) -> PyResult<String> {
        self.call(py, |s| to_json(&s.stats()?))
    }

    /// The next chunk of a streamed NDJSON export: (ndjson, next cursor or None).
    #[pyo3(signature = (cursor=None, max_bytes=edgemem_core::DEFAULT_CHUNK_BYTES))]
    fn export_chunk(
        &self,
        py: Python<'_>,
        cursor: Option<String>,
        max_bytes: usize,
    ) -> PyResult<(String, Option<String>)> {
        self.call(py, move |s| {
            let c = s.export_chunk(cursor.as_deref(), max_bytes)?;
            Ok((c.ndjson, c.cursor))
        })
    }

    /// Imports a chunk of NDJSON export lines; `first` / `last` its place in the stream. -> `ImportProgress` JSON.
    fn import_chunk(&self, py: Python<'_>, ndjson: String, first: bool, last: bool) -> PyResult<String> {
        self.call(py, move |s| to_json(&s.import_ndjson(&ndjson, edgemem_core::ImportChunk { first, last })?))
    }

    /// Abandons an unfinished streamed import; False when none was.
    fn import_abort(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |s| s.abort_import())
    }

    /// Idle-time work: buffered writes indexed, the index snapshotted.
    fn maintain(&self, py: Python<'_>) -> PyResult<()> {
        self.call(py, |s| s.maintain())
    }

    /// Removes expired memories; -> how many.
    fn sweep(&self, py: Python<'_>) -> PyResult<u64> {
        self.call(py, |s| s.sweep())
    }

    /// The host metadata entry `name`, or None.
    fn app_meta(&self, py: Python<'_>, name: String) -> PyResult<Option<String>> {
        self.call(py, move |s| s.app_meta(&name))
    }

    /// Sets (a string) or removes (None) the host metadata entry `name`.
    #[pyo3(signature = (name, value=None))]
    fn set_app_meta(&self, py: Python<'_>, name: String, value: Option<String>) -> PyResult<()> {
        self.call(py, move |s| s.set_app_meta(&name, value.as_deref()))
    }

    /// The seq of the last committed change.
    fn seq(&self, py: Python<'_>) -> PyResult<u64> {
        self.call(py, |s| Ok(s.seq()))
    }

    /// For the bench (suite `python`): runs one call `iters` times in Rust on the store's thread, no Python and no
    /// hand-off, and returns each run's time in µs — the native cost of exactly what the binding's call does (a
    /// write's commit included).
    /// `op`: `get` (`[namespace, key]`, the memory as JSON text), `get_memory` (the same, as the engine's
    /// `Memory`: what `get_memory` calls), `get_checkpoint` (`[thread, ns, id or null]`), `put` (a `MemoryPut`,
    /// its key suffixed with the run's number), `search` (a `SearchQuery`), `checkpoint` (a `CheckpointPut`, its
    /// id suffixed likewise).
    fn _bench_native(&self, py: Python<'_>, op: String, args_json: String, iters: usize) -> PyResult<Vec<f64>> {
        let run = move |s: &mut Store, host: Option<&dyn worker::Host>| {
            // A write is committed (and written in place) as a call's is, inside its timing.
            let commit = || -> Result<(), Error> {
                if let Some(h) = host {
                    h.commit().map_err(Error::internal)?;
                    h.after();
                }
                Ok(())
            };
            let mut out = Vec::with_capacity(iters);
            match op.as_str() {
                "get" => {
                    let (ns, key): (Vec<String>, String) = parse(&args_json, "get arguments")?;
                    for _ in 0..iters {
                        let t = std::time::Instant::now();
                        std::hint::black_box(s.get_json(&ns, &key, None, false)?);
                        out.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
                "get_memory" => {
                    let (ns, key): (Vec<String>, String) = parse(&args_json, "get arguments")?;
                    for _ in 0..iters {
                        let t = std::time::Instant::now();
                        std::hint::black_box(s.get_at_with(&ns, &key, None, false)?);
                        out.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
                "get_checkpoint" => {
                    let (thread, ns, id): (String, String, Option<String>) = parse(&args_json, "checkpoint")?;
                    for _ in 0..iters {
                        let t = std::time::Instant::now();
                        std::hint::black_box(s.get_checkpoint(&thread, &ns, id.as_deref())?);
                        out.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
                "put" => {
                    let put: MemoryPut = parse(&args_json, "memory")?;
                    for i in 0..iters {
                        let mut p = put.clone();
                        p.key = format!("{}{i}", p.key);
                        let t = std::time::Instant::now();
                        std::hint::black_box(s.put(p)?);
                        commit()?;
                        out.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
                "search" => {
                    let q: SearchQuery = parse(&args_json, "search query")?;
                    for _ in 0..iters {
                        let t = std::time::Instant::now();
                        std::hint::black_box(s.search(&q)?);
                        out.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
                "checkpoint" => {
                    let c: CheckpointPut = parse(&args_json, "checkpoint")?;
                    for i in 0..iters {
                        let mut c = c.clone();
                        c.checkpoint_id = format!("{}{i:08}", c.checkpoint_id);
                        let t = std::time::Instant::now();
                        std::hint::black_box(s.put_checkpoint(c)?);
                        commit()?;
                        out.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
                other => return Err(Error::invalid(format!("unknown bench op {other:?}"))),
            }
            Ok(out)
        };
        py.detach(|| self.worker.run_with_host(run)).map_err(|e| py_err(py, e))
    }

    /// Flushes and closes; later calls raise INVALID_ARGUMENT. Closing twice is a no-op.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.worker.close()).map_err(|e| py_err(py, e))
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeStore>()?;
    m.add_class::<NativeE5>()?;
    m.add_class::<NativeFeed>()?;
    Ok(())
}
