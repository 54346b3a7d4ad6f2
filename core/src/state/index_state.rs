//! The Store's vector-index part: the in-memory HNSW index (USearch, vectors/index.rs), whether it
//! may disagree with SQLite (then it is rebuilt before its next use), and its snapshot in SQLite —
//! loaded and caught up on open, rewritten every `index_snapshot_every` changes and in maintenance.
//! SQLite holds the truth; writes reach the index as `IndexOp`s after their COMMIT.

use crate::base::error::{Error, Result};
use crate::config::StoreConfig;
use crate::vectors::index::{decode_vec, VectorIndex};
use rusqlite::Connection;

/// `meta` name of the highest memory id the index snapshot may hold (see `IndexState::replay_since`).
const SNAPSHOT_MAX_ID: &str = "index_snapshot_max_id";

/// A change to the vector index, applied after the SQLite commit that made it true.
pub(crate) enum IndexOp {
    Upsert(u64, Vec<f32>),
    Remove(u64),
}

#[derive(Default)]
pub(crate) struct IndexState {
    /// None when the store has no vectors (dims 0).
    index: Option<VectorIndex>,
    /// True when the in-memory index may disagree with SQLite; rebuilt before the next search.
    stale: bool,
    /// Vector changes since the last snapshot.
    changes: u64,
}

impl IndexState {
    /// Loads the index snapshot and replays the changes after it; rebuilds from SQLite when
    /// there is no usable snapshot. `vectors`: how many live memories have a vector (the index must
    /// hold as many); `history_floor`: past versions before it were pruned.
    pub fn open(conn: &Connection, cfg: &StoreConfig, vectors: u64, history_floor: u64) -> Result<IndexState> {
        let mut state = IndexState::default();
        if cfg.dims == 0 {
            return Ok(state);
        }
        let loaded = crate::vectors::snapshot::read(conn, cfg.dims, cfg.metric, cfg.scalar)?;
        if let Some((snap_seq, Ok(idx))) = loaded {
            state.index = Some(idx);
            // Replay finds changed memories through the versions closed since the snapshot: all there unless
            // retention pruned some of them.
            let replayable = history_floor <= snap_seq;
            if replayable
                && state.replay_since(conn, snap_seq).is_ok()
                && state.index.as_ref().is_some_and(|i| i.len() as u64 == vectors)
            {
                return Ok(state);
            }
        }
        state.rebuild(conn, cfg)?;
        Ok(state)
    }

    /// Brings the index from its snapshot at `snap_seq` up to SQLite: a memory whose vector may have
    /// changed since either had a version closed after it (an update, delete, expiry or eviction) or an id
    /// above the snapshot's highest (a new key: a new id is above it, features/memories/crud.rs). Each gets its current
    /// vector, or leaves the index.
    fn replay_since(&mut self, conn: &Connection, snap_seq: u64) -> Result<()> {
        let Some(rusqlite::types::Value::Integer(max_id)) = crate::storage::schema::meta_get(conn, SNAPSHOT_MAX_ID)?
        else {
            return Err(Error::internal("the index snapshot has no highest id"));
        };
        let changed: Vec<(i64, Option<Vec<u8>>)> = {
            let mut st = conn.prepare(
                "SELECT c.id, m.embedding FROM (SELECT mem_id AS id FROM versions WHERE seq_to > ?1
                 UNION SELECT id FROM memories WHERE id > ?2) c LEFT JOIN memories m ON m.id = c.id",
            )?;
            let rows = st.query_map([snap_seq as i64, max_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        self.changes += changed.len() as u64;
        let idx = self.index.as_mut().ok_or_else(|| Error::internal("no index"))?;
        for (id, emb) in changed {
            match emb {
                Some(b) => idx.upsert(id as u64, &decode_vec(&b))?,
                None => idx.remove(id as u64)?,
            }
        }
        Ok(())
    }

    /// Rebuilds the vector index from the embeddings in SQLite (the truth).
    pub fn rebuild(&mut self, conn: &Connection, cfg: &StoreConfig) -> Result<()> {
        let mut idx = VectorIndex::new(cfg.dims, cfg.metric, cfg.scalar)?;
        {
            let mut st = conn.prepare("SELECT id, embedding FROM memories WHERE embedding IS NOT NULL")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                let b: Vec<u8> = r.get(1)?;
                idx.upsert(id as u64, &decode_vec(&b))?;
            }
        }
        idx.flush()?;
        self.changes = idx.len() as u64;
        self.index = Some(idx);
        self.stale = false;
        Ok(())
    }

    /// The index, for reads (None: the store has no vectors).
    pub fn get(&self) -> Option<&VectorIndex> {
        self.index.as_ref()
    }

    /// Whether the index changed since its last snapshot.
    pub fn changed(&self) -> bool {
        self.changes > 0
    }

    /// Writes the vector index snapshot (with the seq it covers, `seq`) into SQLite.
    pub fn snapshot(&mut self, conn: &Connection, cfg: &StoreConfig, seq: u64) -> Result<()> {
        self.ensure_fresh(conn, cfg)?;
        let Some(idx) = self.index.as_mut() else { return Ok(()) };
        // The ids the snapshot may hold end at the highest live id; every id a write makes later is above it
        // (features/memories/crud.rs). Read before the snapshot is written and recorded after: a crash between leaves the
        // previous snapshot's mark, lower or higher; a replay then upserts every id above it (again, for some)
        // and every memory changed since the snapshot's seq, which covers the new snapshot's too.
        let max_id: i64 = conn.query_row("SELECT COALESCE(MAX(id), 0) FROM memories", [], |r| r.get(0))?;
        crate::vectors::snapshot::write(conn, seq, idx)?;
        crate::storage::schema::meta_set(conn, SNAPSHOT_MAX_ID, max_id)?;
        self.changes = 0;
        Ok(())
    }

    /// Lets buffered vectors move on towards the graph between writes (see `VectorIndex::advance`).
    pub fn advance(&mut self) {
        if let Some(idx) = self.index.as_mut() {
            if idx.advance().is_err() {
                self.stale = true;
            }
        }
    }

    /// Puts every buffered vector in the HNSW graph now.
    pub fn flush(&mut self) {
        if let Some(idx) = self.index.as_mut() {
            if idx.flush().is_err() {
                self.stale = true;
            }
        }
    }

    pub fn ensure_fresh(&mut self, conn: &Connection, cfg: &StoreConfig) -> Result<()> {
        if self.stale {
            self.rebuild(conn, cfg)?;
        }
        Ok(())
    }

    /// Applies a committed write's changes (its seq: `seq`), and snapshots the index when
    /// `index_snapshot_every` changes have piled up since the last snapshot.
    pub fn apply(&mut self, ops: Vec<IndexOp>, conn: &Connection, cfg: &StoreConfig, seq: u64) {
        let Some(idx) = self.index.as_mut() else { return };
        // On wasm a batch (already a long write) inserts a full buffer now rather than leave it to
        // the next write (natively every upsert already hands the buffer on: `VectorIndex::bound`).
        let batch = cfg!(target_family = "wasm") && ops.len() > 1;
        for op in ops {
            self.changes += 1;
            let r = match op {
                IndexOp::Upsert(id, v) => idx.upsert(id, &v),
                IndexOp::Remove(id) => idx.remove(id),
            };
            if r.is_err() {
                // SQLite already holds the truth; rebuild the index before it is used again.
                self.stale = true;
            }
        }
        if batch {
            self.advance();
        }
        if cfg.index_snapshot_every > 0
            && self.changes >= cfg.index_snapshot_every
            && self.snapshot(conn, cfg, seq).is_err()
        {
            self.stale = true;
        }
    }

    /// Adds the live vectors an import chunk committed, then puts them in the graph. They count as changes, so
    /// the next `maintain()` (or close) snapshots the index: without a snapshot a reopened store rebuilds it.
    pub fn add_imported(&mut self, adds: &[(u64, Vec<f32>)]) {
        self.changes += adds.len() as u64;
        if let Some(idx) = self.index.as_mut() {
            for (id, v) in adds {
                if idx.upsert(*id, v).is_err() {
                    self.stale = true;
                }
            }
            if idx.flush().is_err() {
                self.stale = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{MemoryPageStore, MemoryPut, SearchQuery, Storage, Store, StoreConfig};
    use serde_json::json;
    use std::rc::Rc;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Memories' ids have no AUTOINCREMENT (schema v10): an id freed after an index snapshot may come back,
    /// yet a new memory is found by the snapshot's replay on reopen, not by a rebuild of the whole index —
    /// a new id is above the snapshot's highest too.
    #[test]
    fn a_new_id_is_above_the_index_snapshot_so_a_reopen_replays() {
        let pages = Rc::new(MemoryPageStore::new());
        let open = || {
            let storage = Storage::Pages { store: pages.clone(), atomic: true };
            Store::open(StoreConfig { storage, ..StoreConfig::memory(4) }).unwrap()
        };
        let v = |i: usize| vec![1.0, i as f32, (i * i % 7) as f32, 0.5];
        let put = |i: usize| MemoryPut::new(&["p"], &format!("k{i}"), json!(i)).embedding(v(i));
        let mut s = open();
        s.put_batch((1..=20).map(put).collect()).unwrap();
        s.delete(&["p".to_string()], "k19", None).unwrap(); // id 19, before the snapshot
        s.maintain().unwrap(); // the snapshot holds ids up to 20
        s.delete(&["p".to_string()], "k20", None).unwrap(); // the highest id, after it
        s.put(put(21)).unwrap();
        drop(s); // no close: the index is the snapshot and its replay
        let mut s = open();
        assert!(s.index.changes <= 2, "{} changes: the index was rebuilt", s.index.changes);
        let q = SearchQuery { vector: Some(v(21)), k: Some(1), ..Default::default() };
        assert_eq!(s.search(&q).unwrap()[0].key, "k21");
        assert_eq!(s.stats().unwrap().index_vectors, 19);
    }

    /// An import's vectors are snapshotted by the next `maintain()`: the reopened store loads the index, not a
    /// rebuild from every stored vector (a Durable Object evicted after an import paid that on its first call).
    #[test]
    fn an_import_is_snapshotted_by_maintain_so_a_reopen_loads_the_index() {
        let v = |i: usize| vec![1.0, i as f32, (i * i % 7) as f32, 0.5];
        let mut source = Store::open(StoreConfig::memory(4)).unwrap();
        let puts = (1..=30).map(|i| MemoryPut::new(&["p"], &format!("k{i}"), json!(i)).embedding(v(i)));
        source.put_batch(puts.collect()).unwrap();
        let ndjson = source.export_ndjson_for_tests();
        let pages = Rc::new(MemoryPageStore::new());
        let open = || {
            let storage = Storage::Pages { store: pages.clone(), atomic: true };
            Store::open(StoreConfig { storage, ..StoreConfig::memory(4) }).unwrap()
        };
        let mut s = open();
        assert!(s.import_ndjson(&ndjson, crate::ImportChunk::WHOLE).unwrap().done);
        s.maintain().unwrap();
        drop(s); // no close: what a reopen finds is what maintain() left
        let mut s = open();
        assert_eq!(s.index.changes, 0, "the index was rebuilt on reopen: no snapshot after the import");
        let q = SearchQuery { vector: Some(v(21)), k: Some(1), ..Default::default() };
        assert_eq!(s.search(&q).unwrap()[0].key, "k21");
    }
}
