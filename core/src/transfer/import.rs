//! Import: the streamed import of the NDJSON export (format.rs), chunk by chunk, each chunk one SQLite
//! transaction, so an import of any size goes in with bounded memory and no call past a host's limit.
//!
//! Every line is validated like the live API: namespaces, keys, sizes (PAYLOAD_TOO_LARGE past the
//! store's memory and checkpoint limits), vectors, ids; seqs and versions within the export's seq;
//! commit times that never run backwards (time-based AS OF depends on it); nothing twice (a
//! duplicate memory, version, commit, checkpoint or pending write is INVALID_ARGUMENT); and the
//! `end` line's counts equal what came, so a cut stream never passes for a whole one.
//!
//! The verdict is one for the whole stream: the caller says where each chunk sits in it
//! ([`ImportChunk`]). The `header` line is accepted only as the first line of the `first` chunk, the
//! `end` line only as the last line of the `last` chunk, and a `last` chunk must end with it; anything
//! else is INVALID_ARGUMENT. So the chunk that commits the import is the stream's last: a stream that
//! goes on after its `end` line, or starts again with a second `header`, is refused before anything of
//! it is kept.
//!
//! While an import is in progress (between its first and last chunks, also across a reopen: the state
//! is kept in `meta`), writes are refused with CONFLICT and retention waits. A chunk that is refused
//! abandons the import: the store is emptied again, so it never holds half an import. A `first` chunk
//! on a store whose import was abandoned by its client starts over the same way.
//!
//! A one-document export (`import`) goes through the same checks, as one stream in one transaction.

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::namespace;
use crate::base::types::{ExportCounts, Memory};
use crate::config::StoreConfig;
use crate::features::checkpoints::{
    check_id, check_thread_id, check_versions, encode_blobs, Checkpoint, MAX_PENDING_WRITES_FACTOR,
};
use crate::features::memories::row::data_cols;
use crate::state::feed::EventKind;
use crate::state::import_gate::{ImportGate, ImportState};
use crate::store::Store;
use crate::transfer::format::{
    document_lines, ExportDoc, ExportLine, ExportedVersion, ExportedWrite, FORMAT, STREAM_FORMAT,
};
use crate::vectors::index::{encode_vec, validate};
use rusqlite::{params, params_from_iter, ToSql};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The largest seq an import may bring: every later seq stays exact as a JavaScript number (2^53-1),
/// with 2^40 changes to spare; no real store comes near it.
pub const MAX_IMPORT_SEQ: u64 = (1 << 53) - 1 - (1 << 40);

/// What an import chunk achieved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ImportProgress {
    /// The `end` line came: the store now holds the whole export.
    pub done: bool,
    pub versions: u64,
    pub commits: u64,
    pub checkpoints: u64,
    pub writes: u64,
}

/// Where a chunk of a streamed import sits in its stream (see the module doc). A one-chunk import is
/// [`ImportChunk::WHOLE`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportChunk {
    /// The stream's first chunk: it starts with the `header` line.
    pub first: bool,
    /// The stream's last chunk: it ends with the `end` line.
    pub last: bool,
}

impl ImportChunk {
    /// The whole stream in one chunk.
    pub const WHOLE: ImportChunk = ImportChunk { first: true, last: true };
}

/// Vectors of live memories imported by a chunk, put in the index once it commits.
type IndexAdds = Vec<(u64, Vec<f32>)>;

fn duplicate(e: rusqlite::Error, what: impl FnOnce() -> String) -> Error {
    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) {
        Error::invalid(format!("export holds {} twice", what()))
    } else {
        e.into()
    }
}

/// A version as import errors name it.
fn named(m: &Memory) -> String {
    format!("the memory {:?} in {:?} at seq {}", m.key, m.namespace, m.seq)
}

/// Checks a version's namespace, key and vector, then its seqs, version number, validity range and end
/// against the import's header; returns the encoded namespace.
// This and `insert_live_version` / `insert_closed_version` are inlined into `import_version`, one
// function as before they were split out: 240 B less of the wasm module's gzip budget.
#[inline(always)]
fn check_version(st: &ImportState, v: &ExportedVersion, cfg: &StoreConfig) -> Result<String> {
    let m = &v.memory;
    let ns = namespace::encode(&m.namespace)?;
    namespace::check_key(&m.key)?;
    if let Some(e) = &m.embedding {
        validate(e, cfg.dims, cfg.metric, cfg.scalar)?;
    }
    if m.seq == 0 || m.seq > st.seq {
        return Err(Error::invalid(format!(
            "export has a version of {:?} at seq {} outside 1..={}",
            m.key, m.seq, st.seq
        )));
    }
    // Each version of a key is a change with its own seq, so a version never exceeds its seq.
    if m.version == 0 || m.version > m.seq {
        return Err(Error::invalid(format!("export has version {} of {:?} at seq {}", m.version, m.key, m.seq)));
    }
    if m.valid_from.zip(m.valid_to).is_some_and(|(f, t)| t < f) {
        return Err(Error::invalid(format!("export has a version of {:?} valid to before it is valid from", m.key)));
    }
    if v.seq_to.is_some_and(|t| t <= m.seq || t > st.seq) {
        return Err(Error::invalid(format!("export has a version of {:?} with an impossible validity range", m.key)));
    }
    if v.end_kind.as_deref().is_some_and(|k| {
        !matches!(
            EventKind::parse(k),
            Some(EventKind::Put | EventKind::Delete | EventKind::Expire | EventKind::Evict | EventKind::Supersede)
        )
    }) {
        return Err(Error::invalid(format!("export has a version ended by {:?}, not a memory change", v.end_kind)));
    }
    Ok(ns)
}

impl Store {
    /// Imports a chunk of NDJSON export lines (whole lines; blank lines are skipped), `at` its place in
    /// the stream: the first chunk starts with the `header` line, the last ends with `end`; see the module
    /// doc.
    pub fn import_ndjson(&mut self, ndjson: &str, at: ImportChunk) -> Result<ImportProgress> {
        self.import_ndjson_noting(ndjson, at, None)
    }

    /// `import_ndjson`, keeping `note` (the host's note of where its source goes on) with the chunk, in its
    /// transaction: after a crash, `import_note` says where to resume.
    pub fn import_ndjson_noting(
        &mut self,
        ndjson: &str,
        at: ImportChunk,
        note: Option<&str>,
    ) -> Result<ImportProgress> {
        let lines = ndjson.split('\n').enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| {
            ExportLine::parse(l).map_err(|e| Error::invalid(format!("import line {} of this chunk: {e}", i + 1)))
        });
        self.import_lines(lines, at, note)
    }

    /// The note kept with the last chunk of the import in progress (None: no import in progress, or no note).
    pub fn import_note(&self) -> Option<String> {
        self.import.state().and_then(|s| s.note.clone())
    }

    /// Imports export lines as one transaction (see `import_ndjson`).
    pub(crate) fn import_lines(
        &mut self,
        lines: impl Iterator<Item = Result<ExportLine>>,
        at: ImportChunk,
        note: Option<&str>,
    ) -> Result<ImportProgress> {
        let was_importing = self.import.importing();
        // A first chunk starts the import (over an abandoned one); a later one goes on with the import in progress.
        let mut state = if at.first { None } else { self.import.state().cloned() };
        let mut adds: IndexAdds = Vec::new();
        let mut ended = None;
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let r = (|| {
            if !at.first && state.is_none() {
                return Err(Error::invalid("no import is in progress: an import's first chunk starts it"));
            }
            for (i, line) in lines.enumerate() {
                if ended.is_some() {
                    return Err(Error::invalid("import lines after the `end` line"));
                }
                match line? {
                    ExportLine::Header(h) => {
                        if !at.first || i > 0 {
                            return Err(Error::invalid(
                                "a `header` line past the start of the import (only the first chunk's first line is one)",
                            ));
                        }
                        self.import_header(&h.format, h.dims, &h.metric, h.seq)?;
                        state = Some(ImportState { seq: h.seq, ..ImportState::default() });
                    }
                    other => {
                        let st =
                            state.as_mut().ok_or_else(|| Error::invalid("an import starts with its `header` line"))?;
                        match other {
                            ExportLine::Version(v) => self.import_version(st, &v, &mut adds)?,
                            ExportLine::Commits(c) => self.import_commits(st, &c.items)?,
                            ExportLine::Checkpoint(c) => self.import_checkpoint(st, &c)?,
                            ExportLine::Write(w) => self.import_write(st, &w)?,
                            ExportLine::End(end) => {
                                if !at.last {
                                    return Err(Error::invalid(
                                        "an `end` line before the import's last chunk (the stream goes on after it)",
                                    ));
                                }
                                self.import_end(st, &end)?;
                                ended = Some((st.clone(), end));
                            }
                            ExportLine::Header(_) => unreachable!("matched above"),
                        }
                    }
                }
            }
            if state.is_none() {
                return Err(Error::invalid("an import starts with its `header` line"));
            }
            if at.last && ended.is_none() {
                return Err(Error::invalid("the import ended before its `end` line"));
            }
            if let Some(st) = state.as_mut() {
                st.note = note.map(str::to_string);
            }
            ImportGate::save(&self.conn, if ended.is_some() { None } else { state.as_ref() })
        })()
        .and_then(|()| Ok(self.conn.execute_batch("COMMIT")?));
        if let Err(e) = r {
            let _ = self.conn.execute_batch("ROLLBACK");
            if was_importing {
                // Best effort: the store held only the abandoned import's rows.
                let _ = self.abandon_import();
            }
            return Err(e);
        }
        self.lexical.index_changed(); // the full-text index was written directly
        let progress = state.as_ref().map_or_else(ImportProgress::default, |s| ImportProgress {
            done: ended.is_some(),
            versions: s.counts.versions,
            commits: s.counts.commits,
            checkpoints: s.counts.checkpoints,
            writes: s.counts.writes,
        });
        self.import.set(if ended.is_some() { None } else { state });
        // Until the import ends the store counts no live bytes, so its page cache stays at the floor.
        self.index.add_imported(&adds);
        if let Some((st, end)) = ended {
            self.seq = st.seq;
            self.last_ts = st.last_commit.map_or(0, |c| c.1);
            self.history_floor = end.history_floor;
            self.feed.reset_floor(st.seq);
            self.recency.clear();
            self.reload_usage()?;
            // The import is committed; the cache keeps its old size if this fails.
            let _ = self.fit_page_cache(0);
        }
        Ok(progress)
    }

    /// Abandons an unfinished import (its client went away): the store is emptied again. False when
    /// no import was in progress.
    pub fn abort_import(&mut self) -> Result<bool> {
        if !self.import.importing() {
            return Ok(false);
        }
        self.abandon_import()?;
        Ok(true)
    }

    /// Empties the store of an abandoned import's rows (its own transaction).
    fn abandon_import(&mut self) -> Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let r = self.wipe_rows().and_then(|()| ImportGate::save(&self.conn, None));
        match r {
            Ok(_) => self.conn.execute_batch("COMMIT")?,
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
        self.import.set(None);
        self.lexical.index_changed();
        self.reload_usage()?;
        if self.cfg.dims > 0 {
            self.index.rebuild(&self.conn, &self.cfg)?;
        }
        Ok(())
    }

    /// Deletes every row an import writes (inside the caller's transaction).
    fn wipe_rows(&self) -> Result<()> {
        self.conn.execute_batch(
            "DELETE FROM memories; DELETE FROM versions; DELETE FROM commits; DELETE FROM checkpoints;
             DELETE FROM checkpoint_writes; DELETE FROM checkpoint_blobs; DELETE FROM index_snapshot;
             INSERT INTO memories_fts (memories_fts) VALUES ('delete-all');",
        )?;
        Ok(())
    }

    fn import_header(&mut self, format: &str, dims: usize, metric: &str, seq: u64) -> Result<()> {
        if format != STREAM_FORMAT {
            return Err(Error::invalid(format!("unknown export format {format:?}")));
        }
        if self.import.importing() {
            self.wipe_rows()?; // an import abandoned by its client: start over
        } else if self.seq != 0 || self.usage.count != 0 {
            return Err(Error::new(ErrorCode::Conflict, "import needs an empty store"));
        }
        if dims != 0 && dims != self.cfg.dims {
            return Err(Error::new(
                ErrorCode::DimensionMismatch,
                format!("export has dims {dims}, store has {}", self.cfg.dims),
            ));
        }
        if dims > 0 && metric != self.cfg.metric.as_str() {
            return Err(Error::invalid(format!(
                "export uses metric {metric}, this store {}",
                self.cfg.metric.as_str()
            )));
        }
        if seq > MAX_IMPORT_SEQ {
            return Err(Error::invalid(format!("export seq {seq} leaves no room below 2^53-1 for further changes")));
        }
        Ok(())
    }

    /// Imports one version: checked against the header's seq, then a live version becomes its memories
    /// row (and its full-text and index entries), a closed one a history row.
    fn import_version(&mut self, st: &mut ImportState, v: &ExportedVersion, adds: &mut IndexAdds) -> Result<()> {
        let ns = check_version(st, v, &self.cfg)?;
        let m = &v.memory;
        let value = serde_json::to_string(&m.value)?;
        let metadata = serde_json::to_string(&m.metadata)?;
        // Accounted size recomputed from content (never trusted from the document); past the limit: 413.
        let size = self.accounted_size(
            &ns,
            &m.key,
            &value,
            m.text.as_deref(),
            &metadata,
            m.embedding.as_ref().map_or(0, Vec::len),
        )?;
        let embedding = m.embedding.as_ref().map(|e| encode_vec(e));
        // A live version is its memories row alone; a closed one goes to history. The same version (key and
        // start) twice is refused whichever table the first one went to.
        let twin: bool = self
            .conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM versions WHERE ns = ?1 AND key = ?2 AND seq_from = ?3)
                     OR EXISTS (SELECT 1 FROM memories WHERE ns = ?1 AND key = ?2 AND seq = ?3)",
            )?
            .query_row(params![ns, m.key, m.seq as i64], |r| r.get(0))?;
        if twin {
            return Err(Error::invalid(format!("export holds {} twice", named(m))));
        }
        // The columns a live row and a version row share (`data_cols!`), then the seq it began at.
        let coherence = crate::features::memories::row::Coherence::of(m).to_column();
        let shared: [&dyn ToSql; 15] = [
            &ns,
            &m.key,
            &value,
            &m.text,
            &embedding,
            &metadata,
            &m.pinned,
            &m.expires_at,
            &m.created_at,
            &m.updated_at,
            &(m.version as i64),
            &m.valid_from,
            &m.valid_to,
            &coherence,
            &(m.seq as i64),
        ];
        if v.seq_to.is_none() {
            self.insert_live_version(v, &shared, size, adds)?;
        } else {
            self.insert_closed_version(v, &shared, size)?;
        }
        st.counts.versions += 1;
        Ok(())
    }

    /// A live version's memories row, with the source's memory id when the export names it (else the next
    /// one), its full-text entry and its vector for the index.
    #[inline(always)]
    fn insert_live_version(
        &mut self,
        v: &ExportedVersion,
        shared: &[&dyn ToSql; 15],
        size: u64,
        adds: &mut IndexAdds,
    ) -> Result<()> {
        let m = &v.memory;
        if v.id.is_some_and(|id| id == 0 || id > MAX_IMPORT_SEQ) {
            return Err(Error::invalid(format!(
                "export has {} with a memory id outside 1..={MAX_IMPORT_SEQ}",
                named(m)
            )));
        }
        let id = v.id.map(|id| id as i64);
        self.conn
            .prepare_cached(concat!(
                "INSERT INTO memories (",
                data_cols!(),
                ", seq, size, id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
            ))?
            .execute(params_from_iter(shared.iter().copied().chain([&(size as i64) as &dyn ToSql, &id])))
            .map_err(|e| {
                duplicate(e, || format!("a live version of {:?} in {:?} or its memory id", m.key, m.namespace))
            })?;
        let mem_id = self.conn.last_insert_rowid();
        if let Some(t) = &m.text {
            self.conn
                .prepare_cached("INSERT INTO memories_fts (rowid, text) VALUES (?1, ?2)")?
                .execute(params![mem_id, t])?;
        }
        if let Some(e) = &m.embedding {
            adds.push((mem_id as u64, e.clone()));
        }
        Ok(())
    }

    /// A closed version's history row. It names no memory id (an export names live memories' only): 0, as
    /// before v8.
    #[inline(always)]
    fn insert_closed_version(&mut self, v: &ExportedVersion, shared: &[&dyn ToSql; 15], size: u64) -> Result<()> {
        let m = &v.memory;
        let mem_id: i64 = 0;
        let closing: [&dyn ToSql; 4] = [&v.seq_to.map(|t| t as i64), &v.ended_at, &v.end_kind, &(size as i64)];
        self.conn
            .prepare_cached(concat!(
                "INSERT INTO versions (mem_id, ",
                data_cols!(),
                ", seq_from, seq_to, ended_at, end_kind, size)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)"
            ))?
            .execute(params_from_iter([&mem_id as &dyn ToSql].into_iter().chain(shared.iter().copied()).chain(closing)))
            .map_err(|e| duplicate(e, || named(m)))?;
        Ok(())
    }

    fn import_commits(&mut self, st: &mut ImportState, items: &[(u64, i64)]) -> Result<()> {
        let mut insert = self.conn.prepare_cached("INSERT INTO commits (seq, ts) VALUES (?1, ?2)")?;
        for &(seq, ts) in items {
            if seq == 0 || seq > st.seq {
                return Err(Error::invalid(format!("export has a commit at seq {seq} outside 1..={}", st.seq)));
            }
            if let Some((last_seq, last_ts)) = st.last_commit {
                if seq == last_seq {
                    return Err(Error::invalid(format!("export holds the commit at seq {seq} twice")));
                }
                if seq < last_seq {
                    return Err(Error::invalid(format!(
                        "export's commits are out of order: seq {seq} after {last_seq}"
                    )));
                }
                if ts < last_ts {
                    return Err(Error::invalid(format!(
                        "export's commit times run backwards at seq {seq} ({ts} after {last_ts})"
                    )));
                }
            }
            if ts < 0 {
                return Err(Error::invalid(format!("export has a commit time before 1970 at seq {seq}")));
            }
            insert.execute(params![seq as i64, ts]).map_err(|e| duplicate(e, || format!("the commit at seq {seq}")))?;
            st.last_commit = Some((seq, ts));
            st.counts.commits += 1;
        }
        Ok(())
    }

    fn check_checkpoint_bytes(&self, size: usize, what: &str) -> Result<()> {
        if size > self.cfg.max_checkpoint_bytes {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("{what} is {size} bytes, limit {}", self.cfg.max_checkpoint_bytes),
            ));
        }
        Ok(())
    }

    fn import_checkpoint(&mut self, st: &mut ImportState, c: &Checkpoint) -> Result<()> {
        check_thread_id(&c.thread_id)?;
        check_id(&c.checkpoint_ns, "checkpoint_ns", true)?;
        check_id(&c.checkpoint_id, "checkpoint_id", false)?;
        if let Some(p) = &c.parent_id {
            check_id(p, "parent_id", false)?;
        }
        if c.seq == 0 || c.seq > st.seq {
            return Err(Error::invalid(format!(
                "export has checkpoint {:?} at seq {} outside 1..={}",
                c.checkpoint_id, c.seq, st.seq
            )));
        }
        check_versions(&c.channel_versions)?;
        // An export carries each checkpoint with the blobs it names: a blob shared by several is stored once.
        let blobs = encode_blobs(&c.blobs)?;
        let (kind, data) = c.data.encode()?;
        let meta = serde_json::to_string(&c.metadata)?;
        let versions = serde_json::to_string(&c.channel_versions)?;
        let size = data.len() + meta.len() + versions.len();
        self.check_checkpoint_bytes(size + blobs.iter().map(|b| b.3.len()).sum::<usize>(), "checkpoint")?;
        self.conn
            .prepare_cached(
                "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, kind, data, metadata, created_at, seq, size, channel_versions)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_id, kind, data, meta, c.created_at, c.seq as i64, size as i64, versions])
            .map_err(|e| duplicate(e, || format!("checkpoint {:?} of thread {:?}", c.checkpoint_id, c.thread_id)))?;
        self.insert_blobs(&c.thread_id, &c.checkpoint_ns, &blobs)?;
        st.counts.checkpoints += 1;
        // The one-document format (format.rs) carries pending writes inside their checkpoint.
        for w in &c.pending_writes {
            let w = ExportedWrite {
                thread_id: c.thread_id.clone(),
                checkpoint_ns: c.checkpoint_ns.clone(),
                checkpoint_id: c.checkpoint_id.clone(),
                task_id: w.task_id.clone(),
                idx: w.idx,
                channel: w.channel.clone(),
                value: w.value.clone(),
            };
            self.import_write(st, &w)?;
        }
        Ok(())
    }

    fn import_write(&mut self, st: &mut ImportState, w: &ExportedWrite) -> Result<()> {
        check_id(&w.task_id, "task_id", false)?;
        check_id(&w.channel, "channel", false)?;
        let exists: bool = self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3)")?
            .query_row(params![w.thread_id, w.checkpoint_ns, w.checkpoint_id], |r| r.get(0))?;
        if !exists {
            return Err(Error::invalid(format!(
                "export has a pending write for checkpoint {:?}, which it does not hold",
                w.checkpoint_id
            )));
        }
        let (kind, value) = w.value.encode()?;
        self.check_checkpoint_bytes(value.len(), "pending write")?;
        let held: i64 = self
            .conn
            .prepare_cached("SELECT COALESCE(SUM(length(value)), 0) FROM checkpoint_writes WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3")?
            .query_row(params![w.thread_id, w.checkpoint_ns, w.checkpoint_id], |r| r.get(0))?;
        let cap = self.cfg.max_checkpoint_bytes.saturating_mul(MAX_PENDING_WRITES_FACTOR);
        if held as usize + value.len() > cap {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("checkpoint {:?}'s pending writes exceed {cap} bytes", w.checkpoint_id),
            ));
        }
        self.conn
            .prepare_cached(
                "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, kind, value)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel, kind, value])
            .map_err(|e| duplicate(e, || format!("pending write {} of task {:?} for checkpoint {:?}", w.idx, w.task_id, w.checkpoint_id)))?;
        st.counts.writes += 1;
        Ok(())
    }

    fn import_end(&mut self, st: &ImportState, end: &ExportCounts) -> Result<()> {
        let c = &st.counts;
        let (want, got) = (
            (end.versions, end.commits, end.checkpoints, end.writes),
            (c.versions, c.commits, c.checkpoints, c.writes),
        );
        if want != got {
            return Err(Error::invalid(format!(
                "export is incomplete or altered: its end line counts (versions, commits, checkpoints, writes) {want:?}, the import got {got:?}"
            )));
        }
        if end.history_floor > st.seq {
            return Err(Error::invalid(format!(
                "export's history floor {} is beyond its seq {}",
                end.history_floor, st.seq
            )));
        }
        self.check_imported_caps()?;
        let c = &self.conn;
        crate::storage::schema::meta_set(c, "history_floor", end.history_floor as i64)?;
        crate::storage::schema::meta_set(c, "events_floor", st.seq as i64)?;
        crate::storage::schema::meta_set(c, "seq_floor", st.seq as i64)?;
        Ok(())
    }

    /// Loads a one-document export into this (empty) store, validated line by line like a streamed
    /// import (`import_ndjson`), in one transaction. Its `memories` must be exactly its live versions.
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
        let progress = self.import_lines(document_lines(doc).into_iter().map(Ok), ImportChunk::WHOLE, None)?;
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
