//! History and AS OF: exact answers at any past seq or time, checked against a simple model
//! over random operation sequences; retention and the HISTORY_PRUNED floor.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{AsOf, ErrorCode, ListQuery, MemoryPut, Retention, SearchQuery, StoreConfig};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The model of the store a property test checks against: (namespace, key) -> value.
type Model = BTreeMap<(String, String), Value>;

#[test]
fn get_as_of_seq_and_time() {
    let mut s = store(0);
    let clock = manual_clock(&mut s, 10_000);
    put_text(&mut s, &["a"], "k", "v1"); // seq 1 @10000
    clock.set(20_000);
    put_text(&mut s, &["a"], "k", "v2"); // seq 2 @20000
    clock.set(30_000);
    s.delete(&ns(&["a"]), "k", None).unwrap(); // seq 3 @30000
    let at = |s: &mut edgemem_core::Store, a| s.get_at(&ns(&["a"]), "k", Some(a)).unwrap().map(|m| m.value);
    assert_eq!(at(&mut s, AsOf::Seq(0)), None);
    assert_eq!(at(&mut s, AsOf::Seq(1)), Some(json!("v1")));
    assert_eq!(at(&mut s, AsOf::Seq(2)), Some(json!("v2")));
    assert_eq!(at(&mut s, AsOf::Seq(3)), None);
    assert_eq!(at(&mut s, AsOf::Time(9_999)), None);
    assert_eq!(at(&mut s, AsOf::Time(15_000)), Some(json!("v1")));
    assert_eq!(at(&mut s, AsOf::Time(20_000)), Some(json!("v2")));
    assert_eq!(at(&mut s, AsOf::Time(99_999)), None);
    let h = s.history(&ns(&["a"]), "k").unwrap();
    assert_eq!(h.iter().map(|m| m.value.clone()).collect::<Vec<_>>(), vec![json!("v1"), json!("v2")]);
}

/// The change feed is the commit log: once retention prunes the events, AS OF a time still finds its seq (the
/// pruned commits stay as commit rows), and the export lists one commit per write call, before and after.
#[test]
fn as_of_time_outlives_the_pruned_events() {
    let mut s = store_with(StoreConfig {
        retention: Retention { events_max: 3, ..Default::default() },
        ..StoreConfig::memory(0)
    });
    let clock = manual_clock(&mut s, 1_000);
    put_text(&mut s, &["a"], "k", "v1"); // seq 1 @1000
    clock.set(2_000);
    let batch = (0..3).map(|i| MemoryPut::new(&["b"], &format!("k{i}"), json!(i))).collect();
    s.put_batch(batch).unwrap(); // seqs 2..=4 @2000, one commit
    put_text(&mut s, &["a"], "k", "v2"); // seq 5 @2000, a commit of its own at the same time
    clock.set(3_000);
    put_text(&mut s, &["a"], "k", "v3"); // seq 6 @3000
    clock.set(4_000);
    for i in 0..4 {
        s.notify("c", json!(i)).unwrap(); // seqs 7..=10 @4000
    }
    let want = s.export().unwrap().commits;
    assert_eq!(
        want,
        vec![(1, 1_000), (4, 2_000), (5, 2_000), (6, 3_000), (7, 4_000), (8, 4_000), (9, 4_000), (10, 4_000)]
    );
    s.sweep().unwrap();
    assert_eq!(s.oldest_event_seq().unwrap(), Some(8), "events 1..=7 pruned");
    let at = |s: &mut edgemem_core::Store, t| s.get_at(&ns(&["a"]), "k", Some(AsOf::Time(t))).unwrap().map(|m| m.value);
    assert_eq!(at(&mut s, 999), None);
    assert_eq!(at(&mut s, 1_500), Some(json!("v1")));
    assert_eq!(at(&mut s, 2_000), Some(json!("v2")));
    assert_eq!(at(&mut s, 3_999), Some(json!("v3")));
    assert_eq!(s.resolve_as_of(AsOf::Time(4_000)).unwrap(), 10);
    assert_eq!(s.export().unwrap().commits, want);
}

#[test]
fn ttl_respected_as_of() {
    let mut s = store(0);
    let clock = manual_clock(&mut s, 1_000);
    s.put(MemoryPut::new(&["a"], "k", json!("x")).ttl_ms(500)).unwrap(); // seq 1, expires 1500
    clock.set(2_000);
    put_text(&mut s, &["a"], "other", "y"); // seq 2 @2000: k had expired by then
    assert!(s.get_at(&ns(&["a"]), "k", Some(AsOf::Seq(1))).unwrap().is_some());
    assert!(s.get_at(&ns(&["a"]), "k", Some(AsOf::Seq(2))).unwrap().is_none());
}

/// Random puts / deletes over a few keys; after each, the model's state is recorded. Then
/// every recorded seq is checked with get AS OF, list AS OF and lexical search AS OF.
#[test]
fn as_of_matches_model_on_random_sequences() {
    for seed in 0..6u64 {
        let mut rng = Rng::new(seed);
        let mut s = store(0);
        let keys = ["a", "b", "c", "d", "e"];
        let spaces = [["x"], ["y"]];
        let mut model: Model = BTreeMap::new();
        let mut snapshots: Vec<(u64, Model)> = vec![(0, model.clone())];
        for step in 0..120 {
            let key = keys[rng.below(keys.len() as u64) as usize];
            let space = &spaces[rng.below(2) as usize];
            let mk = (space[0].to_string(), key.to_string());
            let r = rng.below(10);
            if r < 7 {
                let v = json!(format!("word{} step{step}", rng.below(4)));
                s.put(MemoryPut::new(space, key, v.clone())).unwrap();
                model.insert(mk, v);
            } else if r < 9 {
                let res = s.delete(&ns(space), key, None);
                if model.remove(&mk).is_some() {
                    res.unwrap();
                } else {
                    assert_eq!(res.unwrap_err().code, ErrorCode::NotFound);
                }
            } else {
                s.put_batch(vec![
                    MemoryPut::new(space, key, json!("batch one")),
                    MemoryPut::new(space, "z", json!("batch two")),
                ])
                .unwrap();
                model.insert(mk, json!("batch one"));
                model.insert((space[0].to_string(), "z".into()), json!("batch two"));
            }
            snapshots.push((s.seq(), model.clone()));
        }
        for (seq, snap) in &snapshots {
            for space in &spaces {
                for key in keys.iter().chain(["z"].iter()) {
                    let got = s.get_at(&ns(space), key, Some(AsOf::Seq(*seq))).unwrap().map(|m| m.value);
                    assert_eq!(
                        got.as_ref(),
                        snap.get(&(space[0].to_string(), key.to_string())),
                        "seed {seed} seq {seq} {key}"
                    );
                }
            }
            let listed =
                s.list(&ListQuery { as_of: Some(AsOf::Seq(*seq)), limit: Some(1000), ..Default::default() }).unwrap();
            let got: BTreeMap<(String, String), Value> =
                listed.items.into_iter().map(|m| ((m.namespace[0].clone(), m.key), m.value)).collect();
            assert_eq!(&got, snap, "list as of seed {seed} seq {seq}");
            let hits = s
                .search(&SearchQuery {
                    text: Some("word1".into()),
                    k: Some(100),
                    as_of: Some(AsOf::Seq(*seq)),
                    ..Default::default()
                })
                .unwrap();
            let want = snap.values().filter(|v| v.as_str().is_some_and(|t| t.starts_with("word1 "))).count();
            assert_eq!(hits.len(), want, "lexical search as of seed {seed} seq {seq}");
        }
    }
}

#[test]
fn retention_keeps_n_versions_and_reports_pruned_history() {
    let mut s = store_with(StoreConfig {
        retention: Retention { history_versions: 2, ..Default::default() },
        ..StoreConfig::memory(0)
    });
    for i in 1..=5 {
        put_text(&mut s, &["a"], "k", &format!("v{i}"));
    }
    s.sweep().unwrap();
    let h = s.history(&ns(&["a"]), "k").unwrap();
    assert_eq!(h.iter().map(|m| m.version).collect::<Vec<_>>(), vec![3, 4, 5]);
    // Versions still held answer exactly; older points in time say so instead of lying.
    assert_eq!(s.get_at(&ns(&["a"]), "k", Some(AsOf::Seq(3))).unwrap().unwrap().value, json!("v3"));
    let e = s.get_at(&ns(&["a"]), "k", Some(AsOf::Seq(1))).unwrap_err();
    assert_eq!(e.code, ErrorCode::HistoryPruned);
    let e = s.list(&ListQuery { as_of: Some(AsOf::Seq(1)), ..Default::default() }).unwrap_err();
    assert_eq!(e.code, ErrorCode::HistoryPruned);
}

#[test]
fn as_of_a_time_judges_expiry_at_that_time() {
    let mut s = store(0);
    let clock = manual_clock(&mut s, 1_000);
    s.put(MemoryPut::new(&["a"], "k", json!("x")).ttl_ms(500)).unwrap(); // visible 1000..1500
    clock.set(3_000);
    assert!(s.get_at(&ns(&["a"]), "k", Some(AsOf::Time(1_200))).unwrap().is_some());
    s.put(MemoryPut::new(&["a"], "other", json!("y"))).unwrap();
    assert!(s.get_at(&ns(&["a"]), "k", Some(AsOf::Time(1_800))).unwrap().is_none());
    let listed = s.list(&ListQuery { as_of: Some(AsOf::Time(1_200)), ..Default::default() }).unwrap();
    assert_eq!(listed.items.len(), 1);
}

#[test]
fn list_as_of_before_the_floor_is_an_error_not_a_partial_page() {
    let mut s = store_with(StoreConfig {
        retention: Retention { history_versions: 1, ..Default::default() },
        ..StoreConfig::memory(0)
    });
    put_text(&mut s, &["n"], "a", "1"); // 1
    put_text(&mut s, &["n"], "b", "2"); // 2
    put_text(&mut s, &["n"], "a", "3"); // 3
    put_text(&mut s, &["n"], "a", "4"); // 4: a's first version is pruned
    s.sweep().unwrap();
    let e = s.list(&ListQuery { as_of: Some(AsOf::Seq(2)), ..Default::default() }).unwrap_err();
    assert_eq!(e.code, ErrorCode::HistoryPruned);
    assert_eq!(s.list(&ListQuery { as_of: Some(AsOf::Seq(3)), ..Default::default() }).unwrap().items.len(), 2);
}
