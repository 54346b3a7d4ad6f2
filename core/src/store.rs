//! The `Store`: opening and closing a database, the write-transaction discipline every mutation
//! goes through (one seq per change, events and in-memory effects applied only after COMMIT),
//! and the clock. Feature methods live in their own files as further `impl Store` blocks.

use crate::clock::{system_now_ms, ClockFn};
use crate::config::{Storage, StoreConfig};
use crate::error::{Error, ErrorCode, Result};
use crate::feed::{Event, Feed};
use crate::memdb;
use crate::schema;
use crate::vector_index::{decode_vec, VectorIndex};
use crate::vfs;
use rusqlite::{Connection, OpenFlags};

/// Live-memory accounting kept in memory (recomputed from SQLite on open).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Usage {
    pub bytes: u64,
    pub count: u64,
    pub pinned_bytes: u64,
    pub pinned_count: u64,
}

/// The LRU recency map grows at once to the store's memory count, up to this many entries (~1 MiB).
const RECENCY_RESERVE_MAX: usize = 1 << 16;

/// A change to the vector index, applied after the SQLite commit that made it true.
pub(crate) enum IndexOp {
    Upsert(u64, Vec<f32>),
    Remove(u64),
}

/// State of one write transaction.
pub(crate) struct Tx {
    pub now: i64,
    pub seq: u64,
    pub usage: Usage,
    pub events: Vec<Event>,
    pub index_ops: Vec<IndexOp>,
    /// Rows written (their LRU tick is stored with them; stale read recency for them is dropped).
    pub touched: Vec<i64>,
    /// Full-text entries this transaction marked stale (see lexical_buffer.rs).
    pub lexical_marks: u64,
    /// This write began by inserting buffered vectors into the graph (wasm; see vector_index.rs).
    pub vectors_inserted: bool,
}

impl Tx {
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }
}

/// File storage: SQLite copies the WAL back into the database (and fsyncs both) once it holds this
/// many pages (64 MiB), or when `maintain()` runs. At SQLite's default of 1,000 pages that happened on
/// one write in ~70 — measured natively on this VM's disk: PUT p99 10.2–13 ms; at 8,192 (10,000
/// measured) one in ~550: p99 243–264 µs, the write that does it 86 ms. Hosts that call `maintain()`
/// when idle never make a write wait for it.
const WAL_CHECKPOINT_PAGES: i64 = 8192;

pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) cfg: StoreConfig,
    pub(crate) index: Option<VectorIndex>,
    /// True when the in-memory index may disagree with SQLite; rebuilt before the next search.
    pub(crate) index_stale: bool,
    pub(crate) index_changes: u64,
    pub(crate) seq: u64,
    pub(crate) last_ts: i64,
    pub(crate) clock: Option<ClockFn>,
    pub(crate) usage: Usage,
    /// LRU recency: memory id -> access tick, persisted lazily (reads never write).
    pub(crate) recency: foldhash::HashMap<i64, u64>,
    pub(crate) tick: u64,
    pub(crate) feed: Feed,
    pub(crate) history_floor: u64,
    pub(crate) writes_since_sweep: u64,
    /// Full-text marks waiting in `fts_pending` (see lexical_buffer.rs).
    pub(crate) lexical_pending: u64,
    /// Lexical document frequencies: term -> (df, live memories when counted).
    pub(crate) df_cache: foldhash::HashMap<String, (u64, u64)>,
    /// Moves whenever the full-text index may change (buffer applies, import): what cached
    /// per-term BM25 lists (`term_scores`) are checked against.
    pub(crate) fts_version: u64,
    pub(crate) term_scores: crate::search::term_scores::TermScores,
    /// An unfinished streamed import (import_stream.rs): writes are refused until it ends.
    pub(crate) import: Option<crate::import_stream::ImportState>,
    vfs_name: Option<String>,
}

impl Store {
    /// Opens (creating if needed) a store. An existing store keeps the dims and metric it was
    /// created with; a different non-zero `dims` is DIMENSION_MISMATCH.
    pub fn open(cfg: StoreConfig) -> Result<Store> {
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        crate::wasm_rt::init();
        if cfg.dims > crate::vector_index::MAX_DIMS {
            return Err(Error::invalid(format!("dims must be at most {}", crate::vector_index::MAX_DIMS)));
        }
        if cfg.scalar == crate::config::ScalarKind::I8 && cfg.metric != crate::config::Metric::Cosine {
            // USearch's i8 quantisation normalises vectors: magnitudes (ip, l2) would be lost.
            return Err(Error::invalid("scalar i8 needs metric cosine (i8 quantisation normalises vectors)"));
        }
        #[cfg(target_arch = "wasm32")]
        if let Storage::File(_) = &cfg.storage {
            return Err(Error::invalid("file storage is native-only; on wasm use Storage::Pages or Storage::Memory"));
        }
        // Before anything initialises SQLite (configuration is refused after that).
        crate::page_cache::install();
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut vfs_name = None;
        let conn = match &cfg.storage {
            Storage::Memory => memdb::open(flags)?,
            Storage::File(path) => Connection::open_with_flags(path, flags)?,
            Storage::Pages { store, atomic } => {
                let name = vfs::register_store(store.clone(), *atomic).ok_or_else(|| {
                    Error::new(ErrorCode::Conflict, "this page store is already open in another Store")
                })?;
                vfs_name = Some(name.clone());
                Connection::open_with_flags_and_vfs(&name, flags, vfs::VFS_NAME)?
            }
        };
        let mut store = Store {
            conn,
            cfg,
            index: None,
            index_stale: false,
            index_changes: 0,
            seq: 0,
            last_ts: 0,
            clock: None,
            usage: Usage::default(),
            recency: Default::default(),
            tick: 0,
            feed: Feed::default(),
            history_floor: 0,
            writes_since_sweep: 0,
            lexical_pending: 0,
            df_cache: Default::default(),
            fts_version: 0,
            term_scores: Default::default(),
            import: None,
            vfs_name,
        };
        match store.init() {
            Ok(()) => Ok(store),
            Err(e) => {
                if let Some(n) = store.vfs_name.take() {
                    vfs::unregister_store(&n);
                }
                Err(e)
            }
        }
    }

    fn init(&mut self) -> Result<()> {
        self.configure_connection()?;
        schema::migrate(&mut self.conn)?;
        self.check_settings()?;
        // Opening scans whole indexes once (the counts, the index snapshot): through a small page cache.
        let size = crate::page_cache::shrink_cache(&self.conn)?;
        let opened = self.load_contents();
        crate::page_cache::restore_cache(&self.conn, size)?;
        opened
    }

    fn load_contents(&mut self) -> Result<()> {
        self.load_counters()?;
        self.load_import_state()?;
        self.load_lexical_buffer()?;
        self.open_index()?;
        Ok(())
    }

    fn configure_connection(&self) -> Result<()> {
        let c = &self.conn;
        // Temp tables/indices (sorts, the AS OF lexical scratch table) stay in memory.
        c.pragma_update(None, "temp_store", "MEMORY")?;
        c.pragma_update(None, "foreign_keys", false)?;
        c.set_prepared_statement_cache_capacity(64);
        // Query-planner stability: without it, a SQLite built with STAT4 (the native bundled
        // build) marks statements with range constraints on bound parameters (seq <= ?, ns >= ?)
        // to be re-prepared on every rebind — a ~12 µs recompile per cached-statement use.
        c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        // 8 KiB pages everywhere (the page store's chunk size): a memory with a 384-d f32 vector and
        // a 1 KB value is ~2.5 KB per row (twice: live row and its version), which 4 KiB pages split
        // on nearly every insert. Only takes effect when the database is created.
        c.pragma_update(None, "page_size", vfs::CHUNK as i64)?;
        match &self.cfg.storage {
            Storage::Memory => {}
            Storage::File(_) => {
                // WAL: readers never block, commits append; one process owns the file.
                c.pragma_update(None, "journal_mode", "WAL")?;
                c.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
                let sync = match self.cfg.sync {
                    crate::config::Sync::Normal => "NORMAL", // survives process crash (no fsync per commit)
                    crate::config::Sync::Full => "FULL",     // survives power loss (fsync per commit)
                };
                c.pragma_update(None, "synchronous", sync)?;
                c.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES)?;
            }
            Storage::Pages { atomic, .. } => {
                c.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
                // An atomic host (a DO's transactionSync) rolls back on its own: the VFS keeps
                // SQLite's rollback journal in this instance's memory (vfs::register_store), and
                // a sync has nothing to order (the host makes the whole call durable at once).
                // Otherwise the journal goes to the page store, for recovery after a crash.
                c.pragma_update(None, "journal_mode", "TRUNCATE")?;
                c.pragma_update(None, "synchronous", if *atomic { "OFF" } else { "NORMAL" })?;
            }
        }
        // A page cache big enough for a 10k-memory store (negative = KiB; memory_budget.rs counts it).
        c.pragma_update(None, "cache_size", -((crate::memory_budget::PAGE_CACHE_BYTES >> 10) as i64))?;
        Ok(())
    }

    /// Records dims/metric/scalar on creation; checks them on reopen.
    fn check_settings(&mut self) -> Result<()> {
        let dims = schema::meta_get(&self.conn, "dims")?;
        match dims {
            None => {
                schema::meta_set(&self.conn, "dims", self.cfg.dims as i64)?;
                schema::meta_set(&self.conn, "metric", self.cfg.metric.as_str())?;
                schema::meta_set(&self.conn, "scalar", self.cfg.scalar.as_str())?;
            }
            Some(v) => {
                let stored = match v {
                    rusqlite::types::Value::Integer(i) => i as usize,
                    _ => 0,
                };
                if self.cfg.dims != 0 && self.cfg.dims != stored {
                    return Err(Error::new(
                        ErrorCode::DimensionMismatch,
                        format!("store was created with dims {stored}, opened with {}", self.cfg.dims),
                    ));
                }
                self.cfg.dims = stored;
                if let Some(rusqlite::types::Value::Text(m)) = schema::meta_get(&self.conn, "metric")? {
                    self.cfg.metric = crate::config::Metric::parse(&m).unwrap_or(self.cfg.metric);
                }
                if let Some(rusqlite::types::Value::Text(s)) = schema::meta_get(&self.conn, "scalar")? {
                    self.cfg.scalar = crate::config::ScalarKind::parse(&s).unwrap_or(self.cfg.scalar);
                }
            }
        }
        Ok(())
    }

    fn load_counters(&mut self) -> Result<()> {
        let c = &self.conn;
        let (seq, ts): (Option<i64>, Option<i64>) = c
            .query_row("SELECT seq, ts FROM commits ORDER BY seq DESC LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok((None, None)),
                e => Err(e),
            })?;
        let meta_seq = meta_u64(c, "seq_floor")?;
        self.seq = (seq.unwrap_or(0) as u64).max(meta_seq);
        self.last_ts = ts.unwrap_or(0);
        self.reload_usage()?;
        let c = &self.conn;
        // Two seeks into memories_lru (pinned, access_tick, ...) rather than a scan of the table.
        self.tick = c.query_row(
            "SELECT MAX(COALESCE((SELECT MAX(access_tick) FROM memories WHERE pinned = 0), 0),
                        COALESCE((SELECT MAX(access_tick) FROM memories WHERE pinned = 1), 0))",
            [],
            |r| r.get::<_, i64>(0),
        )? as u64
            + 1;
        self.history_floor = meta_u64(c, "history_floor")?;
        self.feed.floor = meta_u64(c, "events_floor")?;
        Ok(())
    }

    pub(crate) fn reload_usage(&mut self) -> Result<()> {
        let c = &self.conn;
        let (bytes, count, pb, pc): (i64, i64, i64, i64) = c.query_row(
            // Covered by memories_lru (pinned, access_tick, size): a scan of that small index, not of the table.
            "SELECT COALESCE(SUM(size),0), COUNT(*), COALESCE(SUM(CASE WHEN pinned THEN size END),0), COALESCE(SUM(pinned),0)
             FROM memories INDEXED BY memories_lru",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
        self.usage =
            Usage { bytes: bytes as u64, count: count as u64, pinned_bytes: pb as u64, pinned_count: pc as u64 };
        Ok(())
    }

    /// Loads the index snapshot and replays the changes after it; rebuilds from SQLite when
    /// there is no usable snapshot.
    fn open_index(&mut self) -> Result<()> {
        if self.cfg.dims == 0 {
            return Ok(());
        }
        let loaded = crate::index_snapshot::read(&self.conn, self.cfg.dims, self.cfg.metric, self.cfg.scalar)?;
        if let Some((snap_seq, Ok(idx))) = loaded {
            self.index = Some(idx);
            if self.replay_index_since(snap_seq).is_ok() && self.index_matches_sqlite()? {
                return Ok(());
            }
        }
        self.rebuild_index()
    }

    fn replay_index_since(&mut self, snap_seq: u64) -> Result<()> {
        let removed: Vec<i64> = {
            let mut st = self.conn.prepare(
                "SELECT DISTINCT mem_id FROM versions WHERE seq_to > ?1 AND mem_id NOT IN (SELECT id FROM memories)",
            )?;
            let rows = st.query_map([snap_seq as i64], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let changed: Vec<(i64, Option<Vec<u8>>)> = {
            let mut st = self.conn.prepare("SELECT id, embedding FROM memories WHERE seq > ?1")?;
            let rows = st.query_map([snap_seq as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        self.index_changes += (removed.len() + changed.len()) as u64;
        let idx = self.index.as_mut().ok_or_else(|| Error::internal("no index"))?;
        for id in removed {
            idx.remove(id as u64)?;
        }
        for (id, emb) in changed {
            match emb {
                Some(b) => idx.upsert(id as u64, &decode_vec(&b))?,
                None => idx.remove(id as u64)?,
            }
        }
        Ok(())
    }

    fn index_matches_sqlite(&self) -> Result<bool> {
        // Counted in the partial index memories_vectors, not the table.
        let n: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM memories INDEXED BY memories_vectors WHERE embedding IS NOT NULL",
            [],
            |r| r.get(0),
        )?;
        Ok(self.index.as_ref().map(|i| i.len() as i64 == n).unwrap_or(false))
    }

    /// Rebuilds the vector index from the embeddings in SQLite (the truth).
    pub(crate) fn rebuild_index(&mut self) -> Result<()> {
        let mut idx = VectorIndex::new(self.cfg.dims, self.cfg.metric, self.cfg.scalar)?;
        {
            let mut st = self.conn.prepare("SELECT id, embedding FROM memories WHERE embedding IS NOT NULL")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                let b: Vec<u8> = r.get(1)?;
                idx.upsert(id as u64, &decode_vec(&b))?;
            }
        }
        idx.flush()?;
        self.index_changes = idx.len() as u64;
        self.index = Some(idx);
        self.index_stale = false;
        Ok(())
    }

    /// Writes the vector index snapshot (with the seq it covers) into SQLite.
    pub fn snapshot_index(&mut self) -> Result<()> {
        self.ensure_index_fresh()?;
        let seq = self.seq;
        let Some(idx) = self.index.as_mut() else { return Ok(()) };
        crate::index_snapshot::write(&self.conn, seq, idx)?;
        self.index_changes = 0;
        Ok(())
    }

    /// Lets buffered vectors move on towards the graph between writes (see `VectorIndex::advance`).
    pub(crate) fn advance_index(&mut self) {
        if let Some(idx) = self.index.as_mut() {
            if idx.advance().is_err() {
                self.index_stale = true;
            }
        }
    }

    pub(crate) fn ensure_index_fresh(&mut self) -> Result<()> {
        if self.index_stale {
            self.rebuild_index()?;
        }
        Ok(())
    }

    /// The cheap part of `maintain()`: applies buffered full-text writes, takes a bounded step
    /// merging the full-text index's segments (lexical_buffer.rs), and puts buffered vectors in
    /// the HNSW graph (even when the full-text part fails), so
    /// neither a later write nor a search pays for them (no snapshot, no checkpoint). For hosts
    /// that run it whenever writes pause (the npm package does).
    pub fn flush_buffers(&mut self) -> Result<()> {
        let lexical =
            self.flush_lexical().and_then(|()| self.merge_lexical(crate::lexical_buffer::LEXICAL_MERGE_PAGES));
        if let Some(idx) = self.index.as_mut() {
            if idx.flush().is_err() {
                self.index_stale = true;
            }
        }
        lexical
    }

    /// Idle-time work a host may schedule (an alarm, requestIdleCallback): applies buffered
    /// full-text writes (and a step merging its segments), inserts buffered vectors into the HNSW graph, snapshots the index when it
    /// changed since the last snapshot (so the next cold open replays little), and with file storage
    /// copies the WAL back into the database (see `WAL_CHECKPOINT_PAGES`).
    pub fn maintain(&mut self) -> Result<()> {
        self.flush_buffers()?;
        if self.index_changes > 0 {
            self.snapshot_index()?;
        }
        if let Storage::File(_) = self.cfg.storage {
            self.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        }
        Ok(())
    }

    /// Flushes lazily kept state (LRU recency, the index snapshot) and closes the database.
    pub fn close(mut self) -> Result<()> {
        self.flush_recency()?;
        self.flush_lexical()?;
        if self.index_changes > 0 {
            self.snapshot_index()?;
        }
        Ok(())
    }

    /// Replaces the wall clock (ms since epoch). Times the store records never go backwards.
    pub fn set_clock(&mut self, clock: ClockFn) {
        self.clock = Some(clock);
    }

    pub fn now_ms(&self) -> i64 {
        match &self.clock {
            Some(c) => c(),
            None => system_now_ms(),
        }
    }

    pub fn config(&self) -> &StoreConfig {
        &self.cfg
    }

    /// The seq of the last committed change.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Runs `f` in one SQLite transaction. Seqs, events, index changes and usage take effect
    /// only if COMMIT succeeds; on any error everything rolls back.
    pub(crate) fn write_tx<T>(&mut self, f: impl FnOnce(&mut Store, &mut Tx) -> Result<T>) -> Result<T> {
        self.check_not_importing()?;
        let now = self.now_ms().max(self.last_ts);
        // On wasm a full vector buffer is inserted by the next write, first thing (vector_index.rs).
        #[cfg(target_family = "wasm")]
        let vectors_inserted = {
            let before = self.index.as_ref().map_or(0, |i| i.pending_len());
            self.advance_index();
            self.index.as_ref().map_or(0, |i| i.pending_len()) < before
        };
        #[cfg(not(target_family = "wasm"))]
        let vectors_inserted = false;
        let mut tx = Tx {
            now,
            seq: self.seq,
            usage: self.usage,
            events: Vec::new(),
            index_ops: Vec::new(),
            touched: Vec::new(),
            lexical_marks: 0,
            vectors_inserted,
        };
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let mut lexical_applied = false;
        let out = f(self, &mut tx).and_then(|v| {
            self.check_memory_budget(&tx)?;
            if tx.lexical_marks > 0 && self.lexical_buffer_due(&tx) {
                self.apply_lexical_marks()?;
                lexical_applied = true;
            }
            if tx.seq > self.seq {
                self.conn
                    .prepare_cached("INSERT INTO commits (seq, ts) VALUES (?1, ?2)")?
                    .execute(rusqlite::params![tx.seq as i64, tx.now])?;
            }
            self.conn.execute_batch("COMMIT")?;
            Ok(v)
        });
        let v = match out {
            Ok(v) => v,
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        };
        self.seq = tx.seq;
        self.last_ts = tx.now;
        self.usage = tx.usage;
        self.lexical_pending = if lexical_applied { 0 } else { self.lexical_pending + tx.lexical_marks };
        // Written rows carry their tick already; an older read tick must not overwrite it later.
        for id in tx.touched {
            self.recency.remove(&id);
        }
        if !tx.index_ops.is_empty() {
            self.apply_index_ops(tx.index_ops);
        }
        for ev in &tx.events {
            self.feed.deliver(ev);
        }
        self.writes_since_sweep += 1;
        Ok(v)
    }

    fn apply_index_ops(&mut self, ops: Vec<IndexOp>) {
        let Some(idx) = self.index.as_mut() else { return };
        // On wasm a batch (already a long write) inserts a full buffer now rather than leave it to
        // the next write (natively every upsert already hands the buffer on: `VectorIndex::bound`).
        let batch = cfg!(target_family = "wasm") && ops.len() > 1;
        for op in ops {
            self.index_changes += 1;
            let r = match op {
                IndexOp::Upsert(id, v) => idx.upsert(id, &v),
                IndexOp::Remove(id) => idx.remove(id),
            };
            if r.is_err() {
                // SQLite already holds the truth; rebuild the index before it is used again.
                self.index_stale = true;
            }
        }
        if batch {
            self.advance_index();
        }
        if self.cfg.index_snapshot_every > 0
            && self.index_changes >= self.cfg.index_snapshot_every
            && self.snapshot_index().is_err()
        {
            self.index_stale = true;
        }
    }

    /// Persists in-memory LRU recency into `access_tick` (not a read's cost: called by writes
    /// that need exact LRU order, by maintenance and on close).
    pub(crate) fn flush_recency(&mut self) -> Result<()> {
        if self.recency.is_empty() {
            return Ok(());
        }
        let own_tx = self.conn.is_autocommit();
        if own_tx {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
        }
        let r = (|| -> Result<()> {
            let mut st = self.conn.prepare_cached("UPDATE memories SET access_tick = ?2 WHERE id = ?1")?;
            for (id, t) in &self.recency {
                st.execute(rusqlite::params![id, *t as i64])?;
            }
            Ok(())
        })();
        if own_tx {
            match &r {
                Ok(()) => self.conn.execute_batch("COMMIT")?,
                Err(_) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                }
            }
        }
        r?;
        self.recency.clear();
        Ok(())
    }

    /// Records a read access for LRU (memory only).
    pub(crate) fn touch(&mut self, id: i64) {
        // Grown in one step towards the store's size: doubling from empty rehashed it every time
        // it filled (~900, ~1,800 entries...), 60-100 µs on that one read in wasm.
        if self.recency.len() == self.recency.capacity() {
            let want = (self.usage.count as usize).clamp(1024, RECENCY_RESERVE_MAX);
            self.recency.reserve(want.saturating_sub(self.recency.len()).max(self.recency.len()));
        }
        self.recency.insert(id, self.tick);
        self.tick += 1;
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(n) = self.vfs_name.take() {
            vfs::unregister_store(&n);
        }
    }
}

pub(crate) fn meta_u64(c: &Connection, name: &str) -> Result<u64> {
    Ok(match schema::meta_get(c, name)? {
        Some(rusqlite::types::Value::Integer(i)) => i as u64,
        _ => 0,
    })
}
