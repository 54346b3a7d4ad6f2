//! The lexical (FTS5) write buffer: writes mark a memory's full-text entry stale in the small
//! `fts_pending` table instead of updating FTS5 in their own transaction, and the marks are applied
//! in batches — before any lexical or hybrid search reads the index, by the write that fills the
//! buffer (or the vector index's), and in `maintain()` / `close()`.
//!
//! Why: FTS5 writes a new index segment at every COMMIT and merges segments as they pile up, so a
//! one-memory write paid a segment flush and, now and then, a merge — most of PUT's time and its
//! tail. Applied in batches, one segment holds many documents. Searches see exactly what an
//! unbuffered index would hold (the buffer is applied first), and the marks are durable rows in
//! the same transaction as the write, so a crash loses nothing.
//!
//! Invariant: a memory id without a mark has an FTS entry, of its live row's text, iff that row
//! has text. A mark keeps the text FTS held for the id when the mark was made (NULL: none); nothing
//! touches FTS for a marked id until the buffer is applied, so that stays true. The FTS table is
//! contentless, so removing an entry takes the text it was made from (FTS5's 'delete' command):
//! that keeps the index's document and token totals — BM25's statistics — exact.

use crate::error::Result;
use crate::store::{Store, Tx};
use rusqlite::params;

/// Marks applied together in one write's transaction once this many are waiting.
pub const LEXICAL_BUFFER_ROWS: u64 = 256;

impl Store {
    /// Marks memory `id`'s FTS entry stale. Call before the row changes: with `indexed` (FTS holds
    /// an entry for the row's current text) the mark keeps that text. If the id was marked
    /// already, the first mark stands.
    pub(crate) fn mark_lexical(&mut self, tx: &mut Tx, id: i64, indexed: bool) -> Result<()> {
        let sql = if indexed {
            "INSERT INTO fts_pending (id, indexed_text) SELECT id, text FROM memories WHERE id = ?1 ON CONFLICT (id) DO NOTHING"
        } else {
            "INSERT INTO fts_pending (id, indexed_text) VALUES (?1, NULL) ON CONFLICT (id) DO NOTHING"
        };
        self.conn.prepare_cached(sql)?.execute([id])?;
        tx.lexical_marks += 1;
        Ok(())
    }

    /// Whether a write's transaction applies the buffer before it commits: once it holds
    /// [`LEXICAL_BUFFER_ROWS`] marks, or when this write will insert into the vector graph anyway —
    /// the batched work of both then lands on the same write instead of two.
    pub(crate) fn lexical_buffer_due(&self, tx: &Tx) -> bool {
        let vector_flush = self.index.as_ref().is_some_and(|i| i.write_will_insert(tx.index_ops.len()));
        self.lexical_pending + tx.lexical_marks >= LEXICAL_BUFFER_ROWS || vector_flush
    }

    /// Counts the marks left by earlier sessions (on open).
    pub(crate) fn load_lexical_buffer(&mut self) -> Result<()> {
        let n: i64 = self.conn.query_row("SELECT COUNT(*) FROM fts_pending", [], |r| r.get(0))?;
        self.lexical_pending = n as u64;
        Ok(())
    }

    /// Applies every mark to FTS5 in its own transaction (before a search, in maintenance).
    pub(crate) fn flush_lexical(&mut self) -> Result<()> {
        if self.lexical_pending == 0 {
            return Ok(());
        }
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        match self.apply_lexical_marks().and_then(|()| Ok(self.conn.execute_batch("COMMIT")?)) {
            Ok(()) => {
                self.lexical_pending = 0;
                Ok(())
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Applies every mark to FTS5 inside the current transaction.
    pub(crate) fn apply_lexical_marks(&mut self) -> Result<()> {
        let marks: Vec<(i64, Option<String>, Option<String>)> = {
            let mut st = self.conn.prepare_cached(
                "SELECT p.id, p.indexed_text, m.text FROM fts_pending p LEFT JOIN memories m ON m.id = p.id ORDER BY p.id",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for (id, old, new) in marks {
            if old == new {
                continue;
            }
            if let Some(t) = old {
                self.conn
                    .prepare_cached("INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', ?1, ?2)")?
                    .execute(params![id, t])?;
            }
            if let Some(t) = new {
                self.conn.prepare_cached("INSERT INTO memories_fts (rowid, text) VALUES (?1, ?2)")?.execute(params![id, t])?;
            }
        }
        self.conn.prepare_cached("DELETE FROM fts_pending")?.execute([])?;
        Ok(())
    }
}
