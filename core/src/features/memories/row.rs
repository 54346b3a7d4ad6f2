//! A memory's row: its columns, named once for the live table (`memories`) and the history table
//! (`versions`), and how a row is read back as a `Memory` or as the `LiveRow` writers need.

use crate::base::namespace;
use crate::base::types::Memory;
use crate::vectors::index::decode_vec;
use rusqlite::Row;
use serde_json::Value;

/// The columns a memory's live row and each of its versions share, by the same names, in this order.
macro_rules! data_cols {
    () => {
        "ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version, \
         valid_from, valid_to, coherence"
    };
}
pub(crate) use data_cols;

/// `MEM_COLS` as a literal, for SQL built with `concat!`.
macro_rules! mem_cols {
    () => {
        concat!("id, ", data_cols!(), ", seq, size")
    };
}
pub(crate) use mem_cols;
/// Columns read for a memory, in `row_to_memory` order.
pub(crate) const MEM_COLS: &str = mem_cols!();
/// The same columns of a `versions` row (its memory's id, the seq it began at), in the same order.
pub(crate) const VER_COLS: &str = concat!("mem_id, ", data_cols!(), ", seq_from, size");
/// Every version of the memories a read selects, in one compound SELECT: the closed ones in `versions`
/// (`closed`, a condition on its columns), each live one as its `memories` row (`live`, the same on the
/// row's: `seq` for `seq_from`), with `extra` columns after `VER_COLS` (NULL for a live row), ordered by
/// `order` (`versions`' column names). SQLite merges the two sides' ordered index scans; the `all_versions`
/// view with an ORDER BY would sort every row it selects in memory first.
pub(crate) fn versions_union(extra: &[&str], closed: &str, live: &str, order: &str) -> String {
    let (cols, nulls): (String, String) = extra.iter().map(|c| (format!(", {c}"), ", NULL".to_string())).unzip();
    format!(
        "SELECT {VER_COLS}{cols} FROM versions WHERE seq_to IS NOT NULL AND {closed} \
         UNION ALL SELECT {MEM_COLS}{nulls} FROM memories WHERE {live} ORDER BY {order}"
    )
}
/// The live row at (ns, key): a constant, so a read neither formats it nor allocates for it.
pub(crate) const LIVE_ROW_SQL: &str = concat!("SELECT ", mem_cols!(), " FROM memories WHERE ns = ?1 AND key = ?2");

/// Where `MEM_COLS` / `VER_COLS` hold the valid time, the coherence JSON, the seq and the size; the columns a read
/// selects after them begin at `EXTRA_COL`.
pub(crate) const COL_VALID_FROM: usize = 12;
pub(crate) const COL_COHERENCE: usize = 14;
pub(crate) const COL_SEQ: usize = 15;
pub(crate) const COL_SIZE: usize = 16;
pub(crate) const EXTRA_COL: usize = 17;

/// A memory's coherence fields (features/coherence), stored together as one JSON object (NULL when none), its
/// fields in `Memory`'s order (json.rs copies the column into a memory's JSON as it is). Written and read by hand:
/// serde's derives for it cost the wasm module more than this.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Coherence {
    pub seen: Option<u64>,
    pub last_seen: Option<i64>,
    pub replaces: Option<String>,
    pub replaced_by: Option<String>,
}

const COHERENCE_FIELDS: [&str; 4] = ["seen", "last_seen", "replaces", "replaced_by"];

impl Coherence {
    pub(crate) fn of(m: &Memory) -> Self {
        Coherence {
            seen: m.seen,
            last_seen: m.last_seen,
            replaces: m.replaces.clone(),
            replaced_by: m.replaced_by.clone(),
        }
    }

    /// The column's value: NULL when every field is unset.
    pub(crate) fn to_column(&self) -> Option<String> {
        let mut o = serde_json::Map::new();
        if let Some(v) = self.seen {
            o.insert("seen".into(), v.into());
        }
        if let Some(v) = self.last_seen {
            o.insert("last_seen".into(), v.into());
        }
        if let Some(v) = &self.replaces {
            o.insert("replaces".into(), v.clone().into());
        }
        if let Some(v) = &self.replaced_by {
            o.insert("replaced_by".into(), v.clone().into());
        }
        Self::column_of(&o).ok().flatten()
    }

    /// A coherence object (a put's, from replication; or `to_column`'s) as the column: its fields checked and written
    /// in their order, NULL when empty.
    pub(crate) fn column_of(c: &serde_json::Map<String, Value>) -> crate::Result<Option<String>> {
        let mut out = String::new();
        for (i, name) in COHERENCE_FIELDS.iter().enumerate() {
            let Some(v) = c.get(*name) else { continue };
            if !(if i < 2 { v.is_i64() } else { v.is_string() }) {
                return Err(crate::Error::invalid(format!("coherence.{name} has the wrong type")));
            }
            out.push(if out.is_empty() { '{' } else { ',' });
            out.push_str(&format!("\"{name}\":{v}"));
        }
        if c.keys().any(|k| !COHERENCE_FIELDS.contains(&k.as_str())) {
            return Err(crate::Error::invalid("coherence holds seen, last_seen, replaces and replaced_by only"));
        }
        Ok((!out.is_empty()).then(|| out + "}"))
    }

    pub(crate) fn from_column(s: Option<&str>) -> Self {
        let Some(Value::Object(o)) = s.and_then(|s| serde_json::from_str::<Value>(s).ok()) else {
            return Coherence::default();
        };
        let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
        Coherence {
            seen: o.get("seen").and_then(Value::as_u64),
            last_seen: o.get("last_seen").and_then(Value::as_i64),
            replaces: text("replaces"),
            replaced_by: text("replaced_by"),
        }
    }
}

/// Reads a `MEM_COLS` / `VER_COLS` row: the memory's id (its `mem_id` for a version) and the memory.
pub(crate) fn row_to_memory(r: &Row, with_embedding: bool) -> rusqlite::Result<(i64, Memory)> {
    let ns: String = r.get(1)?;
    let value: String = r.get(3)?;
    let metadata: String = r.get(6)?;
    let embedding = if with_embedding { r.get::<_, Option<Vec<u8>>>(5)?.map(|b| decode_vec(&b)) } else { None };
    let c = Coherence::from_column(r.get_ref(COL_COHERENCE)?.as_str_or_null()?);
    Ok((
        r.get(0)?,
        Memory {
            namespace: namespace::decode(&ns),
            key: r.get(2)?,
            value: serde_json::from_str(&value).unwrap_or(Value::Null),
            text: r.get(4)?,
            embedding,
            metadata: serde_json::from_str(&metadata).unwrap_or_default(),
            pinned: r.get(7)?,
            expires_at: r.get(8)?,
            created_at: r.get(9)?,
            updated_at: r.get(10)?,
            version: r.get::<_, i64>(11)? as u64,
            seq: r.get::<_, i64>(COL_SEQ)? as u64,
            size: r.get::<_, i64>(COL_SIZE)? as u64,
            valid_from: r.get(COL_VALID_FROM)?,
            valid_to: r.get(COL_VALID_FROM + 1)?,
            seen: c.seen,
            last_seen: c.last_seen,
            replaces: c.replaces,
            replaced_by: c.replaced_by,
        },
    ))
}

/// The live row of a key, as needed by writers.
pub(crate) struct LiveRow {
    pub id: i64,
    pub version: u64,
    pub size: u64,
    pub pinned: bool,
    pub expires_at: Option<i64>,
    pub has_embedding: bool,
    pub has_text: bool,
}

/// `LIVE_COLS` as a literal, for SQL built with `concat!`.
macro_rules! live_cols {
    () => {
        "id, version, size, pinned, expires_at, embedding IS NOT NULL, text IS NOT NULL"
    };
}
/// Columns read for a `LiveRow`, in `live_row_from` order.
pub(crate) const LIVE_COLS: &str = live_cols!();
/// What a write reads of the live row at (ns, key).
pub(crate) const LIVE_STATE_SQL: &str = concat!("SELECT ", live_cols!(), " FROM memories WHERE ns = ?1 AND key = ?2");

pub(crate) fn live_row_from(r: &Row) -> rusqlite::Result<LiveRow> {
    Ok(LiveRow {
        id: r.get(0)?,
        version: r.get::<_, i64>(1)? as u64,
        size: r.get::<_, i64>(2)? as u64,
        pinned: r.get(3)?,
        expires_at: r.get(4)?,
        has_embedding: r.get(5)?,
        has_text: r.get(6)?,
    })
}

impl LiveRow {
    pub fn expired(&self, now: i64) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }
}

#[cfg(test)]
mod tests {
    use super::versions_union;
    use crate::{Store, StoreConfig};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Each way history is read walks both tables' indexes in order and merges them: no temp b-tree
    /// (a sort of every selected row in memory), as the `all_versions` view with ORDER BY needed.
    #[test]
    fn reads_of_every_version_merge_without_sorting() {
        let s = Store::open(StoreConfig::memory(0)).unwrap();
        let range =
            "ns >= ?1 AND ns < ?2 AND (ns > ?3 OR (ns = ?3 AND key > ?4)) AND (expires_at IS NULL OR expires_at > ?6)";
        let reads = [
            // a list AS OF seq ?5, a history page, a get AS OF, the one-document export
            versions_union(
                &[],
                &format!("seq_from <= ?5 AND seq_to > ?5 AND {range}"),
                &format!("seq <= ?5 AND {range}"),
                "ns, key",
            ) + " LIMIT 10 OFFSET 5",
            versions_union(
                &[],
                "ns = ?1 AND key = ?2 AND seq_from > ?3",
                "ns = ?1 AND key = ?2 AND seq > ?3",
                "seq_from",
            ) + " LIMIT ?4",
            versions_union(
                &["seq_to"],
                "ns = ?1 AND key = ?2 AND seq_from <= ?3",
                "ns = ?1 AND key = ?2 AND seq <= ?3",
                "seq_from DESC",
            ) + " LIMIT 1",
            versions_union(&["seq_to", "ended_at", "end_kind"], "1", "1", "ns, key, seq_from"),
        ];
        for sql in reads {
            let mut st = s.conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let nulls = vec![rusqlite::types::Value::Null; st.parameter_count()];
            let plan: Vec<String> = st
                .query_map(rusqlite::params_from_iter(nulls), |r| r.get::<_, String>(3))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            assert!(plan.iter().any(|p| p.contains("MERGE")), "{sql}\n{plan:#?}");
            assert!(!plan.iter().any(|p| p.contains("TEMP B-TREE")), "{sql}\n{plan:#?}");
        }
    }
}
