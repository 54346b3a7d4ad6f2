//! Export / import of a whole store: live memories (with embeddings), every version, the commit
//! log and checkpoints with their pending writes, as one serde document. Import goes into an
//! empty store with the same dims and reproduces seqs, versions and AS OF answers exactly.
//! The change feed is not exported: after import it starts at the imported seq.

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::types::Memory;
use crate::features::checkpoints::Checkpoint;
use crate::features::memories::row::{row_to_memory, versions_union, MEM_COLS};
use crate::store::Store;
use crate::transfer::import::{document_lines, ImportChunk};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

pub const FORMAT: &str = "edgemem-export/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedVersion {
    pub memory: Memory,
    /// None for the live version.
    pub seq_to: Option<u64>,
    pub ended_at: Option<i64>,
    pub end_kind: Option<String>,
    /// A live version's memory id in the exporting store: an import gives the memory the same id, so it
    /// breaks search ties (by id) as the source did. Absent from exports before it (ids then follow the
    /// order of the lines) and from closed versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportDoc {
    pub format: String,
    pub dims: usize,
    pub metric: String,
    pub seq: u64,
    pub history_floor: u64,
    pub memories: Vec<Memory>,
    pub versions: Vec<ExportedVersion>,
    pub commits: Vec<(u64, i64)>,
    pub checkpoints: Vec<Checkpoint>,
}

/// A `VER_COLS, seq_to, ended_at, end_kind` row as exported at seq `at`: a version closed after it was live
/// at it (then with its memory's id).
fn version_from(r: &rusqlite::Row, at: u64) -> rusqlite::Result<ExportedVersion> {
    let seq_to = r.get::<_, Option<i64>>(14)?.map(|v| v as u64).filter(|&t| t <= at);
    let closed = seq_to.is_some();
    let (id, memory) = row_to_memory(r, true)?;
    Ok(ExportedVersion {
        memory,
        seq_to,
        ended_at: if closed { r.get(15)? } else { None },
        end_kind: if closed { r.get(16)? } else { None },
        id: if closed { None } else { Some(id as u64) },
    })
}

/// The versions a query of `VER_COLS, seq_to, ended_at, end_kind` rows finds, as exported at seq `at`.
pub(crate) fn versions_at(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
    at: u64,
) -> Result<Vec<ExportedVersion>> {
    let mut st = conn.prepare_cached(sql)?;
    let rows = st.query_map(params, |r| version_from(r, at))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

impl Store {
    pub fn export(&mut self) -> Result<ExportDoc> {
        let memories: Vec<Memory> = {
            let mut st = self.conn.prepare(&format!("SELECT {MEM_COLS} FROM memories ORDER BY ns, key"))?;
            let rows = st.query_map([], |r| row_to_memory(r, true).map(|(_, m)| m))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let versions = versions_at(
            &self.conn,
            &versions_union(&["seq_to", "ended_at", "end_kind"], "1", "1", "ns, key, seq_from"),
            &[],
            self.seq,
        )?;
        let commits = crate::storage::time_index::commit_times(&self.conn, 0, self.seq, usize::MAX)?.0;
        let keys: Vec<(String, String, String)> = {
            let mut st = self
                .conn
                .prepare("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints ORDER BY thread_id, seq")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let mut checkpoints = Vec::with_capacity(keys.len());
        for (t, ns, id) in keys {
            if let Some(c) = self.get_checkpoint(&t, &ns, Some(&id))? {
                checkpoints.push(c);
            }
        }
        Ok(ExportDoc {
            format: FORMAT.into(),
            dims: self.cfg.dims,
            metric: self.cfg.metric.as_str().into(),
            seq: self.seq,
            history_floor: self.history_floor,
            memories,
            versions,
            commits,
            checkpoints,
        })
    }

    /// Loads a one-document export into this (empty) store, validated line by line like a streamed
    /// import (import_stream.rs), in one transaction. Its `memories` must be exactly its live versions.
    pub fn import(&mut self, doc: &ExportDoc) -> Result<()> {
        if doc.format != FORMAT {
            return Err(Error::invalid(format!("unknown export format {:?}", doc.format)));
        }
        // Sizes are recomputed on import, never trusted: they may differ.
        let same = |a: &Memory, b: &Memory| Memory { size: 0, ..a.clone() } == Memory { size: 0, ..b.clone() };
        let mut live: HashMap<(&[String], &str, u64), &Memory> = HashMap::new();
        for v in doc.versions.iter().filter(|v| v.seq_to.is_none()) {
            live.insert((&v.memory.namespace, &v.memory.key, v.memory.seq), &v.memory);
        }
        let mut seen = HashSet::new();
        for m in &doc.memories {
            let id = (&m.namespace[..], &m.key[..], m.seq);
            if !seen.insert(id) {
                return Err(Error::invalid(format!("export holds the memory {:?} in {:?} twice", m.key, m.namespace)));
            }
            if !live.get(&id).is_some_and(|v| same(v, m)) {
                return Err(Error::invalid(format!(
                    "export's memory {:?} in {:?} is not its live version",
                    m.key, m.namespace
                )));
            }
        }
        if seen.len() != live.len() {
            return Err(Error::invalid(
                "export's memories are not its live versions (each memory needs its version with seq_to null)",
            ));
        }
        let progress = self.import_lines(document_lines(doc).into_iter().map(Ok), ImportChunk::WHOLE)?;
        debug_assert!(progress.done);
        Ok(())
    }

    /// Refuses an import whose live memories would exceed the caps (inside the import's tx).
    pub(crate) fn check_imported_caps(&self) -> Result<()> {
        let (bytes, count): (i64, i64) =
            self.conn.query_row("SELECT COALESCE(SUM(size), 0), COUNT(*) FROM memories", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
        let caps = self.cfg.caps;
        if (caps.max_bytes > 0 && bytes as u64 > caps.max_bytes)
            || (caps.max_memories > 0 && count as u64 > caps.max_memories)
        {
            return Err(Error::new(
                ErrorCode::QuotaExceeded,
                format!(
                    "import holds {bytes} bytes / {count} memories; caps are {} bytes / {} memories",
                    caps.max_bytes, caps.max_memories
                ),
            ));
        }
        Ok(())
    }
}
