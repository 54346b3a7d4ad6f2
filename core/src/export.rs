//! Export / import of a whole store: live memories (with embeddings), every version, the commit
//! log and checkpoints with their pending writes, as one serde document. Import goes into an
//! empty store with the same dims and reproduces seqs, versions and AS OF answers exactly.
//! The change feed is not exported: after import it starts at the imported seq.

use crate::checkpoints::Checkpoint;
use crate::error::{Error, ErrorCode, Result};
use crate::memories::{row_to_memory, MEM_COLS, VER_COLS};
use crate::namespace;
use crate::store::Store;
use crate::types::Memory;
use crate::vector_index::encode_vec;
use rusqlite::params;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub const FORMAT: &str = "edgemem-export/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedVersion {
    pub memory: Memory,
    /// None for the live version.
    pub seq_to: Option<u64>,
    pub ended_at: Option<i64>,
    pub end_kind: Option<String>,
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

impl Store {
    pub fn export(&mut self) -> Result<ExportDoc> {
        let memories: Vec<Memory> = {
            let mut st = self.conn.prepare(&format!("SELECT {MEM_COLS} FROM memories ORDER BY ns, key"))?;
            let rows = st.query_map([], |r| row_to_memory(r, true).map(|(_, m)| m))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let versions: Vec<ExportedVersion> = {
            let mut st = self
                .conn
                .prepare(&format!("SELECT {VER_COLS}, seq_to, ended_at, end_kind FROM versions ORDER BY ns, key, seq_from"))?;
            let rows = st.query_map([], |r| {
                Ok(ExportedVersion {
                    memory: row_to_memory(r, true)?.1,
                    seq_to: r.get::<_, Option<i64>>(14)?.map(|v| v as u64),
                    ended_at: r.get(15)?,
                    end_kind: r.get(16)?,
                })
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let commits: Vec<(u64, i64)> = {
            let mut st = self.conn.prepare("SELECT seq, ts FROM commits ORDER BY seq")?;
            let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let keys: Vec<(String, String, String)> = {
            let mut st = self.conn.prepare("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints ORDER BY thread_id, seq")?;
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

    /// Loads an export into this (empty) store.
    pub fn import(&mut self, doc: &ExportDoc) -> Result<()> {
        if doc.format != FORMAT {
            return Err(Error::invalid(format!("unknown export format {:?}", doc.format)));
        }
        if self.seq != 0 || self.usage.count != 0 {
            return Err(Error::new(ErrorCode::Conflict, "import needs an empty store"));
        }
        self.fts_version += 1; // writes the full-text index directly
        if doc.dims != self.cfg.dims && !(doc.dims == 0 && doc.memories.iter().all(|m| m.embedding.is_none())) {
            return Err(Error::new(ErrorCode::DimensionMismatch, format!("export has dims {}, store has {}", doc.dims, self.cfg.dims)));
        }
        if doc.dims > 0 && doc.metric != self.cfg.metric.as_str() {
            return Err(Error::invalid(format!("export uses metric {}, this store {}", doc.metric, self.cfg.metric.as_str())));
        }
        for m in doc.memories.iter().chain(doc.versions.iter().map(|v| &v.memory)) {
            if let Some(e) = &m.embedding {
                crate::vector_index::validate(e, self.cfg.dims, self.cfg.metric)?;
            }
            if m.seq > doc.seq {
                return Err(Error::invalid(format!("export has a version at seq {} beyond its seq {}", m.seq, doc.seq)));
            }
            // Each version of a key is a change with its own seq, so a version never exceeds its seq.
            if m.version == 0 || m.version > m.seq {
                return Err(Error::invalid(format!("export has version {} of {:?} at seq {}", m.version, m.key, m.seq)));
            }
        }
        if doc.seq > i64::MAX as u64 {
            return Err(Error::invalid(format!("export seq {} is beyond what a store can hold", doc.seq)));
        }
        for v in &doc.versions {
            if v.seq_to.is_some_and(|t| t <= v.memory.seq || t > doc.seq) {
                return Err(Error::invalid("export has a version with an impossible validity range"));
            }
        }
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let r = self.import_rows(doc).and_then(|_| self.check_imported_caps());
        match r {
            Ok(()) => self.conn.execute_batch("COMMIT")?,
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
        self.seq = doc.seq;
        self.last_ts = doc.commits.last().map_or(0, |c| c.1);
        self.history_floor = doc.history_floor;
        self.feed.floor = doc.seq;
        self.recency.clear();
        let c = &self.conn;
        crate::schema::meta_set(c, "history_floor", doc.history_floor as i64)?;
        crate::schema::meta_set(c, "events_floor", doc.seq as i64)?;
        crate::schema::meta_set(c, "seq_floor", doc.seq as i64)?;
        self.reload_usage()?;
        if self.cfg.dims > 0 {
            self.rebuild_index()?;
        }
        Ok(())
    }

    /// Refuses an import whose live memories would exceed the caps (inside the import's tx).
    fn check_imported_caps(&self) -> Result<()> {
        let (bytes, count): (i64, i64) =
            self.conn.query_row("SELECT COALESCE(SUM(size), 0), COUNT(*) FROM memories", [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let caps = self.cfg.caps;
        if (caps.max_bytes > 0 && bytes as u64 > caps.max_bytes) || (caps.max_memories > 0 && count as u64 > caps.max_memories) {
            return Err(Error::new(
                ErrorCode::QuotaExceeded,
                format!("import holds {bytes} bytes / {count} memories; caps are {} bytes / {} memories", caps.max_bytes, caps.max_memories),
            ));
        }
        Ok(())
    }

    /// Accounted size recomputed from content (never trusted from the document).
    fn size_of(&self, ns: &str, m: &Memory) -> Result<(String, String, String, u64)> {
        let value = serde_json::to_string(&m.value)?;
        let metadata = serde_json::to_string(&m.metadata)?;
        let size = self.accounted_size(ns, &m.key, &value, m.text.as_deref(), &metadata, m.embedding.as_ref().map_or(0, Vec::len))?;
        Ok((value, metadata, ns.to_string(), size))
    }

    fn import_rows(&mut self, doc: &ExportDoc) -> Result<()> {
        let mut ids: HashMap<(String, String), i64> = HashMap::new();
        for m in &doc.memories {
            let ns = namespace::encode(&m.namespace)?;
            namespace::check_key(&m.key)?;
            let (value, metadata, _, size) = self.size_of(&ns, m)?;
            self.conn.execute(
                "INSERT INTO memories (ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version, seq, size)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    ns,
                    m.key,
                    value,
                    m.text,
                    m.embedding.as_ref().map(|e| encode_vec(e)),
                    metadata,
                    m.pinned,
                    m.expires_at,
                    m.created_at,
                    m.updated_at,
                    m.version as i64,
                    m.seq as i64,
                    size as i64
                ],
            )?;
            let id = self.conn.last_insert_rowid();
            if let Some(t) = &m.text {
                self.conn.execute("INSERT INTO memories_fts (rowid, text) VALUES (?1, ?2)", params![id, t])?;
            }
            ids.insert((ns, m.key.clone()), id);
        }
        for v in &doc.versions {
            let m = &v.memory;
            let ns = namespace::encode(&m.namespace)?;
            namespace::check_key(&m.key)?;
            let (value, metadata, _, size) = self.size_of(&ns, m)?;
            let mem_id = ids.get(&(ns.clone(), m.key.clone())).copied().unwrap_or(0);
            self.conn.execute(
                "INSERT INTO versions (mem_id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version, seq_from, seq_to, ended_at, end_kind, size)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                params![
                    mem_id,
                    ns,
                    m.key,
                    value,
                    m.text,
                    m.embedding.as_ref().map(|e| encode_vec(e)),
                    metadata,
                    m.pinned,
                    m.expires_at,
                    m.created_at,
                    m.updated_at,
                    m.version as i64,
                    m.seq as i64,
                    v.seq_to.map(|t| t as i64),
                    v.ended_at,
                    v.end_kind,
                    size as i64
                ],
            )?;
        }
        for (seq, ts) in &doc.commits {
            self.conn.execute("INSERT INTO commits (seq, ts) VALUES (?1, ?2)", params![*seq as i64, ts])?;
        }
        for c in &doc.checkpoints {
            let (kind, data) = c.data.encode()?;
            let meta = serde_json::to_string(&c.metadata)?;
            let size = data.len() + meta.len();
            self.conn.execute(
                "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, kind, data, metadata, created_at, seq, size)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_id, kind, data, meta, c.created_at, c.seq as i64, size as i64],
            )?;
            for w in &c.pending_writes {
                let (k, b) = w.value.encode()?;
                self.conn.execute(
                    "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, kind, value)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![c.thread_id, c.checkpoint_ns, c.checkpoint_id, w.task_id, w.idx, w.channel, k, b],
                )?;
            }
        }
        Ok(())
    }
}
