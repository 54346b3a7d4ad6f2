//! Checkpoints, LangGraph-shaped: (thread_id, checkpoint_ns, checkpoint_id) with parent,
//! payload (JSON or bytes) and metadata; pending writes per task; list newest first with
//! `before` / `limit` / metadata filter; delete a thread, chosen checkpoints, or all but a thread's newest;
//! retention (last N per thread, total bytes). Every put is a `checkpoint` event (channel = thread id,
//! key = checkpoint id); so is every checkpoint deleted by `delete_checkpoints` / `prune_threads`.
//! Channel values are stored once per version: a checkpoint names its channels' versions and a put
//! carries only the blobs of the versions it made; reads resolve the names to blobs.

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::filter::{self, Condition};
use crate::base::namespace;
use crate::base::page_bytes::PageBudget;
use crate::state::feed::NewEvent;
use crate::store::{Store, Tx};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A checkpoint payload: JSON or bytes. JSON is carried as its text (checked once where it comes in,
/// stored and returned verbatim, never parsed into a tree and written again).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointData {
    Json(Box<RawValue>),
    Bytes(Vec<u8>),
}

impl PartialEq for CheckpointData {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (CheckpointData::Json(a), CheckpointData::Json(b)) => a.get() == b.get(),
            (CheckpointData::Bytes(a), CheckpointData::Bytes(b)) => a == b,
            _ => false,
        }
    }
}

impl CheckpointData {
    /// A JSON payload holding `v` (as serde_json writes it).
    pub fn json(v: &Value) -> Self {
        CheckpointData::Json(serde_json::value::to_raw_value(v).unwrap_or_else(|_| null()))
    }
    /// The stored kind and bytes; JSON nested deeper than `MAX_JSON_DEPTH` is refused (as everywhere
    /// else the engine takes JSON: serde_json parses it with that limit, but only checks text it keeps).
    pub(crate) fn encode(&self) -> Result<(&'static str, &[u8])> {
        Ok(match self {
            CheckpointData::Json(v) => ("json", check_depth(v.get())?.as_bytes()),
            CheckpointData::Bytes(b) => ("bytes", b),
        })
    }
    /// A stored payload (JSON text checked again: a damaged row reads as `null`, not as broken output).
    pub(crate) fn decode(kind: &str, data: Vec<u8>) -> Self {
        match kind {
            "json" => CheckpointData::Json(
                String::from_utf8(data).ok().and_then(|s| RawValue::from_string(s).ok()).unwrap_or_else(null),
            ),
            _ => CheckpointData::Bytes(data),
        }
    }
}

/// A checkpoint event's payload: the checkpoint namespace, when it is not the root one.
fn checkpoint_ns_payload(ns: &str) -> Option<Value> {
    (!ns.is_empty()).then(|| serde_json::json!({ "checkpointNs": ns }))
}

/// A deleted checkpoint's event payload: `{"deleted": true}`, with its namespace when it is not the root one.
fn checkpoint_deleted_payload(ns: &str) -> Value {
    let mut p = serde_json::json!({ "deleted": true });
    if !ns.is_empty() {
        p["checkpointNs"] = Value::from(ns);
    }
    p
}

/// At most this many checkpoint ids, or thread ids, in one `delete_checkpoints` / `prune_threads` call.
pub const MAX_CHECKPOINT_IDS: usize = 1000;

/// serde_json's recursion limit, which every other JSON the engine takes is parsed with.
const MAX_JSON_DEPTH: usize = 128;

/// `json` (valid JSON) if its arrays and objects nest at most `MAX_JSON_DEPTH` deep. Strings are skipped
/// quote to quote (a quote after an odd run of backslashes is escaped), by `find`'s fast byte search.
fn check_depth(json: &str) -> Result<&str> {
    let b = json.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => loop {
                let Some(at) = json[i + 1..].find('"') else { return Ok(json) };
                i += 1 + at;
                if b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0 {
                    break;
                }
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Err(Error::invalid(format!("checkpoint JSON nests deeper than {MAX_JSON_DEPTH} levels")));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(json)
}

fn null() -> Box<RawValue> {
    RawValue::NULL.to_owned()
}

/// One channel's value at one version, stored once per (thread, namespace, channel, version).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelBlob {
    pub channel: String,
    pub version: String,
    pub data: CheckpointData,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointPut {
    pub thread_id: String,
    #[serde(default)]
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
    #[serde(default)]
    pub parent_id: Option<String>,
    pub data: CheckpointData,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// The version of each channel this checkpoint holds (channel -> version).
    #[serde(default)]
    pub channel_versions: Map<String, Value>,
    /// Blobs of the versions this put made; a (channel, version) already stored is kept as it is.
    #[serde(default)]
    pub blobs: Vec<ChannelBlob>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingWrite {
    pub task_id: String,
    pub idx: i64,
    pub channel: String,
    pub value: CheckpointData,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    pub data: CheckpointData,
    pub metadata: Map<String, Value>,
    pub created_at: i64,
    pub seq: u64,
    pub pending_writes: Vec<PendingWrite>,
    #[serde(default)]
    pub channel_versions: Map<String, Value>,
    /// The stored blobs its `channel_versions` name (a version without a blob is left out).
    #[serde(default)]
    pub blobs: Vec<ChannelBlob>,
}

/// A page of a thread's checkpoints, newest first (see `Store::list_checkpoints_page`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointPage {
    pub checkpoints: Vec<Checkpoint>,
    /// Pass as `before` for the next page; None when this page ends the list.
    pub next_before: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointListQuery {
    /// None = every thread.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// None = every checkpoint namespace of the thread.
    #[serde(default)]
    pub checkpoint_ns: Option<String>,
    /// Only checkpoints committed before the one with this id (looked for in the listed thread and
    /// namespace first, then anywhere in the store; NOT_FOUND when there is none).
    #[serde(default)]
    pub before: Option<String>,
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub filter: Vec<Condition>,
}

/// All pending writes of one checkpoint hold at most this many times `max_checkpoint_bytes`.
pub const MAX_PENDING_WRITES_FACTOR: usize = 4;

pub(crate) fn check_id(s: &str, what: &str, allow_empty: bool) -> Result<()> {
    if (!allow_empty && s.is_empty()) || s.len() > 256 || s.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "{what} must be {}..=256 bytes without control characters",
            if allow_empty { 0 } else { 1 }
        )));
    }
    Ok(())
}

/// A thread id: an id, and not `.` or `..` (it is a path segment of the HTTP API: `namespace::is_dot_segment`).
pub(crate) fn check_thread_id(s: &str) -> Result<()> {
    check_id(s, "thread_id", false)?;
    if namespace::is_dot_segment(s) {
        return Err(Error::invalid("thread_id must not be '.' or '..'"));
    }
    Ok(())
}

/// LangGraph's special write channels and their fixed indexes (its `WRITES_IDX_MAP`): an error, a
/// scheduled task, an interrupt, a resume value.
pub fn special_write_idx(channel: &str) -> Option<i64> {
    match channel {
        "__error__" => Some(-1),
        "__scheduled__" => Some(-2),
        "__interrupt__" => Some(-3),
        "__resume__" => Some(-4),
        _ => None,
    }
}

pub(crate) const CP_COLS: &str =
    "thread_id, checkpoint_ns, checkpoint_id, parent_id, kind, data, metadata, created_at, seq, channel_versions";

pub(crate) fn row_to_checkpoint(r: &Row) -> rusqlite::Result<Checkpoint> {
    let kind: String = r.get(4)?;
    let meta: String = r.get(6)?;
    let versions: String = r.get(9)?;
    Ok(Checkpoint {
        thread_id: r.get(0)?,
        checkpoint_ns: r.get(1)?,
        checkpoint_id: r.get(2)?,
        parent_id: r.get(3)?,
        data: CheckpointData::decode(&kind, r.get(5)?),
        metadata: serde_json::from_str(&meta).unwrap_or_default(),
        created_at: r.get(7)?,
        seq: r.get::<_, i64>(8)? as u64,
        pending_writes: Vec::new(),
        channel_versions: serde_json::from_str(&versions).unwrap_or_default(),
        blobs: Vec::new(),
    })
}

/// A checked, encoded blob ready to store: (channel, version, kind, bytes).
pub(crate) type EncodedBlob<'a> = (&'a str, &'a str, &'static str, &'a [u8]);

/// Checks and encodes a put's blobs.
pub(crate) fn encode_blobs(blobs: &[ChannelBlob]) -> Result<Vec<EncodedBlob<'_>>> {
    let mut out = Vec::with_capacity(blobs.len());
    for b in blobs {
        check_id(&b.channel, "blob channel", false)?;
        check_id(&b.version, "blob version", false)?;
        let (kind, data) = b.data.encode()?;
        out.push((b.channel.as_str(), b.version.as_str(), kind, data));
    }
    Ok(out)
}

/// Checks a checkpoint's channel versions: channel -> version, both strings of 1..=256 bytes.
pub(crate) fn check_versions(versions: &Map<String, Value>) -> Result<()> {
    for (ch, v) in versions {
        check_id(ch, "channel_versions channel", false)?;
        let Value::String(v) = v else { return Err(Error::invalid("channel_versions values must be strings")) };
        check_id(v, "channel_versions version", false)?;
    }
    Ok(())
}

impl Store {
    /// Stores blobs, keeping any (thread, ns, channel, version) already there.
    pub(crate) fn insert_blobs(&self, thread_id: &str, ns: &str, blobs: &[EncodedBlob<'_>]) -> Result<()> {
        let mut st = self.conn.prepare_cached(
            "INSERT OR IGNORE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, kind, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (ch, v, kind, data) in blobs {
            st.execute(params![thread_id, ns, ch, v, kind, data])?;
        }
        Ok(())
    }

    /// Fills `c.blobs` from its `channel_versions` (in the map's order), one key lookup per channel; returns the
    /// blobs' stored bytes. (One query joining `json_each` of the versions was slower: the versions written out
    /// as JSON again, parsed by SQLite, and its rows sorted back into order — a third of a 20-channel read.)
    pub(crate) fn attach_blobs(&self, c: &mut Checkpoint) -> Result<usize> {
        if c.channel_versions.is_empty() {
            return Ok(0);
        }
        let mut st = self.conn.prepare_cached(
            "SELECT kind, data FROM checkpoint_blobs
             WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND channel = ?3 AND version = ?4",
        )?;
        let mut bytes = 0;
        for (channel, version) in &c.channel_versions {
            let Value::String(version) = version else { continue };
            let found = st
                .query_row(params![c.thread_id, c.checkpoint_ns, channel, version], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
                })
                .optional()?;
            if let Some((kind, data)) = found {
                bytes += data.len();
                c.blobs.push(ChannelBlob {
                    channel: channel.clone(),
                    version: version.clone(),
                    data: CheckpointData::decode(&kind, data),
                });
            }
        }
        Ok(bytes)
    }

    /// Removes the blobs of (thread, ns) no checkpoint names any more.
    fn drop_unnamed_blobs(&self, thread_id: &str, ns: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "DELETE FROM checkpoint_blobs WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND NOT EXISTS (
                   SELECT 1 FROM checkpoints c, json_each(c.channel_versions) j
                   WHERE c.thread_id = ?1 AND c.checkpoint_ns = ?2
                     AND j.key = checkpoint_blobs.channel AND j.value = checkpoint_blobs.version)",
            )?
            .execute(params![thread_id, ns])?;
        Ok(())
    }

    /// Stores a checkpoint (replacing one with the same id). Returns its seq.
    pub fn put_checkpoint(&mut self, c: CheckpointPut) -> Result<u64> {
        check_thread_id(&c.thread_id)?;
        check_id(&c.checkpoint_ns, "checkpoint_ns", true)?;
        check_id(&c.checkpoint_id, "checkpoint_id", false)?;
        if let Some(p) = &c.parent_id {
            check_id(p, "parent_id", false)?;
        }
        check_versions(&c.channel_versions)?;
        let blobs = encode_blobs(&c.blobs)?;
        let (kind, data) = c.data.encode()?;
        let meta = serde_json::to_string(&c.metadata)?;
        let versions = serde_json::to_string(&c.channel_versions)?;
        let size = data.len() + meta.len() + versions.len() + blobs.iter().map(|b| b.3.len()).sum::<usize>();
        if size > self.cfg.max_checkpoint_bytes {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("checkpoint is {size} bytes, limit {}", self.cfg.max_checkpoint_bytes),
            ));
        }
        let keep = self.cfg.retention.checkpoints_per_thread;
        let seq = self.write_tx(|s, tx| {
            let seq = tx.next_seq();
            s.conn
                .prepare_cached(
                    "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, kind, data, metadata, created_at, seq, size, channel_versions)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )?
                .execute(params![c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_id, kind, data, meta, tx.now, seq as i64, size as i64, versions])?;
            s.insert_blobs(&c.thread_id, &c.checkpoint_ns, &blobs)?;
            if keep > 0 {
                s.prune_thread(&c.thread_id, &c.checkpoint_ns, keep)?;
            }
            let in_ns = checkpoint_ns_payload(&c.checkpoint_ns);
            s.emit(tx, seq, NewEvent::checkpoint(&c.checkpoint_id, &c.thread_id, in_ns.as_ref()))?;
            s.record_checkpoint_op("checkpoint", &c.thread_id, &c.checkpoint_ns, &c.checkpoint_id)?;
            Ok(seq)
        })?;
        self.maybe_maintain();
        Ok(seq)
    }

    /// The latest checkpoint of a thread (or the one with `checkpoint_id`), with pending writes.
    pub fn get_checkpoint(
        &self,
        thread_id: &str,
        checkpoint_ns: &str,
        checkpoint_id: Option<&str>,
    ) -> Result<Option<Checkpoint>> {
        check_thread_id(thread_id)?;
        let found = match checkpoint_id {
            Some(id) => self
                .conn
                .prepare_cached(&format!(
                    "SELECT {CP_COLS} FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3"
                ))?
                .query_row(params![thread_id, checkpoint_ns, id], row_to_checkpoint)
                .optional()?,
            None => self
                .conn
                .prepare_cached(&format!(
                    "SELECT {CP_COLS} FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 ORDER BY seq DESC LIMIT 1"
                ))?
                .query_row(params![thread_id, checkpoint_ns], row_to_checkpoint)
                .optional()?,
        };
        match found {
            Some(mut c) => {
                c.pending_writes = self.pending_writes(&c)?.0;
                self.attach_blobs(&mut c)?;
                Ok(Some(c))
            }
            None => Ok(None),
        }
    }

    /// A checkpoint's pending writes, and their stored bytes.
    fn pending_writes(&self, c: &Checkpoint) -> Result<(Vec<PendingWrite>, usize)> {
        let mut st = self.conn.prepare_cached(
            "SELECT task_id, idx, channel, kind, value FROM checkpoint_writes
             WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3 ORDER BY task_id, idx",
        )?;
        let mut rows = st.query(params![c.thread_id, c.checkpoint_ns, c.checkpoint_id])?;
        let (mut writes, mut bytes) = (Vec::new(), 0);
        while let Some(r) = rows.next()? {
            let kind: String = r.get(3)?;
            let value: Vec<u8> = r.get(4)?;
            bytes += value.len();
            writes.push(PendingWrite {
                task_id: r.get(0)?,
                idx: r.get(1)?,
                channel: r.get(2)?,
                value: CheckpointData::decode(&kind, value),
            });
        }
        Ok((writes, bytes))
    }

    /// Checkpoints of a thread, newest first.
    pub fn list_checkpoints(&self, q: &CheckpointListQuery) -> Result<Vec<Checkpoint>> {
        Ok(self.list_checkpoints_page(q)?.checkpoints)
    }

    /// `list_checkpoints` as a page that also ends once it holds about `MAX_PAGE_BYTES` of
    /// checkpoints and pending writes (page_bytes.rs); `next_before` continues it (as `before`).
    pub fn list_checkpoints_page(&self, q: &CheckpointListQuery) -> Result<CheckpointPage> {
        if let Some(t) = &q.thread_id {
            check_thread_id(t)?;
        }
        let limit = q.limit.unwrap_or(100).clamp(1, 1000);
        let mut ps: Vec<SqlValue> = Vec::new();
        let mut sql = format!("SELECT {CP_COLS}, size FROM checkpoints WHERE 1");
        if let Some(t) = &q.thread_id {
            ps.push(SqlValue::Text(t.clone()));
            sql.push_str(&format!(" AND thread_id = ?{}", ps.len()));
        }
        if let Some(ns) = &q.checkpoint_ns {
            ps.push(SqlValue::Text(ns.clone()));
            sql.push_str(&format!(" AND checkpoint_ns = ?{}", ps.len()));
        }
        if let Some(before) = &q.before {
            let seq: Option<i64> = self
                .conn
                .query_row(
                    "SELECT seq FROM checkpoints WHERE checkpoint_id = ?1
                     ORDER BY thread_id IS ?2 DESC, checkpoint_ns IS ?3 DESC, seq DESC LIMIT 1",
                    params![before, q.thread_id, q.checkpoint_ns],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(seq) = seq else { return Err(Error::not_found(format!("no checkpoint {before:?} in the store"))) };
            ps.push(SqlValue::Integer(seq));
            sql.push_str(&format!(" AND seq < ?{}", ps.len()));
        }
        sql.push_str(&filter::compile(&q.filter, "metadata", &mut ps)?);
        sql.push_str(&format!(" ORDER BY seq DESC LIMIT {limit}"));
        let mut st = self.conn.prepare_cached(&sql)?;
        let mut rows = st.query(params_from_iter(ps.iter()))?;
        let mut budget = PageBudget::new();
        let mut checkpoints = Vec::new();
        let mut full = false;
        while let Some(r) = rows.next()? {
            let mut c = row_to_checkpoint(r)?;
            let size: i64 = r.get(10)?;
            // Sizes as stored (JSON text or bytes), not by serializing the values again.
            let (writes, write_bytes) = self.pending_writes(&c)?;
            c.pending_writes = writes;
            let writes = write_bytes + self.attach_blobs(&mut c)?;
            // Bytes travel as base64 in JSON: a third more.
            full = budget.take((size as usize + writes) * 4 / 3);
            checkpoints.push(c);
            if full {
                break;
            }
        }
        let next_before =
            if full || checkpoints.len() == limit { checkpoints.last().map(|c| c.checkpoint_id.clone()) } else { None };
        Ok(CheckpointPage { checkpoints, next_before })
    }

    /// Stores a task's pending writes for a checkpoint, by LangGraph's rule: a write is stored at its
    /// position and a task's write already at that position is kept (a retried task does not rewrite
    /// it), except the writes on LangGraph's special channels (`special_write_idx`), which take their
    /// fixed negative index and replace what is there.
    pub fn put_writes(
        &mut self,
        thread_id: &str,
        checkpoint_ns: &str,
        checkpoint_id: &str,
        task_id: &str,
        writes: Vec<(String, CheckpointData)>,
    ) -> Result<()> {
        check_thread_id(thread_id)?;
        check_id(checkpoint_ns, "checkpoint_ns", true)?;
        check_id(checkpoint_id, "checkpoint_id", false)?;
        check_id(task_id, "task_id", false)?;
        if writes.len() > 1000 {
            return Err(Error::new(ErrorCode::PayloadTooLarge, "at most 1000 writes per call"));
        }
        let mut encoded = Vec::with_capacity(writes.len());
        let mut total = 0;
        for (ch, v) in &writes {
            check_id(ch, "channel", false)?;
            let (k, b) = v.encode()?;
            total += b.len();
            encoded.push((ch, k, b));
        }
        if total > self.cfg.max_checkpoint_bytes {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("writes are {total} bytes, limit {}", self.cfg.max_checkpoint_bytes),
            ));
        }
        // A checkpoint is read with all its pending writes: every task's together stay bounded too.
        let others: i64 = self.conn.prepare_cached(
            "SELECT COALESCE(SUM(length(value)), 0) FROM checkpoint_writes WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3 AND task_id != ?4",
        )?
        .query_row(params![thread_id, checkpoint_ns, checkpoint_id, task_id], |r| r.get(0))?;
        let cap = self.cfg.max_checkpoint_bytes.saturating_mul(MAX_PENDING_WRITES_FACTOR);
        if others as usize + total > cap {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("the checkpoint's pending writes would hold {} bytes, limit {cap} ({MAX_PENDING_WRITES_FACTOR} checkpoints' worth)", others as usize + total),
            ));
        }
        let r = self.write_tx(|s, tx| {
            for (i, (ch, k, b)) in encoded.iter().enumerate() {
                let (idx, verb) = match special_write_idx(ch) {
                    Some(idx) => (idx, "INSERT OR REPLACE"),
                    None => (i as i64, "INSERT OR IGNORE"),
                };
                s.conn
                    .prepare_cached(&format!(
                        "{verb} INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, kind, value)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                    ))?
                    .execute(params![thread_id, checkpoint_ns, checkpoint_id, task_id, idx, ch, k, b])?;
            }
            // The checkpoint changed (a replica pulls it again, writes and all).
            let seq = tx.next_seq();
            let in_ns = checkpoint_ns_payload(checkpoint_ns);
            s.emit(tx, seq, NewEvent::checkpoint(checkpoint_id, thread_id, in_ns.as_ref()))?;
            s.record_checkpoint_op("writes", thread_id, checkpoint_ns, checkpoint_id)
        });
        self.maybe_maintain();
        r
    }

    /// Deletes every checkpoint and pending write of a thread. Returns how many checkpoints.
    pub fn delete_thread(&mut self, thread_id: &str) -> Result<u64> {
        check_thread_id(thread_id)?;
        self.write_tx(|s, tx| {
            let n = s.conn.execute("DELETE FROM checkpoints WHERE thread_id = ?1", [thread_id])?;
            s.conn.execute("DELETE FROM checkpoint_writes WHERE thread_id = ?1", [thread_id])?;
            s.conn.execute("DELETE FROM checkpoint_blobs WHERE thread_id = ?1", [thread_id])?;
            let seq = tx.next_seq();
            s.emit(tx, seq, NewEvent::thread_deleted(thread_id))?;
            s.record_checkpoint_op("delete_thread", thread_id, "", "")?;
            Ok(n as u64)
        })
    }

    /// Deletes, in one transaction, the checkpoints of `thread_id` (of every thread: None) whose id is one of
    /// `checkpoint_ids` (any id: empty; in every namespace of the thread) and whose metadata matches `filter`
    /// (LangGraph's `delete_for_runs` is `filter: run_id in [...]`), with their pending writes and the blobs no
    /// checkpoint left names. At least one of the three must narrow it (`delete_thread` deletes a whole thread).
    /// Each deleted checkpoint is a `checkpoint` event with payload `{"deleted": true}`. Returns how many.
    pub fn delete_checkpoints(
        &mut self,
        thread_id: Option<&str>,
        checkpoint_ids: &[String],
        filter: &[Condition],
    ) -> Result<u64> {
        if let Some(t) = thread_id {
            check_thread_id(t)?;
        }
        if checkpoint_ids.len() > MAX_CHECKPOINT_IDS {
            return Err(Error::invalid(format!("at most {MAX_CHECKPOINT_IDS} checkpoint ids per call")));
        }
        for id in checkpoint_ids {
            check_id(id, "checkpoint_id", false)?;
        }
        if thread_id.is_none() && checkpoint_ids.is_empty() && filter.is_empty() {
            return Err(Error::invalid(
                "delete_checkpoints needs a thread id, checkpoint ids or a metadata filter (it would delete every checkpoint)",
            ));
        }
        let mut ps: Vec<SqlValue> = Vec::new();
        let mut sql = String::from("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints WHERE 1");
        if let Some(t) = thread_id {
            ps.push(SqlValue::Text(t.to_string()));
            sql.push_str(&format!(" AND thread_id = ?{}", ps.len()));
        }
        if !checkpoint_ids.is_empty() {
            ps.push(SqlValue::Text(serde_json::to_string(checkpoint_ids)?));
            sql.push_str(&format!(" AND checkpoint_id IN (SELECT value FROM json_each(?{}))", ps.len()));
        }
        sql.push_str(&filter::compile(filter, "metadata", &mut ps)?);
        sql.push_str(" ORDER BY seq");
        self.write_tx(|s, tx| {
            let doomed: Vec<(String, String, String)> = {
                let mut st = s.conn.prepare(&sql)?;
                let rows = st.query_map(params_from_iter(ps.iter()), |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            s.delete_listed(tx, &doomed)
        })
    }

    /// Keeps the newest `keep_latest` (≥ 1) checkpoints of each namespace of each of `thread_ids` and deletes the
    /// others, with their pending writes and the blobs no kept checkpoint names, in one transaction (LangGraph's
    /// `prune(strategy="keep_latest")` is `keep_latest: 1`). Each deleted checkpoint is an event as in
    /// `delete_checkpoints`. Returns how many were deleted.
    pub fn prune_threads(&mut self, thread_ids: &[String], keep_latest: u64) -> Result<u64> {
        if keep_latest == 0 {
            return Err(Error::invalid("keep_latest must be at least 1 (delete_thread deletes every checkpoint)"));
        }
        if thread_ids.len() > MAX_CHECKPOINT_IDS {
            return Err(Error::invalid(format!("at most {MAX_CHECKPOINT_IDS} thread ids per call")));
        }
        for t in thread_ids {
            check_thread_id(t)?;
        }
        self.write_tx(|s, tx| {
            let mut doomed: Vec<(String, String, String)> = Vec::new();
            {
                // Ranked newest first within each (thread, namespace); oldest deleted first.
                let mut st = s.conn.prepare_cached(
                    "SELECT thread_id, checkpoint_ns, checkpoint_id FROM (
                       SELECT thread_id, checkpoint_ns, checkpoint_id, seq,
                              row_number() OVER (PARTITION BY checkpoint_ns ORDER BY seq DESC) AS n
                       FROM checkpoints WHERE thread_id = ?1)
                     WHERE n > ?2 ORDER BY seq",
                )?;
                for t in thread_ids {
                    let rows =
                        st.query_map(params![t, keep_latest as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
                    for r in rows {
                        doomed.push(r?);
                    }
                }
            }
            s.delete_listed(tx, &doomed)
        })
    }

    /// Deletes the listed (thread, namespace, id) checkpoints and their pending writes inside `tx`, each a
    /// `checkpoint` event (and an outbox op, on a replica), then the blobs of their namespaces no checkpoint
    /// names any more. Returns how many checkpoints were deleted.
    fn delete_listed(&mut self, tx: &mut Tx, doomed: &[(String, String, String)]) -> Result<u64> {
        let mut n = 0u64;
        let mut namespaces: Vec<(&str, &str)> = Vec::new();
        for (t, ns, id) in doomed {
            self.conn
                .prepare_cached(
                    "DELETE FROM checkpoint_writes WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3",
                )?
                .execute(params![t, ns, id])?;
            let gone = self
                .conn
                .prepare_cached(
                    "DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3",
                )?
                .execute(params![t, ns, id])?;
            if gone == 0 {
                continue;
            }
            n += 1;
            let seq = tx.next_seq();
            let payload = checkpoint_deleted_payload(ns);
            self.emit(tx, seq, NewEvent::checkpoint(id, t, Some(&payload)))?;
            self.record_checkpoint_op("delete_checkpoint", t, ns, id)?;
            if !namespaces.contains(&(t.as_str(), ns.as_str())) {
                namespaces.push((t, ns));
            }
        }
        for (t, ns) in namespaces {
            self.drop_unnamed_blobs(t, ns)?;
        }
        Ok(n)
    }

    fn prune_thread(&self, thread_id: &str, ns: &str, keep: u64) -> Result<()> {
        let doomed = "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 ORDER BY seq DESC LIMIT -1 OFFSET ?3";
        self.conn.execute(
            &format!("DELETE FROM checkpoint_writes WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id IN ({doomed})"),
            params![thread_id, ns, keep as i64],
        )?;
        let pruned = self.conn.execute(
            &format!(
                "DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id IN ({doomed})"
            ),
            params![thread_id, ns, keep as i64],
        )?;
        if pruned > 0 {
            self.drop_unnamed_blobs(thread_id, ns)?;
        }
        Ok(())
    }

    /// Applies checkpoint retention across all threads (inside a caller's transaction).
    pub(crate) fn prune_checkpoints(&mut self) -> Result<()> {
        let r = self.cfg.retention;
        if r.checkpoints_per_thread > 0 {
            let threads: Vec<(String, String)> = {
                let mut st = self.conn.prepare("SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints")?;
                let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            for (t, ns) in threads {
                self.prune_thread(&t, &ns, r.checkpoints_per_thread)?;
            }
        }
        if r.checkpoints_max_bytes > 0 {
            // Oldest first, never the newest checkpoint of a (thread, ns).
            let total: i64 = self.conn.query_row("SELECT COALESCE(SUM(size),0) FROM checkpoints", [], |r| r.get(0))?;
            let mut over = total - r.checkpoints_max_bytes as i64;
            if over > 0 {
                let victims: Vec<(String, String, String, i64)> = {
                    let mut st = self.conn.prepare(
                        "SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.size FROM checkpoints c
                         WHERE c.seq < (SELECT MAX(seq) FROM checkpoints d WHERE d.thread_id = c.thread_id AND d.checkpoint_ns = c.checkpoint_ns)
                         ORDER BY c.seq",
                    )?;
                    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
                    rows.collect::<rusqlite::Result<_>>()?
                };
                for (t, ns, id, size) in victims {
                    if over <= 0 {
                        break;
                    }
                    self.conn.execute(
                        "DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3",
                        params![t, ns, id],
                    )?;
                    self.conn.execute(
                        "DELETE FROM checkpoint_writes WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3",
                        params![t, ns, id],
                    )?;
                    self.drop_unnamed_blobs(&t, &ns)?;
                    over -= size;
                }
            }
        }
        Ok(())
    }
}
