//! A replica's part of the engine: the outbox its local writes append their op to, in the write's own
//! transaction (so a write is never applied without its op, nor queued without being applied), and the
//! agent's versions pulled in, with the agent's version numbers, and the pull's cursor, in one transaction.
//! At the agent, a pushed op is recorded in the transaction of the write that applies it, so a retry (after a
//! crash or a lost answer) is answered, not applied again. Which ops reach the agent, in what order, and what it
//! answered is the host's (the npm package's replica).

use crate::base::error::{Error, Result};
use crate::base::namespace;
use crate::base::types::MemoryPut;
use crate::features::memories::crud::Prepared;
use crate::state::feed::EventKind;
use crate::storage::schema;
use crate::store::Store;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Where the cursor of the agent's changes the replica has applied is kept (the engine's `meta` table).
const CURSOR: &str = "replica_cursor";
/// At most this many ops in one `outbox` read.
pub const MAX_OUTBOX_READ: usize = 1000;
/// The agent keeps the record of each replica's last this many applied ops (a retry comes soon after the op).
pub const APPLIED_OPS_KEPT: u64 = 10_000;
/// A replica's id: what `put_once` / `delete_once` take.
const MAX_REPLICA_ID_BYTES: usize = 128;

/// One queued op as the host reads it: its id (ascending in write order) and its JSON.
#[derive(Debug, Clone, Serialize)]
pub struct OutboxOp {
    pub id: u64,
    pub op: Box<RawValue>,
}

/// A memory put as the outbox records it: the write as the caller made it, the version it replaced
/// (`base`, 0: none) and the version it made here.
#[derive(Serialize)]
struct PutOp<'a> {
    op: &'static str,
    namespace: Vec<String>,
    key: &'a str,
    value: &'a RawValue,
    text: Option<&'a str>,
    metadata: &'a RawValue,
    pinned: bool,
    ttl_ms: Option<u64>,
    if_version: Option<u64>,
    embedding: Option<&'a [f32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    valid_from: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    valid_to: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    coherence: Option<&'a RawValue>,
    base: u64,
    version: u64,
}

/// One of the agent's memories as a pull brings it: its live state, or `deleted`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PulledMemory {
    pub namespace: Vec<String>,
    pub key: String,
    pub version: u64,
    pub deleted: bool,
    pub value: Value,
    pub text: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub pinned: bool,
    /// When it expires at the agent (ms since the epoch).
    pub expires_at: Option<i64>,
    pub embedding: Option<Vec<f32>>,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub coherence: Option<Map<String, Value>>,
}

/// What `apply_pulled` did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PullApplied {
    /// Memories written or deleted here.
    pub applied: u64,
    /// Already as the agent has them.
    pub unchanged: u64,
    /// Left alone: a local write to the key is still to be pushed.
    pub pending: u64,
}

impl Store {
    /// Turns the outbox on or off: while on, every local write appends its op (`outbox`).
    pub fn set_outbox(&mut self, on: bool) {
        self.outbox = on;
    }

    pub(crate) fn record_put(&mut self, p: &Prepared, base: u64, version: u64) -> Result<()> {
        let value = RawValue::from_string(p.value.clone())?;
        let metadata = RawValue::from_string(p.metadata.clone())?;
        let coherence = p.coherence.clone().map(RawValue::from_string).transpose()?;
        let op = PutOp {
            op: "put",
            namespace: namespace::decode(&p.ns),
            key: &p.key,
            value: &value,
            text: p.text.as_deref(),
            metadata: &metadata,
            pinned: p.pinned,
            ttl_ms: p.ttl_ms,
            if_version: p.if_version,
            embedding: p.embedding.as_deref(),
            valid_from: p.valid_from,
            valid_to: p.valid_to,
            coherence: coherence.as_deref(),
            base,
            version,
        };
        self.append_op(&p.ns, &p.key, &serde_json::to_string(&op)?)
    }

    pub(crate) fn record_delete(&mut self, ns: &str, key: &str, if_version: Option<u64>, base: u64) -> Result<()> {
        if !self.outbox {
            return Ok(());
        }
        let op = serde_json::json!({
            "op": "delete", "namespace": namespace::decode(ns), "key": key, "if_version": if_version, "base": base,
        });
        self.append_op(ns, key, &op.to_string())
    }

    /// A checkpoint op names what changed (`checkpoint` put, pending `writes`, `delete_thread`); the host reads
    /// the checkpoint as it is when it pushes (a checkpoint id is written once; writes only accumulate).
    pub(crate) fn record_checkpoint_op(&mut self, op: &str, thread: &str, ns: &str, id: &str) -> Result<()> {
        if !self.outbox {
            return Ok(());
        }
        let op = serde_json::json!({ "op": op, "thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": id });
        self.append_op("", "", &op.to_string())
    }

    fn append_op(&mut self, ns: &str, key: &str, op: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT INTO outbox (ns, key, op) VALUES (?1, ?2, ?3)")?
            .execute(params![ns, key, op])?;
        Ok(())
    }

    /// The oldest `limit` (≤ `MAX_OUTBOX_READ`) ops still to push, in write order.
    pub fn outbox_ops(&self, limit: usize) -> Result<Vec<OutboxOp>> {
        let mut stmt = self.conn.prepare_cached("SELECT id, op FROM outbox ORDER BY id LIMIT ?1")?;
        let rows =
            stmt.query_map([limit.min(MAX_OUTBOX_READ) as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        rows.map(|r| {
            let (id, op) = r?;
            Ok(OutboxOp { id: id as u64, op: RawValue::from_string(op)? })
        })
        .collect()
    }

    /// How many ops are still to push. Ids are never reused and leave the outbox oldest first, so the queue is one
    /// run of ids: two index seeks, however long it is.
    pub fn outbox_len(&self) -> Result<u64> {
        let n: i64 = self.conn.query_row("SELECT COALESCE(max(id) - min(id) + 1, 0) FROM outbox", [], |r| r.get(0))?;
        Ok(n as u64)
    }

    /// Removes the ops up to and including `through` (the agent has applied them). Durable when it returns.
    pub fn outbox_remove(&mut self, through: u64) -> Result<()> {
        self.import.check_writes()?;
        self.conn.execute("DELETE FROM outbox WHERE id <= ?1", [through as i64])?;
        Ok(())
    }

    /// At the agent: `put` as op `op` of replica `replica`, recorded with the write in its transaction, so a retry
    /// is answered by `applied_op` instead of being applied again. A failed write records nothing.
    pub fn put_once(&mut self, replica: &str, op: u64, put: MemoryPut) -> Result<crate::base::types::WriteAck> {
        self.tag_next_write(replica, op)?;
        let r = self.put(put);
        self.write_tag = None;
        r
    }

    /// At the agent: `delete` as op `op` of replica `replica`, recorded as `put_once` records a put.
    pub fn delete_once(
        &mut self,
        replica: &str,
        op: u64,
        ns: &[String],
        key: &str,
        if_version: Option<u64>,
    ) -> Result<u64> {
        self.tag_next_write(replica, op)?;
        let r = self.delete(ns, key, if_version);
        self.write_tag = None;
        r
    }

    /// The next write transaction records op `op` of `replica` (taken by it, whether it commits or not).
    fn tag_next_write(&mut self, replica: &str, op: u64) -> Result<()> {
        if replica.is_empty() || replica.len() > MAX_REPLICA_ID_BYTES || replica.chars().any(char::is_control) {
            return Err(Error::invalid(format!(
                "a replica id is 1..={MAX_REPLICA_ID_BYTES} bytes without control characters"
            )));
        }
        self.write_tag = Some((replica.to_string(), op));
        Ok(())
    }

    /// The seq of the write that applied op `op` of `replica`, if it was applied (and is still on record).
    pub fn applied_op(&self, replica: &str, op: u64) -> Result<Option<u64>> {
        let seq: Option<i64> = self
            .conn
            .prepare_cached("SELECT seq FROM applied_ops WHERE replica = ?1 AND op = ?2")?
            .query_row(params![replica, op as i64], |r| r.get(0))
            .optional()?;
        Ok(seq.map(|s| s as u64))
    }

    pub(crate) fn record_applied_op(&self, replica: &str, op: u64, seq: u64) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO applied_ops (replica, op, seq) VALUES (?1, ?2, ?3)")?
            .execute(params![replica, op as i64, seq as i64])?;
        if op > APPLIED_OPS_KEPT && op.is_multiple_of(256) {
            self.conn
                .prepare_cached("DELETE FROM applied_ops WHERE replica = ?1 AND op <= ?2")?
                .execute(params![replica, (op - APPLIED_OPS_KEPT) as i64])?;
        }
        Ok(())
    }

    /// The cursor of the agent's changes applied here (0: none yet).
    pub fn replica_cursor(&self) -> Result<u64> {
        Ok(match schema::meta_get(&self.conn, CURSOR)? {
            Some(rusqlite::types::Value::Integer(n)) => n as u64,
            _ => 0,
        })
    }

    /// Applies a page of the agent's memories and moves the cursor to `cursor`, in one transaction: each
    /// written with the agent's version number (so a CAS expectation means the same on both sides), or
    /// deleted; one already as the agent has it is left as it is, and so is a key with a local write still in
    /// the outbox (the agent's answer to that write comes in a later pull). Not recorded in the outbox.
    pub fn apply_pulled(&mut self, items: Vec<PulledMemory>, cursor: u64) -> Result<PullApplied> {
        let mut prepared = Vec::with_capacity(items.len());
        for m in items {
            let ns = namespace::encode(&m.namespace)?;
            namespace::check_key(&m.key)?;
            if m.version == 0 && !m.deleted {
                return Err(Error::invalid("a pulled memory needs its version"));
            }
            prepared.push((ns, m));
        }
        let r = self.write_tx(|s, tx| {
            let mut done = PullApplied::default();
            for (ns, m) in prepared {
                let pending: Option<i64> = s
                    .conn
                    .prepare_cached("SELECT 1 FROM outbox WHERE ns = ?1 AND key = ?2 LIMIT 1")?
                    .query_row(params![ns, m.key], |r| r.get(0))
                    .optional()?;
                if pending.is_some() {
                    done.pending += 1;
                    continue;
                }
                let live = s.live_row(&ns, &m.key)?;
                let gone = m.deleted || m.expires_at.is_some_and(|t| t <= tx.now);
                if gone {
                    match live {
                        Some(row) => {
                            s.remove_row(tx, &ns, &m.key, &row, EventKind::Delete)?;
                            done.applied += 1;
                        }
                        None => done.unchanged += 1,
                    }
                    continue;
                }
                let put = MemoryPut {
                    namespace: m.namespace,
                    key: m.key,
                    value: m.value,
                    text: m.text,
                    embedding: m.embedding,
                    metadata: m.metadata,
                    pinned: m.pinned,
                    ttl_ms: m.expires_at.map(|t| (t - tx.now) as u64),
                    if_version: None,
                    valid_from: m.valid_from,
                    valid_to: m.valid_to,
                    coherence: m.coherence,
                };
                let mut p = s.prepare_put(&put)?;
                if live.as_ref().is_some_and(|row| row.version == m.version) && s.same_as_live(&p)? {
                    done.unchanged += 1;
                    continue;
                }
                p.version = Some(m.version);
                s.put_in_tx(tx, p)?;
                done.applied += 1;
            }
            schema::meta_set(&s.conn, CURSOR, cursor as i64)?;
            Ok(done)
        });
        self.maybe_maintain();
        r
    }

    /// Whether the live row of `p`'s key holds what `p` would write (value, text, metadata, pinning, vector).
    fn same_as_live(&self, p: &Prepared) -> Result<bool> {
        let emb = p.embedding.as_ref().map(|e| crate::vectors::index::encode_vec(e));
        let same: Option<i64> = self
            .conn
            .prepare_cached(
                "SELECT 1 FROM memories WHERE ns = ?1 AND key = ?2 AND value = ?3 AND text IS ?4 AND metadata = ?5
                 AND pinned = ?6 AND embedding IS ?7 AND valid_from IS ?8 AND valid_to IS ?9 AND coherence IS ?10",
            )?
            .query_row(
                params![p.ns, p.key, p.value, p.text, p.metadata, p.pinned, emb, p.valid_from, p.valid_to, p.coherence],
                |r| r.get(0),
            )
            .optional()?;
        Ok(same.is_some())
    }
}
