//! Live-memory accounting — what caps count (bytes and memories, pinned ones apart) — kept in memory
//! and recomputed from SQLite on open and after an import.

use crate::base::error::Result;
use rusqlite::Connection;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Usage {
    pub bytes: u64,
    pub count: u64,
    pub pinned_bytes: u64,
    pub pinned_count: u64,
}

impl Usage {
    /// Counts the live memories in SQLite.
    pub fn load(c: &Connection) -> Result<Usage> {
        Ok(Self::load_with_vectors(c)?.0)
    }

    /// Counts the live memories in SQLite, and how many of them have a vector (what the vector index
    /// must hold; index_state.rs checks it on open).
    pub fn load_with_vectors(c: &Connection) -> Result<(Usage, u64)> {
        let (bytes, count, pb, pc, vectors): (i64, i64, i64, i64, i64) = c.query_row(
            // Covered by memories_lru (pinned, access_tick, size, embedding IS NOT NULL): a scan of that small
            // index, not of the table.
            "SELECT COALESCE(SUM(size),0), COUNT(*), COALESCE(SUM(CASE WHEN pinned THEN size END),0), COALESCE(SUM(pinned),0),
                    COALESCE(SUM(embedding IS NOT NULL),0)
             FROM memories INDEXED BY memories_lru",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?;
        let usage =
            Usage { bytes: bytes as u64, count: count as u64, pinned_bytes: pb as u64, pinned_count: pc as u64 };
        Ok((usage, vectors as u64))
    }

    /// A memory of `size` accounted bytes became live.
    pub fn add(&mut self, size: u64, pinned: bool) {
        self.bytes += size;
        self.count += 1;
        if pinned {
            self.pinned_bytes += size;
            self.pinned_count += 1;
        }
    }

    /// A live memory of `size` accounted bytes went (deleted, expired, evicted or replaced).
    pub fn remove(&mut self, size: u64, pinned: bool) {
        self.bytes -= size;
        self.count -= 1;
        if pinned {
            self.pinned_bytes -= size;
            self.pinned_count -= 1;
        }
    }
}
