//! One verdict for a whole streamed import: the caller says where each chunk sits in its stream
//! (`ImportChunk`), so a stream is either refused — the store left empty, with no import in progress — or
//! accepted whole. A property test corrupts valid export streams at every line and cuts them into chunks.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{CheckpointData, ErrorCode, ExportDoc, ExportLine, ImportChunk, MemoryPut, Store};
use serde_json::json;

const DIMS: usize = 4;

fn lines_of(chunks: &[String]) -> Vec<String> {
    chunks.iter().flat_map(|c| c.lines().map(str::to_string)).collect()
}

/// A small store of `seed`: memories with several versions (some with vectors and text), deletes,
/// checkpoints with pending writes.
fn random_store(seed: u64) -> Store {
    let mut s = store(DIMS);
    let clock = manual_clock(&mut s, 1_000);
    let mut rng = Rng::new(seed);
    let ops = 6 + rng.below(6);
    for i in 0..ops {
        clock.set(1_000 + 10 * i as i64);
        let space = ["a", "b"][rng.below(2) as usize];
        let key = format!("k{}", rng.below(3));
        match rng.below(6) {
            0 => {
                let _ = s.delete(&ns(&[space]), &key, None); // NOT_FOUND when it is not there
            }
            1 => {
                let id = format!("c{i}");
                s.put_checkpoint(checkpoint("t", &id, json!({"step": i}))).unwrap();
                if rng.below(2) == 0 {
                    let writes = vec![("ch".into(), CheckpointData::Bytes(vec![i as u8, 2]))];
                    s.put_writes("t", "", &id, "task", writes).unwrap();
                }
            }
            _ => {
                let mut put = MemoryPut::new(&[space], &key, json!({"i": i}));
                if rng.below(2) == 0 {
                    put = put.embedding(rng.unit_vec(DIMS));
                }
                if rng.below(2) == 0 {
                    put = put.text(&format!("memory number {i}"));
                }
                s.put(put).unwrap();
            }
        }
    }
    s
}

/// Where a line goes in the export's order: its section, then a version's (namespace, key, seq).
type Place = (u8, Vec<String>, String, u64);

/// The stream's lines in the export's order: by section, versions by (namespace, key, seq). An import takes
/// the lines of a section in any order; its store exports them in this one.
fn export_order(lines: &[String]) -> Vec<String> {
    let mut keyed: Vec<(Place, String)> = lines
        .iter()
        .map(|l| {
            let key = match ExportLine::parse(l).unwrap() {
                ExportLine::Header(_) => (0, vec![], String::new(), 0),
                ExportLine::Version(v) => (1, v.memory.namespace, v.memory.key, v.memory.seq),
                ExportLine::Commits(_) => (2, vec![], String::new(), 0),
                ExportLine::Checkpoint(_) => (3, vec![], String::new(), 0),
                ExportLine::Write(_) => (4, vec![], String::new(), 0),
                ExportLine::End(_) => (5, vec![], String::new(), 0),
            };
            (key, l.clone())
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0)); // stable: a section's other lines keep their order
    keyed.into_iter().map(|(_, l)| l).collect()
}

/// Imports `lines` cut before each line index in `cuts` (sorted), each chunk placed in its stream, into a
/// fresh store; checks the verdict: refused with the store left empty, or accepted and exporting exactly the
/// lines imported. True when accepted.
#[track_caller]
fn import_checked(lines: &[String], cuts: &[usize], empty: &ExportDoc, what: &str) -> bool {
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < lines.len()));
    bounds.push(lines.len());
    bounds.dedup();
    let chunks: Vec<String> = bounds.windows(2).map(|w| lines[w[0]..w[1]].join("\n") + "\n").collect();
    let mut b = store(DIMS);
    match import_all(&mut b, &chunks) {
        Err(e) => {
            let st = b.stats().unwrap();
            assert_eq!((st.memories, st.seq), (0, 0), "{what}: refused ({e}), yet the store is not empty");
            assert_eq!(&b.export().unwrap(), empty, "{what}: refused ({e}), yet the store is not empty");
            assert!(!b.abort_import().unwrap(), "{what}: refused ({e}), yet an import is still in progress");
            false
        }
        Ok(p) => {
            assert!(p.done, "{what}: the last chunk was accepted, so the import is done");
            let got = lines_of(&export_chunks(&mut b, 1 << 20));
            assert_eq!(got, export_order(lines), "{what}: accepted, yet the store exports something else");
            true
        }
    }
}

/// Cuts before random line indexes (about one boundary in three).
fn random_cuts(rng: &mut Rng, n: usize) -> Vec<usize> {
    (1..n).filter(|_| rng.below(3) == 0).collect()
}

#[test]
fn every_corrupted_stream_is_refused_whole_or_imported_exactly() {
    let empty = store(DIMS).export().unwrap();
    let mut accepted_corruptions = 0;
    for seed in 0..5 {
        let mut source = random_store(seed);
        let lines = lines_of(&export_chunks(&mut source, 1 << 20));
        let n = lines.len();
        let mut rng = Rng::new(100 + seed);
        // The valid stream: whole, a line a chunk, and cut at each boundary.
        let every: Vec<usize> = (1..n).collect();
        assert!(import_checked(&lines, &[], &empty, "whole"));
        assert!(import_checked(&lines, &every, &empty, "a line a chunk"));
        for cut in 1..n {
            assert!(import_checked(&lines, &[cut], &empty, &format!("cut before line {cut}")));
        }
        let header = lines[0].clone();
        let mut later: serde_json::Value = serde_json::from_str(&header).unwrap();
        later["seq"] = json!(source.seq() + 7);
        let later = later.to_string();
        for i in 0..n {
            let j = (i + 1 + rng.below(n as u64 - 1) as usize) % n;
            let mut variants: Vec<(String, Vec<String>)> = Vec::new();
            let mut v = lines.clone();
            v.remove(i);
            variants.push((format!("line {i} dropped"), v));
            let mut v = lines.clone();
            v.insert(i + 1, lines[i].clone());
            variants.push((format!("line {i} twice"), v));
            let mut v = lines.clone();
            v.insert(i + 1, if i % 2 == 0 { header.clone() } else { later.clone() });
            variants.push((format!("a second header after line {i}"), v));
            let mut v = lines.clone();
            v.push(lines[i].clone());
            variants.push((format!("line {i} again after the end"), v));
            let mut v = lines.clone();
            let half = v[i].len() / 2;
            v[i].truncate(half);
            variants.push((format!("line {i} cut short"), v));
            let mut v = lines.clone();
            v.swap(i, j);
            variants.push((format!("lines {i} and {j} swapped"), v));
            for (what, v) in variants {
                let cuts = match rng.below(3) {
                    0 => Vec::new(),
                    1 => (1..v.len()).collect(),
                    _ => random_cuts(&mut rng, v.len()),
                };
                let what = format!("seed {seed}: {what}, cut before {cuts:?}");
                if import_checked(&v, &cuts, &empty, &what) {
                    accepted_corruptions += 1;
                }
            }
        }
    }
    // Only reorderings within a section pass (two versions swapped, say): the rest is refused.
    assert!(accepted_corruptions > 0, "the property checked accepted streams too");
}

/// Chunks of `lines` ending before each index of `cuts`.
fn chunks_at(lines: &[String], cuts: &[usize]) -> Vec<String> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(lines.len());
    bounds.windows(2).map(|w| lines[w[0]..w[1]].join("\n")).collect()
}

#[track_caller]
fn assert_refused_empty(b: &mut Store, r: edgemem_core::Result<edgemem_core::ImportProgress>, says: &str) {
    let e = r.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e}");
    assert!(e.message.contains(says), "{e}");
    let st = b.stats().unwrap();
    assert_eq!((st.memories, st.seq), (0, 0), "a refused import leaves the store empty");
    assert!(!b.abort_import().unwrap());
}

/// A stream that goes on after its `end` line, the extra line in a later chunk: the chunk holding `end` is
/// not the last, so it is refused before it commits anything.
#[test]
fn a_stream_that_goes_on_after_its_end_is_refused_whole() {
    let mut a = random_store(7);
    let mut all = lines_of(&export_chunks(&mut a, 1 << 20));
    let n = all.len();
    all.push(all[1].clone());
    let chunks = chunks_at(&all, &[2, n]);
    let mut b = store(DIMS);
    let r = import_all(&mut b, &chunks);
    assert_refused_empty(&mut b, r, "before the import's last chunk");
    // A last chunk without the `end` line: cut short.
    let mut c = store(DIMS);
    let r = import_all(&mut c, &chunks_at(&all[..n - 1], &[2]));
    assert_refused_empty(&mut c, r, "ended before its `end` line");
}

/// A second `header` in the middle of a stream — in its first chunk or a later one, with the stream's seq or
/// a later one — is refused: an import cannot end with a memory beyond the store's seq.
#[test]
fn a_second_header_mid_stream_is_refused() {
    let mut a = random_store(8);
    let all = lines_of(&export_chunks(&mut a, 1 << 20));
    let mut later: serde_json::Value = serde_json::from_str(&all[0]).unwrap();
    later["seq"] = json!(a.seq() + 100);
    for header in [all[0].clone(), later.to_string()] {
        let mut v = all.clone();
        v.insert(2, header);
        for cuts in [vec![], vec![2], vec![1, 3]] {
            let mut b = store(DIMS);
            let r = import_all(&mut b, &chunks_at(&v, &cuts));
            assert_refused_empty(&mut b, r, "`header` line past the start");
        }
    }
    // A chunk that is not the first, with no import in progress, is refused too.
    let mut b = store(DIMS);
    let r = b.import_ndjson(&all[1..].join("\n"), ImportChunk { first: false, last: true });
    assert_refused_empty(&mut b, r, "no import is in progress");
}
