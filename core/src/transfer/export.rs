//! Export: the whole store as one document (`export`), or streamed as NDJSON lines (`export_chunk`) in
//! chunks of bounded size, each chunk one call, so an export of any size crosses any per-call limit and is
//! never held in memory whole. The first chunk fixes the seq S the export is of; every later chunk exports
//! what was visible at S (versions and commits with seq ≤ S, a version closed after S as still live), so
//! writes between chunks do not tear the export. The lines and their order: transfer/format.rs.

use crate::base::error::{Error, Result};
use crate::base::types::{ExportCounts, Memory};
use crate::features::checkpoints::{row_to_checkpoint, Checkpoint, CheckpointData, CP_COLS};
use crate::features::memories::row::{row_to_memory, versions_union, COL_SEQ, EXTRA_COL, MEM_COLS, VER_COLS};
use crate::store::Store;
use crate::transfer::format::{
    ExportCommits, ExportDoc, ExportHeader, ExportLine, ExportedVersion, ExportedWrite, FORMAT, STREAM_FORMAT,
};
use rusqlite::params;
use serde::{Deserialize, Serialize};

/// What one chunk holds when the caller names no size: well inside a Durable Object call's limit.
pub const DEFAULT_CHUNK_BYTES: usize = 4 << 20;
/// Commits per `commits` line.
const COMMITS_PER_LINE: usize = 1000;
/// Rows read per query while filling a chunk.
const ROWS_PER_QUERY: usize = 64;

/// A `VER_COLS, seq_to, ended_at, end_kind` row as exported at seq `at`: a version closed after it was live
/// at it (then with its memory's id).
fn version_from(r: &rusqlite::Row, at: u64) -> rusqlite::Result<ExportedVersion> {
    let seq_to = r.get::<_, Option<i64>>(EXTRA_COL)?.map(|v| v as u64).filter(|&t| t <= at);
    let closed = seq_to.is_some();
    let (id, memory) = row_to_memory(r, true)?;
    Ok(ExportedVersion {
        memory,
        seq_to,
        ended_at: if closed { r.get(EXTRA_COL + 1)? } else { None },
        end_kind: if closed { r.get(EXTRA_COL + 2)? } else { None },
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

/// Where a streamed export stands; opaque to callers (passed back as a string).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Cursor {
    /// The seq the export is of.
    seq: u64,
    /// 0 versions, 1 commits, 2 checkpoints, 3 writes, 4 end.
    section: u8,
    /// The last row exported in this section: a version's seq_from, or the row id (seq, cid, wid).
    after: i64,
    /// The last version's key (encoded namespace, key), with `after` its place in the versions section.
    #[serde(default)]
    ns: String,
    #[serde(default)]
    key: String,
    counts: ExportCounts,
}

/// One chunk of a streamed export: NDJSON text (whole lines, each ending in `\n`) and the cursor for
/// the next chunk (None after the `end` line).
#[derive(Debug, Clone, PartialEq)]
pub struct ExportChunk {
    pub ndjson: String,
    pub cursor: Option<String>,
}

fn push_line(out: &mut String, line: &ExportLine) -> Result<()> {
    out.push_str(&line.to_line()?);
    out.push('\n');
    Ok(())
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

    /// The next chunk of a streamed export: `cursor` None starts one (at the current seq); otherwise the
    /// cursor the previous chunk returned. A chunk ends at the first line that takes it to `max_bytes`
    /// or more (so it always holds at least one line).
    pub fn export_chunk(&mut self, cursor: Option<&str>, max_bytes: usize) -> Result<ExportChunk> {
        let max_bytes = max_bytes.max(1);
        let mut out = String::new();
        let mut c = match cursor {
            None => {
                let header = ExportLine::Header(ExportHeader {
                    format: STREAM_FORMAT.into(),
                    dims: self.cfg.dims,
                    metric: self.cfg.metric.as_str().into(),
                    seq: self.seq,
                });
                push_line(&mut out, &header)?;
                Cursor { seq: self.seq, ..Cursor::default() }
            }
            Some(s) => {
                let c: Cursor = serde_json::from_str(s).map_err(|_| Error::invalid("not an export cursor"))?;
                if c.seq > self.seq || c.section > 3 {
                    return Err(Error::invalid("not an export cursor of this store"));
                }
                if c.section == 0 && c.after != 0 && c.key.is_empty() {
                    // Schema v7's cursor counted version rows: resuming from it would repeat versions.
                    return Err(Error::invalid("an export cursor of an older version: start the export again"));
                }
                c
            }
        };
        while out.len() < max_bytes {
            let more = match c.section {
                0 => self.export_versions(&mut c, &mut out, max_bytes)?,
                1 => self.export_commits(&mut c, &mut out, max_bytes)?,
                2 => self.export_checkpoints(&mut c, &mut out, max_bytes)?,
                3 => self.export_writes(&mut c, &mut out, max_bytes)?,
                _ => unreachable!("section checked above"),
            };
            if !more {
                c.section += 1;
                c.after = 0;
                if c.section == 4 {
                    c.counts.history_floor = self.history_floor;
                    push_line(&mut out, &ExportLine::End(c.counts))?;
                    return Ok(ExportChunk { ndjson: out, cursor: None });
                }
            }
        }
        Ok(ExportChunk { ndjson: out, cursor: Some(serde_json::to_string(&c)?) })
    }

    /// The whole streamed export as one NDJSON text (unit tests: import what a store exports).
    #[cfg(test)]
    pub(crate) fn export_ndjson_for_tests(&mut self) -> String {
        let mut ndjson = String::new();
        let mut cursor = None;
        loop {
            let chunk = self.export_chunk(cursor.as_deref(), 1 << 20).expect("export chunk");
            ndjson.push_str(&chunk.ndjson);
            cursor = chunk.cursor;
            if cursor.is_none() {
                return ndjson;
            }
        }
    }

    /// Appends versions after the cursor; false when the section is done. In (namespace, key, seq_from) order,
    /// merged from the live rows and the closed versions, those that began by the export's seq, a version closed
    /// after it as live: a version moves from `memories` to `versions` when it closes, but keeps its place in
    /// that order, so writes between chunks neither hide a version nor show one twice.
    fn export_versions(&mut self, c: &mut Cursor, out: &mut String, max_bytes: usize) -> Result<bool> {
        let rows = versions_at(
            &self.conn,
            &format!(
                "SELECT {MEM_COLS}, NULL, NULL, NULL FROM memories WHERE (ns, key, seq) > (?1, ?2, ?3) AND seq <= ?4
                 UNION ALL SELECT {VER_COLS}, seq_to, ended_at, end_kind FROM versions
                   WHERE (ns, key, seq_from) > (?1, ?2, ?3) AND seq_from <= ?4 AND seq_to IS NOT NULL
                 ORDER BY 2, 3, {} LIMIT {ROWS_PER_QUERY}",
                COL_SEQ + 1
            ),
            params![c.ns, c.key, c.after, c.seq as i64],
            c.seq,
        )?;
        let n = rows.len();
        for v in rows {
            c.ns = crate::base::namespace::encode(&v.memory.namespace)?;
            c.key.clone_from(&v.memory.key);
            c.after = v.memory.seq as i64;
            push_line(out, &ExportLine::Version(v))?;
            c.counts.versions += 1;
            if out.len() >= max_bytes {
                return Ok(true);
            }
        }
        Ok(n == ROWS_PER_QUERY)
    }

    fn export_commits(&mut self, c: &mut Cursor, out: &mut String, _max_bytes: usize) -> Result<bool> {
        let (items, more) =
            crate::storage::time_index::commit_times(&self.conn, c.after as u64, c.seq, COMMITS_PER_LINE)?;
        let Some(last) = items.last() else { return Ok(false) };
        c.after = last.0 as i64;
        c.counts.commits += items.len() as u64;
        push_line(out, &ExportLine::Commits(ExportCommits { items }))?;
        Ok(more)
    }

    fn export_checkpoints(&mut self, c: &mut Cursor, out: &mut String, max_bytes: usize) -> Result<bool> {
        loop {
            let next: Option<(i64, Checkpoint)> = {
                use rusqlite::OptionalExtension;
                self.conn
                    .prepare_cached(&format!(
                        "SELECT {CP_COLS}, cid FROM checkpoints WHERE cid > ?1 AND seq <= ?2 ORDER BY cid LIMIT 1"
                    ))?
                    .query_row(params![c.after, c.seq as i64], |r| Ok((r.get(10)?, row_to_checkpoint(r)?)))
                    .optional()?
            };
            let Some((cid, mut cp)) = next else { return Ok(false) };
            self.attach_blobs(&mut cp)?;
            c.after = cid;
            push_line(out, &ExportLine::Checkpoint(cp))?;
            c.counts.checkpoints += 1;
            if out.len() >= max_bytes {
                return Ok(true);
            }
        }
    }

    fn export_writes(&mut self, c: &mut Cursor, out: &mut String, max_bytes: usize) -> Result<bool> {
        let rows: Vec<(i64, ExportedWrite)> = {
            let mut st = self.conn.prepare_cached(&format!(
                "SELECT w.wid, w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel, w.kind, w.value
                 FROM checkpoint_writes w JOIN checkpoints c
                   ON c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id
                 WHERE w.wid > ?1 AND c.seq <= ?2 ORDER BY w.wid LIMIT {ROWS_PER_QUERY}"
            ))?;
            let rows = st.query_map(params![c.after, c.seq as i64], |r| {
                let kind: String = r.get(7)?;
                Ok((
                    r.get(0)?,
                    ExportedWrite {
                        thread_id: r.get(1)?,
                        checkpoint_ns: r.get(2)?,
                        checkpoint_id: r.get(3)?,
                        task_id: r.get(4)?,
                        idx: r.get(5)?,
                        channel: r.get(6)?,
                        value: CheckpointData::decode(&kind, r.get(8)?),
                    },
                ))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let n = rows.len();
        for (wid, w) in rows {
            push_line(out, &ExportLine::Write(w))?;
            c.after = wid;
            c.counts.writes += 1;
            if out.len() >= max_bytes {
                return Ok(true);
            }
        }
        Ok(n == ROWS_PER_QUERY)
    }
}
