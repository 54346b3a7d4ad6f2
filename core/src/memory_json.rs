//! A memory row written straight out as the JSON its [`Memory`](crate::Memory) serialises to, for
//! hosts that hand JSON on (the wasm adapter's `get`): the stored value and metadata JSON are copied
//! in verbatim instead of parsed into `serde_json::Value`s and serialised again, and no `Memory` is
//! built. Same fields, order and encodings as `Memory`'s serde derive (tests compare the two).

use crate::namespace;
use crate::vector_index::decode_vec;
use rusqlite::types::ValueRef;
use rusqlite::Row;

/// What a row lookup needs besides the JSON: the memory's id and its expiry.
pub(crate) struct RowJson {
    pub id: i64,
    pub expires_at: Option<i64>,
    pub json: String,
}

/// Writes a `MEM_COLS` / `VER_COLS` row (see `memories::row_to_memory`) as `Memory` JSON.
pub(crate) fn row_to_json(r: &Row, with_embedding: bool) -> rusqlite::Result<RowJson> {
    let mut out: Vec<u8> = Vec::with_capacity(512);
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
    out.extend_from_slice(text_ref(r, 3)?.as_bytes());
    out.extend_from_slice(b",\"text\":");
    match r.get_ref(4)? {
        ValueRef::Null => out.extend_from_slice(b"null"),
        v => json(&mut out, v.as_str()?),
    }
    if with_embedding {
        if let Some(blob) = r.get_ref(5)?.as_blob_or_null()? {
            out.extend_from_slice(b",\"embedding\":");
            json(&mut out, &decode_vec(blob));
        }
    }
    out.extend_from_slice(b",\"metadata\":");
    out.extend_from_slice(text_ref(r, 6)?.as_bytes());
    out.extend_from_slice(b",\"pinned\":");
    json(&mut out, &r.get::<_, bool>(7)?);
    let expires_at: Option<i64> = r.get(8)?;
    out.extend_from_slice(b",\"expires_at\":");
    json(&mut out, &expires_at);
    for (name, col) in [("created_at", 9), ("updated_at", 10)] {
        field(&mut out, name);
        json(&mut out, &r.get::<_, i64>(col)?);
    }
    for (name, col) in [("version", 11), ("seq", 12), ("size", 13)] {
        field(&mut out, name);
        json(&mut out, &(r.get::<_, i64>(col)? as u64));
    }
    out.push(b'}');
    // Every piece is UTF-8 (escaped strings, stored text read as &str, numbers): this cannot fail.
    let json = String::from_utf8(out).map_err(|e| rusqlite::Error::Utf8Error(0, e.utf8_error()))?;
    Ok(RowJson { id: r.get(0)?, expires_at, json })
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
