//! The SQLite schema and its migrations. `PRAGMA user_version` records the applied version;
//! each migration runs once, in order, inside one transaction. Never edit a shipped migration:
//! append a new one.

use crate::base::error::Result;
use rusqlite::Connection;

/// Migration N (1-based) is MIGRATIONS[N-1].
const MIGRATIONS: &[&str] = &[
    // v1 — the initial layout.
    r#"
    CREATE TABLE meta (name TEXT PRIMARY KEY, value ANY) STRICT;

    -- Live memories. id is the HNSW key and the FTS rowid; AUTOINCREMENT so an id is never reused.
    CREATE TABLE memories (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        ns          TEXT NOT NULL,
        key         TEXT NOT NULL,
        value       TEXT NOT NULL,
        text        TEXT,
        embedding   BLOB,
        metadata    TEXT NOT NULL DEFAULT '{}',
        pinned      INTEGER NOT NULL DEFAULT 0,
        expires_at  INTEGER,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        version     INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        size        INTEGER NOT NULL,
        access_tick INTEGER NOT NULL DEFAULT 0,
        UNIQUE (ns, key)
    );
    CREATE INDEX memories_lru ON memories (pinned, access_tick);
    CREATE INDEX memories_expiry ON memories (expires_at) WHERE expires_at IS NOT NULL;
    CREATE INDEX memories_seq ON memories (seq);

    -- Every version, the live one included (seq_to NULL), valid for seq in [seq_from, seq_to):
    -- AS OF is one index seek here. The live version's seq_from equals memories.seq.
    -- mem_id is the memories.id the version had.
    -- Rowid tables with a separate key index (not WITHOUT ROWID): rows hold whole values, and a
    -- WITHOUT ROWID b-tree keeps entire rows in its interior pages, which makes lookups deep and slow.
    CREATE TABLE versions (
        vid         INTEGER PRIMARY KEY,
        mem_id      INTEGER NOT NULL,
        ns          TEXT NOT NULL,
        key         TEXT NOT NULL,
        value       TEXT NOT NULL,
        text        TEXT,
        embedding   BLOB,
        metadata    TEXT NOT NULL,
        pinned      INTEGER NOT NULL,
        expires_at  INTEGER,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        version     INTEGER NOT NULL,
        seq_from    INTEGER NOT NULL,
        seq_to      INTEGER,
        ended_at    INTEGER,
        end_kind    TEXT,
        size        INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX versions_key ON versions (ns, key, seq_from);
    CREATE INDEX versions_to ON versions (seq_to);

    -- Commit log: the last seq of each write call and its time, for AS OF time -> seq.
    CREATE TABLE commits (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL);
    CREATE INDEX commits_ts ON commits (ts);

    -- Contentless FTS5 over memories.text; rowid = memories.id.
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        text, content = '', contentless_delete = 1, tokenize = 'porter unicode61'
    );

    -- Change feed.
    CREATE TABLE events (
        seq      INTEGER PRIMARY KEY,
        ts       INTEGER NOT NULL,
        kind     TEXT NOT NULL,
        ns       TEXT,
        key      TEXT,
        version  INTEGER,
        channel  TEXT,
        payload  TEXT
    );
    CREATE INDEX events_ts ON events (ts);

    CREATE TABLE checkpoints (
        cid           INTEGER PRIMARY KEY,
        thread_id     TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        parent_id     TEXT,
        kind          TEXT NOT NULL,
        data          BLOB NOT NULL,
        metadata      TEXT NOT NULL,
        created_at    INTEGER NOT NULL,
        seq           INTEGER NOT NULL,
        size          INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX checkpoints_key ON checkpoints (thread_id, checkpoint_ns, checkpoint_id);
    CREATE INDEX checkpoints_order ON checkpoints (thread_id, checkpoint_ns, seq);
    CREATE INDEX checkpoints_seq ON checkpoints (seq);

    CREATE TABLE checkpoint_writes (
        wid           INTEGER PRIMARY KEY,
        thread_id     TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id       TEXT NOT NULL,
        idx           INTEGER NOT NULL,
        channel       TEXT NOT NULL,
        kind          TEXT NOT NULL,
        value         BLOB NOT NULL
    );
    CREATE UNIQUE INDEX checkpoint_writes_key ON checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx);

    -- The HNSW index snapshot and the seq it covers (one row).
    CREATE TABLE index_snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, data BLOB NOT NULL);
    "#,
    // v2 — a cold open reads small indexes, never the memories table (whose rows hold the values and
    // embeddings, ~2.5 KB each: 10k memories are ~28 MB of pages a Durable Object would fetch one by one).
    // Usage (SUM(size), COUNT(*), pinned) is read from memories_lru, now covering `size`; the vector count
    // that checks the index snapshot from a partial index of the rows with an embedding.
    r#"
    DROP INDEX memories_lru;
    CREATE INDEX memories_lru ON memories (pinned, access_tick, size);
    CREATE INDEX memories_vectors ON memories (id) WHERE embedding IS NOT NULL;
    "#,
    // v3 — full-text writes are buffered (lexical_buffer.rs): the memories whose FTS entry is stale,
    // with the text FTS held for each when it was marked. FTS entries are removed with FTS5's
    // 'delete' command and the text they were made from, which keeps BM25's document and token
    // totals exact (contentless_delete left them off on the wasm build's SQLite), so the index is
    // rebuilt from the live rows once. columnsize = 0: no per-row size table, which on a contentless
    // table makes bm25() score without document-length normalisation (FTS5 reports every row's size
    // as -1, so a term's tf factor is tf (k1 + 1) / (tf + k1 (1 - b - b / avgdl)) for every row; the
    // same in both SQLite builds; features/search/terms.rs sums it term by term, as with several terms FTS5's
    // bm25() is NaN when avgdl is exactly 3). Memories are short, and penalising the longer ones cost
    // recall: LoCoMo lexical R@10 0.669 -> 0.689, hybrid 0.724 -> 0.737 (e5); a search also skips one
    // size lookup per scored posting (-18 % instructions per hybrid search).
    r#"
    CREATE TABLE fts_pending (id INTEGER PRIMARY KEY, indexed_text TEXT);
    -- Time -> seq is a binary search over seq (time_index.rs): ts never decreases as seq grows.
    DROP INDEX commits_ts;
    DROP INDEX events_ts;
    -- No query reads checkpoints by seq alone (latest / list use checkpoints_order): one page fewer per checkpoint.
    DROP INDEX checkpoints_seq;
    DROP TABLE memories_fts;
    CREATE VIRTUAL TABLE memories_fts USING fts5 (text, content = '', columnsize = 0, tokenize = 'porter unicode61');
    INSERT INTO memories_fts (rowid, text) SELECT id, text FROM memories WHERE text IS NOT NULL;
    "#,
    // v4 — versions_to holds closed versions only. Every query on it names a seq_to (history pruning,
    // the vector index's catch-up), while the live versions' NULL entries cost each write index
    // pages: a new key one more, an overwrite two more (removing the old version's NULL entry, a
    // random and usually uncached page), of the ~15-17 pages a PUT writes.
    // Also: FTS5's 'merge' command (the idle flush's, lexical_buffer.rs) merges any level holding
    // two or more segments (usermerge, default 4).
    r#"
    DROP INDEX versions_to;
    CREATE INDEX versions_to ON versions (seq_to) WHERE seq_to IS NOT NULL;
    INSERT INTO memories_fts (memories_fts, rank) VALUES ('usermerge', 2);
    "#,
    // v5 — checkpoint channel values stored once per version (LangGraph's savers do this): a checkpoint
    // names the version of each channel it holds (`channel_versions`, a JSON object of strings) and a
    // put stores only the blobs of the versions it made; a read resolves the names to blobs. A thread of
    // a thousand steps stores each channel value once, not a thousand times.
    // Listing across threads (rare: LangGraph's `list` without a thread) sorts by seq without an index
    // of its own: one would cost every checkpoint put a page (v3 dropped it for that).
    r#"
    ALTER TABLE checkpoints ADD COLUMN channel_versions TEXT NOT NULL DEFAULT '{}';
    CREATE TABLE checkpoint_blobs (
        thread_id     TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        channel       TEXT NOT NULL,
        version       TEXT NOT NULL,
        kind          TEXT NOT NULL,
        data          BLOB NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
    ) WITHOUT ROWID;
    "#,
    // v6 — checkpoint blobs in a rowid table with a key index, as the other tables (see v1): in the
    // WITHOUT ROWID b-tree a blob spilling onto overflow pages is its key's cell, and SQLite reads a
    // spilled cell's whole record to compare keys, so finding one blob read every large blob on the
    // search path (a LangGraph step's getTuple spent a third of its time there).
    r#"
    CREATE TABLE checkpoint_blobs_v6 (
        bid           INTEGER PRIMARY KEY,
        thread_id     TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        channel       TEXT NOT NULL,
        version       TEXT NOT NULL,
        kind          TEXT NOT NULL,
        data          BLOB NOT NULL
    );
    INSERT INTO checkpoint_blobs_v6 (thread_id, checkpoint_ns, channel, version, kind, data)
        SELECT thread_id, checkpoint_ns, channel, version, kind, data FROM checkpoint_blobs;
    DROP TABLE checkpoint_blobs;
    ALTER TABLE checkpoint_blobs_v6 RENAME TO checkpoint_blobs;
    CREATE UNIQUE INDEX checkpoint_blobs_key ON checkpoint_blobs (thread_id, checkpoint_ns, channel, version);
    "#,
    // v7 — fewer B-trees per write: a commit writes at least one page of every B-tree it changes (a PUT
    // wrote ~14 pages of 8 KiB, each a Durable Object storage write; `edgemem-bench pages` counts them).
    // - The commit log folds into the change feed: every seq has its event and an event's ts is its commit's
    //   time, so time -> seq reads the events; an event's `tx` (its commit's first seq) marks the commit it
    //   belongs to; `commits` only keeps what pruned events leave (feed.rs) and what an import brings
    //   (time_index.rs reads both). One page fewer per PUT, CHECKPOINT and NOTIFY.
    // - memories_seq goes: the vector index catches up after its snapshot from the versions closed since
    //   (versions_to) and the ids above the snapshot's highest (meta `index_snapshot_max_id`, here computed
    //   for an existing snapshot from memories_seq before it goes). An update moved two of its entries.
    // - memories_vectors goes: the vector count is summed from memories_lru, which now covers
    //   `embedding IS NOT NULL` (every write rewrites its LRU entry anyway; the partial index's entry was
    //   rewritten by every update that set the embedding).
    r#"
    ALTER TABLE events ADD COLUMN tx INTEGER;
    INSERT OR REPLACE INTO meta (name, value)
        SELECT 'index_snapshot_max_id', COALESCE((SELECT MAX(id) FROM memories WHERE seq <= s.seq), 0)
        FROM index_snapshot s WHERE s.id = 1;
    DROP INDEX IF EXISTS memories_seq;
    DROP INDEX IF EXISTS memories_vectors;
    DROP INDEX IF EXISTS memories_lru;
    CREATE INDEX memories_lru ON memories (pinned, access_tick, size, embedding IS NOT NULL);
    "#,
    // v8 — a live version is its memories row only: `versions` holds closed versions, written when one
    // closes (copied from the row it was), so a new key writes no version and an update one, at the tail,
    // instead of a new one plus the previous one closed in place. Readers of history read `all_versions`.
    // Versions v7 kept open (seq_to NULL) are left where they are, hidden by the view, and closed in place
    // when their memory changes (features/memories/crud.rs); rewriting them here would journal the whole table.
    r#"
    CREATE VIEW all_versions AS
        SELECT mem_id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version,
               seq_from, size, seq_to, ended_at, end_kind
        FROM versions WHERE seq_to IS NOT NULL
        UNION ALL
        SELECT id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version,
               seq, size, NULL, NULL, NULL
        FROM memories;
    "#,
    // v9 — a write's full-text mark rides on its event (lexical_buffer.rs): `fts_id` the memory, `fts_indexed`
    // whether FTS held its text before the change; the marks waiting are the events' after meta
    // `fts_applied_seq`. The
    // `fts_pending` table cost every PUT a page of its own (~8 pages a PUT: `edgemem-bench pages`). Its
    // marks are applied here (an entry whose text did not change is removed and put back).
    r#"
    INSERT INTO memories_fts (memories_fts, rowid, text)
        SELECT 'delete', id, indexed_text FROM fts_pending WHERE indexed_text IS NOT NULL;
    INSERT INTO memories_fts (rowid, text)
        SELECT p.id, m.text FROM fts_pending p JOIN memories m ON m.id = p.id WHERE m.text IS NOT NULL;
    DROP TABLE fts_pending;
    ALTER TABLE events ADD COLUMN fts_id INTEGER;
    ALTER TABLE events ADD COLUMN fts_indexed INTEGER;
    INSERT OR REPLACE INTO meta (name, value) SELECT 'fts_applied_seq', COALESCE(MAX(seq), 0) FROM events;
    "#,
    // v10 — memories' ids without AUTOINCREMENT, which wrote its high-water mark (`sqlite_sequence`, a page
    // of its own) at every new key. The table's b-tree is the same with or without it: only its SQL text
    // in the schema changes, through writable_schema; the CREATE and DROP move the schema cookie, as the
    // `PRAGMA schema_version = X + 1` of SQLite's documented procedure would (v1 said ids are never reused:
    // that no longer holds). A new key's id is one past both the highest live id and the highest id the
    // vector index snapshot may hold (features/memories/crud.rs): what the index's replay needs (state/index_state.rs); an id
    // freed above both may come back, which nothing keyed by id minds (a reused id is an update of its
    // vector and full-text entry).
    r#"
    PRAGMA writable_schema = ON;
    UPDATE sqlite_schema SET sql = replace(sql, 'PRIMARY KEY AUTOINCREMENT', 'PRIMARY KEY')
        WHERE type = 'table' AND name = 'memories';
    PRAGMA writable_schema = RESET;
    CREATE TABLE schema_v10 (x);
    DROP TABLE schema_v10;
    "#,
    // v11 — a replica's outbox (features/replica.rs): each local write's op, appended in the write's own
    // transaction, removed once the agent has applied it. `ns` / `key` name the memory an op writes (empty for
    // checkpoint ops), so a pulled version of a key with a write still to push is left alone; ids are never reused
    // (AUTOINCREMENT): an op's id names it at the agent. And, at the agent,
    // the ops replicas pushed, each recorded in the transaction of the write that applied it (a retry is answered
    // from here, not applied twice).
    r#"
    CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, ns TEXT NOT NULL, key TEXT NOT NULL, op TEXT NOT NULL) STRICT;
    CREATE INDEX outbox_key ON outbox (ns, key);
    CREATE TABLE applied_ops (replica TEXT NOT NULL, op INTEGER NOT NULL, seq INTEGER NOT NULL,
        PRIMARY KEY (replica, op)) STRICT, WITHOUT ROWID;
    "#,
    // v12 — valid time and coherence (features/coherence): when a fact was true in the world (`valid_from`,
    // `valid_to`; NULL: open) and what `remember` keeps of it (`coherence`: seen count, last seen, the keys it
    // replaced / was replaced by; NULL: none), on live rows and versions alike. The partial indexes find the
    // memories a valid-time read must leave out without a scan (none, for a store of plain puts).
    r#"
    ALTER TABLE memories ADD COLUMN valid_from INTEGER;
    ALTER TABLE memories ADD COLUMN valid_to INTEGER;
    ALTER TABLE memories ADD COLUMN coherence TEXT;
    ALTER TABLE versions ADD COLUMN valid_from INTEGER;
    ALTER TABLE versions ADD COLUMN valid_to INTEGER;
    ALTER TABLE versions ADD COLUMN coherence TEXT;
    CREATE INDEX memories_valid_to ON memories (valid_to) WHERE valid_to IS NOT NULL;
    CREATE INDEX memories_valid_from ON memories (valid_from) WHERE valid_from IS NOT NULL;
    DROP VIEW all_versions;
    CREATE VIEW all_versions AS
        SELECT mem_id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version,
               valid_from, valid_to, coherence, seq_from, size, seq_to, ended_at, end_kind
        FROM versions WHERE seq_to IS NOT NULL
        UNION ALL
        SELECT id, ns, key, value, text, embedding, metadata, pinned, expires_at, created_at, updated_at, version,
               valid_from, valid_to, coherence, seq, size, NULL, NULL, NULL
        FROM memories;
    "#,
];

pub const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;

/// Applies every migration newer than the database's `user_version`.
pub fn migrate(conn: &mut Connection) -> Result<()> {
    let have: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if have > CURRENT_VERSION {
        return Err(crate::Error::new(
            crate::ErrorCode::Conflict,
            format!("database schema v{have} is newer than this engine (v{CURRENT_VERSION})"),
        ));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(have as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}

pub fn meta_get(conn: &Connection, name: &str) -> Result<Option<rusqlite::types::Value>> {
    use rusqlite::OptionalExtension;
    Ok(conn.query_row("SELECT value FROM meta WHERE name = ?1", [name], |r| r.get(0)).optional()?)
}

pub fn meta_set(conn: &Connection, name: &str, value: impl rusqlite::ToSql) -> Result<()> {
    conn.execute(
        "INSERT INTO meta (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        rusqlite::params![name, value],
    )?;
    Ok(())
}

/// A counter kept in `meta` (0 when absent).
pub(crate) fn meta_u64(c: &Connection, name: &str) -> Result<u64> {
    Ok(match meta_get(c, name)? {
        Some(rusqlite::types::Value::Integer(i)) => i as u64,
        _ => 0,
    })
}

#[cfg(test)]
mod tests {
    use crate::{MemoryPut, Store, StoreConfig};
    use serde_json::json;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Schema v10: memories' ids have no AUTOINCREMENT, so a new key writes no `sqlite_sequence` row, and
    /// with no index snapshot above it the highest id freed comes back (AUTOINCREMENT would give 4).
    #[test]
    fn new_keys_write_no_sequence() {
        let mut s = Store::open(StoreConfig::memory(0)).unwrap();
        s.put_batch((0..3).map(|i| MemoryPut::new(&["p"], &format!("k{i}"), json!(i))).collect()).unwrap();
        s.delete(&["p".to_string()], "k2", None).unwrap();
        s.put(MemoryPut::new(&["p"], "k3", json!(3))).unwrap();
        let sql: String =
            s.conn.query_row("SELECT sql FROM sqlite_schema WHERE name = 'memories'", [], |r| r.get(0)).unwrap();
        assert!(sql.contains("id          INTEGER PRIMARY KEY,") && !sql.contains("AUTOINCREMENT"), "{sql}");
        let rows: i64 = s.conn.query_row("SELECT COUNT(*) FROM sqlite_sequence", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 0);
        let ids: Vec<(String, i64)> = s
            .conn
            .prepare("SELECT key, id FROM memories ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(ids, [("k0".into(), 1), ("k1".into(), 2), ("k3".into(), 3)]);
    }
}
