//! The `Store`: opening and closing a database, the write-transaction discipline every mutation
//! goes through (one seq per change, events and in-memory effects applied only after COMMIT),
//! and the clock. Feature methods live in features/ and transfer/ as further `impl Store` blocks. The
//! in-memory state beside SQLite is kept in parts (state/), each a type with its own file that alone
//! changes it (the import gate, the page cache's share, the vector index, the lexical buffer, the term
//! cache, LRU recency, the change feed, usage); the parts take the connection, never the Store, so they
//! depend on nothing above them, and this file calls nothing but its own methods and its parts'.

use crate::base::clock::{system_now_ms, ClockFn};
use crate::base::error::{Error, ErrorCode, Result};
use crate::config::{ScalarKind, Storage, StoreConfig};
use crate::state::feed::{Event, Feed};
use crate::state::import_gate::ImportGate;
use crate::state::index_state::{IndexOp, IndexState};
use crate::state::lexical_buffer::{LexicalBuffer, LEXICAL_MERGE_PAGES};
use crate::state::memory_budget::{self, PageCacheShare, MIN_PAGE_CACHE_BYTES};
use crate::state::recency::Recency;
use crate::state::term_cache::TermCache;
use crate::state::usage::Usage;
use crate::storage::memdb;
use crate::storage::schema;
use crate::storage::vfs;
use rusqlite::{Connection, OpenFlags};

/// State of one write transaction.
pub(crate) struct Tx {
    pub now: i64,
    /// The last seq committed before this transaction.
    pub start: u64,
    pub seq: u64,
    pub usage: Usage,
    pub events: Vec<Event>,
    pub index_ops: Vec<IndexOp>,
    /// Rows written (their LRU tick is stored with them; stale read recency for them is dropped).
    pub touched: Vec<i64>,
    /// Full-text entries this transaction marked stale (see lexical_buffer.rs).
    pub lexical_marks: u64,
    /// This write began by inserting buffered vectors into the graph (wasm; see vectors/index.rs).
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
    /// The seq of the last committed change and its commit time.
    pub(crate) seq: u64,
    pub(crate) last_ts: i64,
    pub(crate) clock: Option<ClockFn>,
    /// Past versions before this seq were pruned by retention (features/memories/history.rs).
    pub(crate) history_floor: u64,
    /// Writes since `sweep` last ran (caps.rs runs it every few hundred).
    pub(crate) writes_since_sweep: u64,
    /// The vector index (state/index_state.rs).
    pub(crate) index: IndexState,
    /// Full-text marks waiting to be applied (state/lexical_buffer.rs).
    pub(crate) lexical: LexicalBuffer,
    /// What live searches cache of the full-text index (state/term_cache.rs).
    pub(crate) term_cache: TermCache,
    /// Live-memory accounting (state/usage.rs).
    pub(crate) usage: Usage,
    /// LRU order of reads (state/recency.rs).
    pub(crate) recency: Recency,
    /// Subscribers and the pruned floor of the change feed (state/feed.rs).
    pub(crate) feed: Feed,
    /// An unfinished streamed import (state/import_gate.rs): writes are refused until it ends.
    pub(crate) import: ImportGate,
    /// SQLite's page cache bound and its share of the thread's (state/memory_budget.rs).
    pub(crate) page_cache: PageCacheShare,
    /// A replica's local writes append their op to the outbox in their own transaction (features/replica.rs).
    pub(crate) outbox: bool,
    /// The pushed op the next write applies (features/replica.rs `put_once`), recorded in its transaction.
    pub(crate) write_tag: Option<(String, u64)>,
    vfs_name: Option<String>,
}

impl Store {
    /// Opens (creating if needed) a store. An existing store keeps the dims and metric it was
    /// created with; a different non-zero `dims` is DIMENSION_MISMATCH.
    pub fn open(cfg: StoreConfig) -> Result<Store> {
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        crate::wasm_rt::init();
        if cfg.dims > crate::vectors::index::MAX_DIMS {
            return Err(Error::invalid(format!("dims must be at most {}", crate::vectors::index::MAX_DIMS)));
        }
        if matches!(cfg.scalar, ScalarKind::I8 | ScalarKind::I4) && cfg.metric != crate::config::Metric::Cosine {
            // Both quantisations scale each vector: magnitudes (ip, l2) would be lost.
            return Err(Error::invalid("scalar i8 and i4 need metric cosine (their quantisation scales each vector)"));
        }
        #[cfg(target_arch = "wasm32")]
        if let Storage::File(_) = &cfg.storage {
            return Err(Error::invalid("file storage is native-only; on wasm use Storage::Pages or Storage::Memory"));
        }
        // Before anything initialises SQLite (configuration is refused after that).
        crate::storage::page_cache::install();
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
            seq: 0,
            last_ts: 0,
            clock: None,
            history_floor: 0,
            writes_since_sweep: 0,
            index: IndexState::default(),
            lexical: LexicalBuffer::default(),
            term_cache: TermCache::default(),
            usage: Usage::default(),
            recency: Recency::default(),
            feed: Feed::default(),
            import: ImportGate::default(),
            page_cache: PageCacheShare::default(),
            outbox: false,
            write_tag: None,
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
        let size = crate::storage::page_cache::shrink_cache(&self.conn)?;
        let opened = self.load_contents();
        crate::storage::page_cache::restore_cache(&self.conn, size)?;
        opened?;
        self.fit_page_cache(0)
    }

    fn load_contents(&mut self) -> Result<()> {
        let vectors = self.load_counters()?;
        self.import = ImportGate::load(&self.conn)?;
        self.lexical = LexicalBuffer::load(&self.conn)?;
        self.index = IndexState::open(&self.conn, &self.cfg, vectors, self.history_floor)?;
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
                    crate::config::Durability::Normal => "NORMAL", // survives process crash (no fsync per commit)
                    crate::config::Durability::Full => "FULL",     // survives power loss (fsync per commit)
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
                // Freed cell space is zeroed in the pages a commit writes anyway (no extra page, no
                // extra journal or log frame): a page's zeros are what the Durable Object leaves out
                // when it stores it (workers/src/page-hole.ts; 10k PUTs: workerd wrote 96 KiB per PUT
                // instead of 116). Other page stores pay only the zeroing.
                c.pragma_update(None, "secure_delete", "FAST")?;
            }
        }
        // The least page cache until the index is loaded and `fit_page_cache` sizes it (negative = KiB).
        c.pragma_update(None, "cache_size", -((MIN_PAGE_CACHE_BYTES >> 10) as i64))?;
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

    /// Loads the seq, usage, recency and floors; returns how many live memories have a vector.
    fn load_counters(&mut self) -> Result<u64> {
        let c = &self.conn;
        let (seq, ts) = crate::storage::time_index::last_commit(c)?.unwrap_or((0, 0));
        let meta_seq = schema::meta_u64(c, "seq_floor")?;
        self.seq = seq.max(meta_seq);
        self.last_ts = ts;
        let vectors;
        (self.usage, vectors) = Usage::load_with_vectors(&self.conn)?;
        self.recency = Recency::load(&self.conn)?;
        let c = &self.conn;
        self.history_floor = schema::meta_u64(c, "history_floor")?;
        self.feed = Feed::load(c)?;
        Ok(vectors)
    }

    /// Sizes SQLite's page cache for the index with `extra` more vectors and the live bytes
    /// (state/memory_budget.rs).
    pub(crate) fn fit_page_cache(&mut self, extra: u64) -> Result<()> {
        self.page_cache.fit(&self.conn, &self.cfg, &self.index, self.usage.bytes, extra)
    }

    pub(crate) fn reload_usage(&mut self) -> Result<()> {
        self.usage = Usage::load(&self.conn)?;
        Ok(())
    }

    /// Writes the vector index snapshot (with the seq it covers) into SQLite.
    pub fn snapshot_index(&mut self) -> Result<()> {
        self.index.snapshot(&self.conn, &self.cfg, self.seq)
    }

    /// The cheap part of `maintain()`: applies buffered full-text writes, takes a bounded step
    /// merging the full-text index's segments (lexical_buffer.rs), and puts buffered vectors in
    /// the HNSW graph (even when the full-text part fails), so
    /// neither a later write nor a search pays for them (no snapshot, no checkpoint). For hosts
    /// that run it whenever writes pause (the npm package does).
    pub fn flush_buffers(&mut self) -> Result<()> {
        let lexical =
            self.lexical.flush(&self.conn).and_then(|()| LexicalBuffer::merge(&self.conn, LEXICAL_MERGE_PAGES));
        self.index.flush();
        lexical
    }

    /// Whether a search would write pages now: a lexical or hybrid search applies the full-text write
    /// buffer before BM25 reads the index, and nothing else a search does writes a page. A host that
    /// runs reads outside its write transaction (the Worker's Durable Object) can run a search as a
    /// read when this is false.
    pub fn search_writes(&self) -> bool {
        self.lexical.pending() > 0
    }

    /// Idle-time work a host may schedule (an alarm, requestIdleCallback): applies buffered
    /// full-text writes (and a step merging its segments), inserts buffered vectors into the HNSW graph, snapshots the index when it
    /// changed since the last snapshot (so the next cold open replays little), and with file storage
    /// copies the WAL back into the database (see `WAL_CHECKPOINT_PAGES`).
    pub fn maintain(&mut self) -> Result<()> {
        self.flush_buffers()?;
        if self.index.changed() {
            self.snapshot_index()?;
        }
        if let Storage::File(_) = self.cfg.storage {
            self.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        }
        Ok(())
    }

    /// Flushes lazily kept state (LRU recency, the index snapshot) and closes the database.
    pub fn close(mut self) -> Result<()> {
        self.recency.flush(&self.conn)?;
        self.lexical.flush(&self.conn)?;
        if self.index.changed() {
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

    /// Runs `sql` as a cached statement (`execute_batch` would parse it again each time): not inlined into
    /// `write_tx`'s many instantiations.
    #[inline(never)]
    fn run_cached(&self, sql: &str) -> Result<()> {
        self.conn.prepare_cached(sql)?.execute([])?;
        Ok(())
    }

    /// Runs `f` in one SQLite transaction. Seqs, events, index changes and usage take effect
    /// only if COMMIT succeeds; on any error everything rolls back.
    pub(crate) fn write_tx<T>(&mut self, f: impl FnOnce(&mut Store, &mut Tx) -> Result<T>) -> Result<T> {
        self.import.check_writes()?;
        let now = self.now_ms().max(self.last_ts);
        // On wasm a full vector buffer is inserted by the next write, first thing (vectors/index.rs).
        #[cfg(target_family = "wasm")]
        let vectors_inserted = {
            let before = self.index.get().map_or(0, |i| i.pending_len());
            self.index.advance();
            self.index.get().map_or(0, |i| i.pending_len()) < before
        };
        #[cfg(not(target_family = "wasm"))]
        let vectors_inserted = false;
        // A write under caps may evict, which needs every read's recency persisted (features/memories/caps.rs) inside its
        // transaction: a backlog goes first, in bounded transactions of its own.
        if (self.cfg.caps.max_bytes > 0 || self.cfg.caps.max_memories > 0) && self.recency.backlog() {
            self.recency.flush(&self.conn)?;
        }
        let mut tx = Tx {
            now,
            start: self.seq,
            seq: self.seq,
            usage: self.usage,
            events: Vec::new(),
            index_ops: Vec::new(),
            touched: Vec::new(),
            lexical_marks: 0,
            vectors_inserted,
        };
        self.lexical.drop_mark(); // one a failed write left
        let tag = self.write_tag.take();
        self.run_cached("BEGIN IMMEDIATE")?;
        let mut lexical_applied = false;
        let out = f(self, &mut tx).and_then(|v| {
            if let Some((replica, op)) = &tag {
                self.record_applied_op(replica, *op, tx.seq)?;
            }
            memory_budget::check(&self.cfg, &self.index, &tx.index_ops)?;
            let index = self.index.get();
            if tx.lexical_marks > 0
                && self.lexical.due(tx.lexical_marks, tx.vectors_inserted, index, tx.index_ops.len())
            {
                self.lexical.apply(&self.conn)?;
                lexical_applied = true;
            }
            // No commit row: every seq has its event, which carries the commit's time (time_index.rs).
            self.run_cached("COMMIT")?;
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
        self.lexical.committed(tx.lexical_marks, lexical_applied);
        // Written rows carry their tick already; an older read tick must not overwrite it later.
        for id in tx.touched {
            self.recency.forget(id);
        }
        // The write is committed: a cache left at its old size is no reason to report it failed. The cache
        // gives up the room of the vectors the write adds before they go in, then follows the index and the
        // live bytes.
        let added = memory_budget::upserts(&tx.index_ops);
        if added > 0 {
            let _ = self.fit_page_cache(added);
        }
        if !tx.index_ops.is_empty() {
            self.index.apply(tx.index_ops, &self.conn, &self.cfg, self.seq);
        }
        let _ = self.fit_page_cache(0);
        for ev in &tx.events {
            self.feed.deliver(ev);
        }
        self.writes_since_sweep += 1;
        Ok(v)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.page_cache.release();
        if let Some(n) = self.vfs_name.take() {
            vfs::unregister_store(&n);
        }
    }
}
