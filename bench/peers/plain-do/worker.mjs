/**
 * The "plain Durable Object" peer of the benchmarks: agent memory the way an agent built on the Cloudflare
 * Agents SDK stores it today — one SQLite-backed Durable Object per agent writing its own tables through
 * `ctx.storage.sql`, FTS5 for text (DO SQLite has FTS5 but no vector extension), and a brute-force cosine scan
 * in JavaScript for vectors. It owns nothing of edgemem: no wasm, no dependencies, one ES-module file that
 * Miniflare serves as is (bench/peers/miniflare/latency.mjs, recall.mjs).
 *
 * HTTP shape: edgemem's HTTP API v1 for the operations the benchmarks measure, so the same requests go to both:
 *   GET  /v1/health                                    no token, no Durable Object (the latency floor)
 *   PUT  /v1/agents/{agent}/memories/{key}?ns=a/b      { value, text?, embedding? }  → { version, evicted: [] }
 *   GET  /v1/agents/{agent}/memories/{key}?ns=a/b      → { namespace, key, value, text, version, updatedAt } | 404
 *   DELETE /v1/agents/{agent}/memories/{key}?ns=a/b    → { deleted }
 *   POST /v1/agents/{agent}/memories/batch             { memories: [{ namespace: [..], key, value, text?, embedding? }] } (≤ 100)
 *   POST /v1/agents/{agent}/import                     NDJSON, one batch memory a line (≤ 5,000 lines), one
 *                                                        transaction: the bulk load of the 100k comparison
 *   POST /v1/agents/{agent}/checkpoints                { threadId, checkpointNs?, checkpointId, parentId?, data, metadata? }
 *   GET  /v1/agents/{agent}/checkpoints/{threadId}     the latest checkpoint (or ?checkpointId=)
 *   POST /v1/agents/{agent}/search                     { text?, vector?, k?, mode?: vector|lexical|hybrid,
 *                                                        fusion?: { rrfK?, pool? } } → { hits: [{ namespace, key,
 *                                                        value, text, version, score, vectorRank, lexicalRank }] }
 * Namespaces travel as in edgemem: `?ns=` with segments joined by "/" on single-memory routes, arrays in
 * bodies. Embeddings are JSON arrays of numbers, as edgemem's client `connect()` sends them. Errors are
 * `{ error: { code, message } }` with edgemem's codes (UNAUTHORIZED, INVALID_ARGUMENT, NOT_FOUND).
 *
 * Configuration (Worker bindings): `PLAIN_TOKEN`, the shared secret every /v1/agents route requires as
 * `Authorization: Bearer <token>`, compared in constant time (SHA-256 of both sides, then
 * `crypto.subtle.timingSafeEqual`, as edgemem compares its admin token) — edgemem verifies an HMAC JWT per request,
 * so the peer pays for an auth check too instead of skipping it; `PLAIN_DIMS` (default 384). Durable Object
 * binding `PLAIN_MEMORY`, class `PlainMemory`, SQLite-backed; one object per agent (`idFromName(agent)`). The
 * Worker forwards the request to the agent's object with `stub.fetch` after the auth check, as the Agents SDK's
 * `routeAgentRequest` does.
 *
 * Storage, per object:
 * - `memories (id INTEGER PRIMARY KEY, namespace, key, value JSON, text, embedding BLOB of f32, version,
 *   updated_at, UNIQUE (namespace, key))`;
 * - `memories_fts`: FTS5, `tokenize = 'porter unicode61'`, contentless with `contentless_delete = 1` and rowid =
 *   memories.id (the text is not stored twice) — the same FTS5 configuration as edgemem's engine, so lexical
 *   results differ only by the query; bm25 ranking (`ORDER BY rank`);
 * - `checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, data JSON, metadata JSON, created_at)`.
 * Every write (one memory, a batch, a checkpoint) is one `ctx.storage.transactionSync`.
 *
 * Search:
 * - lexical (../terms.mjs): user text → lowercase letter/digit words, deduplicated, the same English stopword list as edgemem
 *   dropped (all words kept when only stopwords remain), each quoted as an FTS5 string and OR-ed — no input can
 *   make a MATCH syntax error; FTS5 bm25 via `ORDER BY rank LIMIT n`.
 * - vector: exact cosine, brute force. Vectors are normalised once at write time (so cosine = dot product),
 *   stored normalised, and kept in the object's memory in one contiguous Float32Array (slot per memory), loaded
 *   lazily from SQL by the first vector or hybrid search after the object starts and kept in sync by every
 *   write; a search is one pass of 4-way-unrolled dot products with a small sorted top-n buffer.
 * - hybrid: reciprocal-rank fusion (k = 60, the usual constant) of the bm25 top-N and the vector top-N, with
 *   N = max(k, 32) by default (edgemem's vector side takes the same max(k, 32)); a memory missing from one list
 *   gets nothing from it. `fusion: { rrfK, pool }` overrides both for experiments. On LoCoMo (e5, R@10) N = 10–32
 *   gives 0.701–0.707 and deeper lists less (50: 0.692, 100: 0.683, 1000: 0.686), so the default is not a
 *   handicap.
 * Not here, on purpose (an agent developer's memory table does not have them, edgemem's engine does and pays for
 * them on every write): version history / AS OF, the change feed and its seq, caps with LRU eviction, TTL,
 * metadata filters, WebSocket push.
 */

import { DurableObject } from 'cloudflare:workers';
import { fts5OrQuery as matchQuery } from '../terms.mjs';

const MAX_BATCH = 100;
const MAX_IMPORT = 5000;
const MAX_K = 100;
const RRF_K = 60;
const MIN_POOL = 32;

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const invalid = (message) => new HttpError(400, 'INVALID_ARGUMENT', message);

function errorResponse(e) {
  if (e instanceof HttpError)
    return Response.json({ error: { code: e.code, message: e.message } }, { status: e.status });
  return Response.json({ error: { code: 'INTERNAL', message: String(e?.message ?? e) } }, { status: 500 });
}

/** A response whose body is already JSON text (stored values are spliced in, not parsed and re-serialised). */
const jsonText = (s) => new Response(s, { headers: { 'content-type': 'application/json' } });

const encoder = new TextEncoder();

/** Constant-time comparison of two secrets (of their SHA-256 digests, so lengths do not leak either). */
async function sameSecret(a, b) {
  const [x, y] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(a)),
    crypto.subtle.digest('SHA-256', encoder.encode(b)),
  ]);
  return crypto.subtle.timingSafeEqual(x, y);
}

function checkNamespace(ns) {
  if (!Array.isArray(ns) || ns.length === 0 || ns.length > 8)
    throw invalid('namespace must be an array of 1-8 strings');
  for (const s of ns) {
    if (typeof s !== 'string' || s === '' || s.includes('/'))
      throw invalid('namespace segments must be non-empty strings without "/"');
  }
  return ns.join('/');
}

function nsFromQuery(url) {
  const ns = url.searchParams.get('ns') ?? url.searchParams.get('namespace');
  if (!ns) throw invalid('?ns= (namespace segments joined by "/") is required');
  return checkNamespace(ns.split('/'));
}

/** The JSON body of a request, or INVALID_ARGUMENT. */
async function body(request) {
  try {
    return await request.json();
  } catch {
    throw invalid('the body must be JSON');
  }
}

export class PlainMemory extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.dims = Number(env.PLAIN_DIMS ?? 384);
    // The in-memory vector copy: slot i holds the normalised vector of memory ids[i]; null until first needed.
    this.vecs = null;
    this.ids = null;
    this.slotOf = null;
    this.count = 0;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS memories (
        id INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        text TEXT,
        embedding BLOB,
        version INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (namespace, key)
      );
      CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5 (
        text, content = '', contentless_delete = 1, tokenize = 'porter unicode61'
      );
      CREATE TABLE IF NOT EXISTS checkpoints (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL DEFAULT '',
        checkpoint_id TEXT NOT NULL,
        parent_id TEXT,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
      );
    `);
  }

  async fetch(request) {
    try {
      const url = new URL(request.url);
      const parts = url.pathname.split('/'); // ['', 'v1', 'agents', agent, route, ...]
      const route = parts[4];
      const method = request.method;
      if (route === 'memories' && parts.length === 6) {
        if (parts[5] === 'batch' && method === 'POST') return this.putBatch(await body(request));
        const key = decodeURIComponent(parts[5]);
        if (method === 'PUT') return this.put(nsFromQuery(url), key, await body(request));
        if (method === 'GET') return this.get(nsFromQuery(url), key);
        if (method === 'DELETE') return this.delete(nsFromQuery(url), key);
      } else if (route === 'import' && parts.length === 5 && method === 'POST') {
        return this.importLines(await request.text());
      } else if (route === 'search' && parts.length === 5 && method === 'POST') {
        return this.search(await body(request));
      } else if (route === 'checkpoints') {
        if (parts.length === 5 && method === 'POST') return this.putCheckpoint(await body(request));
        if (parts.length === 6 && method === 'GET')
          return this.getCheckpoint(decodeURIComponent(parts[5]), url.searchParams);
      }
      throw new HttpError(404, 'NOT_FOUND', `no route ${method} ${url.pathname}`);
    } catch (e) {
      return errorResponse(e);
    }
  }

  // ---- vectors ---------------------------------------------------------------------------------------------

  /** A JSON array as a normalised Float32Array of `dims` (INVALID_ARGUMENT otherwise). */
  vectorIn(v, what) {
    if (!Array.isArray(v) || v.length !== this.dims) throw invalid(`${what} must be an array of ${this.dims} numbers`);
    const out = new Float32Array(this.dims);
    let norm = 0;
    for (let i = 0; i < this.dims; i++) {
      const x = v[i];
      if (typeof x !== 'number' || !Number.isFinite(x)) throw invalid(`${what} must hold finite numbers`);
      out[i] = x;
      norm += x * x;
    }
    if (norm === 0) throw invalid(`${what} must not be all zeros`);
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < this.dims; i++) out[i] *= inv;
    return out;
  }

  /** Loads every stored vector into one Float32Array (once per object lifetime). */
  loadVectors() {
    if (this.vecs) return;
    const { total } = this.sql.exec('SELECT count(*) AS total FROM memories WHERE embedding IS NOT NULL').one();
    this.vecs = new Float32Array(Math.max(1024, total + 256) * this.dims);
    this.ids = new Float64Array(this.vecs.length / this.dims);
    this.slotOf = new Map();
    this.count = 0;
    for (const [id, blob] of this.sql.exec('SELECT id, embedding FROM memories WHERE embedding IS NOT NULL').raw()) {
      this.setVector(id, new Float32Array(blob));
    }
  }

  /** Keeps the in-memory copy in sync with a write (no-op until the first search loaded it). */
  setVector(id, v) {
    if (!this.vecs) return;
    let slot = this.slotOf.get(id);
    if (v === null) {
      if (slot === undefined) return;
      const last = --this.count;
      if (slot !== last) {
        this.vecs.copyWithin(slot * this.dims, last * this.dims, (last + 1) * this.dims);
        this.ids[slot] = this.ids[last];
        this.slotOf.set(this.ids[slot], slot);
      }
      this.slotOf.delete(id);
      return;
    }
    if (slot === undefined) {
      if (this.count * this.dims >= this.vecs.length) {
        const grown = new Float32Array(this.vecs.length * 2);
        grown.set(this.vecs);
        this.vecs = grown;
        const ids = new Float64Array(this.ids.length * 2);
        ids.set(this.ids);
        this.ids = ids;
      }
      slot = this.count++;
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    this.vecs.set(v, slot * this.dims);
  }

  /** The `n` best [id, cosine] of a normalised query, best first: one pass of dot products. */
  vectorTop(q, n) {
    this.loadVectors();
    const dims = this.dims;
    const vecs = this.vecs;
    const count = this.count;
    n = Math.min(n, count);
    if (n === 0) return [];
    const topScore = new Float64Array(n).fill(-Infinity);
    const topSlot = new Int32Array(n);
    let floor = -Infinity;
    for (let s = 0, base = 0; s < count; s++, base += dims) {
      let a0 = 0,
        a1 = 0,
        a2 = 0,
        a3 = 0;
      for (let i = 0; i < dims; i += 4) {
        a0 += q[i] * vecs[base + i];
        a1 += q[i + 1] * vecs[base + i + 1];
        a2 += q[i + 2] * vecs[base + i + 2];
        a3 += q[i + 3] * vecs[base + i + 3];
      }
      const d = a0 + a1 + a2 + a3;
      if (d <= floor) continue;
      let j = n - 1;
      while (j > 0 && topScore[j - 1] < d) {
        topScore[j] = topScore[j - 1];
        topSlot[j] = topSlot[j - 1];
        j--;
      }
      topScore[j] = d;
      topSlot[j] = s;
      floor = topScore[n - 1];
    }
    const out = [];
    for (let j = 0; j < n; j++) out.push([this.ids[topSlot[j]], topScore[j]]);
    return out;
  }

  /** The `n` best [id, bm25 score (higher is better)] for `text`. */
  lexicalTop(text, n) {
    const match = matchQuery(text);
    if (match === null) return [];
    const out = [];
    for (const [id, rank] of this.sql
      .exec('SELECT rowid, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?', match, n)
      .raw()) {
      out.push([id, -rank]);
    }
    return out;
  }

  // ---- memories --------------------------------------------------------------------------------------------

  /** Validates one memory; returns the row to write. */
  memoryIn(namespace, key, m) {
    if (typeof m !== 'object' || m === null) throw invalid('a memory must be an object');
    if (typeof key !== 'string' || key === '' || key.length > 512)
      throw invalid('key must be a string of 1-512 characters');
    if (m.value === undefined) throw invalid('value is required');
    if (m.text !== undefined && m.text !== null && typeof m.text !== 'string') throw invalid('text must be a string');
    const vector = m.embedding === undefined || m.embedding === null ? null : this.vectorIn(m.embedding, 'embedding');
    return { namespace, key, value: JSON.stringify(m.value), text: m.text ?? null, vector };
  }

  /** Writes one validated memory (inside the caller's transaction); returns [id, version]. */
  writeMemory(row, now) {
    const { id, version } = this.sql
      .exec(
        `INSERT INTO memories (namespace, key, value, text, embedding, version, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, text = excluded.text,
           embedding = excluded.embedding, version = memories.version + 1, updated_at = excluded.updated_at
         RETURNING id, version`,
        row.namespace,
        row.key,
        row.value,
        row.text,
        row.vector ? row.vector.buffer : null,
        now,
      )
      .one();
    if (version > 1) this.sql.exec('DELETE FROM memories_fts WHERE rowid = ?', id);
    if (row.text) this.sql.exec('INSERT INTO memories_fts (rowid, text) VALUES (?, ?)', id, row.text);
    return [id, version];
  }

  put(namespace, key, m) {
    const row = this.memoryIn(namespace, key, m);
    const [id, version] = this.ctx.storage.transactionSync(() => this.writeMemory(row, Date.now()));
    this.setVector(id, row.vector);
    return Response.json({ version, evicted: [] });
  }

  putBatch(b) {
    const list = b?.memories;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH)
      throw invalid(`memories must be an array of 1-${MAX_BATCH}`);
    const rows = list.map((m) => this.memoryIn(checkNamespace(m?.namespace), m?.key, m));
    const now = Date.now();
    const written = this.ctx.storage.transactionSync(() => rows.map((row) => this.writeMemory(row, now)));
    for (const [i, [id]] of written.entries()) this.setVector(id, rows[i].vector);
    return Response.json({ acks: written.map(([, version]) => ({ version, evicted: [] })) });
  }

  /** A bulk load: NDJSON lines of batch memories, written in one transaction (the lines parsed first). */
  importLines(ndjson) {
    const lines = ndjson.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0 || lines.length > MAX_IMPORT) throw invalid(`import takes 1-${MAX_IMPORT} NDJSON lines`);
    const rows = lines.map((line) => {
      let m;
      try {
        m = JSON.parse(line);
      } catch {
        throw invalid('every import line must be JSON');
      }
      return this.memoryIn(checkNamespace(m?.namespace), m?.key, m);
    });
    const now = Date.now();
    const written = this.ctx.storage.transactionSync(() => rows.map((row) => this.writeMemory(row, now)));
    for (const [i, [id]] of written.entries()) this.setVector(id, rows[i].vector);
    return Response.json({ imported: written.length });
  }

  get(namespace, key) {
    const row = this.sql
      .exec('SELECT value, text, version, updated_at FROM memories WHERE namespace = ? AND key = ?', namespace, key)
      .raw()
      .toArray()[0];
    if (!row)
      throw new HttpError(
        404,
        'NOT_FOUND',
        `no memory ${JSON.stringify(key)} in namespace ${JSON.stringify(namespace)}`,
      );
    const [value, text, version, updatedAt] = row;
    return jsonText(
      `{"namespace":${JSON.stringify(namespace.split('/'))},"key":${JSON.stringify(key)},"value":${value},` +
        `"text":${JSON.stringify(text)},"version":${version},"updatedAt":${updatedAt}}`,
    );
  }

  delete(namespace, key) {
    const id = this.ctx.storage.transactionSync(() => {
      const r = this.sql
        .exec('DELETE FROM memories WHERE namespace = ? AND key = ? RETURNING id', namespace, key)
        .raw()
        .toArray()[0];
      if (r) this.sql.exec('DELETE FROM memories_fts WHERE rowid = ?', r[0]);
      return r ? r[0] : null;
    });
    if (id === null) throw new HttpError(404, 'NOT_FOUND', `no memory ${JSON.stringify(key)}`);
    this.setVector(id, null);
    return Response.json({ deleted: 1 });
  }

  // ---- search ----------------------------------------------------------------------------------------------

  search(q) {
    if (typeof q !== 'object' || q === null) throw invalid('the body must be a search query object');
    const k = q.k ?? 10;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw invalid(`k must be an integer in 1..${MAX_K}`);
    const hasText = typeof q.text === 'string' && q.text !== '';
    const vector = q.vector === undefined || q.vector === null ? null : this.vectorIn(q.vector, 'vector');
    const mode = q.mode ?? (hasText && vector ? 'hybrid' : vector ? 'vector' : 'lexical');
    if ((mode === 'vector' || mode === 'hybrid') && !vector) throw invalid(`mode ${mode} needs a vector`);
    if ((mode === 'lexical' || mode === 'hybrid') && !hasText) throw invalid(`mode ${mode} needs text`);

    // [id, score, vectorRank, lexicalRank], best first.
    let ranked;
    if (mode === 'vector') {
      ranked = this.vectorTop(vector, k).map(([id, s], i) => [id, s, i + 1, null]);
    } else if (mode === 'lexical') {
      ranked = this.lexicalTop(q.text, k).map(([id, s], i) => [id, s, null, i + 1]);
    } else if (mode === 'hybrid') {
      const rrfK = q.fusion?.rrfK ?? RRF_K;
      const pool = q.fusion?.pool ?? Math.max(k, MIN_POOL);
      const fused = new Map();
      for (const [i, [id]] of this.vectorTop(vector, pool).entries())
        fused.set(id, [id, 1 / (rrfK + i + 1), i + 1, null]);
      this.lexicalTop(q.text, pool).forEach(([id], i) => {
        const e = fused.get(id);
        if (e) {
          e[1] += 1 / (rrfK + i + 1);
          e[3] = i + 1;
        } else {
          fused.set(id, [id, 1 / (rrfK + i + 1), null, i + 1]);
        }
      });
      ranked = [...fused.values()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k);
    } else {
      throw invalid('mode must be vector, lexical or hybrid');
    }
    if (ranked.length === 0) return jsonText('{"hits":[]}');

    const rows = new Map();
    for (const [id, ns, key, value, text, version] of this.sql
      .exec(
        `SELECT id, namespace, key, value, text, version FROM memories WHERE id IN (${ranked.map(() => '?').join(',')})`,
        ...ranked.map((r) => r[0]),
      )
      .raw()) {
      rows.set(id, [ns, key, value, text, version]);
    }
    const hits = [];
    for (const [id, score, vr, lr] of ranked) {
      const row = rows.get(id);
      if (!row) continue;
      const [ns, key, value, text, version] = row;
      hits.push(
        `{"namespace":${JSON.stringify(ns.split('/'))},"key":${JSON.stringify(key)},"value":${value},"text":${JSON.stringify(text)},` +
          `"version":${version},"score":${score},"vectorRank":${vr},"lexicalRank":${lr}}`,
      );
    }
    return jsonText(`{"hits":[${hits.join(',')}]}`);
  }

  // ---- checkpoints -----------------------------------------------------------------------------------------

  putCheckpoint(c) {
    if (typeof c !== 'object' || c === null) throw invalid('a checkpoint must be an object');
    const { threadId, checkpointNs = '', checkpointId, parentId = null, data, metadata = {} } = c;
    if (typeof threadId !== 'string' || threadId === '' || typeof checkpointId !== 'string' || checkpointId === '') {
      throw invalid('threadId and checkpointId must be non-empty strings');
    }
    if (typeof checkpointNs !== 'string' || (parentId !== null && typeof parentId !== 'string'))
      throw invalid('checkpointNs / parentId must be strings');
    if (data === undefined) throw invalid('data is required');
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      throw invalid('metadata must be an object');
    const row = [
      threadId,
      checkpointNs,
      checkpointId,
      parentId,
      JSON.stringify(data),
      JSON.stringify(metadata),
      Date.now(),
    ];
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, data, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ...row,
      );
    });
    return Response.json({ ok: true });
  }

  getCheckpoint(threadId, params) {
    const ns = params.get('checkpointNs') ?? '';
    const id = params.get('checkpointId');
    const cols =
      'checkpoint_id, parent_id, data, metadata, created_at FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?';
    const r = (
      id === null
        ? this.sql.exec(`SELECT ${cols} ORDER BY checkpoint_id DESC LIMIT 1`, threadId, ns)
        : this.sql.exec(`SELECT ${cols} AND checkpoint_id = ?`, threadId, ns, id)
    )
      .raw()
      .toArray()[0];
    if (!r) throw new HttpError(404, 'NOT_FOUND', `no checkpoint for thread ${JSON.stringify(threadId)}`);
    const [checkpointId, parentId, data, metadata, createdAt] = r;
    return jsonText(
      `{"threadId":${JSON.stringify(threadId)},"checkpointNs":${JSON.stringify(ns)},"checkpointId":${JSON.stringify(checkpointId)},` +
        `"parentId":${JSON.stringify(parentId)},"data":${data},"metadata":${metadata},"createdAt":${createdAt}}`,
    );
  }
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export default {
  async fetch(request, env) {
    try {
      const url = new URL(request.url);
      if (url.pathname === '/v1/health') return Response.json({ ok: true });
      const m = /^\/v1\/agents\/([^/]+)\/(?:memories|search|checkpoints|import)(?:\/|$)/.exec(url.pathname);
      if (!m) throw new HttpError(404, 'NOT_FOUND', `no route ${request.method} ${url.pathname}`);
      const agent = decodeURIComponent(m[1]);
      if (!AGENT_ID.test(agent)) throw invalid('agent ids are 1-128 characters of A-Z a-z 0-9 . _ : -');
      const auth = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
      if (!env.PLAIN_TOKEN || !auth || !(await sameSecret(auth[1], env.PLAIN_TOKEN))) {
        throw new HttpError(401, 'UNAUTHORIZED', 'a valid bearer token is required (Authorization: Bearer <token>)');
      }
      return env.PLAIN_MEMORY.get(env.PLAIN_MEMORY.idFromName(agent)).fetch(request);
    } catch (e) {
      return errorResponse(e);
    }
  },
};
