//! LRU recency, the order eviction follows: every memory's row stores the tick of its last use. A
//! write stores its row's tick itself; a read's access is kept here in memory (reads never write)
//! and persisted into `access_tick` lazily — by writes that need exact LRU order, by maintenance and
//! on close.

use crate::error::Result;
use rusqlite::Connection;

/// The map of read accesses starts with room for this many entries (34 KiB), or the store's memory count
/// if smaller, then doubles. Reserving towards the store's size at once held 2.2 MB of wasm memory
/// from the first search on in a 100k-memory store (65,536 entries: 131,072 buckets of 17 bytes),
/// for the ~10 reads a search records.
const FIRST_RESERVE: usize = 1024;

#[derive(Default)]
pub(crate) struct Recency {
    /// Memory id -> tick of its last read, not yet persisted.
    reads: foldhash::HashMap<i64, u64>,
    /// The next tick.
    tick: u64,
}

impl Recency {
    /// Continues after the newest tick stored (on open).
    pub fn load(c: &Connection) -> Result<Recency> {
        // Two seeks into memories_lru (pinned, access_tick, ...) rather than a scan of the table.
        let newest = c.query_row(
            "SELECT MAX(COALESCE((SELECT MAX(access_tick) FROM memories WHERE pinned = 0), 0),
                        COALESCE((SELECT MAX(access_tick) FROM memories WHERE pinned = 1), 0))",
            [],
            |r| r.get::<_, i64>(0),
        )? as u64;
        Ok(Recency { reads: Default::default(), tick: newest + 1 })
    }

    /// The next tick, for a row a write stores with its tick.
    pub fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick - 1
    }

    /// Records a read of memory `id` in a store of `live` memories.
    pub fn touch(&mut self, id: i64, live: u64) {
        // Grown by hand: from empty, hashbrown's own growth rehashes at 3, 7, 14, 28... entries.
        if self.reads.len() == self.reads.capacity() {
            let first = live.clamp(16, FIRST_RESERVE as u64) as usize;
            self.reads.reserve(self.reads.len().max(first));
        }
        self.reads.insert(id, self.tick);
        self.tick += 1;
    }

    /// Drops the read recency of a row a write changed (it carries its tick already: an older read
    /// tick must not overwrite it later) or removed.
    pub fn forget(&mut self, id: i64) {
        self.reads.remove(&id);
    }

    /// Drops every read recency (the rows were replaced wholesale: an import).
    pub fn clear(&mut self) {
        self.reads.clear();
    }

    /// Persists the read recency into `access_tick` (in the current transaction, or its own).
    pub fn flush(&mut self, c: &Connection) -> Result<()> {
        if self.reads.is_empty() {
            return Ok(());
        }
        let own_tx = c.is_autocommit();
        if own_tx {
            c.execute_batch("BEGIN IMMEDIATE")?;
        }
        let r = (|| -> Result<()> {
            let mut st = c.prepare_cached("UPDATE memories SET access_tick = ?2 WHERE id = ?1")?;
            for (id, t) in &self.reads {
                st.execute(rusqlite::params![id, *t as i64])?;
            }
            Ok(())
        })();
        if own_tx {
            match &r {
                Ok(()) => c.execute_batch("COMMIT")?,
                Err(_) => {
                    let _ = c.execute_batch("ROLLBACK");
                }
            }
        }
        r?;
        self.reads.clear();
        Ok(())
    }
}
