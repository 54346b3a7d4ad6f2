//! Tests of the wasm32 build itself, not of the engine: SQLite with FTS5 and the host hooks, USearch
//! through cxx (including the filter-callback fix in `wasm-shim/bin/wasm-clang++`), C/C++ and Rust sharing
//! one heap, and a C++ exception ending in a trap. They run only in `scripts/test-core-wasm`.

use rusqlite::Connection;
use usearch::{ffi::IndexOptions, Index, MetricKind, ScalarKind};
use wasm_bindgen_test::wasm_bindgen_test as test;

fn index(dims: usize) -> Index {
    super::init();
    let options = IndexOptions {
        dimensions: dims,
        metric: MetricKind::Cos,
        quantization: ScalarKind::F32,
        connectivity: 0,
        expansion_add: 0,
        expansion_search: 0,
        multi: false,
    };
    Index::new(&options).unwrap()
}

/// Deterministic pseudo-random value in [-1, 1) (splitmix64).
fn noise(seed: u64) -> f32 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

fn vector(key: u64, dims: usize) -> Vec<f32> {
    (0..dims as u64).map(|d| noise(key * 1000 + d)).collect()
}

#[test]
fn sqlite_fts5_match() {
    super::init();
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(
        "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'porter unicode61');
         INSERT INTO docs(rowid, body) VALUES (1, 'the quick brown fox'), (2, 'jumping over lazy dogs'),
                                              (3, 'a fox and a dog');",
    )
    .unwrap();
    let mut q = c.prepare("SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY bm25(docs)").unwrap();
    let mut ids: Vec<i64> = q.query_map(["dog"], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
    ids.sort();
    assert_eq!(ids, [2, 3]); // porter: "dogs" matches "dog"
}

#[test]
fn sqlite_host_hooks_give_time_and_randomness() {
    // sqlite-wasm-rs' `wasm-bindgen` feature implements them with JavaScript's Date and crypto.
    super::init();
    let c = Connection::open_in_memory().unwrap();
    let (now, r1, r2): (i64, i64, i64) = c
        .query_row("SELECT unixepoch('now'), random(), random()", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    assert!(now > 1_700_000_000, "unixepoch('now') = {now}");
    assert_ne!(r1, r2);
}

#[test]
fn usearch_add_search_filter_and_buffer_roundtrip() {
    let idx = index(8);
    idx.reserve(64).unwrap();
    for key in 0..50u64 {
        idx.add(key, &vector(key, 8)).unwrap();
    }
    let m = idx.search(&vector(17, 8), 5).unwrap();
    assert_eq!(m.keys[0], 17);
    assert!(m.distances[0].abs() < 1e-5);

    // The Rust closure is called from C++: traps on wasm32 without the wasm-clang++ fix.
    let even = idx.filtered_search(&vector(17, 8), 5, |key: u64| key & 1 == 0).unwrap();
    assert_eq!(even.keys.len(), 5);
    assert!(even.keys.iter().all(|key| key & 1 == 0));
    // Keys above 2^32 reach the closure intact.
    let big = index(8);
    big.reserve(4).unwrap();
    big.add(1 << 40, &vector(1, 8)).unwrap();
    big.add((1 << 40) + 1, &vector(2, 8)).unwrap();
    let seen = std::cell::RefCell::new(Vec::new());
    big.filtered_search(&vector(1, 8), 2, |key: u64| {
        seen.borrow_mut().push(key);
        true
    })
    .unwrap();
    assert!(seen.borrow().iter().all(|key| *key >= 1 << 40));

    let mut buf = vec![0u8; idx.serialized_length()];
    idx.save_to_buffer(&mut buf).unwrap();
    let back = index(8);
    back.load_from_buffer(&buf).unwrap();
    assert_eq!(back.size(), 50);
    assert_eq!(back.search(&vector(17, 8), 5).unwrap().keys, m.keys);
}

#[test]
fn usearch_and_rust_share_the_heap() {
    // Two allocators on one heap corrupt each other; libc_alloc.rs routes C/C++ to Rust's.
    let dims = 32;
    let idx = index(dims);
    idx.reserve(2000).unwrap();
    let mut kept = Vec::new();
    for key in 0..2000u64 {
        let v = vector(key, dims);
        idx.add(key, &v).unwrap();
        if key % 100 == 0 {
            kept.push((key, v));
        }
    }
    for (key, v) in &kept {
        assert_eq!(idx.search(v, 1).unwrap().keys[0], *key);
    }
}

#[test]
fn usearch_key_lookups_hold_at_the_patched_load() {
    // wasm-clang++ lets the key -> slot table fill to 4/5 before it grows (usearch: 2/3): 400 keys take 512
    // slots. Removals leave tombstones; replacing a quarter of the keys five times over fills the table past
    // 4/5 with them, so it rehashes in place, and every key must still be found (and no removed one).
    let idx = index(8);
    idx.reserve(400).unwrap();
    let mut live: Vec<u64> = (0..400).collect();
    for &key in &live {
        idx.add(key, &vector(key, 8)).unwrap();
    }
    for round in 1..=5u64 {
        let gone: Vec<u64> = live.iter().copied().step_by(4).collect();
        for &key in &gone {
            idx.remove(key).unwrap();
        }
        live.retain(|key| !gone.contains(key));
        for i in 0..gone.len() as u64 {
            let key = round * 1000 + i;
            idx.add(key, &vector(key, 8)).unwrap();
            live.push(key);
        }
        assert_eq!(idx.size(), 400);
        assert!(live.iter().all(|&key| idx.contains(key)), "round {round}: a live key is lost");
        assert!(!gone.iter().any(|&key| idx.contains(key)), "round {round}: a removed key is found");
    }
    let key = live[live.len() / 2];
    assert_eq!(idx.search(&vector(key, 8), 1).unwrap().keys[0], key);
}

#[test]
#[should_panic]
fn cxx_exception_is_a_trap() {
    // Wrong dimensions: usearch's C++ throws. Natively cxx turns that into Err; here it traps, after
    // recording the message for last_cxx_error().
    let idx = index(8);
    idx.reserve(4).unwrap();
    let _ = idx.add(1, &[1.0, 2.0]);
}
