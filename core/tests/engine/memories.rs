//! Memories: put / get / delete / list, versions, CAS, batch atomicity, TTL visibility.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{ErrorCode, ListQuery, MemoryPut};
use serde_json::json;

#[test]
fn put_get_roundtrip_with_all_fields() {
    let mut s = store(3);
    let ack = s
        .put(
            MemoryPut::new(&["user", "42"], "pref", json!({"color": "blue"}))
                .text("likes blue")
                .embedding(vec![1.0, 0.0, 0.0])
                .metadata(json!({"source": "chat", "score": 3}))
                .pinned(true),
        )
        .unwrap();
    assert_eq!((ack.seq, ack.version), (1, 1));
    let m = s.get(&ns(&["user", "42"]), "pref").unwrap().unwrap();
    assert_eq!(m.value, json!({"color": "blue"}));
    assert_eq!(m.text.as_deref(), Some("likes blue"));
    assert_eq!(m.embedding, Some(vec![1.0, 0.0, 0.0]));
    assert_eq!(m.metadata["source"], json!("chat"));
    assert!(m.pinned);
    assert_eq!((m.version, m.seq), (1, 1));
    assert!(m.size > 0);
    // Without the embedding (live and AS OF), the rest is the same.
    for as_of in [None, Some(edgemem_core::AsOf::Seq(1))] {
        let lean = s.get_at_with(&ns(&["user", "42"]), "pref", as_of, false).unwrap().unwrap();
        assert_eq!(lean.embedding, None);
        assert_eq!(edgemem_core::Memory { embedding: m.embedding.clone(), ..lean }, m);
    }
}

#[test]
fn string_value_becomes_text_and_versions_count_up() {
    let mut s = store(0);
    put_text(&mut s, &["a"], "k", "first");
    let ack = s.put(MemoryPut::new(&["a"], "k", json!("second"))).unwrap();
    assert_eq!((ack.seq, ack.version), (2, 2));
    let m = s.get(&ns(&["a"]), "k").unwrap().unwrap();
    assert_eq!(m.text.as_deref(), Some("second"));
    // Delete and re-put keeps counting versions.
    assert_eq!(s.delete(&ns(&["a"]), "k", None).unwrap(), 3);
    assert!(s.get(&ns(&["a"]), "k").unwrap().is_none());
    let ack = s.put(MemoryPut::new(&["a"], "k", json!("third"))).unwrap();
    assert_eq!((ack.seq, ack.version), (4, 3));
}

#[test]
fn compare_and_set() {
    let mut s = store(0);
    let e = s.put(MemoryPut::new(&["a"], "k", json!(1)).if_version(1)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    s.put(MemoryPut::new(&["a"], "k", json!(1)).if_version(0)).unwrap();
    let e = s.put(MemoryPut::new(&["a"], "k", json!(2)).if_version(0)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    s.put(MemoryPut::new(&["a"], "k", json!(2)).if_version(1)).unwrap();
    assert_eq!(s.delete(&ns(&["a"]), "k", Some(1)).unwrap_err().code, ErrorCode::Conflict);
    s.delete(&ns(&["a"]), "k", Some(2)).unwrap();
    assert_eq!(s.seq(), 3, "failed writes consume no seq");
}

#[test]
fn batch_is_all_or_nothing() {
    let mut s = store(2);
    let ok = s.put_batch(vec![MemoryPut::new(&["b"], "1", json!(1)), MemoryPut::new(&["b"], "2", json!(2))]).unwrap();
    assert_eq!(ok.iter().map(|a| a.seq).collect::<Vec<_>>(), vec![1, 2]);
    // The second put conflicts: nothing of the batch may land.
    let e = s
        .put_batch(vec![MemoryPut::new(&["b"], "3", json!(3)), MemoryPut::new(&["b"], "1", json!(9)).if_version(7)])
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(value_of(&mut s, &["b"], "3").is_none());
    assert_eq!(value_of(&mut s, &["b"], "1"), Some(json!(1)));
    assert_eq!(s.seq(), 2);
    // A bad vector anywhere in the batch is rejected before anything is written.
    let e = s.put_batch(vec![
        MemoryPut::new(&["b"], "4", json!(4)),
        MemoryPut::new(&["b"], "5", json!(5)).embedding(vec![1.0]),
    ]);
    assert_eq!(e.unwrap_err().code, ErrorCode::DimensionMismatch);
    assert_eq!(s.stats().unwrap().memories, 2);
}

#[test]
fn list_by_prefix_with_pagination() {
    let mut s = store(0);
    for i in 0..25 {
        put_text(&mut s, &["user", "42", "notes"], &format!("n{i:02}"), "x");
    }
    put_text(&mut s, &["user", "420"], "other", "x");
    put_text(&mut s, &["user", "42"], "top", "x");
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = s
            .list(&ListQuery {
                prefix: ns(&["user", "42"]),
                limit: Some(10),
                cursor: cursor.clone(),
                ..Default::default()
            })
            .unwrap();
        seen.extend(page.items.iter().map(|m| m.key.clone()));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), 26, "segment-exact prefix: user/420 is not under user/42");
    assert_eq!(seen[0], "top");
    assert!(!seen.contains(&"other".to_string()));
    let all = s.list(&ListQuery { limit: Some(1000), ..Default::default() }).unwrap();
    assert_eq!(all.items.len(), 27);
    let e = s.list(&ListQuery { cursor: Some("zz".into()), ..Default::default() }).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
}

#[test]
fn ttl_hides_at_once_and_sweep_removes() {
    let mut s = store(0);
    let clock = manual_clock(&mut s, 1_000_000);
    s.put(MemoryPut::new(&["t"], "short", json!("soon gone")).ttl_ms(1_000)).unwrap();
    s.put(MemoryPut::new(&["t"], "long", json!("stays"))).unwrap();
    assert!(value_of(&mut s, &["t"], "short").is_some());
    assert_eq!(s.stats().unwrap().next_expiry_ms, Some(1_001_000), "when a host should sweep next");
    clock.set(1_001_000);
    assert!(value_of(&mut s, &["t"], "short").is_none(), "expired memories are invisible at once");
    assert_eq!(s.list(&ListQuery { prefix: ns(&["t"]), ..Default::default() }).unwrap().items.len(), 1);
    assert_eq!(s.stats().unwrap().memories, 2, "not yet physically removed");
    assert_eq!(s.sweep().unwrap(), 1);
    assert_eq!(s.stats().unwrap().memories, 1);
    assert_eq!(s.stats().unwrap().next_expiry_ms, None);
    let h = s.history(&ns(&["t"]), "short").unwrap();
    assert_eq!(h.len(), 1, "the expired version stays in history");
}

#[test]
fn get_json_is_the_memory_serialised() {
    let mut s = store(3);
    let clock = manual_clock(&mut s, 1_000_000);
    let values = [
        json!({"color": "blue", "nested": {"list": [1, 2.5, -3e-7, null, true]}}),
        json!("a \"quoted\" string with \\ backslash, tab\t, newline\n, unicode é 😀 and \u{1}"),
        json!(12345678901234_i64),
        json!(-0.1),
        json!([0.12088995980580641, 1.1362275116276523e-8, 2.2201838057111728e-13, 1e300, -2.2250738585072014e-308]),
        json!(null),
        json!([]),
        json!(false),
    ];
    for (i, v) in values.iter().enumerate() {
        let mut p = MemoryPut::new(&["user", "ünï \"q\"", &i.to_string()], &format!("k{i} \u{2028}"), v.clone());
        if i % 2 == 0 {
            p = p.text(&format!("text {i} with \"quotes\"")).embedding(vec![0.25, -1.0, i as f32 + 0.5]);
        }
        if i % 3 == 0 {
            p = p.metadata(json!({"source": "chat", "n": i, "deep": {"x": [i]}})).pinned(true);
        }
        if i == 4 {
            p = p.ttl_ms(60_000);
        }
        s.put(p).unwrap();
    }
    // Overwrite one, so that AS OF reads a closed version.
    s.put(MemoryPut::new(&["user", "ünï \"q\"", "0"], "k0 \u{2028}", json!("newer"))).unwrap();
    for (i, _) in values.iter().enumerate() {
        let namespace = ns(&["user", "ünï \"q\"", &i.to_string()]);
        let key = format!("k{i} \u{2028}");
        for as_of in [None, Some(edgemem_core::AsOf::Seq(i as u64 + 1))] {
            for with_embedding in [false, true] {
                let m = s.get_at_with(&namespace, &key, as_of, with_embedding).unwrap();
                let text = s.get_json(&namespace, &key, as_of, with_embedding).unwrap();
                // Byte for byte: the stored numbers (1.1362275116276523e-8 parses one ULP off without
                // serde_json's float_roundtrip) and key order included.
                assert_eq!(
                    text,
                    serde_json::to_string(&m).unwrap(),
                    "memory {i}, as_of {as_of:?}, embedding {with_embedding}"
                );
            }
        }
    }
    assert_eq!(s.get_json(&ns(&["user"]), "missing", None, false).unwrap(), "null");
    clock.set(1_000_000 + 60_000);
    assert_eq!(s.get_json(&ns(&["user", "ünï \"q\"", "4"]), "k4 \u{2028}", None, false).unwrap(), "null", "expired");
    assert_eq!(s.get_json(&[], "k", None, false).unwrap_err().code, ErrorCode::InvalidArgument);
}
