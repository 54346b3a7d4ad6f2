//! A replica's engine part: local writes queue their ops in their own transaction (and only while the outbox is
//! on), pulled versions keep the agent's version numbers, skip keys with a write still to push, and move the
//! cursor with them; checkpoint writes and thread deletions are events a replica can pull.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{CheckpointData, ErrorCode, EventFilter, EventKind, MemoryPut, PulledMemory};
use serde_json::{json, Value};

fn ops(s: &edgemem_core::Store) -> Vec<Value> {
    s.outbox_ops(1000).unwrap().iter().map(|o| serde_json::from_str(o.op.get()).unwrap()).collect()
}

fn pulled(key: &str, version: u64, value: Value) -> PulledMemory {
    PulledMemory { namespace: ns(&["a"]), key: key.into(), version, value, ..Default::default() }
}

#[test]
fn local_writes_queue_their_ops_only_while_the_outbox_is_on() {
    let mut s = store(2);
    s.put(MemoryPut::new(&["a"], "before", json!(1))).unwrap();
    assert_eq!(s.outbox_len().unwrap(), 0, "off by default");
    s.set_outbox(true);
    s.put(MemoryPut::new(&["a"], "k", json!({"x": 1})).text("hello").embedding(vec![1.0, 0.5])).unwrap();
    let mut cas = MemoryPut::new(&["a"], "k", json!(2));
    cas.if_version = Some(1);
    s.put(cas).unwrap();
    s.delete(&ns(&["a"]), "before", Some(1)).unwrap();
    s.put_checkpoint(checkpoint("t", "c1", json!({"v": 1}))).unwrap();
    s.put_writes("t", "", "c1", "task", vec![("ch".into(), CheckpointData::json(&json!(1)))]).unwrap();
    s.delete_thread("t").unwrap();
    let q = ops(&s);
    assert_eq!(q.len(), 6);
    assert_eq!(q[0]["op"], "put");
    assert_eq!(q[0]["value"], json!({"x": 1}));
    assert_eq!(q[0]["text"], "hello");
    assert_eq!(q[0]["embedding"], json!([1.0, 0.5]));
    assert_eq!((q[0]["base"].as_u64(), q[0]["version"].as_u64()), (Some(0), Some(1)));
    assert_eq!(
        (q[1]["if_version"].as_u64(), q[1]["base"].as_u64(), q[1]["version"].as_u64()),
        (Some(1), Some(1), Some(2))
    );
    assert_eq!(q[2], json!({"op": "delete", "namespace": ["a"], "key": "before", "if_version": 1, "base": 1}));
    assert_eq!(q[3]["op"], "checkpoint");
    assert_eq!(q[4], json!({"op": "writes", "thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c1"}));
    assert_eq!(q[5]["op"], "delete_thread");
    // A failed write queues nothing.
    let mut stale = MemoryPut::new(&["a"], "k", json!(3));
    stale.if_version = Some(1);
    assert_eq!(s.put(stale).unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(s.outbox_len().unwrap(), 6);
    let ids: Vec<u64> = s.outbox_ops(10).unwrap().iter().map(|o| o.id).collect();
    s.outbox_remove(ids[2]).unwrap();
    assert_eq!(s.outbox_ops(10).unwrap().first().map(|o| o.id), Some(ids[3]));
    assert_eq!(s.outbox_len().unwrap(), 3);
}

#[test]
fn pulled_versions_keep_the_agents_numbers_and_move_the_cursor() {
    let mut s = store(2);
    s.set_outbox(true);
    let mut m = pulled("k", 7, json!("seven"));
    m.embedding = Some(vec![0.0, 1.0]);
    let gone = PulledMemory { deleted: true, ..pulled("gone", 0, Value::Null) };
    let done = s.apply_pulled(vec![m.clone(), gone], 40).unwrap();
    assert_eq!((done.applied, done.unchanged, done.pending), (1, 1, 0));
    assert_eq!(s.replica_cursor().unwrap(), 40);
    assert_eq!(s.outbox_len().unwrap(), 0, "pulled versions are not local writes");
    let got = s.get(&ns(&["a"]), "k").unwrap().unwrap();
    assert_eq!((got.version, got.value.clone()), (7, json!("seven")));
    // The same version again changes nothing; a newer one is written with its number.
    let done = s.apply_pulled(vec![m], 41).unwrap();
    assert_eq!((done.applied, done.unchanged), (0, 1));
    let before = s.history(&ns(&["a"]), "k").unwrap().len();
    s.apply_pulled(vec![pulled("k", 9, json!("nine"))], 42).unwrap();
    assert_eq!(s.get(&ns(&["a"]), "k").unwrap().unwrap().version, 9);
    assert_eq!(s.history(&ns(&["a"]), "k").unwrap().len(), before + 1);
    // A local write goes on from the agent's number; while it is queued, pulls leave the key alone.
    let ack = s.put(MemoryPut::new(&["a"], "k", json!("mine"))).unwrap();
    assert_eq!(ack.version, 10);
    let done = s.apply_pulled(vec![pulled("k", 10, json!("theirs"))], 43).unwrap();
    assert_eq!(done.pending, 1);
    assert_eq!(value_of(&mut s, &["a"], "k"), Some(json!("mine")));
    let last = s.outbox_ops(10).unwrap().last().unwrap().id;
    s.outbox_remove(last).unwrap();
    s.apply_pulled(vec![pulled("k", 11, json!("theirs"))], 44).unwrap();
    assert_eq!(value_of(&mut s, &["a"], "k"), Some(json!("theirs")));
    // A deletion, and an expiry already past, remove the live memory.
    let done = s.apply_pulled(vec![PulledMemory { deleted: true, ..pulled("k", 0, Value::Null) }], 45).unwrap();
    assert_eq!(done.applied, 1);
    assert_eq!(s.get(&ns(&["a"]), "k").unwrap(), None);
    let mut old = pulled("e", 1, json!(1));
    old.expires_at = Some(1);
    assert_eq!(s.apply_pulled(vec![old], 46).unwrap().unchanged, 1);
    assert_eq!(s.get(&ns(&["a"]), "e").unwrap(), None);
    assert_eq!(s.replica_cursor().unwrap(), 46);
}

#[test]
fn a_bad_pulled_page_changes_nothing() {
    let mut s = store(2);
    s.apply_pulled(vec![pulled("k", 1, json!(1))], 5).unwrap();
    let mut bad = pulled("x", 2, json!(2));
    bad.embedding = Some(vec![1.0, 2.0, 3.0]);
    let err = s.apply_pulled(vec![pulled("k", 2, json!(2)), bad], 9).unwrap_err();
    assert_eq!(err.code, ErrorCode::DimensionMismatch);
    assert_eq!(s.replica_cursor().unwrap(), 5);
    assert_eq!(value_of(&mut s, &["a"], "k"), Some(json!(1)));
}

#[test]
fn checkpoint_writes_and_thread_deletions_are_events() {
    let mut s = store(2);
    s.put_checkpoint(checkpoint("t", "c1", json!({}))).unwrap();
    let seq = s.seq();
    s.put_writes("t", "", "c1", "task", vec![("ch".into(), CheckpointData::json(&json!(1)))]).unwrap();
    s.delete_thread("t").unwrap();
    let ev = s.changes(seq, &EventFilter::default(), 10).unwrap();
    assert_eq!(ev.len(), 2);
    assert!(ev.iter().all(|e| e.kind == EventKind::Checkpoint && e.channel.as_deref() == Some("t")));
    assert_eq!(ev[0].key.as_deref(), Some("c1"));
    assert_eq!(ev[1].key, None, "a thread deletion names no checkpoint");
}

#[test]
fn a_pushed_op_is_recorded_with_its_write_and_a_failed_one_is_not() {
    let mut s = store(2);
    let ack = s.put_once("r1", 7, MemoryPut::new(&["a"], "k", json!(1))).unwrap();
    assert_eq!(s.applied_op("r1", 7).unwrap(), Some(ack.seq));
    assert_eq!(s.applied_op("r2", 7).unwrap(), None);
    // Only that write is recorded.
    s.put(MemoryPut::new(&["a"], "k2", json!(1))).unwrap();
    assert_eq!(s.applied_op("r1", 8).unwrap(), None);
    let mut stale = MemoryPut::new(&["a"], "k", json!(2));
    stale.if_version = Some(5);
    assert_eq!(s.put_once("r1", 9, stale).unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(s.applied_op("r1", 9).unwrap(), None, "a failed write records nothing");
    s.put(MemoryPut::new(&["a"], "k3", json!(1))).unwrap();
    assert_eq!(s.applied_op("r1", 9).unwrap(), None, "nor leaves its op for the next write");
    // A put refused before its transaction (a bad key) leaves nothing either.
    assert!(s.put_once("r1", 11, MemoryPut::new(&["a"], "", json!(1))).is_err());
    s.put(MemoryPut::new(&["a"], "k4", json!(1))).unwrap();
    assert_eq!(s.applied_op("r1", 11).unwrap(), None);
    let seq = s.delete_once("r1", 10, &ns(&["a"]), "k2", None).unwrap();
    assert_eq!(s.applied_op("r1", 10).unwrap(), Some(seq));
    let bad = s.put_once("", 1, MemoryPut::new(&["a"], "x", json!(1))).unwrap_err();
    assert_eq!(bad.code, ErrorCode::InvalidArgument);
}

#[test]
fn a_checkpoint_event_names_a_namespace_other_than_the_root() {
    let mut s = store(2);
    let mut c = checkpoint("t", "c1", json!({}));
    c.checkpoint_ns = "child:1".into();
    s.put_checkpoint(c).unwrap();
    s.put_checkpoint(checkpoint("t", "c2", json!({}))).unwrap();
    let ev = s.changes(0, &EventFilter::default(), 10).unwrap();
    assert_eq!(ev[0].payload, Some(json!({"checkpointNs": "child:1"})));
    assert_eq!(ev[1].payload, None);
}

#[test]
fn an_import_keeps_the_hosts_note_with_each_chunk_across_a_reopen() {
    use edgemem_core::{ImportChunk, MemoryPageStore, Storage, StoreConfig};
    use std::rc::Rc;
    let mut src = store(2);
    for i in 0..40 {
        s_put(&mut src, i);
    }
    let mut chunks = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let c = src.export_chunk(cursor.as_deref(), 512).unwrap();
        chunks.push(c.ndjson);
        cursor = c.cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert!(chunks.len() >= 3, "a few chunks");
    let ps = Rc::new(MemoryPageStore::new());
    let open = || {
        edgemem_core::Store::open(StoreConfig {
            storage: Storage::Pages { store: ps.clone(), atomic: true },
            ..StoreConfig::memory(2)
        })
        .unwrap()
    };
    let mut dst = open();
    assert_eq!(dst.import_note(), None);
    dst.import_ndjson_noting(&chunks[0], ImportChunk { first: true, last: false }, Some("after-0")).unwrap();
    dst.import_ndjson_noting(&chunks[1], ImportChunk { first: false, last: false }, Some("after-1")).unwrap();
    drop(dst); // killed mid-import
    let mut dst = open();
    assert_eq!(dst.import_note().as_deref(), Some("after-1"), "the note of the last chunk taken");
    let n = chunks.len();
    for (i, c) in chunks.iter().enumerate().skip(2) {
        dst.import_ndjson_noting(c, ImportChunk { first: false, last: i == n - 1 }, Some("x")).unwrap();
    }
    assert_eq!(dst.import_note(), None, "no import in progress");
    assert_eq!(dst.seq(), src.seq());
    assert_eq!(dst.list(&Default::default()).unwrap().items.len(), 40);
}

fn s_put(s: &mut edgemem_core::Store, i: u32) {
    s.put(MemoryPut::new(&["a"], &format!("k{i}"), json!(i)).text(&format!("text {i}")).embedding(vec![1.0, i as f32]))
        .unwrap();
}
