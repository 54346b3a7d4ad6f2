//! The engine's memory budget: a store opened with `memory_budget` refuses writes that would take its
//! projected peak heap past it (QUOTA_EXCEEDED naming the budget), so a host such as a Durable Object
//! (128 MB per isolate, wasm memory never shrinks) refuses a write instead of being killed later.
//!
//! The projection is a model of where the heap goes, measured with the size bench (bench/node/heap.mjs):
//! the HNSW index (per vector: its graph copy plus ~165 B of graph, measured 362 B per 384-d i4 vector at 100k on
//! wasm), once — snapshots stream in and out of SQLite in pieces (vectors/snapshot.rs), never beside it —, plus
//! SQLite's bounded page cache and a fixed part: the module, write batches in flight, the index's lookups while
//! they grow (measured peaks, in use — searched, then written — where measured: 57.0 MB at 100k × 384 i4,
//! 73.8 MB at 100k × 384 i8 while loading, 23.5 MB at 10k × 384 i4; the model says 62.0, 80.8 and 29.4). The
//! same model runs natively and on wasm, so both refuse the same writes.
//!
//! The page cache and the index share [`CACHE_AND_INDEX_BYTES`]: the cache takes what the index leaves of it (and
//! of the budget, and of what the thread's other open stores hold above their floors), never less than
//! [`MIN_PAGE_CACHE_BYTES`] ([`PageCacheShare::fit`], on open, around each write and at the end of an import), so a
//! budget refuses the same writes as with a fixed cache of that floor. A small store's hot pages then
//! stay in memory — a 10k-memory hybrid search read 22 pages per call with 4 MiB and 13 with the 11 MiB it gets
//! (`edgemem-bench pages`), each a storage read in a Durable Object — while a large one's heap is the index plus
//! the floor, as before (at 100k a search's rows are spread over ~470 MB: a bigger cache buys few hits).

use crate::base::error::{Error, ErrorCode, Result};
use crate::config::{ScalarKind, StoreConfig};
use crate::state::index_state::{IndexOp, IndexState};
use rusqlite::Connection;

/// Graph bytes per indexed vector beside its scalars (neighbour lists, key and slot lookups), rounded up.
const GRAPH_BYTES_PER_VECTOR: u64 = 256;
/// What SQLite's page cache and the index share while the index is small (see the module doc).
const CACHE_AND_INDEX_BYTES: u64 = 16 << 20;
/// The least the page cache gets (store.rs `cache_size` before the index is loaded).
pub(crate) const MIN_PAGE_CACHE_BYTES: u64 = 4 << 20;
/// The rest of the heap beside the index and the cache.
const FIXED_BYTES: u64 = 12 << 20;
/// What the open stores of a thread hold of page cache above the floor together, at most.
const SHARED_ABOVE_FLOOR: u64 = CACHE_AND_INDEX_BYTES - MIN_PAGE_CACHE_BYTES;

thread_local! {
    /// The page cache the thread's open stores hold above the floor. On wasm that is every store of the instance,
    /// and a Durable Object's isolate may hold several objects: small stores side by side get the floor each and
    /// share [`SHARED_ABOVE_FLOOR`] beside it, not 16 MiB each. (A store never leaves its thread: it holds `Rc`s.)
    static CACHE_ABOVE_FLOOR: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The vectors `ops` add or replace in the index.
pub(crate) fn upserts(ops: &[IndexOp]) -> u64 {
    ops.iter().filter(|op| matches!(op, IndexOp::Upsert(..))).count() as u64
}

/// Bytes one vector takes in the index.
fn bytes_per_vector(cfg: &StoreConfig) -> u64 {
    let dims = cfg.dims as u64;
    let scalars = match cfg.scalar {
        ScalarKind::F32 => dims * 4,
        ScalarKind::F16 => dims * 2,
        ScalarKind::I8 => dims,
        // Two components a byte in 4-byte words, and the levels' inverse norm (vectors/nibbles.rs).
        ScalarKind::I4 => dims.div_ceil(8) * 4 + 4,
    };
    scalars + GRAPH_BYTES_PER_VECTOR
}

/// The page cache beside an index of `index_bytes`: what the index leaves of [`CACHE_AND_INDEX_BYTES`] and of
/// the memory budget beside the fixed part (a budget near full takes the cache down before it refuses a
/// write), at least [`MIN_PAGE_CACHE_BYTES`].
fn page_cache_bytes(cfg: &StoreConfig, index_bytes: u64) -> u64 {
    let mut room = CACHE_AND_INDEX_BYTES.saturating_sub(index_bytes);
    if cfg.memory_budget > 0 {
        room = room.min(cfg.memory_budget.saturating_sub(FIXED_BYTES + index_bytes));
    }
    room.max(MIN_PAGE_CACHE_BYTES)
}

/// Bytes the index takes, as the model counts them, with `extra` more vectors.
fn index_bytes(cfg: &StoreConfig, index: &IndexState, extra: u64) -> u64 {
    (index.get().map_or(0, |i| i.len() as u64) + extra) * bytes_per_vector(cfg)
}

/// The engine's projected peak heap with `extra` more vectors indexed (see the module doc): the index, the page
/// cache beside it (unrounded: index plus cache only grows with the index) and the fixed part.
pub(crate) fn projected_peak_bytes(cfg: &StoreConfig, index: &IndexState, extra: u64) -> u64 {
    let index = index_bytes(cfg, index, extra);
    index + page_cache_bytes(cfg, index) + FIXED_BYTES
}

/// The engine's heap now: on wasm the module's linear memory (what an isolate is charged for);
/// natively SQLite's allocations plus the index as the model counts it.
pub(crate) fn heap_bytes(cfg: &StoreConfig, index: &IndexState) -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (cfg, index);
        core::arch::wasm32::memory_size(0) as u64 * 65536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        // SAFETY: a plain counter read.
        let sqlite = unsafe { rusqlite::ffi::sqlite3_memory_used() }.max(0) as u64;
        sqlite + index.get().map_or(0, |i| i.len() as u64) * bytes_per_vector(cfg)
    }
}

/// Refuses a transaction whose index changes `ops` would take the projected peak past the budget. Writes
/// that index nothing (deletes, vector-less memories, checkpoints) always pass.
pub(crate) fn check(cfg: &StoreConfig, index: &IndexState, ops: &[IndexOp]) -> Result<()> {
    let budget = cfg.memory_budget;
    let added = upserts(ops);
    if budget == 0 || added == 0 {
        return Ok(());
    }
    let peak = projected_peak_bytes(cfg, index, added);
    if peak > budget {
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        return Err(Error::new(
            ErrorCode::QuotaExceeded,
            format!(
                "memory budget of {:.1} MiB ({budget} bytes) exceeded: indexing {added} more vector(s) would bring the engine's projected peak heap to {:.1} MiB",
                mib(budget),
                mib(peak)
            ),
        ));
    }
    Ok(())
}

/// The Store's part for its page cache: the bound `fit` last set.
#[derive(Debug)]
pub(crate) struct PageCacheShare {
    bytes: u64,
}

impl Default for PageCacheShare {
    fn default() -> Self {
        PageCacheShare { bytes: MIN_PAGE_CACHE_BYTES }
    }
}

impl PageCacheShare {
    /// Sizes SQLite's page cache to `page_cache_bytes` for the index with `extra` more vectors (a write calls it
    /// before its vectors go in, so the cache gives up their room first, and again after), in whole MiB (a
    /// growing index resizes it a dozen times at most), and within what the thread's other stores leave of
    /// [`CACHE_ABOVE_FLOOR`], and not past the live memories' bytes (`live_bytes`); a no-op while that is
    /// unchanged. Shrinking the cache frees the pages past its new bound at once.
    pub(crate) fn fit(
        &mut self,
        conn: &Connection,
        cfg: &StoreConfig,
        index: &IndexState,
        live_bytes: u64,
        extra: u64,
    ) -> Result<()> {
        let held = self.bytes - MIN_PAGE_CACHE_BYTES;
        let others = CACHE_ABOVE_FLOOR.get() - held;
        // No more than the live memories' bytes: a small store's pages fit in less, and leave the rest to others.
        let want = page_cache_bytes(cfg, index_bytes(cfg, index, extra)).min(live_bytes.max(MIN_PAGE_CACHE_BYTES));
        let want = want - MIN_PAGE_CACHE_BYTES;
        let above = want.min(SHARED_ABOVE_FLOOR.saturating_sub(others)) & !((1 << 20) - 1);
        let bytes = MIN_PAGE_CACHE_BYTES + above;
        if bytes != self.bytes {
            conn.pragma_update(None, "cache_size", -((bytes >> 10) as i64))?;
            CACHE_ABOVE_FLOOR.set(others + above);
            self.bytes = bytes;
        }
        Ok(())
    }

    /// Gives the store's page cache above the floor back to the thread's other stores (when it closes).
    pub(crate) fn release(&mut self) {
        CACHE_ABOVE_FLOOR.set(CACHE_ABOVE_FLOOR.get() - (self.bytes - MIN_PAGE_CACHE_BYTES));
        self.bytes = MIN_PAGE_CACHE_BYTES;
    }
}

#[cfg(test)]
mod tests {
    use crate::{Error, ErrorCode, Store, StoreConfig};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn put(s: &mut Store, key: &str, v: &[f32]) -> Result<(), Error> {
        let m = crate::base::types::MemoryPut {
            namespace: vec!["t".into()],
            key: key.into(),
            value: serde_json::json!(key),
            embedding: Some(v.to_vec()),
            ..Default::default()
        };
        s.put(m).map(|_| ())
    }

    fn vector(i: usize) -> Vec<f32> {
        (0..8).map(|d| ((i * 7 + d * 3) % 11) as f32 + 1.0).collect()
    }

    /// 8-d f32: 288 B per vector over the cache's floor and the fixed overhead. A budget with room
    /// for exactly 100 vectors takes 100 and refuses the 101st, coded and naming the budget; a batch is
    /// refused whole; writes that index nothing still pass; without a budget nothing is refused.
    #[test]
    fn writes_past_the_budget_are_refused() {
        let budget = super::MIN_PAGE_CACHE_BYTES + super::FIXED_BYTES + 288 * 100;
        let mut s = Store::open(StoreConfig { memory_budget: budget, ..StoreConfig::memory(8) }).unwrap();
        for i in 0..100 {
            put(&mut s, &format!("k{i}"), &vector(i)).unwrap();
        }
        let e = put(&mut s, "k100", &vector(100)).unwrap_err();
        assert_eq!(e.code, ErrorCode::QuotaExceeded);
        assert!(e.message.contains(&format!("{budget} bytes")), "{}", e.message);
        assert_eq!(s.stats().unwrap().memories, 100);
        // Without a vector, a write indexes nothing.
        s.put(crate::base::types::MemoryPut {
            namespace: vec!["t".into()],
            key: "plain".into(),
            value: serde_json::json!(1),
            ..Default::default()
        })
        .unwrap();
        // A delete frees room for one vector; a batch of two is then refused as a whole.
        s.delete(&["t".into()], "k0", None).unwrap();
        let batch = (0..2)
            .map(|i| crate::base::types::MemoryPut {
                namespace: vec!["t".into()],
                key: format!("b{i}"),
                value: serde_json::json!(i),
                embedding: Some(vector(200 + i)),
                ..Default::default()
            })
            .collect();
        assert_eq!(s.put_batch(batch).unwrap_err().code, ErrorCode::QuotaExceeded);
        assert_eq!(s.stats().unwrap().memories, 100);
        put(&mut s, "k100", &vector(100)).unwrap();
        let st = s.stats().unwrap();
        assert_eq!((st.memory_budget, st.projected_peak_bytes), (budget, budget));
        assert!(st.heap_bytes > 0);

        let mut free = Store::open(StoreConfig::memory(8)).unwrap();
        for i in 0..200 {
            put(&mut free, &format!("k{i}"), &vector(i)).unwrap();
        }
    }

    /// 4096-d f32: 16,640 B per vector as the model counts it, so 757 vectors take the index past what the
    /// share leaves the page cache above its floor.
    const BIG: usize = 4096;
    const BIG_VECTOR: u64 = 4 * BIG as u64 + super::GRAPH_BYTES_PER_VECTOR;

    /// Puts keys `k{from}`..`k{to}` with 4096-d vectors, in batches; `heavy`: each with a 150 KB value too
    /// (100 are 16.6 MB of live memories, more than the cache could take).
    fn fill(s: &mut Store, from: usize, to: usize, heavy: bool) {
        for start in (from..to).step_by(100) {
            let batch = (start..to.min(start + 100))
                .map(|i| crate::base::types::MemoryPut {
                    namespace: vec!["t".into()],
                    key: format!("k{i}"),
                    value: if heavy {
                        serde_json::json!(format!("{i}{}", "0".repeat(150_000)))
                    } else {
                        serde_json::json!(i)
                    },
                    embedding: Some((0..BIG).map(|d| ((i * 7 + d * 3) % 11) as f32 + 1.0).collect()),
                    ..Default::default()
                })
                .collect();
            s.put_batch(batch).unwrap();
        }
    }

    /// SQLite's page cache bound in KiB.
    fn cache_kib(s: &Store) -> i64 {
        -s.conn.query_row("PRAGMA cache_size", [], |r| r.get::<_, i64>(0)).unwrap()
    }

    /// The page cache takes what the index leaves of their 16 MiB share, in whole MiB, down to 4 MiB as the
    /// index grows and back up as it shrinks, and never more than the live memories' bytes (an empty store has
    /// the floor); a reopened store starts at the size its index leaves; a budget leaves it no more than the
    /// room beside the index and the fixed part. The projected peak stays flat while the cache can give way.
    #[test]
    fn the_page_cache_takes_what_the_index_leaves() {
        let pages = std::rc::Rc::new(crate::MemoryPageStore::new());
        let cfg = || StoreConfig {
            storage: crate::Storage::Pages { store: pages.clone(), atomic: false },
            ..StoreConfig::memory(BIG)
        };
        let mut s = Store::open(cfg()).unwrap();
        assert_eq!(cache_kib(&s), 4 << 10);
        let flat = super::CACHE_AND_INDEX_BYTES + super::FIXED_BYTES;
        assert_eq!(s.stats().unwrap().projected_peak_bytes, flat);
        fill(&mut s, 0, 100, true); // 1.6 MiB of index: 14 MiB of cache
        assert_eq!(cache_kib(&s), 14 << 10);
        assert_eq!(s.stats().unwrap().projected_peak_bytes, flat);
        fill(&mut s, 100, 800, false); // past 12 MiB of index: the floor
        assert_eq!(cache_kib(&s), 4 << 10);
        let floor = super::MIN_PAGE_CACHE_BYTES + super::FIXED_BYTES;
        assert_eq!(s.stats().unwrap().projected_peak_bytes, 800 * BIG_VECTOR + floor);
        s.close().unwrap();
        let mut s = Store::open(cfg()).unwrap();
        assert_eq!(cache_kib(&s), 4 << 10);
        for i in 100..800 {
            s.delete(&["t".into()], &format!("k{i}"), None).unwrap();
        }
        assert_eq!(cache_kib(&s), 14 << 10);
        assert_eq!(s.stats().unwrap().projected_peak_bytes, flat);
        drop(s); // its cache above the floor goes back to the thread's share

        let budget = super::FIXED_BYTES + (8 << 20);
        let mut s = Store::open(StoreConfig { memory_budget: budget, ..StoreConfig::memory(BIG) }).unwrap();
        fill(&mut s, 0, 100, true); // 8 MiB less 1.6 of index
        assert_eq!(cache_kib(&s), 6 << 10);
        assert_eq!(s.stats().unwrap().projected_peak_bytes, budget);
    }

    /// Stores open side by side on a thread (on wasm: in one instance, as Durable Objects sharing an isolate)
    /// share the cache above the floor: the first takes what it needs of it, the next what is left, until the
    /// first gives it back.
    #[test]
    fn open_stores_share_the_cache_above_the_floor() {
        let mut first = Store::open(StoreConfig::memory(BIG)).unwrap();
        fill(&mut first, 0, 100, true);
        assert_eq!(cache_kib(&first), 14 << 10);
        let mut second = Store::open(StoreConfig::memory(BIG)).unwrap();
        fill(&mut second, 0, 100, true);
        assert_eq!(cache_kib(&second), 6 << 10);
        drop(first);
        fill(&mut second, 100, 200, false); // 3.2 MiB of index: 12 MiB of cache
        assert_eq!(cache_kib(&second), 12 << 10);
    }

    /// The cache follows the live bytes: a store without vectors gets more as writes fill it, and a store an
    /// import filled gets its share when the import ends (while it runs the store counts no live bytes).
    #[test]
    fn the_page_cache_follows_writes_and_imports() {
        let mut plain = Store::open(StoreConfig::memory(0)).unwrap();
        assert_eq!(cache_kib(&plain), 4 << 10);
        let batch = (0..20)
            .map(|i| crate::base::types::MemoryPut {
                namespace: vec!["t".into()],
                key: format!("p{i}"),
                value: serde_json::json!("0".repeat(200_000)),
                ..Default::default()
            })
            .collect();
        plain.put_batch(batch).unwrap();
        let live = plain.usage.bytes;
        assert!(live > 5 << 20 && live < 15 << 20, "{live} live bytes");
        assert_eq!(cache_kib(&plain), ((live >> 20) << 10) as i64);
        drop(plain);

        let mut source = Store::open(StoreConfig::memory(BIG)).unwrap();
        fill(&mut source, 0, 100, true);
        let ndjson = source.export_ndjson_for_tests();
        drop(source);
        let mut copy = Store::open(StoreConfig::memory(BIG)).unwrap();
        assert_eq!(cache_kib(&copy), 4 << 10);
        assert!(copy.import_ndjson(&ndjson, crate::ImportChunk::WHOLE).unwrap().done);
        assert_eq!(cache_kib(&copy), 14 << 10);
    }
}
