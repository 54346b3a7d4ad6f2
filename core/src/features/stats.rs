//! `stats()`: sizes and counts a host shows users or uses for alerts.

use crate::base::error::Result;
use crate::state::memory_budget;
use crate::store::Store;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Stats {
    pub seq: u64,
    pub memories: u64,
    /// Accounted bytes of live memories (what `max_bytes` caps).
    pub bytes: u64,
    pub pinned_memories: u64,
    pub pinned_bytes: u64,
    pub max_bytes: u64,
    pub max_memories: u64,
    pub versions: u64,
    pub events: u64,
    pub oldest_event_seq: Option<u64>,
    pub checkpoints: u64,
    pub index_vectors: u64,
    /// Vectors written but not yet inserted into the HNSW graph (searched exactly meanwhile).
    pub index_pending: u64,
    pub index_bytes: u64,
    /// The engine's heap now: on wasm its linear memory; natively SQLite's allocations plus the index.
    pub heap_bytes: u64,
    /// The store's memory budget (0 = none) and the peak heap the budget check projects for it now.
    pub memory_budget: u64,
    pub projected_peak_bytes: u64,
    /// SQLite database size (pages × page size).
    pub db_bytes: u64,
    pub history_floor: u64,
    /// The earliest `expires_at` (ms) of a live memory, expired or not: when a host should next `sweep()`.
    #[serde(rename = "nextExpiryAt")]
    pub next_expiry_ms: Option<i64>,
    pub dims: u64,
    pub metric: String,
    /// How the vector index stores vectors: f32, f16, i8 or i4.
    pub scalar: String,
}

impl Store {
    pub fn stats(&mut self) -> Result<Stats> {
        self.index.ensure_fresh(&self.conn, &self.cfg)?;
        let c = &self.conn;
        let count = |sql: &str| -> Result<u64> { Ok(c.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
        let pages = count("PRAGMA page_count")?;
        let page_size = count("PRAGMA page_size")?;
        // Counting reads every page of those tables' smallest index once: through the small cache, so that
        // what it reads does not take the page cache's memory (wasm never gives it back) for nothing.
        let (versions, events, checkpoints) = crate::storage::page_cache::with_small_cache(c, || {
            Ok((
                // A live version is its memory row (schema v8); versions v7 left open are not counted twice.
                count("SELECT COUNT(*) FROM versions WHERE seq_to IS NOT NULL")? + self.usage.count,
                count("SELECT COUNT(*) FROM events")?,
                count("SELECT COUNT(*) FROM checkpoints")?,
            ))
        })?;
        Ok(Stats {
            seq: self.seq,
            memories: self.usage.count,
            bytes: self.usage.bytes,
            pinned_memories: self.usage.pinned_count,
            pinned_bytes: self.usage.pinned_bytes,
            max_bytes: self.cfg.caps.max_bytes,
            max_memories: self.cfg.caps.max_memories,
            versions,
            events,
            oldest_event_seq: self.oldest_event_seq()?,
            checkpoints,
            index_vectors: self.index.get().map_or(0, |i| i.len() as u64),
            index_pending: self.index.get().map_or(0, |i| i.pending_len() as u64),
            index_bytes: self.index.get().map_or(0, |i| i.memory_bytes() as u64),
            heap_bytes: memory_budget::heap_bytes(&self.cfg, &self.index),
            memory_budget: self.cfg.memory_budget,
            projected_peak_bytes: memory_budget::projected_peak_bytes(&self.cfg, &self.index, 0),
            db_bytes: pages * page_size,
            history_floor: self.history_floor,
            next_expiry_ms: c.query_row(
                "SELECT MIN(expires_at) FROM memories WHERE expires_at IS NOT NULL",
                [],
                |r| r.get(0),
            )?,
            dims: self.cfg.dims as u64,
            metric: self.cfg.metric.as_str().to_string(),
            scalar: self.cfg.scalar.as_str().to_string(),
        })
    }
}
