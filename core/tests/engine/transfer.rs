//! Streamed export and import (NDJSON chunks): round trips of any size in bounded chunks, consistency
//! while writes go on between chunks, and an import validated like the live API — duplicates, sizes,
//! commit times, cut streams — with coded errors that leave the store empty.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{CheckpointData, ErrorCode, ExportLine, ImportChunk, MemoryPut, SearchQuery, Store, StoreConfig};
use serde_json::json;

const DIMS: usize = 8;

fn filled(n: usize) -> Store {
    let mut s = store(DIMS);
    let clock = manual_clock(&mut s, 1_000);
    let mut rng = Rng::new(3);
    for i in 0..n {
        clock.set(1_000 + i as i64);
        let put = MemoryPut::new(
            &["a", ["x", "y"][i % 2]],
            &format!("k{}", i % (n / 2).max(1)),
            json!(format!("memory {i}")),
        )
        .embedding(rng.unit_vec(DIMS))
        .metadata(json!({"i": i}));
        s.put(put).unwrap();
    }
    s.put_checkpoint(checkpoint("t", "c1", json!({"step": 1}))).unwrap();
    s.put_writes("t", "", "c1", "task", vec![("ch".into(), CheckpointData::Bytes(vec![1, 2, 3]))]).unwrap();
    s
}

fn lines(chunks: &[String]) -> Vec<String> {
    chunks.iter().flat_map(|c| c.lines().map(str::to_string)).collect()
}

/// Each line of a chunk, as the chunk it would be on its own.
fn rechunk(lines: &[String], per: usize) -> Vec<String> {
    lines.chunks(per).map(|c| c.join("\n")).collect()
}

#[test]
fn streamed_export_round_trips_in_small_chunks() {
    let mut a = filled(200);
    let chunks = export_chunks(&mut a, 2_000);
    assert!(chunks.len() > 10, "small chunks: {}", chunks.len());
    for c in &chunks {
        // A chunk ends at the first line that reaches the size: at most one line beyond it.
        let longest = c.lines().map(str::len).max().unwrap();
        assert!(c.len() <= 2_000 + longest + 1, "chunk of {} bytes", c.len());
        assert!(c.ends_with('\n'));
    }
    let mut b = store(DIMS);
    let p = import_all(&mut b, &chunks).unwrap();
    assert!(p.done);
    assert_eq!((p.checkpoints, p.writes), (1, 1));
    assert_eq!(b.export().unwrap(), a.export().unwrap());
    let q = SearchQuery {
        vector: Some(Rng::new(5).unit_vec(DIMS)),
        text: Some("memory".into()),
        k: Some(10),
        ..Default::default()
    };
    let keys = |s: &mut Store| s.search(&q).unwrap().into_iter().map(|h| (h.key, h.version)).collect::<Vec<_>>();
    assert_eq!(keys(&mut b), keys(&mut a));
    // The imported store takes writes again, after the imported seq.
    let ack = b.put(MemoryPut::new(&["a"], "new", json!("after"))).unwrap();
    assert_eq!(ack.seq, a.seq() + 1);
}

#[test]
fn export_is_consistent_while_writes_go_on_between_chunks() {
    let mut a = filled(60);
    let before = a.export().unwrap();
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    let mut i = 0;
    loop {
        let c = a.export_chunk(cursor.as_deref(), 500).unwrap();
        out.push(c.ndjson);
        // Overwrites, deletes and new keys between chunks.
        i += 1;
        a.put(MemoryPut::new(&["a", "x"], "k0", json!(format!("changed {i}")))).unwrap();
        let _ = a.delete(&ns(&["a", "y"]), &format!("k{}", 2 * i + 1), None);
        a.put(MemoryPut::new(&["b"], &format!("new{i}"), json!("later"))).unwrap();
        match c.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let mut b = store(DIMS);
    import_all(&mut b, &out).unwrap();
    assert_eq!(b.export().unwrap(), before, "the export is of the seq it began at");
    // A cursor from before schema v8 (a version row id, no key) would repeat versions: refused.
    let counts = json!({"history_floor": 0, "versions": 3, "commits": 0, "checkpoints": 0, "writes": 0});
    let old = json!({"seq": a.seq(), "section": 0, "after": 5, "counts": counts}).to_string();
    let e = a.export_chunk(Some(&old), 500).unwrap_err();
    assert!(e.message.contains("older version"), "{e}");
    assert_eq!(e.code, ErrorCode::InvalidArgument);
}

#[test]
fn import_in_progress_refuses_writes_and_a_failed_chunk_empties_the_store() {
    let mut a = filled(40);
    let all = lines(&export_chunks(&mut a, 1 << 20));
    let chunks = rechunk(&all, 10);
    let mut b = store(DIMS);
    import_part(&mut b, &chunks[..1], true, false).unwrap();
    let e = b.put(MemoryPut::new(&["z"], "k", json!(1))).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict, "{e}");
    // A broken line in a later chunk: INVALID_ARGUMENT, and the partial import is gone.
    let e = b.import_ndjson("{\"kind\":\"version\",\"memory\":", ImportChunk::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let st = b.stats().unwrap();
    assert_eq!((st.memories, st.seq), (0, 0));
    b.put(MemoryPut::new(&["z"], "k", json!(1))).unwrap();

    // Cut short, then abandoned by its client: abort empties it too.
    let mut c = store(DIMS);
    import_part(&mut c, &chunks[..2], true, false).unwrap();
    assert!(c.abort_import().unwrap());
    assert_eq!(c.stats().unwrap().memories, 0);
    assert!(!c.abort_import().unwrap());
    // A new header over an abandoned import starts over.
    let mut d = store(DIMS);
    import_part(&mut d, &chunks[..2], true, false).unwrap();
    let p = import_all(&mut d, &chunks).unwrap();
    assert!(p.done);
    assert_eq!(d.export().unwrap(), a.export().unwrap());
}

/// Imports `lines` (all in one chunk) into a fresh store; the error's code.
#[track_caller]
fn import_error(lines: &[String]) -> ErrorCode {
    let mut b = store(DIMS);
    let e = b.import_ndjson(&lines.join("\n"), ImportChunk::WHOLE).unwrap_err();
    let st = b.stats().unwrap();
    assert_eq!((st.memories, st.seq), (0, 0), "a refused import leaves the store empty");
    e.code
}

fn replace_line(lines: &[String], kind: &str, f: impl Fn(&mut serde_json::Value)) -> Vec<String> {
    let mut out = lines.to_vec();
    let i = out.iter().position(|l| l.contains(&format!("\"kind\":\"{kind}\""))).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&out[i]).unwrap();
    f(&mut v);
    out[i] = v.to_string();
    out
}

#[test]
fn import_validates_like_the_live_api() {
    let mut a = filled(30);
    let all = lines(&export_chunks(&mut a, 1 << 20));
    let version = all.iter().position(|l| l.contains("\"kind\":\"version\"")).unwrap();
    let end = all.len() - 1;

    // Anything twice: a version (also the same live memory), a commit, a checkpoint, a pending write.
    let mut dup = all.clone();
    dup.insert(version, all[version].clone());
    assert_eq!(import_error(&dup), ErrorCode::InvalidArgument);
    let commits = all.iter().position(|l| l.contains("\"kind\":\"commits\"")).unwrap();
    let mut dup = all.clone();
    dup.insert(commits + 1, all[commits].clone());
    assert_eq!(import_error(&dup), ErrorCode::InvalidArgument);
    for kind in ["checkpoint", "write"] {
        let i = all.iter().position(|l| l.contains(&format!("\"kind\":\"{kind}\""))).unwrap();
        let mut dup = all.clone();
        dup.insert(i, all[i].clone());
        assert_eq!(import_error(&dup), ErrorCode::InvalidArgument, "{kind} twice");
    }
    // Commit times that run backwards would break AS OF by time.
    let back = replace_line(&all, "commits", |v| {
        let items = v["items"].as_array_mut().unwrap();
        let last = items.len() - 1;
        items[last][1] = json!(0);
    });
    assert_eq!(import_error(&back), ErrorCode::InvalidArgument);
    // A checkpoint past the store's checkpoint limit: the live API's 413.
    let big = replace_line(&all, "checkpoint", |v| v["data"] = json!({"json": "x".repeat(9 << 20)}));
    assert_eq!(import_error(&big), ErrorCode::PayloadTooLarge);
    // A memory past the memory limit, a bad key, a degenerate vector, a version beyond the seq.
    let big = replace_line(&all, "version", |v| v["memory"]["value"] = json!("x".repeat(2 << 20)));
    assert_eq!(import_error(&big), ErrorCode::PayloadTooLarge);
    let bad = replace_line(&all, "version", |v| v["memory"]["key"] = json!(""));
    assert_eq!(import_error(&bad), ErrorCode::InvalidArgument);
    let bad = replace_line(&all, "version", |v| v["memory"]["embedding"] = json!([3e38, 3e38, 0, 0, 0, 0, 0, 0]));
    assert_eq!(import_error(&bad), ErrorCode::InvalidArgument);
    let bad = replace_line(&all, "version", |v| v["memory"]["seq"] = json!(1_000_000));
    assert_eq!(import_error(&bad), ErrorCode::InvalidArgument);
    // A write for a checkpoint the export does not hold.
    let bad = replace_line(&all, "write", |v| v["checkpoint_id"] = json!("nope"));
    assert_eq!(import_error(&bad), ErrorCode::InvalidArgument);
    // A cut stream: lines missing before the end line.
    let mut cut = all.clone();
    cut.remove(version);
    assert_eq!(import_error(&cut), ErrorCode::InvalidArgument);
    // Lines after the end, or before the header.
    let mut after = all.clone();
    after.push(all[version].clone());
    assert_eq!(import_error(&after), ErrorCode::InvalidArgument);
    assert_eq!(import_error(&all[1..=end]), ErrorCode::InvalidArgument);
    // An unknown kind, and a line that is not JSON.
    assert_eq!(import_error(&[all[0].clone(), "{\"kind\":\"nope\"}".into()]), ErrorCode::InvalidArgument);
    assert_eq!(import_error(&[all[0].clone(), "[[[".into()]), ErrorCode::InvalidArgument);
    // Into a store holding data: CONFLICT; into other dims: DIMENSION_MISMATCH.
    assert_eq!(a.import_ndjson(&all.join("\n"), ImportChunk::WHOLE).unwrap_err().code, ErrorCode::Conflict);
    let mut other = store(DIMS + 1);
    assert_eq!(
        other.import_ndjson(&all.join("\n"), ImportChunk::WHOLE).unwrap_err().code,
        ErrorCode::DimensionMismatch
    );
    // The lines parse back to what was written.
    for l in &all {
        let line = ExportLine::parse(l).unwrap();
        assert_eq!(&line.to_line().unwrap(), l);
    }
}

#[test]
fn one_document_import_validates_too() {
    let a = &mut filled(20);
    let doc = a.export().unwrap();
    let mut twice = doc.clone();
    twice.memories.push(twice.memories[0].clone());
    assert_eq!(store(DIMS).import(&twice).unwrap_err().code, ErrorCode::InvalidArgument);
    let mut back = doc.clone();
    back.commits[3].1 = -5;
    assert_eq!(store(DIMS).import(&back).unwrap_err().code, ErrorCode::InvalidArgument);
    let mut big = doc.clone();
    big.checkpoints[0].data = CheckpointData::Bytes(vec![0; 9 << 20]);
    assert_eq!(store(DIMS).import(&big).unwrap_err().code, ErrorCode::PayloadTooLarge);
    let mut b = store(DIMS);
    b.import(&doc).unwrap();
    assert_eq!(b.export().unwrap(), doc);
}

#[test]
fn an_import_survives_a_reopen_mid_way() {
    let mut a = filled(40);
    let all = lines(&export_chunks(&mut a, 1 << 20));
    let chunks = rechunk(&all, 15);
    let pages = std::rc::Rc::new(edgemem_core::MemoryPageStore::new());
    let cfg = || StoreConfig {
        storage: edgemem_core::Storage::Pages { store: pages.clone(), atomic: false },
        ..StoreConfig::memory(DIMS)
    };
    let mut b = Store::open(cfg()).unwrap();
    import_part(&mut b, &chunks[..1], true, false).unwrap();
    drop(b);
    let mut b = Store::open(cfg()).unwrap();
    assert_eq!(b.put(MemoryPut::new(&["z"], "k", json!(1))).unwrap_err().code, ErrorCode::Conflict, "still importing");
    import_part(&mut b, &chunks[1..], false, true).unwrap();
    assert_eq!(b.export().unwrap(), a.export().unwrap());
}

#[test]
fn an_import_numbers_memories_as_the_source_did() {
    // Keys written out of their sort order, some rewritten and deleted: the export walks keys, the ids follow
    // the writes. Every text the same, so BM25 ties everywhere and the order of hits is the order of ids.
    let mut a = store(DIMS);
    for i in [7, 3, 9, 1, 5, 0, 8, 2, 6, 4] {
        a.put(MemoryPut::new(&[["b", "a"][i % 2]], &format!("k{i}"), json!(i)).text("the same words")).unwrap();
    }
    a.put(MemoryPut::new(&["a"], "k3", json!("again")).text("the same words")).unwrap();
    a.delete(&ns(&["b"]), "k8", None).unwrap();
    a.put(MemoryPut::new(&["b"], "k8", json!("back")).text("the same words")).unwrap();
    let q = SearchQuery { text: Some("same words".into()), k: Some(20), ..Default::default() };
    let hits = |s: &mut Store| s.search(&q).unwrap().into_iter().map(|h| h.key).collect::<Vec<_>>();
    let want = hits(&mut a);
    assert_eq!(want[..3], ["k7", "k3", "k9"], "ties go by id, the order of first writes");
    let all = lines(&export_chunks(&mut a, 300));
    let mut b = store(DIMS);
    assert!(import_all(&mut b, &rechunk(&all, 3)).unwrap().done);
    assert_eq!(hits(&mut b), want);
    assert_eq!(b.export().unwrap(), a.export().unwrap());
    // New memories after the import number on from the highest id.
    b.put(MemoryPut::new(&["c"], "new", json!(1)).text("the same words")).unwrap();
    assert_eq!(hits(&mut b).last().map(String::as_str), Some("new"));

    // An export written before versions carried their memory's id imports too: ids in the order of its lines.
    let old: Vec<String> = all
        .iter()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("id");
            v.to_string()
        })
        .collect();
    assert!(!old.iter().any(|l| l.contains("\"id\"")));
    let mut c = store(DIMS);
    assert!(import_all(&mut c, &rechunk(&old, 4)).unwrap().done);
    let mut got = hits(&mut c);
    got.sort();
    let mut keys = want.clone();
    keys.sort();
    assert_eq!(got, keys);

    // A memory id of 0, past the bound, or twice: INVALID_ARGUMENT.
    for id in [json!(0), json!(1u64 << 53)] {
        let bad = replace_line(&all, "version", |v| v["id"] = id.clone());
        assert_eq!(import_error(&bad), ErrorCode::InvalidArgument, "id {id}");
    }
    let live: Vec<usize> =
        all.iter().enumerate().filter(|(_, l)| l.contains("\"seq_to\":null")).map(|(i, _)| i).collect();
    let mut twice = all.clone();
    let first: serde_json::Value = serde_json::from_str(&all[live[0]]).unwrap();
    let mut second: serde_json::Value = serde_json::from_str(&all[live[1]]).unwrap();
    second["id"] = first["id"].clone();
    twice[live[1]] = second.to_string();
    assert_eq!(import_error(&twice), ErrorCode::InvalidArgument);
}
