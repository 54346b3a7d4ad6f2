//! Pages cut by size as well as count: lists, history, the change feed and checkpoint lists end a
//! page at about MAX_PAGE_BYTES of items, say where to go on, and paging on visits every item once.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{
    CheckpointData, CheckpointListQuery, CheckpointPut, ErrorCode, ListQuery, MemoryPut, StoreConfig, MAX_PAGE_BYTES,
};
use serde_json::json;

const BIG: usize = 300_000;

fn big(i: usize) -> serde_json::Value {
    json!({ "i": i, "fill": "x".repeat(BIG) })
}

#[test]
fn memory_lists_end_pages_by_size() {
    let mut s = store(0);
    for i in 0..30 {
        s.put(MemoryPut::new(&["b"], &format!("k{i:02}"), big(i))).unwrap();
    }
    let mut keys = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = s
            .list(&ListQuery { prefix: ns(&["b"]), limit: Some(1000), cursor: cursor.clone(), ..Default::default() })
            .unwrap();
        pages += 1;
        let bytes: usize = page.items.iter().map(|m| m.size as usize).sum();
        assert!(bytes <= MAX_PAGE_BYTES + BIG + 1000, "page of {bytes} bytes");
        keys.extend(page.items.into_iter().map(|m| m.key));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert!(pages >= 3, "{pages} pages");
    assert_eq!(keys, (0..30).map(|i| format!("k{i:02}")).collect::<Vec<_>>());
}

#[test]
fn history_pages_by_size_and_count() {
    let mut s = store(0);
    for i in 0..30 {
        s.put(MemoryPut::new(&["h"], "k", big(i))).unwrap();
    }
    let first = s.history_page(&ns(&["h"]), "k", 0, 1000).unwrap();
    assert!(first.versions.len() < 30 && !first.versions.is_empty());
    assert_eq!(first.next_after_seq, first.versions.last().map(|m| m.seq));
    let all = s.history(&ns(&["h"]), "k").unwrap();
    assert_eq!(all.iter().map(|m| m.version).collect::<Vec<_>>(), (1..=30).collect::<Vec<_>>());
    // By count: pages of 7.
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let p = s.history_page(&ns(&["h"]), "k", after, 7).unwrap();
        assert!(p.versions.len() <= 7);
        seen.extend(p.versions.iter().map(|m| m.version));
        match p.next_after_seq {
            Some(n) => after = n,
            None => break,
        }
    }
    assert_eq!(seen, (1..=30).collect::<Vec<_>>());
}

#[test]
fn change_feed_pages_by_size() {
    let mut s = store(0);
    let payload = json!("p".repeat(60_000));
    for _ in 0..100 {
        s.notify("c", payload.clone()).unwrap();
    }
    let page = s.changes_page(0, &Default::default(), 1000).unwrap();
    assert!(page.more && page.events.len() < 100, "{} events", page.events.len());
    let rest = s.changes_page(page.events.last().unwrap().seq, &Default::default(), 1000).unwrap();
    assert!(!rest.more);
    assert_eq!(page.events.len() + rest.events.len(), 100);
    // By count too, and `changes` keeps its meaning: up to the limit.
    assert!(s.changes_page(0, &Default::default(), 10).unwrap().more);
    assert_eq!(s.changes(0, &Default::default(), 10).unwrap().len(), 10);
}

#[test]
fn checkpoint_lists_page_by_size_and_pending_writes_stay_bounded() {
    let mut s = store(0);
    for i in 0..20 {
        s.put_checkpoint(CheckpointPut {
            channel_versions: Default::default(),
            blobs: Vec::new(),
            thread_id: "t".into(),
            checkpoint_ns: String::new(),
            checkpoint_id: format!("c{i:02}"),
            parent_id: None,
            data: CheckpointData::Bytes(vec![7; 400_000]),
            metadata: Default::default(),
        })
        .unwrap();
    }
    let q = |before: Option<String>| CheckpointListQuery {
        thread_id: Some("t".into()),
        before,
        limit: Some(1000),
        ..Default::default()
    };
    let mut ids = Vec::new();
    let mut before = None;
    let mut pages = 0;
    loop {
        let p = s.list_checkpoints_page(&q(before)).unwrap();
        pages += 1;
        ids.extend(p.checkpoints.into_iter().map(|c| c.checkpoint_id));
        match p.next_before {
            Some(b) => before = Some(b),
            None => break,
        }
    }
    assert!(pages >= 2);
    assert_eq!(ids, (0..20).rev().map(|i| format!("c{i:02}")).collect::<Vec<_>>());

    // A checkpoint's pending writes, all tasks together, hold at most 4 checkpoints' worth.
    let mut small = store_with(StoreConfig { max_checkpoint_bytes: 1000, ..StoreConfig::memory(0) });
    small
        .put_checkpoint(CheckpointPut {
            channel_versions: Default::default(),
            blobs: Vec::new(),
            thread_id: "t".into(),
            checkpoint_ns: String::new(),
            checkpoint_id: "c".into(),
            parent_id: None,
            data: CheckpointData::json(&json!(1)),
            metadata: Default::default(),
        })
        .unwrap();
    for task in 0..4 {
        small
            .put_writes("t", "", "c", &format!("task{task}"), vec![("ch".into(), CheckpointData::Bytes(vec![0; 900]))])
            .unwrap();
    }
    let e =
        small.put_writes("t", "", "c", "task4", vec![("ch".into(), CheckpointData::Bytes(vec![0; 900]))]).unwrap_err();
    assert_eq!(e.code, ErrorCode::PayloadTooLarge);
    // A task's writes are recorded once: writing them again keeps the first and stays within the bound.
    small.put_writes("t", "", "c", "task0", vec![("ch".into(), CheckpointData::Bytes(vec![0; 500]))]).unwrap();
}
