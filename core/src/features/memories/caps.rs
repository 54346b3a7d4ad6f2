//! Caps, TTL and maintenance. A write that would push live memories over `max_bytes` /
//! `max_memories` first removes expired memories, then evicts least-recently-used unpinned
//! ones (evict events); it fails with QUOTA_EXCEEDED only when pinned data alone would not fit,
//! so usage never exceeds a cap. `sweep()` physically removes expired memories and applies
//! retention; it also runs by itself every few hundred writes.

use crate::base::error::{Error, ErrorCode, Result};
use crate::features::memories::row::{live_row_from, LiveRow, LIVE_COLS};
use crate::state::feed::EventKind;
use crate::store::{Store, Tx};
use rusqlite::params;

const AUTO_MAINTAIN_EVERY: u64 = 500;

struct Candidate {
    ns: String,
    key: String,
    row: LiveRow,
}

impl Store {
    /// Makes room for a write of `size` bytes replacing `replacing` (old size / pinned).
    /// Returns the evicted (namespace, key) pairs.
    pub(crate) fn ensure_room_for(
        &mut self,
        tx: &mut Tx,
        size: u64,
        replacing: Option<i64>,
        old_size: u64,
        old_pinned: bool,
    ) -> Result<Vec<(Vec<String>, String)>> {
        let caps = self.cfg.caps;
        if caps.max_bytes == 0 && caps.max_memories == 0 {
            return Ok(Vec::new());
        }
        let adds_row = replacing.is_none();
        let fits = |u: &crate::state::usage::Usage| {
            let bytes = u.bytes - old_size + size;
            let count = u.count + adds_row as u64;
            (caps.max_bytes == 0 || bytes <= caps.max_bytes) && (caps.max_memories == 0 || count <= caps.max_memories)
        };
        if fits(&tx.usage) {
            return Ok(Vec::new());
        }
        let mut evicted = Vec::new();
        // 1. Expired memories go first (as expire events).
        for c in self.candidates(tx, "expires_at IS NOT NULL AND expires_at <= ?2 AND id != ?1", replacing, 64)? {
            self.remove_row(tx, &c.ns, &c.key, &c.row, EventKind::Expire)?;
            if fits(&tx.usage) {
                return Ok(evicted);
            }
        }
        // Feasibility (after expired ones are gone): evicting every other unpinned memory, would it fit?
        let pinned_bytes = tx.usage.pinned_bytes - if old_pinned { old_size } else { 0 };
        let pinned_count = tx.usage.pinned_count - old_pinned as u64;
        // The memory being written is never evicted to make room for itself.
        let floor_bytes = pinned_bytes + size;
        let floor_count = pinned_count + 1;
        if (caps.max_bytes > 0 && floor_bytes > caps.max_bytes)
            || (caps.max_memories > 0 && floor_count > caps.max_memories)
        {
            return Err(Error::new(
                ErrorCode::QuotaExceeded,
                format!(
                    "does not fit: pinned memories hold {pinned_bytes} bytes / {pinned_count} memories, this write needs {size} bytes; caps are {} bytes / {} memories",
                    caps.max_bytes, caps.max_memories
                ),
            ));
        }
        // 2. Least recently used unpinned memories (exact order: recency flushed first; write_tx
        // persisted the reads before this transaction, so this writes only what is left, if anything).
        self.recency.flush(&self.conn)?;
        while !fits(&tx.usage) {
            let batch = self.candidates(tx, "pinned = 0 AND id != ?1 ORDER BY access_tick", replacing, 32)?;
            if batch.is_empty() {
                return Err(Error::internal("eviction found nothing to evict"));
            }
            for c in batch {
                if fits(&tx.usage) {
                    break;
                }
                self.remove_row(tx, &c.ns, &c.key, &c.row, EventKind::Evict)?;
                evicted.push((crate::base::namespace::decode(&c.ns), c.key));
            }
        }
        Ok(evicted)
    }

    fn candidates(&self, tx: &Tx, where_order: &str, exclude: Option<i64>, limit: usize) -> Result<Vec<Candidate>> {
        let sql = format!("SELECT {LIVE_COLS}, ns, key FROM memories WHERE {where_order} LIMIT {limit}");
        let mut st = self.conn.prepare_cached(&sql)?;
        let needs_now = where_order.contains("?2");
        let map = |r: &rusqlite::Row| Ok(Candidate { row: live_row_from(r)?, ns: r.get(7)?, key: r.get(8)? });
        let ex = exclude.unwrap_or(-1);
        let rows = if needs_now { st.query_map(params![ex, tx.now], map)? } else { st.query_map(params![ex], map)? };
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Removes expired memories (expire events), applies history / event / checkpoint
    /// retention (full-text marks applied first: they ride on events) and persists LRU recency.
    /// Returns how many memories expired.
    pub fn sweep(&mut self) -> Result<u64> {
        if self.import.importing() {
            return Ok(0); // retention and expiry wait for the import's end (state/import_gate.rs)
        }
        self.recency.flush(&self.conn)?;
        let mut expired = 0;
        loop {
            let n = self.write_tx(|s, tx| {
                let batch = s.candidates(tx, "expires_at IS NOT NULL AND expires_at <= ?2 AND id != ?1", None, 256)?;
                for c in &batch {
                    s.remove_row(tx, &c.ns, &c.key, &c.row, EventKind::Expire)?;
                }
                Ok(batch.len() as u64)
            })?;
            expired += n;
            if n < 256 {
                break;
            }
        }
        // Full-text marks ride on events (lexical_buffer.rs): applied before any event is pruned.
        self.lexical.flush(&self.conn)?;
        let now = self.now_ms();
        let floors = (self.history_floor, self.feed.floor());
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let r = self
            .prune_history(now)
            .and_then(|_| self.feed.prune(&self.conn, &self.cfg.retention, self.seq, now))
            .and_then(|_| self.prune_checkpoints())
            .and_then(|_| Ok(self.conn.execute_batch("COMMIT")?));
        if let Err(e) = r {
            let _ = self.conn.execute_batch("ROLLBACK");
            // The prunes raised the floors in memory; the data is back, so are they.
            self.history_floor = floors.0;
            self.feed.reset_floor(floors.1);
            return Err(e);
        }
        self.writes_since_sweep = 0;
        Ok(expired)
    }

    /// Runs `sweep` every few hundred writes so retention holds without a host timer.
    pub(crate) fn maybe_maintain(&mut self) {
        if self.writes_since_sweep >= AUTO_MAINTAIN_EVERY {
            // Maintenance failing must not fail the write that triggered it.
            let _ = self.sweep();
        }
    }
}
