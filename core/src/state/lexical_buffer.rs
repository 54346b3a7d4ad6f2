//! The lexical (FTS5) write buffer: writes mark a memory's full-text entry stale instead of
//! updating FTS5 in their own transaction, and the marks are applied in batches — before any
//! lexical or hybrid search reads the index, by the write that fills the buffer (or the vector
//! index's), and in `maintain()` / `close()` / `sweep()`.
//!
//! A mark rides on the change event of the write that makes it (schema v9): `events.fts_id` is the
//! memory's id, `events.fts_indexed` whether FTS held an entry for the text the row had before the
//! change — that text is the version the change closed (`versions.seq_to` = the event's seq). The
//! marks waiting are those of the events after `meta.fts_applied_seq`, the first per id standing.
//! Every write appends its event anyway, so a mark costs no page of its own (a table of marks cost
//! a PUT one page of the ~8 it writes). The sweep applies marks before it prunes events or history.
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

use crate::base::error::Result;
use crate::vectors::index::VectorIndex;
use rusqlite::{params, Connection};

/// Marks applied together in one write's transaction once this many are waiting.
pub const LEXICAL_BUFFER_ROWS: u64 = 256;

/// FTS5 leaf pages (~4 KB each) one [`LexicalBuffer::merge`] step writes at most. Every buffer
/// apply leaves a segment, and a term lookup seeks into each; FTS5's own automerge only merges a
/// level once it holds four. Merging level by level — a level with two or more segments becomes
/// one segment a level up (`usermerge` 2, schema v4) — keeps at most one segment per level at
/// an amortised cost per document logarithmic in the index size, and the step bound keeps each
/// idle step short on a big index.
pub const LEXICAL_MERGE_PAGES: i64 = 512;

/// The merge step of a search's buffer apply ([`LexicalBuffer::flush`]). A search right after a
/// write applies that one write: a one-document segment, which FTS5's automerge, paced by the
/// pages a flush writes, leaves unmerged for long, so segments piled up and every term lookup
/// (BM25 lists, document counts, feedback holders) sought into each. Merged level by level here,
/// a search after a PUT took 877 µs instead of 1,013 (p50, wasm under Wasmtime, 10k memories ×
/// 384 i4, `edgemem-bench latency`): the merge costs ~50 µs and the reads save ~180. Merging
/// leaves BM25's statistics, and so every score, as they were.
pub const LEXICAL_FLUSH_MERGE_PAGES: i64 = 64;

/// The events after those whose marks are applied (meta `fts_applied_seq`: every mark on an event at
/// or below it is in FTS5), as a condition on `events e`.
macro_rules! waiting {
    () => {
        "e.seq > COALESCE((SELECT value FROM meta WHERE name = 'fts_applied_seq'), 0)"
    };
}

/// A memory's full-text entry marked stale by a write: the id, and whether FTS holds an entry for the
/// text the row had before the change. Held until the write's event for that memory takes it (`mark`,
/// `take_mark`).
pub(crate) type Mark = (i64, bool);

/// The Store's full-text part: how many marks wait, and the version of the full-text index that
/// cached per-term results are checked against.
#[derive(Default)]
pub(crate) struct LexicalBuffer {
    /// Marks committed and not applied yet.
    pending: u64,
    /// Moves whenever the full-text index may change (buffer applies, import): what cached
    /// per-term BM25 lists (`search::term_scores`) are checked against.
    version: u64,
    /// The mark of the memory whose event the current write appends next.
    held: Option<Mark>,
}

impl LexicalBuffer {
    /// Counts the marks left by earlier sessions (on open).
    pub fn load(conn: &Connection) -> Result<LexicalBuffer> {
        let n: i64 = conn.query_row(
            concat!("SELECT COUNT(*) FROM events e WHERE ", waiting!(), " AND fts_id IS NOT NULL"),
            [],
            |r| r.get(0),
        )?;
        Ok(LexicalBuffer { pending: n as u64, version: 0, held: None })
    }

    /// Marks memory `id`'s FTS entry stale in the current write, for the write's next event: a write
    /// marks a memory as it changes it and appends that change's event next (features/memories/crud.rs), so every
    /// mark reaches the event of its memory. With `indexed` FTS holds an entry for the row's text
    /// before the change. If the id was marked already, the first mark stands (`apply`). The write
    /// counts its marks and hands them to [`LexicalBuffer::committed`].
    pub fn mark(&mut self, id: i64, indexed: bool) {
        debug_assert!(self.held.is_none(), "a mark before the previous one's event");
        self.held = Some((id, indexed));
    }

    /// The mark held for the event being appended, if any.
    pub fn take_mark(&mut self) -> Option<Mark> {
        self.held.take()
    }

    /// Drops a mark a failed write held (its transaction rolled back).
    pub fn drop_mark(&mut self) {
        self.held = None;
    }

    /// Whether a write that made `marks` marks applies the buffer before it commits: when this write
    /// inserts into the vector graph anyway (wasm: it began by doing so, `vectors_inserted`;
    /// natively: its `index_ops` vector changes make it wait for the builder), so the batched work
    /// of both lands on one write instead of two; otherwise once it holds [`LEXICAL_BUFFER_ROWS`]
    /// marks — or, when the vector buffer is nearly full (its insert comes within a quarter of that
    /// many writes), once it holds twice as many.
    pub fn due(&self, marks: u64, vectors_inserted: bool, index: Option<&VectorIndex>, index_ops: usize) -> bool {
        if vectors_inserted || index.is_some_and(|i| i.write_will_insert(index_ops)) {
            return true;
        }
        let marks = self.pending + marks;
        let vectors_soon = index.is_some_and(|i| i.insert_due_within(LEXICAL_BUFFER_ROWS as usize / 4));
        marks >= LEXICAL_BUFFER_ROWS * if vectors_soon { 2 } else { 1 }
    }

    /// A write committed with `marks` new marks, having applied the buffer or not.
    pub fn committed(&mut self, marks: u64, applied: bool) {
        self.pending = if applied { 0 } else { self.pending + marks };
    }

    /// Marks committed and not applied yet.
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// The full-text index's version (see the field).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The full-text index was written directly (an import): cached results are stale.
    pub fn index_changed(&mut self) {
        self.version += 1;
    }

    /// Merges the full-text index's levels that hold two or more segments, writing at most
    /// `pages` FTS5 pages (a later call continues an unfinished merge). With nothing to merge it
    /// only reads FTS5's structure record.
    pub fn merge(conn: &Connection, pages: i64) -> Result<()> {
        conn.execute("INSERT INTO memories_fts (memories_fts, rank) VALUES ('merge', ?1)", [pages])?;
        Ok(())
    }

    /// Applies every mark to FTS5 in its own transaction (before a search, in maintenance), with a
    /// merge step of at most [`LEXICAL_FLUSH_MERGE_PAGES`].
    pub fn flush(&mut self, conn: &Connection) -> Result<()> {
        if self.pending == 0 {
            return Ok(());
        }
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let applied = self.apply(conn).and_then(|()| Self::merge(conn, LEXICAL_FLUSH_MERGE_PAGES));
        match applied.and_then(|()| Ok(conn.execute_batch("COMMIT")?)) {
            Ok(()) => {
                self.pending = 0;
                Ok(())
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Applies every waiting mark to FTS5 inside the current transaction, the first per id (in id
    /// order, as FTS5 takes rowids best), and records where they end.
    pub fn apply(&mut self, conn: &Connection) -> Result<()> {
        // Cached BM25 lists are stale from here on, whether or not the transaction commits.
        self.version += 1;
        let marks: Vec<(i64, Option<String>, Option<String>)> = {
            let mut st = conn.prepare_cached(concat!(
                "SELECT e.fts_id, (SELECT text FROM versions WHERE seq_to = e.seq AND e.fts_indexed), m.text
                 FROM events e LEFT JOIN memories m ON m.id = e.fts_id
                 WHERE e.seq IN (SELECT MIN(seq) FROM events e WHERE ",
                waiting!(),
                " AND fts_id IS NOT NULL GROUP BY fts_id) ORDER BY e.fts_id"
            ))?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for (id, old, new) in marks {
            if old == new {
                continue;
            }
            if let Some(t) = old {
                conn.prepare_cached("INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', ?1, ?2)")?
                    .execute(params![id, t])?;
            }
            if let Some(t) = new {
                conn.prepare_cached("INSERT INTO memories_fts (rowid, text) VALUES (?1, ?2)")?
                    .execute(params![id, t])?;
            }
        }
        // An update of the row in place: its key index stays as it is (a REPLACE would write both).
        conn.prepare_cached(
            "INSERT INTO meta (name, value) SELECT 'fts_applied_seq', MAX(seq) FROM events WHERE true HAVING MAX(seq) > 0
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        )?
        .execute([])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{MemoryPut, SearchMode, SearchQuery, Store, StoreConfig};
    use serde_json::json;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn segments(s: &Store) -> i64 {
        s.conn.query_row("SELECT COUNT(DISTINCT segid) FROM memories_fts_idx", [], |r| r.get(0)).unwrap()
    }

    fn lexical(s: &mut Store, text: &str) -> Vec<(String, i64)> {
        let q =
            SearchQuery { text: Some(text.into()), mode: Some(SearchMode::Lexical), k: Some(20), ..Default::default() };
        s.search(&q).unwrap().into_iter().map(|h| (h.key, (h.score * 1e9).round() as i64)).collect()
    }

    /// A search right after each write applies that write and merges as it goes: segments stay
    /// about one per level instead of piling up, and every score is what the same memories
    /// written in one batch give.
    #[test]
    fn searches_after_single_writes_keep_segments_few_and_scores_exact() {
        let words = ["otter", "river", "stone", "heron", "willow", "meadow", "lantern", "harbour"];
        let put = |n: usize| {
            let text = format!("{} {} note {n} {}", words[n % 8], words[(n / 8) % 8], words[(n * 5) % 8]);
            MemoryPut::new(&["m"], &format!("k{n}"), json!(n)).text(&text)
        };
        let queries = ["otter river", "heron", "lantern meadow note", "stone willow"];
        let mut interleaved = Store::open(StoreConfig::memory(0)).unwrap();
        interleaved.put_batch((0..100).map(put).collect()).unwrap();
        let mut most = 0;
        for n in 100..164 {
            interleaved.put(put(n)).unwrap();
            lexical(&mut interleaved, queries[n % 4]);
            most = most.max(segments(&interleaved));
        }
        assert!(most <= 3, "{most} segments");
        let mut batched = Store::open(StoreConfig::memory(0)).unwrap();
        batched.put_batch((0..164).map(put).collect()).unwrap();
        for q in queries {
            let (a, b) = (lexical_bits(&mut interleaved, q), lexical_bits(&mut batched, q));
            assert_eq!(a, b, "{q}");
            assert!(a.len() >= 10);
        }
    }

    fn paged(pages: &std::rc::Rc<crate::MemoryPageStore>, retention: crate::Retention) -> Store {
        let storage = crate::Storage::Pages { store: pages.clone(), atomic: true };
        Store::open(StoreConfig { storage, retention, ..StoreConfig::memory(0) }).unwrap()
    }

    fn keys(hits: Vec<(String, i64)>) -> Vec<String> {
        let mut k: Vec<String> = hits.into_iter().map(|h| h.0).collect();
        k.sort();
        k
    }

    /// Marks wait on the writes' events, not in a table of their own: none of a PUT's pages is a
    /// mark's. They outlast a reopen, the first mark per memory stands, and the scores after they
    /// are applied are those of the same memories written at once.
    #[test]
    fn marks_ride_on_events_and_outlast_a_reopen() {
        let pages = std::rc::Rc::new(crate::MemoryPageStore::new());
        let mut s = paged(&pages, Default::default());
        let put = |k: &str, t: &str| MemoryPut::new(&["m"], k, json!(k)).text(t);
        s.put_batch(vec![put("a", "otter river"), put("b", "heron stone"), put("c", "willow otter")]).unwrap();
        assert_eq!(keys(lexical(&mut s, "otter")), ["a", "c"]);
        s.put(put("a", "lantern meadow")).unwrap();
        s.put(put("a", "lantern harbour")).unwrap();
        s.delete(&["m".to_string()], "b", None).unwrap();
        s.put(put("d", "otter harbour")).unwrap();
        s.put(MemoryPut::new(&["m"], "e", json!({"no": "text"}))).unwrap();
        let tables: i64 = s
            .conn
            .query_row("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'fts_pending'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tables, 0);
        let marked: i64 = s
            .conn
            .query_row("SELECT COUNT(DISTINCT fts_id) FROM events WHERE seq > 3 AND fts_id IS NOT NULL", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(marked, 3, "a (twice), b, d; e has no text");
        assert_eq!(s.lexical.pending(), 4);
        drop(s); // no close: nothing applied on the way out
        let mut s = paged(&pages, Default::default());
        assert_eq!(s.lexical.pending(), 4);
        assert_eq!(keys(lexical(&mut s, "otter")), ["c", "d"]);
        assert_eq!(keys(lexical(&mut s, "harbour")), ["a", "d"]);
        assert!(lexical(&mut s, "heron").is_empty() && lexical(&mut s, "meadow").is_empty());
        assert_eq!(s.lexical.pending(), 0);
        let mut fresh = Store::open(StoreConfig::memory(0)).unwrap();
        fresh
            .put_batch(vec![put("a", "lantern harbour"), put("c", "willow otter"), put("d", "otter harbour")])
            .unwrap();
        for q in ["otter", "harbour lantern", "willow"] {
            assert_eq!(lexical_bits(&mut s, q), lexical_bits(&mut fresh, q), "{q}");
        }
    }

    /// The sweep prunes events and versions past their retention: it applies the marks first.
    #[test]
    fn the_sweep_applies_marks_before_it_prunes_their_events() {
        let pages = std::rc::Rc::new(crate::MemoryPageStore::new());
        let mut s = paged(&pages, crate::Retention { events_max: 2, ..Default::default() });
        for n in 0..20 {
            s.put(MemoryPut::new(&["m"], &format!("k{n}"), json!(n)).text(&format!("otter note{n}"))).unwrap();
        }
        assert_eq!(s.lexical.pending(), 20);
        s.sweep().unwrap();
        let events: i64 = s.conn.query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0)).unwrap();
        assert_eq!(events, 2);
        assert_eq!(s.lexical.pending(), 0);
        drop(s);
        let mut s = paged(&pages, crate::Retention { events_max: 2, ..Default::default() });
        assert_eq!(lexical(&mut s, "otter").len(), 20);
        assert_eq!(keys(lexical(&mut s, "note7")), ["k7"]);
        // A mark's text is the version its change closed: history retention prunes versions after marks apply.
        drop(s);
        let mut s = paged(&pages, crate::Retention { history_versions: 1, ..Default::default() });
        for t in ["heron one", "willow two", "lantern three"] {
            s.put(MemoryPut::new(&["m"], "k7", json!(7)).text(t)).unwrap();
        }
        s.sweep().unwrap();
        assert!(lexical(&mut s, "note7").is_empty() && lexical(&mut s, "heron").is_empty());
        assert_eq!(keys(lexical(&mut s, "lantern")), ["k7"]);
    }

    fn lexical_bits(s: &mut Store, text: &str) -> Vec<(String, u64)> {
        let q =
            SearchQuery { text: Some(text.into()), mode: Some(SearchMode::Lexical), k: Some(20), ..Default::default() };
        s.search(&q).unwrap().into_iter().map(|h| (h.key, h.score.to_bits())).collect()
    }

    /// Idle flushes merge the segments that buffer applies leave into one, step by step, and the
    /// scores stay exactly what they were.
    #[test]
    fn idle_flushes_merge_full_text_segments_without_changing_scores() {
        let mut s = Store::open(StoreConfig::memory(0)).unwrap();
        let words = ["otter", "river", "stone", "heron", "willow", "meadow", "lantern", "harbour"];
        for batch in 0..12 {
            let puts = (0..40)
                .map(|i| {
                    let n = batch * 40 + i;
                    let text = format!("{} {} note {n}", words[n % 8], words[(n / 8) % 8]);
                    MemoryPut::new(&["m"], &format!("k{n}"), json!(n)).text(&text)
                })
                .collect();
            s.put_batch(puts).unwrap();
            // One segment per batch, as the applies of full buffers by writes leave them.
            s.conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            s.lexical.apply(&s.conn).unwrap();
            s.conn.execute_batch("COMMIT").unwrap();
            s.lexical.committed(0, true);
        }
        assert!(segments(&s) > 1, "{} segments", segments(&s));
        let before: Vec<_> =
            ["otter river", "heron", "lantern meadow note"].iter().map(|q| lexical(&mut s, q)).collect();
        for _ in 0..8 {
            s.flush_buffers().unwrap();
        }
        assert_eq!(segments(&s), 1);
        let after: Vec<_> =
            ["otter river", "heron", "lantern meadow note"].iter().map(|q| lexical(&mut s, q)).collect();
        assert_eq!(after, before);
        assert!(!after[0].is_empty());
    }
}
