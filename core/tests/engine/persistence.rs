//! Persistence: the host page-store hook, file storage, reopen without losing acknowledged
//! writes, the vector-index snapshot + replay, export / import, stats.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{
    AsOf, CheckpointData, CheckpointPut, MemoryPageStore, MemoryPut, ScalarKind, SearchQuery, Storage, Store,
    StoreConfig,
};
use serde_json::json;
use std::rc::Rc;

pub(crate) const DIMS: usize = 8;

fn paged(ps: &Rc<MemoryPageStore>, atomic: bool, snapshot_every: u64) -> Store {
    paged_as(ps, atomic, snapshot_every, ScalarKind::F32)
}

fn paged_as(ps: &Rc<MemoryPageStore>, atomic: bool, snapshot_every: u64, scalar: ScalarKind) -> Store {
    Store::open(StoreConfig {
        storage: Storage::Pages { store: ps.clone(), atomic },
        index_snapshot_every: snapshot_every,
        scalar,
        ..StoreConfig::memory(DIMS)
    })
    .expect("open paged store")
}

pub(crate) fn fill(s: &mut Store, rng: &mut Rng, n: usize, offset: usize) {
    let batch: Vec<MemoryPut> = (0..n)
        .map(|i| {
            MemoryPut::new(
                &["p", ["x", "y"][i % 2]],
                &format!("k{}", i + offset),
                json!(format!("memory number {} word{}", i + offset, i % 7)),
            )
            .embedding(rng.unit_vec(DIMS))
        })
        .collect();
    for chunk in batch.chunks(100) {
        s.put_batch(chunk.to_vec()).unwrap();
    }
}

pub(crate) fn probe(s: &mut Store, rng: &mut Rng) -> Vec<Vec<(String, u64)>> {
    probe_with(s, rng, true)
}

/// Top-10 keys for 8 random queries (hybrid, or vector-only where lexical ties would make the
/// order depend on internal row ids).
fn probe_with(s: &mut Store, rng: &mut Rng, with_text: bool) -> Vec<Vec<(String, u64)>> {
    (0..8)
        .map(|i| {
            let text = with_text.then(|| format!("word{i}"));
            let q = SearchQuery { vector: Some(rng.unit_vec(DIMS)), text, k: Some(10), ..Default::default() };
            s.search(&q).unwrap().into_iter().map(|h| (h.key, h.version)).collect()
        })
        .collect()
}

#[test]
fn page_store_reopen_keeps_everything() {
    for atomic in [true, false] {
        let ps = Rc::new(MemoryPageStore::new());
        let mut rng = Rng::new(1);
        let mut s = paged(&ps, atomic, 0);
        fill(&mut s, &mut rng, 300, 0);
        s.delete(&ns(&["p", "x"]), "k0", None).unwrap();
        s.put_checkpoint(CheckpointPut {
            channel_versions: Default::default(),
            blobs: Vec::new(),
            thread_id: "t".into(),
            checkpoint_ns: String::new(),
            checkpoint_id: "c".into(),
            parent_id: None,
            data: CheckpointData::Bytes(vec![9; 5000]),
            metadata: Default::default(),
        })
        .unwrap();
        let seq = s.seq();
        let before = probe(&mut s, &mut Rng::new(99));
        s.close().unwrap();
        let mut s = paged(&ps, atomic, 0);
        assert_eq!(s.seq(), seq);
        assert_eq!(probe(&mut s, &mut Rng::new(99)), before, "atomic={atomic}");
        assert!(value_of(&mut s, &["p", "x"], "k0").is_none());
        assert_eq!(s.get_at(&ns(&["p", "x"]), "k0", Some(AsOf::Seq(1))).unwrap().unwrap().key, "k0");
        assert_eq!(s.get_checkpoint("t", "", None).unwrap().unwrap().data, CheckpointData::Bytes(vec![9; 5000]));
        assert_eq!(s.stats().unwrap().memories, 299);
    }
}

/// A store opened without `atomic` that crashed half way through a write left its rollback journal in
/// the page store. Opened `atomic` (its journal in memory from then on), it still rolls that write back
/// from the page store's journal first, and removes the journal once it is empty.
#[test]
fn an_atomic_open_rolls_back_a_journal_left_in_the_page_store() {
    use edgemem_core::PageStore;
    for n in [5u64, 15, 30, 60] {
        let ps = Rc::new(MemoryPageStore::new());
        let mut s = paged(&ps, false, 0);
        fill(&mut s, &mut Rng::new(4), 200, 0);
        let (seq, want) = (s.seq(), probe(&mut s, &mut Rng::new(9)));
        ps.fail_puts_after(n);
        let mut rng = Rng::new(5);
        let batch: Vec<MemoryPut> = (0..100)
            .map(|i| {
                MemoryPut::new(&["p", "x"], &format!("k{i}"), json!(format!("torn {i}"))).embedding(rng.unit_vec(DIMS))
            })
            .collect();
        assert!(s.put_batch(batch).is_err(), "n={n}");
        let crashed = Rc::new(ps.copy()); // the pages as the failed write left them
        assert!(crashed.get("journal/size").unwrap().is_some(), "n={n}: a journal is left");
        let mut s2 = paged(&crashed, true, 0);
        assert_eq!((s2.seq(), probe(&mut s2, &mut Rng::new(9))), (seq, want.clone()), "n={n}");
        assert_eq!(value_of(&mut s2, &["p", "x"], "k0"), Some(json!("memory number 0 word0")), "n={n}");
        s2.put(MemoryPut::new(&["p", "x"], "after", json!("kept"))).unwrap();
        s2.close().unwrap();
        let mut s3 = paged(&crashed, true, 0);
        assert_eq!(value_of(&mut s3, &["p", "x"], "after"), Some(json!("kept")));
        assert_eq!(crashed.get("journal/size").unwrap(), None, "n={n}: the empty journal is removed");
        drop(s3);
        ps.set_fail_puts(false);
    }
}

/// The engine's page cache (core/src/page_cache.rs) is the one SQLite uses: installed before
/// SQLite initialised, natively and in wasm. Stores of thousands of pages, splitting pages as they
/// grow, and rolled back (the failed batch below) all run through it.
#[test]
fn the_engine_page_cache_is_installed() {
    let _s = paged(&Rc::new(MemoryPageStore::new()), true, 0);
    assert!(edgemem_core::page_cache_active());
}

/// A write that fails after it changed pages is undone from the rollback journal: in the page
/// store (not atomic) or in the instance's memory (atomic hosts). Then the store goes on writing,
/// and a reopen sees only what was acknowledged.
#[test]
fn a_failed_batch_is_rolled_back_from_the_journal() {
    for atomic in [true, false] {
        let ps = Rc::new(MemoryPageStore::new());
        let mut rng = Rng::new(3);
        let mut s = paged(&ps, atomic, 0);
        fill(&mut s, &mut rng, 300, 0);
        let (seq, before) = (s.seq(), probe(&mut s, &mut Rng::new(7)));
        for round in 0..3 {
            // 150 new keys and 150 overwrites are written before the last put's version check fails.
            let mut batch: Vec<MemoryPut> = (0..300)
                .map(|i| {
                    let key = if i % 2 == 0 { format!("new{round}-{i}") } else { format!("k{i}") };
                    MemoryPut::new(&["p", ["x", "y"][i % 2]], &key, json!(format!("doomed {i} word{}", i % 7)))
                        .embedding(rng.unit_vec(DIMS))
                })
                .collect();
            batch.push(MemoryPut::new(&["p", "y"], "k1", json!("conflict")).if_version(99));
            assert_eq!(s.put_batch(batch).unwrap_err().code, edgemem_core::ErrorCode::Conflict, "atomic={atomic}");
            assert_eq!(s.seq(), seq);
            assert_eq!(probe(&mut s, &mut Rng::new(7)), before, "atomic={atomic} round={round}");
            assert_eq!(value_of(&mut s, &["p", "y"], "k1"), Some(json!("memory number 1 word1")));
            assert!(value_of(&mut s, &["p", "x"], &format!("new{round}-0")).is_none());
        }
        s.put(MemoryPut::new(&["p", "x"], "after", json!("acknowledged")).embedding(rng.unit_vec(DIMS))).unwrap();
        let want = probe(&mut s, &mut Rng::new(8));
        s.close().unwrap();
        let mut s = paged(&ps, atomic, 0);
        assert_eq!(s.seq(), seq + 1);
        assert_eq!(probe(&mut s, &mut Rng::new(8)), want, "atomic={atomic}");
        assert_eq!(value_of(&mut s, &["p", "x"], "after"), Some(json!("acknowledged")));
        assert_eq!(s.stats().unwrap().memories, 301);
    }
}

/// The index snapshot is only taken now and then; a store dropped without close (a crash, an
/// evicted Durable Object) replays the changes after the snapshot and answers identically — also with
/// i4 graph vectors, whose metric the snapshot does not carry (it is installed again on every load).
#[test]
fn crash_after_snapshot_replays_to_identical_results() {
    for scalar in [ScalarKind::F32, ScalarKind::I4] {
        crash_after_snapshot_replays_to_identical_results_as(scalar);
    }
}

fn crash_after_snapshot_replays_to_identical_results_as(scalar: ScalarKind) {
    let ps = Rc::new(MemoryPageStore::new());
    let mut rng = Rng::new(2);
    let mut s = paged_as(&ps, true, 250, scalar);
    fill(&mut s, &mut rng, 600, 0); // snapshots at 250 and 500 changes
    for i in 0..40 {
        s.delete(&ns(&["p", ["x", "y"][i % 2]]), &format!("k{i}"), None).unwrap();
    }
    fill(&mut s, &mut rng, 30, 1000);
    s.put(MemoryPut::new(&["p", "x"], "k1001", json!("vector removed"))).unwrap();
    let want = probe(&mut s, &mut Rng::new(5));
    let stats = s.stats().unwrap();
    drop(s); // no close(): nothing flushed
    let mut s = paged_as(&ps, true, 250, scalar);
    assert_eq!(probe(&mut s, &mut Rng::new(5)), want, "{scalar:?}");
    let again = s.stats().unwrap();
    assert_eq!((again.index_vectors, again.memories, again.seq), (stats.index_vectors, stats.memories, stats.seq));
}

#[test]
fn a_failed_page_write_loses_no_acknowledged_write() {
    let ps = Rc::new(MemoryPageStore::new());
    let mut s = paged(&ps, false, 0);
    put_text(&mut s, &["f"], "ok", "acknowledged");
    ps.set_fail_puts(true);
    let e = s.put(MemoryPut::new(&["f"], "lost", json!("never acknowledged"))).unwrap_err();
    assert_eq!(e.code, edgemem_core::ErrorCode::Internal);
    ps.set_fail_puts(false);
    drop(s);
    let mut s = paged(&ps, false, 0);
    assert_eq!(value_of(&mut s, &["f"], "ok"), Some(json!("acknowledged")));
    assert!(value_of(&mut s, &["f"], "lost").is_none());
    put_text(&mut s, &["f"], "after", "works");
    assert_eq!(s.seq(), 2);
}

#[test]
fn a_sweep_after_writes_rewrites_no_rows() {
    // Written rows carry their LRU tick; only reads' recency is persisted later. (It used to rewrite every
    // row written since the last sweep: ~3,400 pages, ~1 s in a Durable Object, after loading 10k memories.)
    let ps = Rc::new(MemoryPageStore::new());
    let mut s = paged(&ps, true, 0);
    fill(&mut s, &mut Rng::new(3), 2000, 0);
    s.maintain().unwrap();
    let before = ps.put_count();
    s.sweep().unwrap();
    let pages = ps.put_count() - before;
    assert!(pages <= 8, "{pages} page writes for a sweep with nothing to sweep");
    // Reads' recency is still persisted by the sweep, and LRU order follows the reads.
    for i in 0..50 {
        s.get(&ns(&["p", ["x", "y"][i % 2]]), &format!("k{i}")).unwrap();
    }
    let before = ps.put_count();
    s.sweep().unwrap();
    assert!(ps.put_count() > before, "read recency is written at the sweep");
}

#[test]
fn a_write_touches_pages_not_the_whole_database() {
    let ps = Rc::new(MemoryPageStore::new());
    let mut s = paged(&ps, true, 0);
    fill(&mut s, &mut Rng::new(3), 2000, 0);
    let before = ps.put_count();
    put_text(&mut s, &["p", "x"], "one-more", "a single small write");
    let pages = ps.put_count() - before;
    let db_pages = ps.bytes() as u64 / 8192;
    assert!(pages < 40 && pages * 4 < db_pages, "{pages} page writes for one put (database has {db_pages} pages)");
}

/// Write amplification, in page-store writes (a Durable Object pays for each 8 KiB page): a PUT of a
/// memory with a 1 KB value, text and a 384-d vector, an update of one, and a 1 KB checkpoint, averaged
/// over 60 of each on a 3,000-memory store. (Schema v2 wrote 15.8 / 16.6 / 8.5: v3 has no `ts` indexes
/// nor a seq index on checkpoints, and buffers full-text writes; v6 wrote 13.1 / 14.2 / 5.4: v7 has no
/// commit rows, no seq or vector index on memories, 10.2 / 10.2 / 4.4; v8 keeps a live version in its memory
/// row only.)
#[test]
fn writes_touch_few_pages() {
    const D: usize = 384;
    let ps = Rc::new(MemoryPageStore::new());
    let mut s = Store::open(StoreConfig {
        storage: Storage::Pages { store: ps.clone(), atomic: true },
        ..StoreConfig::memory(D)
    })
    .unwrap();
    let mut rng = Rng::new(3);
    let memory = |i: usize, rng: &mut Rng| {
        MemoryPut::new(
            &["agent", ["a", "b", "c", "d"][i % 4]],
            &format!("m{i}"),
            json!({"id": i, "note": "word ".repeat(60), "pad": "x".repeat(700)}),
        )
        .text(&format!("speaker: some text about topic {} and more words", i % 50))
        .embedding(rng.unit_vec(D))
    };
    let batch: Vec<MemoryPut> = (0..3000).map(|i| memory(i, &mut rng)).collect();
    for c in batch.chunks(500) {
        s.put_batch(c.to_vec()).unwrap();
    }
    s.maintain().unwrap();
    let (mut new, mut update, mut checkpoint) = (0, 0, 0);
    let count = |f: &mut dyn FnMut()| {
        let before = ps.put_count();
        f();
        ps.put_count() - before
    };
    for j in 0..60 {
        new += count(&mut || drop(s.put(memory(3000 + j, &mut rng)).unwrap()));
        update += count(&mut || drop(s.put(memory(j * 7, &mut rng)).unwrap()));
        checkpoint += count(&mut || {
            s.put_checkpoint(CheckpointPut {
                channel_versions: Default::default(),
                blobs: Vec::new(),
                thread_id: format!("t{}", j % 16),
                checkpoint_ns: String::new(),
                checkpoint_id: format!("cp{j:06}"),
                parent_id: None,
                data: CheckpointData::json(&json!({"m": "y".repeat(1000)})),
                metadata: Default::default(),
            })
            .unwrap();
        });
    }
    let avg = |n: u64| n as f64 / 60.0;
    assert!(
        avg(new) <= 8.0 && avg(update) <= 10.0 && avg(checkpoint) <= 5.0,
        "pages per new put {:.1}, update {:.1}, checkpoint {:.1}",
        avg(new),
        avg(update),
        avg(checkpoint)
    );
}

/// A fresh directory under the system temp dir and the database path in it (native only).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn temp_db(seed: u64) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("edgemem-test-{}-{}", std::process::id(), Rng::new(seed).next()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("store.db");
    (dir, path)
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn open_file(path: &std::path::Path) -> Store {
    Store::open(StoreConfig { storage: Storage::File(path.to_path_buf()), ..StoreConfig::memory(DIMS) }).unwrap()
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn file_storage_survives_reopen() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (dir, path) = temp_db(7);
        let open = || open_file(&path);
        let mut s = open();
        fill(&mut s, &mut Rng::new(4), 200, 0);
        let want = probe(&mut s, &mut Rng::new(6));
        drop(s);
        let mut s = open();
        assert_eq!(probe(&mut s, &mut Rng::new(6)), want);
        assert_eq!(s.stats().unwrap().memories, 200);
        drop(s);
        let e = Store::open(StoreConfig { storage: Storage::File(path.clone()), ..StoreConfig::memory(DIMS + 1) });
        assert_eq!(e.err().map(|e| e.code), Some(edgemem_core::ErrorCode::DimensionMismatch));
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// With file storage, writes leave their pages in the WAL (no copy-back and fsync on a write until
/// it holds 8,192 pages); `maintain()` copies them into the database.
#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn maintain_copies_the_wal_into_the_database_file() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (dir, path) = temp_db(11);
        let mut s = open_file(&path);
        let mut rng = Rng::new(5);
        s.put(MemoryPut::new(&["w"], "first", json!(1)).embedding(rng.unit_vec(DIMS))).unwrap();
        let size = || std::fs::metadata(&path).unwrap().len();
        let before = size();
        for i in 0..200 {
            s.put(MemoryPut::new(&["w"], &format!("k{i}"), json!("v".repeat(2000))).embedding(rng.unit_vec(DIMS)))
                .unwrap();
        }
        assert_eq!(size(), before, "no write copied the WAL back");
        s.maintain().unwrap();
        assert!(size() > before + 400_000, "maintain copied the WAL back: {before} -> {}", size());
        drop(s);
        assert_eq!(open_file(&path).stats().unwrap().memories, 201);
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn export_import_round_trips() {
    let mut a = store(DIMS);
    let clock = manual_clock(&mut a, 5_000);
    fill(&mut a, &mut Rng::new(8), 120, 0);
    clock.set(6_000);
    put_text(&mut a, &["p", "x"], "k3", "rewritten");
    a.delete(&ns(&["p", "y"]), "k5", None).unwrap();
    a.put(MemoryPut::new(&["p", "x"], "pin", json!({"deep": [1, 2]})).pinned(true).metadata(json!({"m": 1}))).unwrap();
    a.put_checkpoint(CheckpointPut { checkpoint_ns: "sub".into(), ..checkpoint("t", "c1", json!({"x": 1})) }).unwrap();
    a.put_writes("t", "sub", "c1", "task", vec![("ch".into(), CheckpointData::Bytes(vec![1]))]).unwrap();
    let doc = a.export().unwrap();
    let json_text = serde_json::to_string(&doc).unwrap();
    let doc2: edgemem_core::ExportDoc = serde_json::from_str(&json_text).unwrap();
    let mut b = store(DIMS);
    b.import(&doc2).unwrap();
    assert_eq!(b.export().unwrap(), doc);
    assert_eq!(probe_with(&mut b, &mut Rng::new(9), false), probe_with(&mut a, &mut Rng::new(9), false));
    assert_eq!(
        b.get_at(&ns(&["p", "x"]), "k3", Some(AsOf::Time(5_500))).unwrap().map(|m| m.value),
        a.get_at(&ns(&["p", "x"]), "k3", Some(AsOf::Time(5_500))).unwrap().map(|m| m.value)
    );
    assert_eq!(b.stats().unwrap().pinned_memories, 1);
    assert_eq!(b.import(&doc).unwrap_err().code, edgemem_core::ErrorCode::Conflict);
    assert_eq!(b.changes(0, &Default::default(), 10).unwrap_err().code, edgemem_core::ErrorCode::ResumeGap);
    let mut c = store(DIMS + 1);
    assert_eq!(c.import(&doc).unwrap_err().code, edgemem_core::ErrorCode::DimensionMismatch);
}

#[test]
fn stats_report_sizes() {
    let mut s = store(DIMS);
    fill(&mut s, &mut Rng::new(10), 50, 0);
    let st = s.stats().unwrap();
    assert_eq!((st.memories, st.index_vectors, st.seq, st.events), (50, 50, 50, 50));
    assert!(st.bytes > 50 * 32 && st.db_bytes > 0 && st.index_bytes > 0);
    assert_eq!(st.dims, DIMS as u64);
}

#[test]
fn import_checks_what_it_is_given() {
    let mut a = store(DIMS);
    fill(&mut a, &mut Rng::new(12), 30, 0);
    for i in 0..1005 {
        a.put_checkpoint(CheckpointPut {
            channel_versions: Default::default(),
            blobs: Vec::new(),
            thread_id: "long".into(),
            checkpoint_ns: String::new(),
            checkpoint_id: format!("c{i:05}"),
            parent_id: None,
            data: CheckpointData::json(&json!(i)),
            metadata: Default::default(),
        })
        .unwrap();
    }
    let doc = a.export().unwrap();
    assert_eq!(doc.checkpoints.len(), 1005, "long threads export whole");
    // Sizes are recomputed, never trusted.
    let mut tampered = doc.clone();
    tampered.memories[0].size = u64::MAX;
    let mut b = store(DIMS);
    b.import(&tampered).unwrap();
    assert_eq!(b.stats().unwrap().bytes, a.stats().unwrap().bytes);
    b.put(MemoryPut::new(&["p", "x"], "after", json!(1))).unwrap();
    // Caps hold on import too.
    let mut capped = store_with(StoreConfig {
        caps: edgemem_core::Caps { max_bytes: 0, max_memories: 10 },
        ..StoreConfig::memory(DIMS)
    });
    assert_eq!(capped.import(&doc).unwrap_err().code, edgemem_core::ErrorCode::QuotaExceeded);
    assert_eq!(capped.stats().unwrap().memories, 0);
    // Another metric is refused.
    let mut l2 = store_with(StoreConfig { metric: edgemem_core::Metric::L2, ..StoreConfig::memory(DIMS) });
    assert_eq!(l2.import(&doc).unwrap_err().code, edgemem_core::ErrorCode::InvalidArgument);
    // A version beyond its seq (each version is a change with its own seq) or a seq beyond i64 is refused.
    let mut bad_version = doc.clone();
    bad_version.memories[0].version = 1 << 60;
    assert_eq!(store(DIMS).import(&bad_version).unwrap_err().code, edgemem_core::ErrorCode::InvalidArgument);
    let mut bad_seq = doc.clone();
    bad_seq.seq = u64::MAX;
    assert_eq!(store(DIMS).import(&bad_seq).unwrap_err().code, edgemem_core::ErrorCode::InvalidArgument);
}

/// Full-text marks waiting in the write buffer are part of the write's transaction: a store
/// dropped without close (a crash) finds every acknowledged text after reopening.
#[test]
fn buffered_full_text_survives_a_crash() {
    let ps = Rc::new(MemoryPageStore::new());
    let mut s = paged(&ps, true, 0);
    for i in 0..40 {
        put_text(&mut s, &["c"], &format!("k{i}"), &format!("quokka number{i}"));
    }
    put_text(&mut s, &["c"], "k0", "wombat"); // an update waiting in the buffer
    s.delete(&ns(&["c"]), "k1", None).unwrap(); // a delete waiting in the buffer
    drop(s);
    let mut s = paged(&ps, true, 0);
    let keys = |s: &mut Store, w: &str| -> Vec<String> {
        let q = SearchQuery { text: Some(w.into()), k: Some(100), ..Default::default() };
        let mut k: Vec<String> = s.search(&q).unwrap().into_iter().map(|h| h.key).collect();
        k.sort();
        k
    };
    let mut want: Vec<String> = (2..40).map(|i| format!("k{i}")).collect();
    want.sort();
    assert_eq!(keys(&mut s, "quokka"), want);
    assert_eq!(keys(&mut s, "wombat"), vec!["k0".to_string()]);
    assert_eq!(keys(&mut s, "number1"), Vec::<String>::new());
}
