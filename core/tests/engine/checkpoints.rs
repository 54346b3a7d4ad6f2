//! Checkpoints: put / get latest / get by id / list (before, limit, metadata filter),
//! pending writes, delete_thread, retention.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{CheckpointData, CheckpointListQuery, CheckpointPut, Condition, ErrorCode, Retention, StoreConfig};
use serde_json::json;

fn cp(thread: &str, id: &str, parent: Option<&str>, step: i64) -> CheckpointPut {
    CheckpointPut {
        channel_versions: Default::default(),
        blobs: Vec::new(),
        thread_id: thread.into(),
        checkpoint_ns: String::new(),
        checkpoint_id: id.into(),
        parent_id: parent.map(String::from),
        data: CheckpointData::json(&json!({"channel_values": {"messages": ["hi", "hi", "hi"]}, "step": step})),
        metadata: json!({"step": step, "source": if step == 0 { "input" } else { "loop" }})
            .as_object()
            .unwrap()
            .clone(),
    }
}

#[test]
fn put_get_list_and_writes() {
    let mut s = store(0);
    s.put_checkpoint(cp("t1", "c0", None, 0)).unwrap();
    s.put_checkpoint(cp("t1", "c1", Some("c0"), 1)).unwrap();
    s.put_checkpoint(cp("t1", "c2", Some("c1"), 2)).unwrap();
    s.put_checkpoint(cp("t2", "x0", None, 0)).unwrap();
    let latest = s.get_checkpoint("t1", "", None).unwrap().unwrap();
    assert_eq!(latest.checkpoint_id, "c2");
    assert_eq!(latest.parent_id.as_deref(), Some("c1"));
    let c1 = s.get_checkpoint("t1", "", Some("c1")).unwrap().unwrap();
    assert_eq!(c1.data, CheckpointData::json(&json!({"channel_values": {"messages": ["hi", "hi", "hi"]}, "step": 1})));
    assert!(s.get_checkpoint("t1", "", Some("nope")).unwrap().is_none());
    assert!(s.get_checkpoint("t3", "", None).unwrap().is_none());

    let all = s.list_checkpoints(&CheckpointListQuery { thread_id: Some("t1".into()), ..Default::default() }).unwrap();
    assert_eq!(all.iter().map(|c| c.checkpoint_id.as_str()).collect::<Vec<_>>(), vec!["c2", "c1", "c0"]);
    let before = s
        .list_checkpoints(&CheckpointListQuery {
            thread_id: Some("t1".into()),
            before: Some("c2".into()),
            limit: Some(1),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(before.iter().map(|c| c.checkpoint_id.as_str()).collect::<Vec<_>>(), vec!["c1"]);
    let loops = s
        .list_checkpoints(&CheckpointListQuery {
            thread_id: Some("t1".into()),
            filter: vec![Condition::eq("source", json!("loop"))],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(loops.len(), 2);

    s.put_writes(
        "t1",
        "",
        "c2",
        "task-a",
        vec![("messages".into(), CheckpointData::Bytes(vec![1, 2, 3])), ("x".into(), CheckpointData::json(&json!(5)))],
    )
    .unwrap();
    let latest = s.get_checkpoint("t1", "", None).unwrap().unwrap();
    assert_eq!(latest.pending_writes.len(), 2);
    assert_eq!(latest.pending_writes[0].value, CheckpointData::Bytes(vec![1, 2, 3]));
    assert_eq!(latest.pending_writes[1].idx, 1);

    assert_eq!(s.delete_thread("t1").unwrap(), 3);
    assert!(s.get_checkpoint("t1", "", None).unwrap().is_none());
    assert!(s.get_checkpoint("t2", "", None).unwrap().is_some());
    let e = s.put_checkpoint(CheckpointPut { thread_id: String::new(), ..cp("t", "c", None, 0) }).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
}

#[test]
fn retention_last_n_and_bytes() {
    let mut s = store_with(StoreConfig {
        retention: Retention { checkpoints_per_thread: 3, ..Default::default() },
        ..StoreConfig::memory(0)
    });
    for i in 0..10 {
        s.put_checkpoint(cp("t", &format!("c{i}"), None, i)).unwrap();
    }
    let left = s.list_checkpoints(&CheckpointListQuery { thread_id: Some("t".into()), ..Default::default() }).unwrap();
    assert_eq!(left.iter().map(|c| c.checkpoint_id.as_str()).collect::<Vec<_>>(), vec!["c9", "c8", "c7"]);

    let mut s = store_with(StoreConfig {
        retention: Retention { checkpoints_max_bytes: 1_000, ..Default::default() },
        ..StoreConfig::memory(0)
    });
    for i in 0..20 {
        s.put_checkpoint(cp("a", &format!("a{i}"), None, i)).unwrap();
        s.put_checkpoint(cp("b", &format!("b{i}"), None, i)).unwrap();
    }
    s.sweep().unwrap();
    let a = s.list_checkpoints(&CheckpointListQuery { thread_id: Some("a".into()), ..Default::default() }).unwrap();
    let b = s.list_checkpoints(&CheckpointListQuery { thread_id: Some("b".into()), ..Default::default() }).unwrap();
    assert_eq!(a[0].checkpoint_id, "a19", "the newest of each thread stays");
    assert_eq!(b[0].checkpoint_id, "b19");
    assert!(a.len() + b.len() < 40);
}

#[test]
fn pending_writes_follow_langgraphs_rule() {
    let mut s = store(0);
    s.put_checkpoint(cp("t", "c", None, 0)).unwrap();
    let j = |v: serde_json::Value| CheckpointData::json(&v);
    s.put_writes("t", "", "c", "task", vec![("a".into(), j(json!(1))), ("__error__".into(), j(json!("boom")))])
        .unwrap();
    // A retried task: its regular writes stay as first recorded, its special ones are replaced.
    s.put_writes(
        "t",
        "",
        "c",
        "task",
        vec![
            ("a".into(), j(json!(2))),
            ("__error__".into(), j(json!("again"))),
            ("__interrupt__".into(), j(json!("ask"))),
        ],
    )
    .unwrap();
    let w = s.get_checkpoint("t", "", None).unwrap().unwrap().pending_writes;
    let got: Vec<(i64, &str, &CheckpointData)> = w.iter().map(|w| (w.idx, w.channel.as_str(), &w.value)).collect();
    assert_eq!(
        got,
        vec![(-3, "__interrupt__", &j(json!("ask"))), (-1, "__error__", &j(json!("again"))), (0, "a", &j(json!(1)))]
    );
}

/// JSON payloads are kept as the text they came in (checked, never re-serialized): numbers keep their
/// spelling, whitespace stays, across the checkpoint, its blobs and its pending writes; invalid JSON is
/// refused where a payload is parsed.
#[test]
fn json_payloads_round_trip_verbatim() {
    let mut s = store(0);
    let text = r#"{ "n": 1.50, "big": 12345678901234567890, "e": 1E3, "s": "\u00e9" }"#;
    let raw = || CheckpointData::Json(serde_json::value::RawValue::from_string(text.to_owned()).unwrap());
    let mut put = cp("t", "c0", None, 0);
    put.data = raw();
    put.channel_versions = json!({"ch": "1"}).as_object().unwrap().clone();
    put.blobs = vec![edgemem_core::ChannelBlob { channel: "ch".into(), version: "1".into(), data: raw() }];
    s.put_checkpoint(put).unwrap();
    s.put_writes("t", "", "c0", "task", vec![("ch".into(), raw())]).unwrap();
    let got = s.get_checkpoint("t", "", None).unwrap().unwrap();
    for data in [&got.data, &got.blobs[0].data, &got.pending_writes[0].value] {
        let CheckpointData::Json(v) = data else { panic!("not JSON: {data:?}") };
        assert_eq!(v.get(), text);
    }
    let listed =
        s.list_checkpoints(&CheckpointListQuery { thread_id: Some("t".into()), ..Default::default() }).unwrap();
    assert_eq!(listed[0].data, raw());
    // Serialized, the payload is spliced in as it is.
    assert!(serde_json::to_string(&got).unwrap().contains(&format!(r#""data":{{"json":{text}}}"#)));
    let bad = r#"{"thread_id":"t","checkpoint_id":"c1","data":{"json":{"a":}}}"#;
    assert!(serde_json::from_str::<CheckpointPut>(bad).is_err());
}

/// JSON payloads nested deeper than serde_json's limit are refused as every other JSON the engine takes
/// (it checks their text without parsing it into values); brackets inside strings do not count.
#[test]
fn deeply_nested_json_payloads_are_refused() {
    let mut s = store(0);
    let raw = |t: String| CheckpointData::Json(serde_json::value::RawValue::from_string(t).unwrap());
    let nested = |depth: usize| raw(format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
    for deep in [nested(129), nested(100_000)] {
        let mut put = cp("t", "c0", None, 0);
        put.data = deep.clone();
        assert_eq!(s.put_checkpoint(put).unwrap_err().code, ErrorCode::InvalidArgument);
        let mut put = cp("t", "c0", None, 0);
        put.channel_versions = json!({"ch": "1"}).as_object().unwrap().clone();
        put.blobs = vec![edgemem_core::ChannelBlob { channel: "ch".into(), version: "1".into(), data: deep.clone() }];
        assert_eq!(s.put_checkpoint(put).unwrap_err().code, ErrorCode::InvalidArgument);
    }
    s.put_checkpoint(cp("t", "c0", None, 0)).unwrap();
    let deep = nested(200);
    assert_eq!(
        s.put_writes("t", "", "c0", "task", vec![("ch".into(), deep)]).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    // At the limit, and brackets in strings (with escaped quotes and backslashes around them).
    let mut put = cp("t", "c1", None, 1);
    put.data = raw(format!(r#"[{}"[[[\"\\", "\\\\[{{"]{}"#, "[".repeat(126), "]".repeat(126)));
    s.put_checkpoint(put).unwrap();
    let mut put = cp("t", "c2", None, 2);
    put.data = raw(format!(r#"{{"s": "{}"}}"#, "[".repeat(500)));
    s.put_checkpoint(put).unwrap();
}
