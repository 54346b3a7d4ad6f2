//! Conversions between the engine's values and Python's: JSON arguments in, checkpoint payloads both ways, and
//! results (`Memory`, `SearchHit`, checkpoints, JSON values) made as Python objects in Rust.

use crate::objects::FrozenClass;
use crate::py_err;
use edgemem_core::{Checkpoint, CheckpointData, Error};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use serde::Serialize;
use serde_json::value::RawValue;

pub(crate) fn parse<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> Result<T, Error> {
    serde_json::from_str(json).map_err(|e| Error::invalid(format!("invalid {what}: {e}")))
}

pub(crate) fn to_json<T: Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::internal(format!("serialize: {e}")))
}

/// A checkpoint payload from Python: kind `json` (the bytes are JSON text) or `bytes`.
pub(crate) fn data_in(kind: &str, bytes: Vec<u8>) -> Result<CheckpointData, Error> {
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
pub(crate) fn data_out<'py>(py: Python<'py>, d: &CheckpointData) -> PyResult<Bound<'py, PyTuple>> {
    match d {
        CheckpointData::Json(raw) => ("json", PyBytes::new(py, raw.get().as_bytes())).into_pyobject(py),
        CheckpointData::Bytes(b) => ("bytes", PyBytes::new(py, b)).into_pyobject(py),
    }
}

/// A checkpoint as the tuple `edgemem.store.Checkpoint.from_native` reads: (thread_id, checkpoint_ns,
/// checkpoint_id, parent_id, data, metadata, created_at, seq, [(task_id, idx, channel, value)], channel_versions,
/// [(channel, version, data)]); metadata and channel_versions as dicts (made here, not JSON parsed again there).
pub(crate) fn checkpoint_out<'py>(py: Python<'py>, c: &Checkpoint) -> PyResult<Bound<'py, PyTuple>> {
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

/// `edgemem.types.Memory` and `SearchHit`, looked up once.
pub(crate) static MEMORY_CLASS: PyOnceLock<FrozenClass> = PyOnceLock::new();
pub(crate) static HIT_CLASS: PyOnceLock<FrozenClass> = PyOnceLock::new();

/// A JSON value as the Python object `json.loads` would make of it.
pub(crate) fn value_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
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
pub(crate) fn map_to_py<'py>(
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
pub(crate) fn memory_to_py<'py>(py: Python<'py>, m: edgemem_core::Memory) -> PyResult<Bound<'py, PyAny>> {
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
pub(crate) fn hit_to_py<'py>(
    py: Python<'py>,
    class: &FrozenClass,
    h: edgemem_core::SearchHit,
) -> PyResult<Bound<'py, PyAny>> {
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
pub(crate) fn namespace_arg(py: Python<'_>, ns: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
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
