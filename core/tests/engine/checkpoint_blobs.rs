//! Checkpoint channel blobs (one per channel version, shared by the checkpoints that name it) and
//! listing checkpoints across threads.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{
    ChannelBlob, CheckpointData, CheckpointListQuery, CheckpointPut, Condition, ErrorCode, Retention, StoreConfig,
};
use serde_json::json;

fn blob(channel: &str, version: &str, value: serde_json::Value) -> ChannelBlob {
    ChannelBlob { channel: channel.into(), version: version.into(), data: CheckpointData::json(&value) }
}

fn versions(pairs: &[(&str, &str)]) -> serde_json::Map<String, serde_json::Value> {
    pairs.iter().map(|(c, v)| (c.to_string(), json!(v))).collect()
}

fn put(thread: &str, id: &str, names: &[(&str, &str)], blobs: Vec<ChannelBlob>, source: &str) -> CheckpointPut {
    CheckpointPut {
        thread_id: thread.into(),
        checkpoint_ns: String::new(),
        checkpoint_id: id.into(),
        parent_id: None,
        data: CheckpointData::json(&json!({"id": id})),
        metadata: json!({"source": source}).as_object().unwrap().clone(),
        channel_versions: versions(names),
        blobs,
    }
}

#[test]
fn blobs_are_stored_once_per_version_and_resolved_on_read() {
    let mut s = store(0);
    s.put_checkpoint(put(
        "t",
        "c1",
        &[("messages", "1"), ("step", "1")],
        vec![blob("messages", "1", json!(["hi"])), blob("step", "1", json!(1))],
        "input",
    ))
    .unwrap();
    // c2 writes only `step`; `messages` is carried over from c1's blob.
    s.put_checkpoint(put("t", "c2", &[("messages", "1"), ("step", "2")], vec![blob("step", "2", json!(2))], "loop"))
        .unwrap();
    let c2 = s.get_checkpoint("t", "", None).unwrap().unwrap();
    assert_eq!(c2.checkpoint_id, "c2");
    assert_eq!(c2.channel_versions, versions(&[("messages", "1"), ("step", "2")]));
    assert_eq!(c2.blobs, vec![blob("messages", "1", json!(["hi"])), blob("step", "2", json!(2))]);
    let c1 = s.get_checkpoint("t", "", Some("c1")).unwrap().unwrap();
    assert_eq!(c1.blobs, vec![blob("messages", "1", json!(["hi"])), blob("step", "1", json!(1))]);

    // A version named without a blob is left out; a blob already stored is kept as it was.
    s.put_checkpoint(put(
        "t",
        "c3",
        &[("messages", "1"), ("other", "7")],
        vec![blob("messages", "1", json!(["changed"]))],
        "loop",
    ))
    .unwrap();
    let c3 = s.get_checkpoint("t", "", None).unwrap().unwrap();
    assert_eq!(c3.blobs, vec![blob("messages", "1", json!(["hi"]))]);

    // Bytes blobs round-trip; bad names are INVALID_ARGUMENT.
    let bytes =
        ChannelBlob { channel: "raw".into(), version: "1".into(), data: CheckpointData::Bytes(vec![0, 1, 255]) };
    s.put_checkpoint(put("t", "c4", &[("raw", "1")], vec![bytes.clone()], "loop")).unwrap();
    assert_eq!(s.get_checkpoint("t", "", None).unwrap().unwrap().blobs, vec![bytes]);
    let e = s.put_checkpoint(put("t", "c5", &[("", "1")], vec![], "loop")).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let e = s.put_checkpoint(put("t", "c5", &[], vec![blob("x", "", json!(1))], "loop")).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);

    // Deleting the thread deletes its blobs: a new thread of the same name starts empty.
    s.delete_thread("t").unwrap();
    s.put_checkpoint(put("t", "d1", &[("messages", "1")], vec![], "input")).unwrap();
    assert!(s.get_checkpoint("t", "", None).unwrap().unwrap().blobs.is_empty());
}

#[test]
fn retention_drops_the_blobs_no_checkpoint_names() {
    let mut s = store_with(StoreConfig {
        retention: Retention { checkpoints_per_thread: 2, ..Default::default() },
        ..StoreConfig::memory(0)
    });
    for i in 1..=5 {
        let v = i.to_string();
        // `fixed` is written once, at version 1, and named by every checkpoint.
        let mut blobs = vec![blob("step", &v, json!(i))];
        if i == 1 {
            blobs.push(blob("fixed", "1", json!("kept")));
        }
        s.put_checkpoint(put("t", &format!("c{i}"), &[("fixed", "1"), ("step", &v)], blobs, "loop")).unwrap();
    }
    let left = s.list_checkpoints(&CheckpointListQuery { thread_id: Some("t".into()), ..Default::default() }).unwrap();
    assert_eq!(left.len(), 2);
    assert_eq!(left[1].blobs, vec![blob("fixed", "1", json!("kept")), blob("step", "4", json!(4))]);
    // Versions 1..=3 of `step` went with their checkpoints: a checkpoint naming one again finds nothing.
    s.put_checkpoint(put("t", "c6", &[("step", "2")], vec![], "loop")).unwrap();
    assert!(s.get_checkpoint("t", "", None).unwrap().unwrap().blobs.is_empty());
}

#[test]
fn lists_across_threads_with_before_limit_and_filter() {
    let mut s = store(0);
    for (t, id, src) in [("a", "1", "input"), ("b", "2", "input"), ("a", "3", "loop"), ("b", "4", "loop")] {
        s.put_checkpoint(put(t, id, &[], vec![], src)).unwrap();
    }
    let ids = |q: CheckpointListQuery, s: &edgemem_core::Store| {
        s.list_checkpoints(&q).unwrap().into_iter().map(|c| c.checkpoint_id).collect::<Vec<_>>()
    };
    assert_eq!(ids(CheckpointListQuery::default(), &s), ["4", "3", "2", "1"]);
    assert_eq!(ids(CheckpointListQuery { limit: Some(2), ..Default::default() }, &s), ["4", "3"]);
    assert_eq!(ids(CheckpointListQuery { before: Some("3".into()), ..Default::default() }, &s), ["2", "1"]);
    let loops = CheckpointListQuery { filter: vec![Condition::eq("source", json!("loop"))], ..Default::default() };
    assert_eq!(ids(loops, &s), ["4", "3"]);
    // `before` may name a checkpoint of another thread.
    assert_eq!(
        ids(CheckpointListQuery { thread_id: Some("a".into()), before: Some("4".into()), ..Default::default() }, &s),
        ["3", "1"]
    );
    assert_eq!(
        ids(CheckpointListQuery { thread_id: Some("a".into()), before: Some("2".into()), ..Default::default() }, &s),
        ["1"]
    );
    let e = s.list_checkpoints(&CheckpointListQuery { before: Some("nope".into()), ..Default::default() }).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[test]
fn blobs_travel_in_both_export_formats() {
    let mut a = store(0);
    a.put_checkpoint(put("t", "c1", &[("m", "1")], vec![blob("m", "1", json!("one"))], "input")).unwrap();
    a.put_checkpoint(put("t", "c2", &[("m", "1"), ("n", "1")], vec![blob("n", "1", json!("two"))], "loop")).unwrap();
    let doc = a.export().unwrap();
    let mut b = store(0);
    b.import(&doc).unwrap();
    assert_eq!(
        b.get_checkpoint("t", "", None).unwrap().unwrap().blobs,
        vec![blob("m", "1", json!("one")), blob("n", "1", json!("two"))]
    );

    let mut ndjson = String::new();
    let mut cursor: Option<String> = None;
    loop {
        let c = a.export_chunk(cursor.as_deref(), 1 << 20).unwrap();
        ndjson.push_str(&c.ndjson);
        match c.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let mut c = store(0);
    c.import_ndjson(&ndjson, edgemem_core::ImportChunk::WHOLE).unwrap();
    assert_eq!(c.get_checkpoint("t", "", Some("c1")).unwrap().unwrap().blobs, vec![blob("m", "1", json!("one"))]);
    assert_eq!(c.get_checkpoint("t", "", None).unwrap().unwrap().blobs.len(), 2);
}
