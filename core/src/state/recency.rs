//! LRU recency, the order eviction follows: every memory's row stores the tick of its last use. A
//! write stores its row's tick itself; a read's access is kept here in memory (reads never write)
//! and persisted into `access_tick` lazily — by writes that need exact LRU order, by maintenance and
//! on close — in transactions of a bounded number of rows.

use crate::base::error::Result;
use rusqlite::Connection;

/// The map of read accesses starts with room for this many entries (34 KiB), or the store's memory count
/// if smaller, then doubles. Reserving towards the store's size at once held 2.2 MB of wasm memory
/// from the first search on in a 100k-memory store (65,536 entries: 131,072 buckets of 17 bytes),
/// for the ~10 reads a search records.
const FIRST_RESERVE: usize = 1024;

/// Rows a flush updates per transaction of its own. Each row changes a page of `memories` and one of
/// `memories_lru`, and an atomic host (a Durable Object, the npm package's file stores) keeps a transaction's
/// rollback journal in wasm memory, a copy of every page it changes, which wasm never gives back: flushed in one
/// transaction, the reads of 2,000 searches (hits of a 10k-memory store) took the heap from 20 to 92 MB.
const FLUSH_ROWS: usize = 96;

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

    /// Whether more reads wait than one transaction of a flush takes.
    pub fn backlog(&self) -> bool {
        self.reads.len() > FLUSH_ROWS
    }

    /// Persists the read recency into `access_tick`: inside the caller's transaction, else in transactions of
    /// [`FLUSH_ROWS`] rows (after a failure the reads stay, the rows already committed included, and the next
    /// flush writes them again).
    pub fn flush(&mut self, c: &Connection) -> Result<()> {
        if self.reads.is_empty() {
            return Ok(());
        }
        let own_tx = c.is_autocommit();
        let r = (|| -> Result<()> {
            let mut st = c.prepare_cached("UPDATE memories SET access_tick = ?2 WHERE id = ?1")?;
            for (n, (id, t)) in self.reads.iter().enumerate() {
                if own_tx && n % FLUSH_ROWS == 0 {
                    c.execute_batch(if n == 0 { "BEGIN IMMEDIATE" } else { "COMMIT; BEGIN IMMEDIATE" })?;
                }
                st.execute(rusqlite::params![id, *t as i64])?;
            }
            if own_tx {
                c.execute_batch("COMMIT")?;
            }
            Ok(())
        })();
        match r {
            Ok(()) => self.reads.clear(),
            Err(_) if own_tx => {
                let _ = c.execute_batch("ROLLBACK");
            }
            Err(_) => {}
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use crate::base::types::MemoryPut;
    use crate::config::Caps;
    use crate::{MemoryPageStore, PageStore, Storage, Store, StoreConfig};
    use std::cell::Cell;
    use std::rc::Rc;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A page store that remembers the longest rollback journal written to it.
    #[derive(Default)]
    struct Journals {
        inner: MemoryPageStore,
        longest: Cell<u64>,
    }

    impl PageStore for Journals {
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
            self.inner.get(key)
        }
        fn put(&self, key: &str, value: &[u8]) -> Result<(), String> {
            if key == "journal/size" {
                let len = u64::from_le_bytes(value.try_into().map_err(|_| "journal/size is not 8 bytes")?);
                self.longest.set(self.longest.get().max(len));
            }
            self.inner.put(key, value)
        }
        fn delete(&self, key: &str) -> Result<(), String> {
            self.inner.delete(key)
        }
    }

    const MEMORIES: usize = 3000;

    /// 3,000 memories of ~3 KB, every one of them read since the last flush.
    fn read_store(caps: Caps) -> (Store, Rc<Journals>, i64) {
        let pages = Rc::new(Journals::default());
        let cfg = StoreConfig {
            storage: Storage::Pages { store: pages.clone(), atomic: false },
            caps,
            ..StoreConfig::memory(0)
        };
        let mut s = Store::open(cfg).unwrap();
        let ns = vec!["t".to_string()];
        for start in (0..MEMORIES).step_by(500) {
            let batch = (start..start + 500)
                .map(|i| MemoryPut {
                    namespace: ns.clone(),
                    key: format!("k{i}"),
                    value: serde_json::json!(format!("{i:0>3000}")),
                    ..Default::default()
                })
                .collect();
            s.put_batch(batch).unwrap();
        }
        let written: i64 = s.conn.query_row("SELECT MAX(access_tick) FROM memories", [], |r| r.get(0)).unwrap();
        for i in 0..MEMORIES {
            assert!(s.get(&ns, &format!("k{i}")).unwrap().is_some());
        }
        pages.longest.set(0);
        (s, pages, written)
    }

    /// Rows whose stored tick is a read's, newer than every write's.
    fn persisted(s: &Store, written: i64) -> i64 {
        s.conn.query_row("SELECT COUNT(*) FROM memories WHERE access_tick > ?1", [written], |r| r.get(0)).unwrap()
    }

    /// A flush of every read journals no more than one bounded transaction's pages (96 rows: at most a
    /// page each, and a few of `memories_lru`), not a copy of every page the reads touched (24.7 MB for these
    /// 3,000 rows in one transaction), and persists every read's tick: by the sweep, and before a write under
    /// caps.
    #[test]
    fn a_flush_journals_a_bounded_number_of_pages() {
        const BOUND: u64 = (96 + 32) * (8192 + 8);
        let (mut s, pages, written) = read_store(Caps::default());
        assert_eq!(persisted(&s, written), 0);
        s.sweep().unwrap();
        assert_eq!(persisted(&s, written), MEMORIES as i64);
        assert!(pages.longest.get() <= BOUND, "journal of {} bytes", pages.longest.get());

        let (mut s, pages, written) = read_store(Caps { max_bytes: 0, max_memories: 10 * MEMORIES as u64 });
        s.put(MemoryPut {
            namespace: vec!["t".into()],
            key: "new".into(),
            value: serde_json::json!(1),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(persisted(&s, written), MEMORIES as i64 + 1);
        assert!(pages.longest.get() <= BOUND, "journal of {} bytes", pages.longest.get());
    }
}
