// Peer: better-sqlite3 + sqlite-vec + FTS5 — the usual "SQLite for agent memory" set-up, in-process in Node.
//
// Owns one store for the benchmark's agent-step workload (bench/peers/node/latency.mjs, recall.mjs): memories
// upserted by (namespace, key) with a JSON value, a text and an embedding; GET by (namespace, key); LangGraph-shaped
// checkpoints as JSON rows; top-k search by vector, by text (BM25) or both fused.
//
// How it is configured, and why:
// - better-sqlite3 (synchronous, the fastest Node SQLite binding) on ':memory:' by default — edgemem's wasm-in-Node
//   latency run uses its in-memory storage too, so neither side pays for a file. For ':memory:' the journal is in
//   memory and `synchronous` does not apply; we set `temp_store = MEMORY` (sorts never spill). With a file path,
//   `journal_mode = WAL` and `synchronous = NORMAL`, the usual performance-minded settings.
// - `memories` (id INTEGER PRIMARY KEY = the rowid every index is keyed by, namespace path joined by '/', key,
//   value JSON text, text, updated_at; UNIQUE (namespace, key)).
// - `memories_fts`: FTS5 external-content table over memories.text (content='memories', content_rowid='id'),
//   tokenizer 'porter unicode61' (stemming, as edgemem and the LoCoMo reference BM25 use), kept in sync by the
//   triggers the FTS5 documentation gives (the UPDATE trigger only when the text changed); ranked by the built-in
//   bm25 `rank` with `ORDER BY rank LIMIT n`, the FTS5 fast path. User text becomes quoted terms OR-ed, stopwords
//   dropped (../terms.mjs, the engine's list): no input can be a MATCH syntax error.
// - `memories_vec`: sqlite-vec `vec0(embedding float[384] distance_metric=cosine)`, rowid = memories.id; KNN is
//   `WHERE embedding MATCH ? AND k = ?` — sqlite-vec 0.1.x scans every vector, so vector search is **exact**.
//   Vectors are bound as little-endian f32 BLOBs (a Buffer over the Float32Array, no copy), rowids as BigInt
//   (vec0 refuses a REAL rowid).
// - `checkpoints`: LangGraph SqliteSaver's shape — PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id),
//   parent_checkpoint_id, checkpoint and metadata as JSON text — written with INSERT OR REPLACE.
// - Every statement prepared once and reused; a PUT (upsert with RETURNING id, then the vector UPDATE, or INSERT
//   when the row is new) is one `db.transaction`; a batch is one transaction; a checkpoint is one autocommit
//   statement (which is a transaction by itself).
// - Hybrid: reciprocal rank fusion exactly as sqlite-vec's hybrid-search post does it (one SQL statement: a vec0
//   KNN CTE and an FTS5 CTE, each numbered with row_number(), FULL OUTER JOIN, score = Σ weight / (rrf_k + rank)),
//   rrf_k = 60, weights 1 / 1, and — as in the post — each list cut at k before fusing. We also tried deeper lists
//   (the usual advice to fetch a few times k): on LoCoMo they only lose (e5 R@10 0.701 at k, 0.701 at 32, 0.686 at
//   40, 0.683 at 100; MiniLM 0.708 / 0.667 / 0.649 / 0.627), so the documented recipe is also the best setting.
//   When the text has no searchable term, hybrid is the vector list alone.

import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { fts5OrQuery } from '../terms.mjs';

const require = createRequire(import.meta.url);

const RRF_K = 60;
/** How deep each list is before fusing: k, as sqlite-vec's hybrid-search post does. */
const poolFor = (k) => k;

/** A Float32Array (or number[]) as the little-endian f32 BLOB sqlite-vec reads, without copying a Float32Array. */
function f32Blob(v) {
  const f = v instanceof Float32Array ? v : Float32Array.from(v);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}

const nsPath = (ns) => (Array.isArray(ns) ? ns.join('/') : String(ns));
const nsArray = (p) => p.split('/');

/**
 * Opens the peer.
 * @param {{ dims?: number, path?: string }} [options] path: ':memory:' (default) or a database file.
 */
export async function open({ dims = 384, path = ':memory:' } = {}) {
  const db = new Database(path);
  sqliteVec.load(db);
  const pragmas =
    path === ':memory:'
      ? { temp_store: 'MEMORY' }
      : { journal_mode: 'WAL', synchronous: 'NORMAL', temp_store: 'MEMORY' };
  for (const [k, v] of Object.entries(pragmas)) db.pragma(`${k} = ${v}`);

  db.exec(`
    CREATE TABLE memories (
      id         INTEGER PRIMARY KEY,
      namespace  TEXT NOT NULL,
      key        TEXT NOT NULL,
      value      TEXT NOT NULL,
      text       TEXT,
      updated_at INTEGER NOT NULL,
      UNIQUE (namespace, key)
    );
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
      text, content = 'memories', content_rowid = 'id', tokenize = 'porter unicode61'
    );
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
      INSERT INTO memories_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
      INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER memories_au AFTER UPDATE OF text ON memories WHEN old.text IS NOT new.text BEGIN
      INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
      INSERT INTO memories_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE VIRTUAL TABLE memories_vec USING vec0 (embedding float[${dims}] distance_metric=cosine);
    CREATE TABLE checkpoints (
      thread_id            TEXT NOT NULL,
      checkpoint_ns        TEXT NOT NULL DEFAULT '',
      checkpoint_id        TEXT NOT NULL,
      parent_checkpoint_id TEXT,
      checkpoint           TEXT NOT NULL,
      metadata             TEXT NOT NULL,
      created_at           INTEGER NOT NULL,
      PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
    );
  `);

  const upsertRow = db
    .prepare(`
    INSERT INTO memories (namespace, key, value, text, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, text = excluded.text, updated_at = excluded.updated_at
    RETURNING id`)
    .pluck();
  const updateVec = db.prepare('UPDATE memories_vec SET embedding = ? WHERE rowid = ?');
  const insertVec = db.prepare('INSERT INTO memories_vec (rowid, embedding) VALUES (?, ?)');
  const deleteVec = db.prepare('DELETE FROM memories_vec WHERE rowid = ?');
  const getValue = db.prepare('SELECT value FROM memories WHERE namespace = ? AND key = ?').pluck();
  const putCp = db.prepare(`
    INSERT OR REPLACE INTO checkpoints
      (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const vectorSearch = db.prepare(`
    WITH knn AS (SELECT rowid AS id, distance FROM memories_vec WHERE embedding MATCH ? AND k = ?)
    SELECT m.namespace, m.key, 1.0 - knn.distance AS score FROM knn JOIN memories m ON m.id = knn.id
    ORDER BY knn.distance`);
  const lexicalSearch = db.prepare(`
    WITH fts AS (SELECT rowid AS id, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?)
    SELECT m.namespace, m.key, -fts.rank AS score FROM fts JOIN memories m ON m.id = fts.id
    ORDER BY fts.rank`);
  // sqlite-vec's hybrid-search recipe (RRF), with both lists cut at :n and the fused list at :k.
  const hybridSearch = db.prepare(`
    WITH vec_matches AS (
      SELECT rowid AS id, row_number() OVER (ORDER BY distance) AS rank_number, distance
      FROM memories_vec WHERE embedding MATCH :vector AND k = :n
    ),
    fts_matches AS (
      SELECT rowid AS id, row_number() OVER (ORDER BY rank) AS rank_number, rank AS score
      FROM memories_fts WHERE memories_fts MATCH :query ORDER BY rank LIMIT :n
    ),
    fused AS (
      SELECT coalesce(fts_matches.id, vec_matches.id) AS id,
             coalesce(1.0 / (:rrf_k + fts_matches.rank_number), 0.0) * :weight_fts +
             coalesce(1.0 / (:rrf_k + vec_matches.rank_number), 0.0) * :weight_vec AS combined_rank
      FROM fts_matches FULL OUTER JOIN vec_matches ON vec_matches.id = fts_matches.id
    )
    SELECT m.namespace, m.key, fused.combined_rank AS score FROM fused JOIN memories m ON m.id = fused.id
    ORDER BY fused.combined_rank DESC LIMIT :k`);

  /** One upsert: the row (FTS5 follows by trigger), then its vector. */
  function write(m, now) {
    const id = BigInt(upsertRow.get(nsPath(m.namespace), m.key, JSON.stringify(m.value ?? null), m.text ?? null, now));
    if (m.embedding) {
      const blob = f32Blob(m.embedding);
      if (updateVec.run(blob, id).changes === 0) insertVec.run(id, blob);
    } else {
      deleteVec.run(id);
    }
  }
  const putOne = db.transaction((m) => write(m, Date.now()));
  const putMany = db.transaction((ms) => {
    const now = Date.now();
    for (const m of ms) write(m, now);
  });
  const hits = (rows) => rows.map((r) => ({ namespace: nsArray(r.namespace), key: r.key, score: r.score }));

  const versions = {
    'better-sqlite3': require('better-sqlite3/package.json').version,
    'sqlite-vec': db.prepare('SELECT vec_version()').pluck().get(),
    sqlite_version: db.prepare('SELECT sqlite_version()').pluck().get(),
  };
  const config = {
    storage: path === ':memory:' ? 'memory' : 'file',
    pragmas,
    fts: "fts5 external content, tokenize='porter unicode61', bm25 rank, quoted terms OR-ed minus stopwords",
    vector: `vec0 float[${dims}] distance_metric=cosine (exact scan)`,
    hybrid: {
      method: 'rrf',
      rrf_k: RRF_K,
      weights: { fts: 1, vec: 1 },
      pool: 'k (each list cut at k, as the sqlite-vec post)',
    },
    put: 'one transaction: upsert RETURNING id + vec0 UPDATE/INSERT',
    checkpoint: 'INSERT OR REPLACE, JSON text (LangGraph SqliteSaver shape)',
  };

  return {
    name: 'sqlite-vec',
    versions,
    config,
    db,
    /** Upserts memories in one transaction. */
    async putBatch(memories) {
      putMany(memories);
    },
    /** Upserts one memory ({namespace, key, value, text, embedding}) in one transaction. */
    async put(memory) {
      putOne(memory);
    },
    /** The memory's value, or null. */
    async get(namespace, key) {
      const v = getValue.get(nsPath(namespace), key);
      return v === undefined ? null : JSON.parse(v);
    },
    /** One checkpoint row (LangGraph-shaped). */
    async putCheckpoint({ threadId, checkpointNs = '', checkpointId, parentId = null, data, metadata = {} }) {
      putCp.run(
        threadId,
        checkpointNs,
        checkpointId,
        parentId,
        JSON.stringify(data),
        JSON.stringify(metadata),
        Date.now(),
      );
    },
    /**
     * Top-k by 'vector' (cosine similarity), 'lexical' (-bm25) or 'hybrid' (RRF score).
     * @param {{ text?: string, vector?: Float32Array, k?: number, mode?: 'vector'|'lexical'|'hybrid' }} q
     */
    async search({ text, vector, k = 10, mode = 'hybrid' }) {
      const query = text ? fts5OrQuery(text) : null;
      if (mode === 'lexical' || (mode === 'hybrid' && !vector)) {
        return query ? hits(lexicalSearch.all(query, k)) : [];
      }
      if (mode === 'vector' || !query) return hits(vectorSearch.all(f32Blob(vector), k));
      return hits(
        hybridSearch.all({
          vector: f32Blob(vector),
          query,
          n: poolFor(k),
          k,
          rrf_k: RRF_K,
          weight_fts: 1.0,
          weight_vec: 1.0,
        }),
      );
    },
    async close() {
      db.close();
    },
  };
}
