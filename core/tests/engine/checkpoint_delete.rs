//! Deleting chosen checkpoints (`delete_checkpoints`: by id, by metadata filter, in a thread or in every thread)
//! and pruning threads to their newest checkpoints per namespace (`prune_threads`): one transaction each, the
//! pending writes and unnamed blobs going with them, a `checkpoint` event per deleted checkpoint.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{
    ChannelBlob, CheckpointData, CheckpointListQuery, CheckpointPut, Condition, ErrorCode, Event, EventFilter,
    EventKind, FilterOp, Store,
};
use serde_json::{json, Value};

/// A checkpoint of (`thread`, `ns`) with `run_id` in its metadata, naming `step` at version `id` and `fixed` at
/// version 1 (the first checkpoint of a namespace stores `fixed`'s blob; each stores its own `step`).
fn cp(thread: &str, ns: &str, id: &str, run: &str, first: bool) -> CheckpointPut {
    let mut blobs =
        vec![ChannelBlob { channel: "step".into(), version: id.into(), data: CheckpointData::json(&json!(id)) }];
    if first {
        blobs.push(ChannelBlob {
            channel: "fixed".into(),
            version: "1".into(),
            data: CheckpointData::json(&json!("f")),
        });
    }
    CheckpointPut {
        thread_id: thread.into(),
        checkpoint_ns: ns.into(),
        checkpoint_id: id.into(),
        parent_id: None,
        data: CheckpointData::json(&json!({ "id": id })),
        metadata: json!({ "run_id": run }).as_object().unwrap().clone(),
        channel_versions: json!({ "fixed": "1", "step": id }).as_object().unwrap().clone(),
        blobs,
    }
}

/// Puts `ids` in order on (`thread`, `ns`), each with run `run`.
fn chain(s: &mut Store, thread: &str, ns: &str, ids: &[&str], run: &str) {
    for (i, id) in ids.iter().enumerate() {
        s.put_checkpoint(cp(thread, ns, id, run, i == 0)).unwrap();
    }
}

/// The ids of a thread's checkpoints in `ns` (every namespace: None), newest first.
fn ids(s: &Store, thread: &str, ns: Option<&str>) -> Vec<String> {
    let q = CheckpointListQuery {
        thread_id: Some(thread.into()),
        checkpoint_ns: ns.map(String::from),
        ..Default::default()
    };
    s.list_checkpoints(&q).unwrap().into_iter().map(|c| c.checkpoint_id).collect()
}

fn events_after(s: &Store, seq: u64) -> Vec<Event> {
    s.changes(seq, &EventFilter::default(), 1000).unwrap()
}

fn writes(s: &mut Store, thread: &str, ns: &str, id: &str) {
    s.put_writes(thread, ns, id, "task", vec![("ch".into(), CheckpointData::json(&json!("w")))]).unwrap();
}

#[test]
fn deletes_checkpoints_by_id_with_their_writes_and_events() {
    let mut s = store(0);
    chain(&mut s, "t", "", &["a1", "a2", "a3"], "r");
    chain(&mut s, "t", "sub", &["s1", "s2"], "r");
    chain(&mut s, "u", "", &["a2"], "r"); // the same id in another thread
    writes(&mut s, "t", "", "a2");
    let before = s.seq();

    let n = s.delete_checkpoints(Some("t"), &["a2".into(), "s1".into(), "missing".into()], &[]).unwrap();
    assert_eq!(n, 2);
    assert_eq!(ids(&s, "t", Some("")), ["a3", "a1"]);
    assert_eq!(ids(&s, "t", Some("sub")), ["s2"]);
    assert_eq!(ids(&s, "u", None), ["a2"], "another thread's checkpoint with the same id stays");
    assert!(s.get_checkpoint("t", "", Some("a2")).unwrap().is_none());

    // One event per deleted checkpoint, oldest first, each with its own seq; the namespace in the payload.
    let ev = events_after(&s, before);
    assert_eq!(ev.len(), 2);
    assert_eq!(ev.iter().map(|e| e.seq).collect::<Vec<_>>(), [before + 1, before + 2]);
    assert!(ev.iter().all(|e| e.kind == EventKind::Checkpoint && e.channel.as_deref() == Some("t")));
    assert_eq!((ev[0].key.as_deref(), ev[0].payload.clone()), (Some("a2"), Some(json!({ "deleted": true }))));
    assert_eq!(
        (ev[1].key.as_deref(), ev[1].payload.clone()),
        (Some("s1"), Some(json!({ "deleted": true, "checkpointNs": "sub" })))
    );
    assert_eq!(s.seq(), before + 2);

    // The writes went with a2: the same id stored again has none.
    s.put_checkpoint(cp("t", "", "a2", "r", false)).unwrap();
    assert!(s.get_checkpoint("t", "", Some("a2")).unwrap().unwrap().pending_writes.is_empty());

    // Nothing matched: nothing deleted, no event.
    let at = s.seq();
    assert_eq!(s.delete_checkpoints(Some("t"), &["nope".into()], &[]).unwrap(), 0);
    assert_eq!(s.seq(), at);
}

#[test]
fn deletes_by_metadata_filter_across_threads_and_namespaces() {
    let mut s = store(0);
    chain(&mut s, "t1", "", &["a", "b"], "run-1");
    chain(&mut s, "t1", "child:1", &["c"], "run-1");
    chain(&mut s, "t1", "", &["d"], "run-2");
    chain(&mut s, "t2", "", &["e"], "run-1");
    chain(&mut s, "t2", "", &["f"], "run-3");
    let runs = Condition { field: "run_id".into(), op: FilterOp::In, value: json!(["run-1", "run-2"]) };

    // In one thread only.
    let only_t2 = s.delete_checkpoints(Some("t2"), &[], std::slice::from_ref(&runs)).unwrap();
    assert_eq!(only_t2, 1);
    assert_eq!(ids(&s, "t2", None), ["f"]);
    assert_eq!(ids(&s, "t1", None).len(), 4);

    // In every thread, every namespace.
    assert_eq!(s.delete_checkpoints(None, &[], &[runs]).unwrap(), 4);
    assert!(ids(&s, "t1", None).is_empty());
    assert_eq!(ids(&s, "t2", None), ["f"]);

    // Ids and a filter together: both must hold.
    chain(&mut s, "t3", "", &["x", "y"], "run-4");
    let other = Condition::eq("run_id", json!("run-5"));
    assert_eq!(s.delete_checkpoints(None, &["x".into()], &[other]).unwrap(), 0);
    assert_eq!(s.delete_checkpoints(None, &["x".into()], &[Condition::eq("run_id", json!("run-4"))]).unwrap(), 1);
    assert_eq!(ids(&s, "t3", None), ["y"]);
}

#[test]
fn blobs_go_when_no_checkpoint_names_them() {
    let mut s = store(0);
    chain(&mut s, "t", "", &["c1", "c2", "c3"], "r");
    // c1 stored `fixed`@1, which c2 and c3 name too: it stays while they do.
    s.delete_checkpoints(Some("t"), &["c1".into()], &[]).unwrap();
    let c3 = s.get_checkpoint("t", "", None).unwrap().unwrap();
    assert_eq!(
        c3.blobs.iter().map(|b| (b.channel.as_str(), b.version.as_str())).collect::<Vec<_>>(),
        [("fixed", "1"), ("step", "c3")]
    );
    // c1's own `step` version is gone: a checkpoint naming it again finds no blob.
    let mut again = cp("t", "", "c4", "r", false);
    again.channel_versions = json!({ "step": "c1" }).as_object().unwrap().clone();
    again.blobs.clear();
    s.put_checkpoint(again).unwrap();
    assert!(s.get_checkpoint("t", "", Some("c4")).unwrap().unwrap().blobs.is_empty());
}

#[test]
fn prunes_threads_to_their_newest_per_namespace() {
    let mut s = store(0);
    chain(&mut s, "t1", "", &["a1", "a2", "a3", "a4"], "r");
    chain(&mut s, "t1", "child:1", &["k1", "k2"], "r");
    chain(&mut s, "t2", "", &["b1", "b2", "b3"], "r");
    chain(&mut s, "t3", "", &["z1", "z2"], "r");
    writes(&mut s, "t1", "", "a4");
    let before = s.seq();

    assert_eq!(s.prune_threads(&["t1".into(), "t2".into(), "nobody".into()], 1).unwrap(), 3 + 1 + 2);
    assert_eq!(ids(&s, "t1", Some("")), ["a4"]);
    assert_eq!(ids(&s, "t1", Some("child:1")), ["k2"]);
    assert_eq!(ids(&s, "t2", None), ["b3"]);
    assert_eq!(ids(&s, "t3", None), ["z2", "z1"], "an unlisted thread is untouched");
    let kept = s.get_checkpoint("t1", "", None).unwrap().unwrap();
    assert_eq!(kept.pending_writes.len(), 1, "the kept checkpoint keeps its writes");
    // The first checkpoint's `fixed` blob is named by the kept one: it stays.
    assert!(kept.blobs.iter().any(|b| b.channel == "fixed"));

    let ev = events_after(&s, before);
    assert_eq!(ev.len(), 6);
    let deleted: Vec<(&str, &str)> =
        ev.iter().map(|e| (e.channel.as_deref().unwrap(), e.key.as_deref().unwrap())).collect();
    assert_eq!(deleted, [("t1", "a1"), ("t1", "a2"), ("t1", "a3"), ("t1", "k1"), ("t2", "b1"), ("t2", "b2")]);
    assert!(ev.iter().all(|e| e.payload.as_ref().and_then(|p| p.get("deleted")) == Some(&Value::Bool(true))));

    // Keep 2; again: nothing more to prune.
    chain(&mut s, "t3", "", &["z3", "z4"], "r");
    assert_eq!(s.prune_threads(&["t3".into()], 2).unwrap(), 2);
    assert_eq!(ids(&s, "t3", None), ["z4", "z3"]);
    let at = s.seq();
    assert_eq!(s.prune_threads(&["t3".into()], 2).unwrap(), 0);
    assert_eq!(s.prune_threads(&[], 1).unwrap(), 0);
    assert_eq!(s.seq(), at, "nothing pruned: no event");
}

#[test]
fn refuses_what_would_delete_everything_or_is_malformed() {
    let mut s = store(0);
    chain(&mut s, "t", "", &["a"], "r");
    let code = |r: edgemem_core::Result<u64>| r.unwrap_err().code;
    assert_eq!(code(s.delete_checkpoints(None, &[], &[])), ErrorCode::InvalidArgument);
    assert_eq!(code(s.delete_checkpoints(Some(""), &["a".into()], &[])), ErrorCode::InvalidArgument);
    assert_eq!(code(s.delete_checkpoints(Some(".."), &["a".into()], &[])), ErrorCode::InvalidArgument);
    assert_eq!(code(s.delete_checkpoints(Some("t"), &["".into()], &[])), ErrorCode::InvalidArgument);
    let many: Vec<String> = (0..1001).map(|i| i.to_string()).collect();
    assert_eq!(code(s.delete_checkpoints(Some("t"), &many, &[])), ErrorCode::InvalidArgument);
    let bad = Condition { field: "run_id".into(), op: FilterOp::In, value: json!("not an array") };
    assert_eq!(code(s.delete_checkpoints(None, &[], &[bad])), ErrorCode::InvalidArgument);
    assert_eq!(code(s.prune_threads(&["t".into()], 0)), ErrorCode::InvalidArgument);
    assert_eq!(code(s.prune_threads(&["".into()], 1)), ErrorCode::InvalidArgument);
    assert_eq!(ids(&s, "t", None), ["a"], "a refused call deletes nothing");
}

#[test]
fn a_replica_queues_each_deleted_checkpoint() {
    let mut s = store(0);
    chain(&mut s, "t", "", &["a", "b", "c"], "r");
    chain(&mut s, "t", "sub", &["d"], "r");
    s.set_outbox(true);
    s.delete_checkpoints(Some("t"), &["d".into()], &[]).unwrap();
    s.prune_threads(&["t".into()], 1).unwrap();
    let ops: Vec<Value> = s.outbox_ops(10).unwrap().iter().map(|o| serde_json::from_str(o.op.get()).unwrap()).collect();
    let got: Vec<(&str, &str, &str)> = ops
        .iter()
        .map(|o| {
            (o["op"].as_str().unwrap(), o["checkpoint_ns"].as_str().unwrap(), o["checkpoint_id"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        got,
        [("delete_checkpoint", "sub", "d"), ("delete_checkpoint", "", "a"), ("delete_checkpoint", "", "b")]
    );
}
