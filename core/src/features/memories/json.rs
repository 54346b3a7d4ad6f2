//! A memory row written straight out as the JSON its [`Memory`](crate::Memory) serialises to, for
//! hosts that hand JSON on (the wasm adapter's `get`): the stored value and metadata JSON are copied
//! in verbatim instead of parsed into `serde_json::Value`s and serialised again, and no `Memory` is
//! built. Same fields, order and encodings as `Memory`'s serde derive (tests compare the two).

use crate::base::namespace;
use crate::features::memories::row::{COL_COHERENCE, COL_SEQ, COL_SIZE, COL_VALID_FROM};
use crate::vectors::index::decode_vec;
use rusqlite::types::ValueRef;
use rusqlite::Row;

/// What a row lookup needs besides the JSON: the memory's id and its expiry.
pub(crate) struct RowJson {
    pub id: i64,
    pub expires_at: Option<i64>,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub json: String,
}

/// Writes a `MEM_COLS` / `VER_COLS` row (see `memory_row::row_to_memory`) as `Memory` JSON.
pub(crate) fn row_to_json(r: &Row, with_embedding: bool) -> rusqlite::Result<RowJson> {
    // The stored value and metadata are copied in as bytes: the one UTF-8 check of the whole output
    // at the end covers them (reading them as &str first checked the ~1 KB value twice).
    let value = text_bytes(r, 3, "value")?;
    let metadata = text_bytes(r, 6, "metadata")?;
    let text = r.get_ref(4)?.as_str_or_null()?;
    // Sized for everything up front: growing from a guess copied the value again on a typical read.
    let mut out: Vec<u8> =
        Vec::with_capacity(320 + value.len() + metadata.len() + text.map_or(0, |t| t.len() + t.len() / 8));
    out.extend_from_slice(b"{\"namespace\":[");
    for (i, seg) in namespace::segments(text_ref(r, 1)?).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json(&mut out, seg);
    }
    out.extend_from_slice(b"],\"key\":");
    json(&mut out, text_ref(r, 2)?);
    // Written by the engine with serde_json (memories::put_in_tx, import), so valid JSON as stored.
    out.extend_from_slice(b",\"value\":");
    out.extend_from_slice(value);
    out.extend_from_slice(b",\"text\":");
    match text {
        None => out.extend_from_slice(b"null"),
        Some(t) => json(&mut out, t),
    }
    if with_embedding {
        if let Some(blob) = r.get_ref(5)?.as_blob_or_null()? {
            out.extend_from_slice(b",\"embedding\":");
            json(&mut out, &decode_vec(blob));
        }
    }
    out.extend_from_slice(b",\"metadata\":");
    let metadata_at = out.len();
    out.extend_from_slice(metadata);
    out.extend_from_slice(b",\"pinned\":");
    json(&mut out, &r.get::<_, bool>(7)?);
    let expires_at: Option<i64> = r.get(8)?;
    out.extend_from_slice(b",\"expires_at\":");
    json(&mut out, &expires_at);
    for (name, col) in [("created_at", 9), ("updated_at", 10)] {
        field(&mut out, name);
        json(&mut out, &r.get::<_, i64>(col)?);
    }
    for (name, col) in [("version", 11), ("seq", COL_SEQ), ("size", COL_SIZE)] {
        field(&mut out, name);
        json(&mut out, &(r.get::<_, i64>(col)? as u64));
    }
    let valid_from: Option<i64> = r.get(COL_VALID_FROM)?;
    let valid_to: Option<i64> = r.get(COL_VALID_FROM + 1)?;
    for (name, v) in [("valid_from", valid_from), ("valid_to", valid_to)] {
        if let Some(v) = v {
            field(&mut out, name);
            json(&mut out, &v);
        }
    }
    // The coherence object's fields are the `Memory`'s (flattened, in the same order).
    if let Some(c) = r.get_ref(COL_COHERENCE)?.as_str_or_null()? {
        if let Some(inner) = c.strip_prefix('{').and_then(|c| c.strip_suffix('}')).filter(|c| !c.is_empty()) {
            out.push(b',');
            out.extend_from_slice(inner.as_bytes());
        }
    }
    out.push(b'}');
    // Escaped strings, numbers and stored text: UTF-8 unless the stored value or metadata is not.
    let json = String::from_utf8(out).map_err(|e| {
        let col = if e.utf8_error().valid_up_to() >= metadata_at { 6 } else { 3 };
        rusqlite::Error::Utf8Error(col, e.utf8_error())
    })?;
    Ok(RowJson { id: r.get(0)?, expires_at, valid_from, valid_to, json })
}

/// A TEXT column's bytes, unchecked as UTF-8 (the caller checks its whole output once).
fn text_bytes<'r>(r: &'r Row, col: usize, name: &str) -> rusqlite::Result<&'r [u8]> {
    match r.get_ref(col)? {
        ValueRef::Text(b) => Ok(b),
        other => Err(rusqlite::Error::InvalidColumnType(col, name.to_string(), other.data_type())),
    }
}

fn text_ref<'r>(r: &'r Row, col: usize) -> rusqlite::Result<&'r str> {
    Ok(r.get_ref(col)?.as_str()?)
}

fn field(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

/// `v` as serde_json writes it (strings escaped as in every other engine output).
fn json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    // Writing a string, number, bool or f32 array into a Vec cannot fail (non-finite floats are null).
    let _ = serde_json::to_writer(&mut *out, v);
}
