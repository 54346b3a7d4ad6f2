//! Memories by (namespace, key): put (with CAS, TTL, pinning), batch put, get, delete and
//! listing by namespace prefix. Every change closes the previous version into `versions`
//! (history) and appends an event.

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::namespace;
use crate::base::page_bytes::{vector_json_bytes, PageBudget};
use crate::base::types::{AsOf, ListPage, ListQuery, Memory, MemoryPut, ValidAt, WriteAck};
use crate::features::memories::json::row_to_json;
use crate::features::memories::row::{
    data_cols, live_row_from, row_to_memory, versions_union, Coherence, LiveRow, LIVE_ROW_SQL, LIVE_STATE_SQL, MEM_COLS,
};
use crate::state::feed::{EventKind, NewEvent};
use crate::state::index_state::IndexOp;
use crate::store::{Store, Tx};
use crate::vectors::index::{encode_vec, validate};
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

/// Fixed per-memory overhead counted by caps (row, index entries, FTS postings).
pub const ROW_OVERHEAD_BYTES: u64 = 64;
pub const MAX_BATCH: usize = 1000;
pub const MAX_TTL_MS: u64 = 100 * 365 * 24 * 3600 * 1000;

/// A validated put, ready to write.
pub(crate) struct Prepared {
    pub(crate) ns: String,
    pub(crate) key: String,
    pub(crate) value: String,
    pub(crate) text: Option<String>,
    pub(crate) embedding: Option<Vec<f32>>,
    pub(crate) metadata: String,
    pub(crate) pinned: bool,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) if_version: Option<u64>,
    pub(crate) size: u64,
    /// A pulled version (features/replica.rs): written with the agent's version number, not one past the live one.
    pub(crate) version: Option<u64>,
    pub(crate) valid_from: Option<i64>,
    pub(crate) valid_to: Option<i64>,
    /// The coherence column (row.rs `Coherence`): None for a plain put.
    pub(crate) coherence: Option<String>,
    /// The event the write makes (a put; a supersede closing a memory, features/coherence) and its payload.
    pub(crate) event: EventKind,
    pub(crate) event_payload: Option<serde_json::Value>,
}

/// What one put writes besides its `Prepared` memory.
struct RowWrite {
    seq: u64,
    /// The LRU tick stored with the row.
    tick: u64,
    expires_at: Option<i64>,
    /// The vector as stored (`encode_vec`).
    embedding: Option<Vec<u8>>,
}

impl Store {
    pub(crate) fn prepare_put(&self, p: &MemoryPut) -> Result<Prepared> {
        let ns = namespace::encode(&p.namespace)?;
        namespace::check_key(&p.key)?;
        let value = serde_json::to_string(&p.value)?;
        let text = p.text.clone().or_else(|| p.value.as_str().map(str::to_string));
        if let Some(e) = &p.embedding {
            validate(e, self.cfg.dims, self.cfg.metric, self.cfg.scalar)?;
        }
        let metadata = serde_json::to_string(&p.metadata.clone().unwrap_or_default())?;
        if let Some(ttl) = p.ttl_ms {
            if ttl == 0 || ttl > MAX_TTL_MS {
                return Err(Error::invalid(format!("ttl_ms must be 1..={MAX_TTL_MS}")));
            }
        }
        if p.valid_from.zip(p.valid_to).is_some_and(|(f, t)| t < f) {
            return Err(Error::invalid("valid_to must not be before valid_from"));
        }
        let size = self.accounted_size(
            &ns,
            &p.key,
            &value,
            text.as_deref(),
            &metadata,
            p.embedding.as_ref().map_or(0, Vec::len),
        )?;
        Ok(Prepared {
            ns,
            key: p.key.clone(),
            value,
            text,
            embedding: p.embedding.clone(),
            metadata,
            pinned: p.pinned,
            ttl_ms: p.ttl_ms,
            if_version: p.if_version,
            size,
            version: None,
            valid_from: p.valid_from,
            valid_to: p.valid_to,
            coherence: match &p.coherence {
                None => None,
                Some(c) => Coherence::column_of(c)?,
            },
            event: EventKind::Put,
            event_payload: None,
        })
    }

    /// The bytes caps count for a memory; PAYLOAD_TOO_LARGE past `max_memory_bytes`.
    pub(crate) fn accounted_size(
        &self,
        ns: &str,
        key: &str,
        value: &str,
        text: Option<&str>,
        metadata: &str,
        dims: usize,
    ) -> Result<u64> {
        let payload = (ns.len() + key.len() + value.len() + text.map_or(0, str::len) + metadata.len()) as u64;
        if payload as usize > self.cfg.max_memory_bytes {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("memory is {payload} bytes, limit {}", self.cfg.max_memory_bytes),
            ));
        }
        Ok(payload + 4 * dims as u64 + ROW_OVERHEAD_BYTES)
    }

    pub(crate) fn live_row(&self, ns: &str, key: &str) -> Result<Option<LiveRow>> {
        Ok(self.conn.prepare_cached(LIVE_STATE_SQL)?.query_row(params![ns, key], live_row_from).optional()?)
    }

    /// Removes a live row: closes its version into history, drops it from FTS and the index,
    /// and emits `kind` (delete / expire / evict).
    pub(crate) fn remove_row(
        &mut self,
        tx: &mut Tx,
        ns: &str,
        key: &str,
        row: &LiveRow,
        kind: EventKind,
    ) -> Result<u64> {
        let seq = tx.next_seq();
        self.end_version(tx, row.id, seq, kind)?;
        if row.has_text {
            self.mark_lexical(tx, row.id, true);
        }
        self.conn.prepare_cached("DELETE FROM memories WHERE id = ?1")?.execute([row.id])?;
        if row.has_embedding {
            tx.index_ops.push(IndexOp::Remove(row.id as u64));
        }
        tx.usage.remove(row.size, row.pinned);
        self.recency.forget(row.id);
        self.emit(tx, seq, NewEvent::memory(kind, ns, key, row.version))?;
        Ok(seq)
    }

    /// Marks memory `id`'s full-text entry stale in this write (see `LexicalBuffer::mark`); the mark goes
    /// with the memory's event, which must come next.
    fn mark_lexical(&mut self, tx: &mut Tx, id: i64, indexed: bool) {
        self.lexical.mark(id, indexed);
        tx.lexical_marks += 1;
    }

    /// Closes the live version of memory `id` at `seq`: copies its row into history, before the row changes.
    /// (A version a store before schema v8 kept open is closed in place.)
    fn end_version(&mut self, tx: &Tx, id: i64, seq: u64, kind: EventKind) -> Result<()> {
        self.conn
            .prepare_cached(concat!(
                "INSERT INTO versions (mem_id, ",
                data_cols!(),
                ", seq_from, size, seq_to, ended_at, end_kind) SELECT id, ",
                data_cols!(),
                ", seq, size, ?2, ?3, ?4 FROM memories WHERE id = ?1
                 ON CONFLICT (ns, key, seq_from) DO UPDATE SET
                   seq_to = excluded.seq_to, ended_at = excluded.ended_at, end_kind = excluded.end_kind"
            ))?
            .execute(params![id, seq as i64, tx.now, kind.as_str()])?;
        Ok(())
    }

    /// One put inside a write transaction: the live row it replaces checked, room made under the
    /// caps, the row and its version written, the index, full-text and usage changes queued, the
    /// put event emitted.
    pub(crate) fn put_in_tx(&mut self, tx: &mut Tx, p: Prepared) -> Result<WriteAck> {
        let existing = self.live_row_for_put(tx, &p)?;
        let (old_size, old_pinned) = existing.as_ref().map_or((0, false), |r| (r.size, r.pinned));
        let evicted = self.ensure_room_for(tx, p.size, existing.as_ref().map(|r| r.id), old_size, old_pinned)?;
        let w = RowWrite {
            seq: tx.next_seq(),
            // The write is this memory's latest use: its LRU tick is stored with the row (not left for the
            // recency flush, which would rewrite every written row a second time).
            tick: self.recency.next_tick(),
            expires_at: p.ttl_ms.map(|t| tx.now + t as i64),
            embedding: p.embedding.as_ref().map(|e| encode_vec(e)),
        };
        let (id, version) = match &existing {
            Some(row) => self.update_live_row(tx, row, &p, &w)?,
            None => self.insert_live_row(tx, &p, &w)?,
        };
        if self.outbox && p.version.is_none() {
            self.record_put(&p, existing.as_ref().map_or(0, |r| r.version), version)?;
        }
        if let Some(e) = p.embedding {
            tx.index_ops.push(IndexOp::Upsert(id as u64, e));
        }
        if let Some(row) = &existing {
            tx.usage.remove(row.size, row.pinned);
        }
        tx.usage.add(p.size, p.pinned);
        tx.touched.push(id);
        self.emit(tx, w.seq, NewEvent::memory(p.event, &p.ns, &p.key, version).with_payload(p.event_payload.as_ref()))?;
        Ok(WriteAck { seq: w.seq, version, evicted })
    }

    /// The live row a put replaces, if any: an expired one is removed first (an expire event), and
    /// the put's `if_version` must be the live version (0: none).
    fn live_row_for_put(&mut self, tx: &mut Tx, p: &Prepared) -> Result<Option<LiveRow>> {
        let mut existing = self.live_row(&p.ns, &p.key)?;
        if existing.as_ref().is_some_and(|r| r.expired(tx.now)) {
            let row = existing.take().ok_or_else(|| Error::internal("row vanished"))?;
            self.remove_row(tx, &p.ns, &p.key, &row, EventKind::Expire)?;
        }
        let live_version = existing.as_ref().map_or(0, |r| r.version);
        if let Some(want) = p.if_version {
            if want != live_version {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("if_version {want} does not match the live version {live_version}"),
                ));
            }
        }
        Ok(existing)
    }

    /// Overwrites the live row `row` with the put (its previous version closed, its full-text entry
    /// marked, its vector dropped when the put has none). Returns the id and the new version.
    fn update_live_row(&mut self, tx: &mut Tx, row: &LiveRow, p: &Prepared, w: &RowWrite) -> Result<(i64, u64)> {
        self.end_version(tx, row.id, w.seq, p.event)?;
        if row.has_text || p.text.is_some() {
            self.mark_lexical(tx, row.id, row.has_text);
        }
        let version = p.version.unwrap_or(row.version + 1);
        self.conn
            .prepare_cached(
                "UPDATE memories SET value = ?2, text = ?3, embedding = ?4, metadata = ?5, pinned = ?6, expires_at = ?7,
                 updated_at = ?8, version = ?9, seq = ?10, size = ?11, access_tick = ?12, valid_from = ?13,
                 valid_to = ?14, coherence = ?15 WHERE id = ?1",
            )?
            .execute(params![
                row.id,
                p.value,
                p.text,
                w.embedding,
                p.metadata,
                p.pinned,
                w.expires_at,
                tx.now,
                version as i64,
                w.seq as i64,
                p.size as i64,
                w.tick as i64,
                p.valid_from,
                p.valid_to,
                p.coherence
            ])?;
        if row.has_embedding && p.embedding.is_none() {
            tx.index_ops.push(IndexOp::Remove(row.id as u64));
        }
        Ok((row.id, version))
    }

    /// Inserts the put as a new live row, its version one past any the key had before (history
    /// keeps counting across a delete). Returns the id and the version.
    fn insert_live_row(&mut self, tx: &mut Tx, p: &Prepared, w: &RowWrite) -> Result<(i64, u64)> {
        let last: Option<i64> = self
            .conn
            .prepare_cached("SELECT MAX(version) FROM versions WHERE ns = ?1 AND key = ?2")?
            .query_row(params![p.ns, p.key], |r| r.get(0))?;
        let version = p.version.unwrap_or(last.unwrap_or(0) as u64 + 1);
        self.conn
            .prepare_cached(concat!(
                "INSERT INTO memories (",
                data_cols!(),
                ", seq, size, access_tick, id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?14, ?15, ?16, ?11, ?12, ?13, ",
                // Above the index snapshot's ids as well as the live ones (schema v10).
                "(SELECT max(COALESCE(MAX(id), 0), COALESCE((SELECT value FROM meta WHERE name = 'index_snapshot_max_id'), 0))
                  + 1 FROM memories))"
            ))?
            .execute(params![
                p.ns,
                p.key,
                p.value,
                p.text,
                w.embedding,
                p.metadata,
                p.pinned,
                w.expires_at,
                tx.now,
                version as i64,
                w.seq as i64,
                p.size as i64,
                w.tick as i64,
                p.valid_from,
                p.valid_to,
                p.coherence
            ])?;
        let id = self.conn.last_insert_rowid();
        if p.text.is_some() {
            self.mark_lexical(tx, id, false);
        }
        Ok((id, version))
    }

    /// Writes one memory. See [`MemoryPut`] for CAS (`if_version`), TTL and pinning.
    pub fn put(&mut self, put: MemoryPut) -> Result<WriteAck> {
        let p = self.prepare_put(&put)?;
        let ack = self.write_tx(|s, tx| s.put_in_tx(tx, p))?;
        self.maybe_maintain();
        Ok(ack)
    }

    /// Writes several memories atomically: all or none (the first error rolls back the batch).
    pub fn put_batch(&mut self, puts: Vec<MemoryPut>) -> Result<Vec<WriteAck>> {
        if puts.len() > MAX_BATCH {
            return Err(Error::new(ErrorCode::PayloadTooLarge, format!("batch of {} exceeds {MAX_BATCH}", puts.len())));
        }
        let prepared = puts.iter().map(|p| self.prepare_put(p)).collect::<Result<Vec<_>>>()?;
        let acks = self.write_tx(|s, tx| prepared.into_iter().map(|p| s.put_in_tx(tx, p)).collect())?;
        self.maybe_maintain();
        Ok(acks)
    }

    /// The live memory valid now, or None (expired memories are invisible at once).
    pub fn get(&mut self, ns: &[String], key: &str) -> Result<Option<Memory>> {
        self.get_live(ns, key, true, None)
    }

    /// The live memory valid at `valid_at` (default now; `ValidAt::Any`: however valid); its embedding only
    /// when `with_embedding` (reading and decoding 384 floats is most of a GET that does not need them).
    fn get_live(
        &mut self,
        ns: &[String],
        key: &str,
        with_embedding: bool,
        valid_at: Option<ValidAt>,
    ) -> Result<Option<Memory>> {
        self.lookup_live(ns, key, valid_at, |r| {
            let (id, m) = row_to_memory(r, with_embedding)?;
            Ok((Found { id, expires_at: m.expires_at, valid_from: m.valid_from, valid_to: m.valid_to }, m))
        })
    }

    /// The live memory at (ns, key) as `f` reads it from its row, if there is one that has not expired and is
    /// valid at `valid_at`; a found one counts as used (LRU).
    fn lookup_live<T>(
        &mut self,
        ns: &[String],
        key: &str,
        valid_at: Option<ValidAt>,
        f: impl FnOnce(&Row) -> rusqlite::Result<(Found, T)>,
    ) -> Result<Option<T>> {
        let ns = namespace::encode(ns)?;
        namespace::check_key(key)?;
        let now = self.now_ms();
        let found = self.conn.prepare_cached(LIVE_ROW_SQL)?.query_row(params![ns, key], f).optional()?;
        match found {
            Some((r, out)) if r.expires_at.is_none_or(|t| t > now) && r.valid(ValidAt::resolve(valid_at, now)) => {
                self.recency.touch(r.id, self.usage.count);
                Ok(Some(out))
            }
            _ => Ok(None),
        }
    }

    /// `get_at_with` as the JSON of its result (`null` when there is none), for hosts that pass
    /// JSON on: a live read writes the row straight out (`json.rs`), without building a
    /// `Memory` or re-serialising the stored value.
    pub fn get_json(&mut self, ns: &[String], key: &str, as_of: Option<AsOf>, with_embedding: bool) -> Result<String> {
        self.get_json_valid(ns, key, as_of, with_embedding, None)
    }

    /// `get_json` valid at `valid_at` (default: the read's time).
    pub fn get_json_valid(
        &mut self,
        ns: &[String],
        key: &str,
        as_of: Option<AsOf>,
        with_embedding: bool,
        valid_at: Option<ValidAt>,
    ) -> Result<String> {
        let found = match as_of {
            None => self.lookup_live(ns, key, valid_at, |r| {
                let row = row_to_json(r, with_embedding)?;
                let found = Found {
                    id: row.id,
                    expires_at: row.expires_at,
                    valid_from: row.valid_from,
                    valid_to: row.valid_to,
                };
                Ok((found, row.json))
            })?,
            Some(a) => {
                let m = self.get_as_of(ns, key, a, with_embedding, valid_at)?;
                m.map(|m| serde_json::to_string(&m))
                    .transpose()
                    .map_err(|e| Error::internal(format!("serialize: {e}")))?
            }
        };
        Ok(found.unwrap_or_else(|| "null".to_string()))
    }

    /// Reads a memory live or `as_of` a past seq/time.
    pub fn get_at(&mut self, ns: &[String], key: &str, as_of: Option<AsOf>) -> Result<Option<Memory>> {
        self.get_at_with(ns, key, as_of, true)
    }

    /// As `get_at`, with the embedding only when `with_embedding` (`Memory::embedding` is None otherwise).
    pub fn get_at_with(
        &mut self,
        ns: &[String],
        key: &str,
        as_of: Option<AsOf>,
        with_embedding: bool,
    ) -> Result<Option<Memory>> {
        self.get_valid(ns, key, as_of, with_embedding, None)
    }

    /// As `get_at_with`, valid at `valid_at` (default: the read's time: now, or the AS OF time).
    pub fn get_valid(
        &mut self,
        ns: &[String],
        key: &str,
        as_of: Option<AsOf>,
        with_embedding: bool,
        valid_at: Option<ValidAt>,
    ) -> Result<Option<Memory>> {
        match as_of {
            None => self.get_live(ns, key, with_embedding, valid_at),
            Some(a) => self.get_as_of(ns, key, a, with_embedding, valid_at),
        }
    }

    /// Deletes a memory. Returns the delete's seq, or NOT_FOUND. `if_version` as for put.
    pub fn delete(&mut self, ns: &[String], key: &str, if_version: Option<u64>) -> Result<u64> {
        let ns = namespace::encode(ns)?;
        namespace::check_key(key)?;
        let key = key.to_string();
        let seq = self.write_tx(|s, tx| {
            let row = s.live_row(&ns, &key)?;
            let Some(row) = row else { return Err(Error::not_found(format!("no memory at key {key:?}"))) };
            if row.expired(tx.now) {
                s.remove_row(tx, &ns, &key, &row, EventKind::Expire)?;
                return Err(Error::not_found(format!("no memory at key {key:?}")));
            }
            if let Some(want) = if_version {
                if want != row.version {
                    return Err(Error::new(
                        ErrorCode::Conflict,
                        format!("if_version {want} does not match the live version {}", row.version),
                    ));
                }
            }
            let seq = s.remove_row(tx, &ns, &key, &row, EventKind::Delete)?;
            s.record_delete(&ns, &key, if_version, row.version)?;
            Ok(seq)
        })?;
        self.maybe_maintain();
        Ok(seq)
    }

    /// Lists memories under a namespace prefix in (namespace, key) order, a page at a time.
    pub fn list(&mut self, q: &ListQuery) -> Result<ListPage> {
        let prefix = namespace::encode_prefix(&q.prefix)?;
        let end = namespace::prefix_end(&prefix).unwrap_or_else(|| "\u{10FFFF}".to_string());
        let limit = q.limit.unwrap_or(100).clamp(1, 1000);
        let (cns, ckey) = match &q.cursor {
            Some(c) => decode_cursor(c)?,
            None => (String::new(), String::new()),
        };
        let (seq, at_ts) = match q.as_of {
            None => (None, self.now_ms()),
            Some(a) => {
                let s = self.resolve_as_of(a)?;
                if s < self.history_floor {
                    return Err(history_pruned(s, self.history_floor));
                }
                (Some(s), self.as_of_time(a, s)?)
            }
        };
        if q.offset > 0 && q.cursor.is_some() {
            return Err(Error::invalid("list takes an offset or a cursor, not both"));
        }
        use rusqlite::types::Value as Sql;
        let mut ps: Vec<Sql> =
            vec![Sql::Text(prefix), Sql::Text(end), Sql::Text(cns), Sql::Text(ckey), Sql::Integer(limit as i64)];
        if let Some(s) = seq {
            ps.push(Sql::Integer(s as i64));
        }
        let at_seq = ps.len();
        // With filters or an offset, expiry is applied in SQL too, so LIMIT and OFFSET count live memories only.
        let mut conds = String::new();
        if !q.filter.is_empty() || !q.value_filter.is_empty() || q.offset > 0 {
            ps.push(Sql::Integer(at_ts));
            conds.push_str(&format!(" AND (expires_at IS NULL OR expires_at > ?{})", ps.len()));
        }
        if let Some(t) = ValidAt::resolve(q.valid_at, at_ts) {
            ps.push(Sql::Integer(t));
            conds.push_str(&valid_sql("", ps.len()));
        }
        conds.push_str(&crate::base::filter::compile(&q.filter, "metadata", &mut ps)?);
        conds.push_str(&crate::base::filter::compile(&q.value_filter, "value", &mut ps)?);
        let offset = q.offset.min(i64::MAX as usize) as i64;
        let range = format!("ns >= ?1 AND ns < ?2 AND (ns > ?3 OR (ns = ?3 AND key > ?4)){conds}");
        let rows_sql = match seq {
            None => format!("SELECT {MEM_COLS} FROM memories WHERE {range} ORDER BY ns, key"),
            Some(_) => versions_union(
                &[],
                &format!("seq_from <= ?{at_seq} AND seq_to > ?{at_seq} AND {range}"),
                &format!("seq <= ?{at_seq} AND {range}"),
                "ns, key",
            ),
        };
        let sql = format!("{rows_sql} LIMIT ?5 OFFSET {offset}");
        // Rows are read one by one and the page ends early once it is MAX_PAGE_BYTES (page_bytes.rs).
        let vector_bytes = if q.include_embeddings { vector_json_bytes(self.cfg.dims) } else { 0 };
        let mut budget = PageBudget::new();
        let mut full = false;
        let mut rows: Vec<(i64, Memory)> = Vec::new();
        {
            let mut st = self.conn.prepare_cached(&sql)?;
            let mut cursor = st.query(rusqlite::params_from_iter(ps.iter()))?;
            while let Some(r) = cursor.next()? {
                let row = row_to_memory(r, q.include_embeddings)?;
                full = budget.take(row.1.size as usize + vector_bytes);
                rows.push(row);
                if full {
                    break;
                }
            }
        }
        let next_cursor = if rows.len() == limit || full {
            rows.last().map(|(_, m)| encode_cursor(&namespace::encode(&m.namespace).unwrap_or_default(), &m.key))
        } else {
            None
        };
        let items = rows.into_iter().map(|(_, m)| m).filter(|m| m.expires_at.is_none_or(|t| t > at_ts)).collect();
        Ok(ListPage { items, next_cursor })
    }

    /// Every version of a key that history still holds, oldest first (the live one last).
    pub fn history(&mut self, ns: &[String], key: &str) -> Result<Vec<Memory>> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let page = self.history_page(ns, key, after, HISTORY_PAGE_MAX)?;
            out.extend(page.versions);
            match page.next_after_seq {
                Some(next) => after = next,
                None => return Ok(out),
            }
        }
    }

    /// A page of a key's history: versions that began after seq `after_seq`, oldest first, at most
    /// `limit` (1..=1000) and about `MAX_PAGE_BYTES`; `next_after_seq` continues it (None: the end).
    pub fn history_page(&mut self, ns: &[String], key: &str, after_seq: u64, limit: usize) -> Result<HistoryPage> {
        let ns = namespace::encode(ns)?;
        namespace::check_key(key)?;
        let limit = limit.clamp(1, HISTORY_PAGE_MAX);
        let mut st = self.conn.prepare_cached(&format!(
            "{} LIMIT ?4",
            versions_union(
                &[],
                "ns = ?1 AND key = ?2 AND seq_from > ?3",
                "ns = ?1 AND key = ?2 AND seq > ?3",
                "seq_from"
            )
        ))?;
        let mut rows = st.query(params![ns, key, after_seq.min(i64::MAX as u64) as i64, limit as i64])?;
        let mut budget = PageBudget::new();
        let mut versions = Vec::new();
        let mut full = false;
        while let Some(r) = rows.next()? {
            let m = row_to_memory(r, false)?.1;
            full = budget.take(m.size as usize);
            versions.push(m);
            if full {
                break;
            }
        }
        let next_after_seq = if full || versions.len() == limit { versions.last().map(|m| m.seq) } else { None };
        Ok(HistoryPage { versions, next_after_seq })
    }
}

/// ` AND` the condition that a row (columns prefixed with `alias`) is valid at the time in parameter `?p`.
pub(crate) fn valid_sql(alias: &str, p: usize) -> String {
    format!(" AND ({alias}valid_from IS NULL OR {alias}valid_from <= ?{p}) AND ({alias}valid_to IS NULL OR {alias}valid_to > ?{p})")
}

/// What a live lookup checks of the row it found.
struct Found {
    id: i64,
    expires_at: Option<i64>,
    valid_from: Option<i64>,
    valid_to: Option<i64>,
}

impl Found {
    /// Valid at `at` (None: any time).
    fn valid(&self, at: Option<i64>) -> bool {
        at.is_none_or(|t| self.valid_from.is_none_or(|f| f <= t) && self.valid_to.is_none_or(|e| e > t))
    }
}

/// Versions per page of `history_page`.
pub const HISTORY_PAGE_MAX: usize = 1000;

/// A page of a key's history (see `Store::history_page`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HistoryPage {
    pub versions: Vec<Memory>,
    /// Pass as `after_seq` for the next page; None when this page ends the history.
    pub next_after_seq: Option<u64>,
}

pub(crate) fn history_pruned(seq: u64, floor: u64) -> Error {
    Error::new(
        ErrorCode::HistoryPruned,
        format!("history before seq {floor} was pruned by retention (asked for seq {seq})"),
    )
}

fn encode_cursor(ns: &str, key: &str) -> String {
    let json = serde_json::to_string(&(ns, key)).unwrap_or_default();
    json.bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode_cursor(c: &str) -> Result<(String, String)> {
    let bad = || Error::invalid("malformed cursor");
    if !c.len().is_multiple_of(2) || c.len() > 4096 {
        return Err(bad());
    }
    let bytes = (0..c.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(c.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect::<Result<Vec<u8>>>()?;
    serde_json::from_slice::<(String, String)>(&bytes).map_err(|_| bad())
}
