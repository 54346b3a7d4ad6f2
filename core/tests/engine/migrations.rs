//! Schema migrations: a database written by an older schema (turned back from the current one by SQL)
//! opens with its data, each migration applied once.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(not(target_arch = "wasm32"))]
use crate::common::*;
#[cfg(not(target_arch = "wasm32"))]
use crate::persistence::{fill, open_file, probe, temp_db, DIMS};
#[cfg(not(target_arch = "wasm32"))]
use edgemem_core::{AsOf, CheckpointData, CheckpointPut, MemoryPut, SearchQuery, Store};
#[cfg(not(target_arch = "wasm32"))]
use serde_json::json;

/// SQL turning a current file back into v11: no valid time or coherence columns (v12), the v8 view.
#[cfg(not(target_arch = "wasm32"))]
const V12_TO_V11: &str = "DROP INDEX memories_valid_to; DROP INDEX memories_valid_from; DROP VIEW all_versions;
    ALTER TABLE memories DROP COLUMN valid_from; ALTER TABLE memories DROP COLUMN valid_to;
    ALTER TABLE memories DROP COLUMN coherence; ALTER TABLE versions DROP COLUMN valid_from;
    ALTER TABLE versions DROP COLUMN valid_to; ALTER TABLE versions DROP COLUMN coherence;
    CREATE VIEW all_versions AS
        SELECT mem_id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version,
               seq_from, size, seq_to, ended_at, end_kind
        FROM versions WHERE seq_to IS NOT NULL
        UNION ALL
        SELECT id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version,
               seq, size, NULL, NULL, NULL
        FROM memories;";
/// SQL turning a current file back into v8 (after `V12_TO_V11`): no replica outbox (v11), the full-text marks' table again (empty: the
/// marks on events are applied by the searches before it), and events without their mark columns. (v10 changed
/// only the memories table's SQL text, which older schemas read alike.)
#[cfg(not(target_arch = "wasm32"))]
const V9_TO_V8: &str =
    "DROP TABLE outbox; DROP TABLE applied_ops; CREATE TABLE fts_pending (id INTEGER PRIMARY KEY, indexed_text TEXT);
    ALTER TABLE events DROP COLUMN fts_id; ALTER TABLE events DROP COLUMN fts_indexed;
    DELETE FROM meta WHERE name = 'fts_applied_seq';";
/// SQL turning a v8 file back into what v7 and older kept: the live version of each memory in
/// `versions` too (open: seq_to NULL), and no `all_versions` view. Older schemas' tests go on from it.
#[cfg(not(target_arch = "wasm32"))]
const V8_TO_V7: &str =
    "DROP VIEW all_versions; INSERT INTO versions (mem_id, ns, key, value, text, embedding, metadata,
    pinned, expires_at, created_at, updated_at, version, seq_from, size)
    SELECT id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version, seq, size
    FROM memories;";

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn schema_v1_database_migrates_with_its_data() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (dir, path) = temp_db(9);
        let open = || open_file(&path);
        let mut s = open();
        fill(&mut s, &mut Rng::new(4), 120, 0);
        s.put(MemoryPut::new(&["p"], "pinned", json!("kept")).pinned(true)).unwrap();
        let (want_stats, want_hits) = (s.stats().unwrap(), probe(&mut s, &mut Rng::new(6)));
        drop(s);
        // Turn the file back into what schema v1 wrote: v1's indexes and user_version, no full-text
        // write buffer (the probe's searches applied it), no checkpoint blobs.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "{V12_TO_V11} {V9_TO_V8} {V8_TO_V7}
             DROP TABLE fts_pending; DROP INDEX memories_lru; CREATE INDEX memories_seq ON memories (seq);
             DROP TABLE checkpoint_blobs; ALTER TABLE checkpoints DROP COLUMN channel_versions;
             CREATE INDEX commits_ts ON commits (ts); CREATE INDEX events_ts ON events (ts);
             CREATE INDEX checkpoints_seq ON checkpoints (seq);
             CREATE INDEX memories_lru ON memories (pinned, access_tick);
             INSERT INTO commits (seq, ts) SELECT MAX(seq), MAX(ts) FROM events GROUP BY tx; ALTER TABLE events DROP COLUMN tx; PRAGMA user_version = 1;",
        ))
        .unwrap();
        drop(c);
        let mut s = open();
        let got = s.stats().unwrap();
        assert_eq!(
            (got.memories, got.bytes, got.pinned_memories, got.pinned_bytes, got.index_vectors),
            (
                want_stats.memories,
                want_stats.bytes,
                want_stats.pinned_memories,
                want_stats.pinned_bytes,
                want_stats.index_vectors
            )
        );
        assert_eq!(probe(&mut s, &mut Rng::new(6)), want_hits);
        assert_eq!(value_of(&mut s, &["p"], "pinned"), Some(json!("kept")));
        drop(s);
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A v6 store (a commit row per write, the seq and vector indexes on memories) opens as v7 with every
/// memory, version, commit time, event and checkpoint, and its index snapshot caught up by replay: the
/// writes after the snapshot (new keys, vector updates, a vector dropped, deletes) answer as before.
#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn schema_v6_database_migrates_with_its_data() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (dir, path) = temp_db(12);
        let mut s = open_file(&path);
        let clock = manual_clock(&mut s, 1_000);
        let mut rng = Rng::new(21);
        fill(&mut s, &mut rng, 120, 0);
        s.snapshot_index().unwrap();
        clock.set(2_000);
        fill(&mut s, &mut rng, 10, 500); // new keys after the snapshot
        for i in 0..10 {
            let p = MemoryPut::new(&["p", ["x", "y"][i % 2]], &format!("k{i}"), json!(format!("updated {i} word3")));
            s.put(p.embedding(rng.unit_vec(DIMS))).unwrap();
        }
        s.put(MemoryPut::new(&["p", "x"], "k10", json!("no vector any more"))).unwrap();
        s.delete(&ns(&["p", "y"]), "k11", None).unwrap();
        s.put_checkpoint(checkpoint("t", "c1", json!({"step": 1}))).unwrap();
        s.notify("chan", json!({"hello": 1})).unwrap();
        let at_1500 = s.get_at(&ns(&["p", "x"]), "k0", Some(AsOf::Time(1_500))).unwrap();
        let want = (
            s.export().unwrap(),
            s.changes(0, &Default::default(), 10_000).unwrap(),
            s.history(&ns(&["p", "x"]), "k0").unwrap(),
            probe(&mut s, &mut Rng::new(6)),
        );
        let stats = s.stats().unwrap();
        drop(s); // no close(): the snapshot stays behind the writes
                 // Turn the file back into what schema v6 wrote: a commit row per write, its indexes on memories.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "{V12_TO_V11} {V9_TO_V8} {V8_TO_V7}
             DROP INDEX memories_lru; CREATE INDEX memories_lru ON memories (pinned, access_tick, size);
             CREATE INDEX memories_vectors ON memories (id) WHERE embedding IS NOT NULL;
             CREATE INDEX memories_seq ON memories (seq);
             INSERT INTO commits (seq, ts) SELECT MAX(seq), MAX(ts) FROM events GROUP BY tx; ALTER TABLE events DROP COLUMN tx;
             DELETE FROM meta WHERE name = 'index_snapshot_max_id'; PRAGMA user_version = 6;",
        ))
        .unwrap();
        drop(c);
        let mut s = open_file(&path);
        let got = s.stats().unwrap();
        assert_eq!((got.memories, got.index_vectors, got.seq), (stats.memories, stats.index_vectors, stats.seq));
        assert_eq!(s.get_at(&ns(&["p", "x"]), "k0", Some(AsOf::Time(1_500))).unwrap(), at_1500);
        let now = (
            s.export().unwrap(),
            s.changes(0, &Default::default(), 10_000).unwrap(),
            s.history(&ns(&["p", "x"]), "k0").unwrap(),
            probe(&mut s, &mut Rng::new(6)),
        );
        assert_eq!(now, want);
        // A version v6 kept open closes when its memory changes, once.
        let before = s.history(&ns(&["p", "x"]), "k0").unwrap();
        s.put(MemoryPut::new(&["p", "x"], "k0", json!("after the migration"))).unwrap();
        let after = s.history(&ns(&["p", "x"]), "k0").unwrap();
        assert_eq!(after.len(), before.len() + 1);
        assert_eq!(after[..before.len()], before[..]);
        assert_eq!(after.last().unwrap().value, json!("after the migration"));
        drop(s);
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn schema_v7_open_versions_stay_hidden_and_close_once() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (dir, path) = temp_db(13);
        let mut s = open_file(&path);
        let mut rng = Rng::new(22);
        fill(&mut s, &mut rng, 60, 0);
        for i in 0..6 {
            s.put(MemoryPut::new(&["p", "x"], &format!("k{}", 2 * i), json!(format!("updated {i}")))).unwrap();
        }
        s.delete(&ns(&["p", "y"]), "k1", None).unwrap();
        let want = (s.export().unwrap(), s.history(&ns(&["p", "x"]), "k0").unwrap(), s.stats().unwrap().versions);
        drop(s);
        // Schema v7 kept each live version in `versions` too, open (seq_to NULL), and had no view.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "{V12_TO_V11} {V9_TO_V8} {V8_TO_V7}
             PRAGMA user_version = 7;",
        ))
        .unwrap();
        drop(c);
        let mut s = open_file(&path);
        let got = (s.export().unwrap(), s.history(&ns(&["p", "x"]), "k0").unwrap(), s.stats().unwrap().versions);
        assert_eq!(got, want, "the open versions are not read twice");
        // The streamed export carries each version once, and imports into the same store.
        let chunks = export_chunks(&mut s, 4_000);
        let mut b = store(DIMS);
        import_all(&mut b, &chunks).unwrap();
        assert_eq!(b.export().unwrap(), want.0);
        // An update and a delete close a version v7 left open, each once.
        s.put(MemoryPut::new(&["p", "x"], "k0", json!("after the migration"))).unwrap();
        s.delete(&ns(&["p", "y"]), "k3", None).unwrap();
        let history = s.history(&ns(&["p", "x"]), "k0").unwrap();
        assert_eq!(history[..want.1.len()], want.1[..]);
        assert_eq!(history.len(), want.1.len() + 1);
        assert_eq!(s.history(&ns(&["p", "y"]), "k3").unwrap().len(), 1);
        assert_eq!(s.stats().unwrap().versions, want.2 + 1);
        let doc = s.export().unwrap();
        assert!(doc.versions.iter().any(|v| v.memory.key == "k3" && v.seq_to.is_some()));
        assert_eq!(doc.versions.iter().filter(|v| v.seq_to.is_none()).count(), doc.memories.len());
        drop(s);
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A v9 store's memories table (AUTOINCREMENT, a high-water mark in sqlite_sequence) migrates to v10 with its rows,
/// and new keys go on above the live ids.
#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn schema_v9_memories_lose_autoincrement_with_their_rows() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (dir, path) = temp_db(15);
        let mut s = open_file(&path);
        fill(&mut s, &mut Rng::new(4), 30, 0);
        s.delete(&ns(&["p", "y"]), "k29", None).unwrap();
        let want = probe(&mut s, &mut Rng::new(6));
        drop(s);
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(V12_TO_V11).unwrap();
        c.execute_batch(
            "DROP TABLE outbox; DROP TABLE applied_ops; PRAGMA writable_schema = ON;
             UPDATE sqlite_schema SET sql = replace(sql, 'INTEGER PRIMARY KEY,', 'INTEGER PRIMARY KEY AUTOINCREMENT,')
                 WHERE type = 'table' AND name = 'memories';
             PRAGMA writable_schema = RESET;
             INSERT INTO sqlite_sequence (name, seq) VALUES ('memories', 30); PRAGMA user_version = 9;",
        )
        .unwrap();
        let sql: String =
            c.query_row("SELECT sql FROM sqlite_schema WHERE name = 'memories'", [], |r| r.get(0)).unwrap();
        assert!(sql.contains("INTEGER PRIMARY KEY AUTOINCREMENT,"), "{sql}");
        drop(c);
        let mut s = open_file(&path);
        assert_eq!(probe(&mut s, &mut Rng::new(6)), want);
        assert_eq!(s.stats().unwrap().memories, 29);
        s.put(MemoryPut::new(&["p", "y"], "new", json!(1)).embedding(Rng::new(8).unit_vec(DIMS))).unwrap();
        drop(s);
        let c = rusqlite::Connection::open(&path).unwrap();
        let sql: String =
            c.query_row("SELECT sql FROM sqlite_schema WHERE name = 'memories'", [], |r| r.get(0)).unwrap();
        assert!(!sql.contains("AUTOINCREMENT"), "{sql}");
        let (max, new): (i64, i64) = c
            .query_row(
                "SELECT (SELECT MAX(id) FROM memories WHERE key != 'new'), id FROM memories WHERE key = 'new'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert!(new > max, "new id {new}, highest other {max}");
        assert_eq!(c.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0)).unwrap(), "ok");
        drop(c);
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// Schema v8 kept full-text marks in a table of their own; v9 applies them as it moves marks onto events.
#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn schema_v8_full_text_marks_are_applied_by_the_migration() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use edgemem_core::SearchMode;
        let (dir, path) = temp_db(14);
        let mut s = open_file(&path);
        let put = |k: &str, t: &str| MemoryPut::new(&["p"], k, json!(k)).text(t);
        let lexical = |s: &mut Store, q: &str| -> Vec<(String, u64)> {
            let q = SearchQuery {
                text: Some(q.into()),
                mode: Some(SearchMode::Lexical),
                k: Some(10),
                ..Default::default()
            };
            s.search(&q).unwrap().into_iter().map(|h| (h.key, h.score.to_bits())).collect()
        };
        s.put_batch(vec![put("a", "otter river"), put("b", "heron stone"), put("c", "willow otter")]).unwrap();
        assert_eq!(lexical(&mut s, "otter").len(), 2);
        // Marks left waiting: an update, a delete, a new memory.
        s.put(put("a", "lantern meadow")).unwrap();
        s.delete(&ns(&["p"]), "b", None).unwrap();
        s.put(put("d", "otter harbour")).unwrap();
        drop(s);
        // As v8 held them: in fts_pending, the first mark per memory with the text FTS has for it.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(V12_TO_V11).unwrap();
        c.execute_batch(
            "DROP TABLE outbox; DROP TABLE applied_ops; CREATE TABLE fts_pending (id INTEGER PRIMARY KEY, indexed_text TEXT);
             INSERT OR IGNORE INTO fts_pending (id, indexed_text) SELECT fts_id, CASE WHEN fts_indexed THEN
               (SELECT text FROM versions WHERE seq_to = events.seq) END FROM events
               WHERE seq > (SELECT value FROM meta WHERE name = 'fts_applied_seq') AND fts_id IS NOT NULL ORDER BY seq;
             ALTER TABLE events DROP COLUMN fts_id; ALTER TABLE events DROP COLUMN fts_indexed;
             DELETE FROM meta WHERE name = 'fts_applied_seq'; PRAGMA user_version = 8;",
        )
        .unwrap();
        assert_eq!(c.query_row("SELECT COUNT(*) FROM fts_pending", [], |r| r.get::<_, i64>(0)).unwrap(), 3);
        drop(c);
        let mut s = open_file(&path);
        let mut fresh = store(DIMS);
        fresh.put_batch(vec![put("a", "lantern meadow"), put("c", "willow otter"), put("d", "otter harbour")]).unwrap();
        for q in ["otter", "lantern", "heron", "river", "harbour willow"] {
            assert_eq!(lexical(&mut s, q), lexical(&mut fresh, q), "{q}");
        }
        assert!(lexical(&mut s, "heron").is_empty() && lexical(&mut s, "otter").len() == 2);
        drop(s);
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "needs a filesystem")]
fn schema_v5_checkpoint_blobs_migrate_with_their_data() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (dir, path) = temp_db(10);
        let mut s = open_file(&path);
        let blob = |c: &str, v: serde_json::Value| edgemem_core::ChannelBlob {
            channel: c.into(),
            version: "1".into(),
            data: CheckpointData::json(&v),
        };
        let big = json!("m".repeat(20_000));
        s.put_checkpoint(CheckpointPut {
            channel_versions: json!({"a": "1", "big": "1"}).as_object().unwrap().clone(),
            blobs: vec![blob("a", json!(1)), blob("big", big.clone())],
            thread_id: "t".into(),
            checkpoint_ns: String::new(),
            checkpoint_id: "c1".into(),
            parent_id: None,
            data: CheckpointData::json(&json!({})),
            metadata: Default::default(),
        })
        .unwrap();
        drop(s);
        // Turn the blobs back into v5's WITHOUT ROWID table.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "{V12_TO_V11} {V9_TO_V8} {V8_TO_V7}
             CREATE TABLE v5 (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, channel TEXT NOT NULL,
               version TEXT NOT NULL, kind TEXT NOT NULL, data BLOB NOT NULL,
               PRIMARY KEY (thread_id, checkpoint_ns, channel, version)) WITHOUT ROWID;
             INSERT INTO v5 SELECT thread_id, checkpoint_ns, channel, version, kind, data FROM checkpoint_blobs;
             DROP TABLE checkpoint_blobs; ALTER TABLE v5 RENAME TO checkpoint_blobs;
             INSERT INTO commits (seq, ts) SELECT MAX(seq), MAX(ts) FROM events GROUP BY tx; ALTER TABLE events DROP COLUMN tx; PRAGMA user_version = 5;",
        ))
        .unwrap();
        drop(c);
        let s = open_file(&path);
        let got = s.get_checkpoint("t", "", None).unwrap().unwrap();
        assert_eq!(got.blobs, vec![blob("a", json!(1)), blob("big", big)]);
        drop(s);
        std::fs::remove_dir_all(&dir).ok();
    }
}
