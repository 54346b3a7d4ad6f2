//! Pages a request reads and writes in a page store, as a Durable Object keeps them (atomic host, 8 KiB
//! pages), the bytes it writes whole and as the object stores them (without their zero runs), and the
//! B-trees its written pages belong to (SQLite's `dbstat` over a copy of the database), and the 4 KiB pages the
//! object's own SQLite writes for them (object_sqlite.rs: its WAL frames per call):
//! `edgemem-bench pages [--n 10000] [--iters 200] [--scalar i4|i8|f16|f32] [--data DIR] [--json]`. The store is
//! loaded as the latency suite loads it, then PUT (updates and new keys, alternating), CHECKPOINT PUT,
//! GET and hybrid SEARCH each run `iters` times; a written page is attributed to the B-tree that holds
//! it after the run (a page freed and reused meanwhile counts for its last owner).

use crate::corpus::{load_locomo, locomo_dir, realistic_vectors, Rng, DIMS};
use crate::flag;
use crate::object_sqlite::{elide_hole, ObjectSqlite};
use edgemem_core::{
    CheckpointData, CheckpointPut, MemoryPageStore, MemoryPut, PageStore, ScalarKind, SearchQuery, Storage, Store,
    StoreConfig,
};
use serde_json::json;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

/// A page store in memory that counts reads and records the pages each call writes.
#[derive(Default)]
struct Recorder {
    inner: MemoryPageStore,
    reads: Cell<u64>,
    written: RefCell<Vec<u64>>,
    /// Bytes of the pages put, and of the same pages as a Durable Object stores them (without their
    /// longest zero run: workers/src/page-hole.ts), since the last `take`.
    bytes: Cell<(u64, u64)>,
    /// The object's SQLite the pages also go to (`run`; not in the tests).
    object: Option<ObjectSqlite>,
}

impl Recorder {
    /// Database page number of a chunk key (`db/<index>`: page index + 1), None for other keys.
    fn page_of(key: &str) -> Option<u64> {
        key.strip_prefix("db/")?.parse::<u64>().ok().map(|i| i + 1)
    }
    /// (pages read, distinct pages written, (bytes put, bytes as the object stores them)) since the last call.
    fn take(&self) -> (u64, Vec<u64>, (u64, u64)) {
        let mut w = std::mem::take(&mut *self.written.borrow_mut());
        w.sort_unstable();
        w.dedup();
        (self.reads.replace(0), w, self.bytes.replace((0, 0)))
    }
    /// The database file's bytes (its chunks in order).
    fn database(&self) -> Result<Vec<u8>, String> {
        let size = self.inner.get("db/size")?.ok_or("no db/size")?;
        let len = u64::from_le_bytes(size.try_into().map_err(|_| "db/size is not 8 bytes")?) as usize;
        let mut out = Vec::with_capacity(len);
        for i in 0.. {
            if out.len() >= len {
                break;
            }
            out.extend(self.inner.get(&format!("db/{i}"))?.ok_or_else(|| format!("chunk {i} missing"))?);
        }
        out.truncate(len);
        Ok(out)
    }
}

impl PageStore for Recorder {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        self.reads.set(self.reads.get() + u64::from(key != "db/size"));
        self.inner.get(key)
    }
    fn read_into(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        self.reads.set(self.reads.get() + u64::from(key != "db/size"));
        self.inner.read_into(key, offset, dst)
    }
    fn put(&self, key: &str, value: &[u8]) -> Result<(), String> {
        if let Some(p) = Self::page_of(key) {
            self.written.borrow_mut().push(p);
            let (put, stored) = self.bytes.get();
            self.bytes.set((put + value.len() as u64, stored + elide_hole(value).len() as u64));
        }
        if let (Some(o), Some(id)) = (&self.object, ObjectSqlite::id_of(key)) {
            o.put(id, value)?;
        }
        self.inner.put(key, value)
    }
    fn delete(&self, key: &str) -> Result<(), String> {
        if let (Some(o), Some(id)) = (&self.object, ObjectSqlite::id_of(key)) {
            o.delete(id)?;
        }
        self.inner.delete(key)
    }
}

/// What one kind of request did, summed over its calls.
#[derive(Default)]
struct Tally {
    calls: u64,
    reads: u64,
    written: Vec<u64>,
    /// Bytes of the pages put (a page put twice in one call counts twice) and as the object stores them.
    bytes: (u64, u64),
    /// The object SQLite's WAL frames (4 KiB pages written).
    frames: u64,
}

pub fn run(args: &[String], as_json: bool) -> Result<(), String> {
    let num = |name: &str, dflt: usize| -> Result<usize, String> {
        flag(args, name).map(|v| v.parse().map_err(|e| format!("{name}: {e}"))).transpose().map(|v| v.unwrap_or(dflt))
    };
    let (n, iters) = (num("--n", 10_000)?, num("--iters", 200)?);
    let scalar = ScalarKind::parse(flag(args, "--scalar").unwrap_or("i8")).ok_or("--scalar: f32, f16, i8 or i4")?;
    let loco = load_locomo(Path::new(&locomo_dir(flag(args, "--data"))), "minilm")?;
    let texts: Vec<String> = loco.turns.iter().map(|t| format!("{}: {}", t.speaker, t.embed_text)).collect();
    let vecs = realistic_vectors(&loco.turn_vecs, n + iters, 42);
    let e = |e: edgemem_core::Error| e.to_string();
    let rec = Rc::new(Recorder { object: Some(ObjectSqlite::open()?), ..Recorder::default() });
    let storage = Storage::Pages { store: rec.clone(), atomic: true };
    let mut s = Store::open(StoreConfig { storage, scalar, ..StoreConfig::memory(DIMS) }).map_err(e)?;
    let mut rng = Rng::new(1);
    let put_of = |rng: &mut Rng, i: usize, v: &[f32]| {
        let ns = ["agent", ["facts", "prefs", "episodes", "tasks"][i % 4]];
        let value = json!({"id": i, "pad": "x".repeat(900 + rng.below(100))});
        MemoryPut::new(&ns, &format!("m{i}"), value).text(&texts[i % texts.len()]).embedding(v.to_vec())
    };
    for chunk in (0..n).collect::<Vec<_>>().chunks(500) {
        s.put_batch(chunk.iter().map(|&i| put_of(&mut rng, i, &vecs[i])).collect()).map_err(e)?;
    }
    s.maintain().map_err(e)?;
    let object = rec.object.as_ref().ok_or("no object")?;
    object.commit()?;
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut record = |op: &'static str, s: &mut Store, f: &mut dyn FnMut(&mut Store) -> Result<(), String>| {
        rec.take();
        object.begin()?;
        f(s)?;
        let frames = object.commit()?;
        let (reads, written, (put, stored)) = rec.take();
        let t = tallies.entry(op).or_default();
        t.calls += 1;
        t.reads += reads;
        t.written.extend(written);
        t.bytes = (t.bytes.0 + put, t.bytes.1 + stored);
        t.frames += frames;
        Ok::<(), String>(())
    };
    let cp_payload = json!({"channel_values": {"messages": ["a step's message ".repeat(20)]}, "pad": "y".repeat(300)});
    for it in 0..iters {
        let i = if it % 2 == 0 { rng.below(n) } else { n + it };
        let p = put_of(&mut rng, i, &vecs[n + it]);
        record("put", &mut s, &mut |s| s.put(p.clone()).map(drop).map_err(e))?;
        let c = CheckpointPut {
            channel_versions: Default::default(),
            blobs: Vec::new(),
            thread_id: format!("thread-{}", it % 16),
            checkpoint_ns: String::new(),
            checkpoint_id: format!("cp-{it:08}"),
            parent_id: (it >= 16).then(|| format!("cp-{:08}", it - 16)),
            data: CheckpointData::json(&cp_payload),
            metadata: json!({"step": it}).as_object().cloned().unwrap_or_default(),
        };
        record("checkpoint_put", &mut s, &mut |s| s.put_checkpoint(c.clone()).map(drop).map_err(e))?;
        let g = rng.below(n);
        let ns = vec!["agent".to_string(), ["facts", "prefs", "episodes", "tasks"][g % 4].to_string()];
        record("get", &mut s, &mut |s| s.get(&ns, &format!("m{g}")).map(drop).map_err(e))?;
        let qi = rng.below(loco.questions.len());
        let q = SearchQuery {
            text: Some(loco.questions[qi].question.clone()),
            vector: Some(loco.question_vecs[qi].clone()),
            k: Some(10),
            ..Default::default()
        };
        record("search", &mut s, &mut |s| s.search(&q).map(drop).map_err(e))?;
    }
    let owners = page_owners(&rec.database()?)?;
    let mut report = serde_json::Map::new();
    for (op, t) in &tallies {
        let mut by_tree: BTreeMap<&str, u64> = BTreeMap::new();
        for p in &t.written {
            *by_tree.entry(owners.get(p).map_or("(free or gone)", String::as_str)).or_default() += 1;
        }
        let per = |x: u64| x as f64 / t.calls as f64;
        let mut trees: Vec<(&str, f64)> = by_tree.iter().map(|(k, v)| (*k, per(*v))).collect();
        trees.sort_by(|a, b| b.1.total_cmp(&a.1));
        if !as_json {
            println!(
                "{op}: {:.2} pages written, {:.2} read per call ({} calls); {:.1} KiB put, {:.1} KiB without zero runs; \
                 the object's SQLite writes {:.2} pages of 4 KiB",
                per(t.written.len() as u64),
                per(t.reads),
                t.calls,
                per(t.bytes.0) / 1024.0,
                per(t.bytes.1) / 1024.0,
                per(t.frames)
            );
            for (k, v) in &trees {
                println!("  {v:>6.2}  {k}");
            }
        }
        report.insert(
            op.to_string(),
            json!({"calls": t.calls, "written_per_call": per(t.written.len() as u64), "read_per_call": per(t.reads),
                   "kib_put_per_call": per(t.bytes.0) / 1024.0, "kib_stored_per_call": per(t.bytes.1) / 1024.0,
                   "object_pages_per_call": per(t.frames),
                   "written_by_btree": trees.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>()}),
        );
    }
    if as_json {
        println!("{}", json!({"memories": n, "scalar": scalar.as_str(), "ops": report}));
    }
    Ok(())
}

/// Page number → the table or index holding it (overflow pages included), from `dbstat` over a copy of
/// the database file.
fn page_owners(db: &[u8]) -> Result<BTreeMap<u64, String>, String> {
    let path = std::env::temp_dir().join(format!("edgemem-pages-{}.db", std::process::id()));
    std::fs::write(&path, db).map_err(|e| format!("{}: {e}", path.display()))?;
    let out = (|| -> rusqlite::Result<BTreeMap<u64, String>> {
        let c = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let mut st = c.prepare("SELECT pageno, name FROM dbstat")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)))?;
        rows.collect()
    })();
    let _ = std::fs::remove_file(&path);
    out.map_err(|e| format!("dbstat: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PUT's written pages are named by their B-trees: the memory row, its version and its event, and no
    /// commit row (schema v7: the events are the commit log).
    #[test]
    fn a_put_is_counted_by_btree() {
        let rec = Rc::new(Recorder::default());
        let storage = Storage::Pages { store: rec.clone(), atomic: true };
        let mut s = Store::open(StoreConfig { storage, ..StoreConfig::memory(8) }).unwrap();
        let put = |i: usize| MemoryPut::new(&["t"], &format!("k{i}"), json!("x".repeat(500))).embedding(vec![0.5; 8]);
        s.put_batch((0..50).map(put).collect()).unwrap();
        rec.take();
        s.put(put(7)).unwrap();
        let (_, written, _) = rec.take();
        let owners = page_owners(&rec.database().unwrap()).unwrap();
        let names: Vec<&str> = written.iter().filter_map(|p| owners.get(p).map(String::as_str)).collect();
        for want in ["memories", "versions", "events"] {
            assert!(names.contains(&want), "{want} not among {names:?}");
        }
        assert!(!names.contains(&"commits"), "{names:?}");
        assert!(written.len() <= 12, "{} pages for one put: {names:?}", written.len());
    }
}
