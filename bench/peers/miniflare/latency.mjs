#!/usr/bin/env node
/**
 * The plain-Durable-Object peer's latency under Miniflare over a real port — exactly the workload of
 * bench/miniflare/latency.mjs (edgemem's Worker), against bench/peers/plain-do/worker.mjs: the same Miniflare
 * (same version and options: cf: false, compatibility date 2026-04-20, ES modules, SQLite-backed Durable Objects
 * persisted in a temp dir, a free port, keep-alive fetch), the same corpus (bench/node/corpus.mjs: 10k LoCoMo
 * turn texts, MiniLM + clustered synthetic 384-d vectors, 1 KB values), the same seeded draws in the same order,
 * 10k memories loaded in batches of 100, then sequentially: PUT (1 KB value + 384-d vector; half updates, half
 * new keys), GET, CHECKPOINT PUT (1 KB JSON), hybrid SEARCH top-10 (LoCoMo questions, text + vector), each after
 * one floor request (`GET /v1/health`, no Durable Object), the first max(10, iters/10) of each discarded as
 * warm-up; GET must find the memory and SEARCH must return 10 hits. Requests are plain fetch with the JSON bodies
 * and query strings edgemem's `connect()` sends (embeddings as JSON arrays, the namespace as `?ns=a/b` on
 * single-memory routes) and a bearer token. Not measured here: the WebSocket push (the peer has none).
 *
 * Cold start: Miniflare is disposed and a new one (a new workerd process) started over the same persist dir, so
 * the Durable Object is evicted and must reload its 10k vectors from SQL; after one health request the first
 * hybrid search is timed (`cold_start.first_search_ms`, one per restart, like edgemem's script), then the next
 * one; on one more restart, with nothing before it (a cold isolate too).
 *
 *   node bench/peers/miniflare/latency.mjs [--data DIR] [--n 10000] [--iters 500] [--cold 1] [--json]
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LOCOMO_DIR } from '../../lib/locomo.mjs';
import { DIMS, flag as flagOf, generators, loadCorpus, summarize } from '../../node/corpus.mjs';
import { startPeer, PEER_TOKEN as TOKEN } from './peer-worker.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', LOCOMO_DIR);
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '500'));
const coldRuns = Number(flag('--cold', '1'));
const asJson = args.includes('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const AGENT = 'bench-agent';
const dir = mkdtempSync(join(tmpdir(), 'plain-do-mf-bench-'));
const persist = join(dir, 'state');
const config = {
  miniflare:
    'cf: false, compatibilityDate 2026-04-20, modules, SQLite-backed Durable Objects persisted in a temp dir, real port',
  auth: 'bearer shared secret, constant-time compare (SHA-256 + timingSafeEqual) per request',
  fts: 'FTS5 porter unicode61, contentless_delete, bm25 (ORDER BY rank); query = quoted non-stopword terms OR-ed',
  vector:
    'exact cosine, JS brute force over one Float32Array kept in DO memory (lazy-loaded from SQL, normalised at write)',
  hybrid: 'RRF k=60 of bm25 top-N and vector top-N, N = max(k, 32)',
  writes: 'one ctx.storage.transactionSync per PUT / batch / checkpoint',
  routing: 'Worker checks the token, then stub.fetch(request) to the agent DO (idFromName)',
};

const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + iters * 2);
const { r, value1k, nsOf, checkpointPayload } = generators(1);

let server = await startPeer({ persist });
const port = Number(new URL(server.url).port);
const url = server.url;
const base = `${url}/v1/agents/${AGENT}`;
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** One JSON request; the parsed body of a 2xx, null on 404, throws otherwise. */
async function call(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 404) {
    await res.arrayBuffer();
    return null;
  }
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}
const ns = (namespace) => encodeURIComponent(namespace.join('/'));
const put = (m) =>
  call('PUT', `/memories/${encodeURIComponent(m.key)}?ns=${ns(m.namespace)}`, {
    value: m.value,
    text: m.text,
    embedding: Array.from(m.embedding),
  });
const get = (namespace, key) => call('GET', `/memories/${encodeURIComponent(key)}?ns=${ns(namespace)}`);
const search = async (q) =>
  (await call('POST', '/search', { text: q.text, vector: Array.from(q.vector), k: q.k })).hits;

try {
  log(`loading ${n} memories…`);
  const t0 = performance.now();
  for (let start = 0; start < n; start += 100) {
    const batch = [];
    for (let i = start; i < Math.min(n, start + 100); i++) {
      batch.push({
        namespace: nsOf(i),
        key: `m${i}`,
        value: value1k(i),
        text: texts[i % texts.length],
        embedding: Array.from(vecs[i]),
      });
    }
    await call('POST', '/memories/batch', { memories: batch });
  }
  const loadMs = performance.now() - t0;

  const floor = [];
  const health = `${url}/v1/health`;
  const trivial = async () => {
    const res = await fetch(health);
    await res.arrayBuffer();
  };
  const warm = Math.max(10, Math.floor(iters / 10));
  /** Runs `op(it)` iters + warm times, each after one floor request; returns the op's samples. */
  async function measure(name, op) {
    log(`measuring ${name}…`);
    const samples = [];
    for (let it = 0; it < iters + warm; it++) {
      let t = performance.now();
      await trivial();
      if (it >= warm) floor.push(performance.now() - t);
      t = performance.now();
      await op(it);
      if (it >= warm) samples.push(performance.now() - t);
    }
    return summarize(samples);
  }

  const ops = {};
  ops.put = await measure('PUT', (it) => {
    const i = it % 2 === 0 ? r.below(n) : n + it;
    return put({
      namespace: nsOf(i),
      key: `m${i}`,
      value: value1k(i),
      text: texts[r.below(texts.length)],
      embedding: vecs[n + it],
    });
  });
  ops.get = await measure('GET', async () => {
    const i = r.below(n);
    if (!(await get(nsOf(i), `m${i}`))) throw new Error(`GET m${i} found nothing`);
  });
  const cpPayload = checkpointPayload();
  ops.checkpoint_put = await measure('CHECKPOINT PUT', (it) =>
    call('POST', '/checkpoints', {
      threadId: `thread-${it % 16}`,
      checkpointId: `cp-${String(it).padStart(8, '0')}`,
      parentId: it >= 16 ? `cp-${String(it - 16).padStart(8, '0')}` : null,
      data: cpPayload,
      metadata: { step: it, source: 'loop' },
    }),
  );
  ops.search = await measure('SEARCH', async () => {
    const q = r.below(questions.length);
    const hits = await search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
    if (hits.length !== 10) throw new Error(`search returned ${hits.length} hits`);
  });

  /** Restarts workerd over the same state; times the first search (after a health request when `warmIsolate`). */
  async function coldSearch(warmIsolate) {
    await server.mf.dispose();
    server = await startPeer({ persist, port });
    if (warmIsolate) await trivial();
    const q = r.below(questions.length);
    const query = { text: questions[q].question, vector: questionVecs[q], k: 10 };
    const t = performance.now();
    const hits = await search(query);
    const ms = performance.now() - t;
    if (hits.length !== 10) throw new Error(`cold search returned ${hits.length} hits`);
    const t2 = performance.now();
    await search(query);
    return { first_ms: ms, second_ms: performance.now() - t2 };
  }
  log('cold starts…');
  const cold = [];
  for (let i = 0; i < coldRuns; i++) cold.push(await coldSearch(true));
  const coldIsolate = await coldSearch(false);

  const result = {
    host: 'miniflare',
    peer: 'plain-do',
    node: process.version,
    config,
    memories: n,
    iters,
    load_ms: loadMs,
    floor: summarize(floor),
    ops,
    cold_start: {
      first_search_ms: cold.map((c) => c.first_ms),
      second_search_ms: cold.map((c) => c.second_ms),
      cold_isolate_first_search_ms: coldIsolate.first_ms,
    },
  };
  if (asJson) {
    console.log(JSON.stringify(result));
  } else {
    const ms = (us) => (us / 1000).toFixed(2).padStart(8);
    console.log(
      `plain Durable Object peer under Miniflare over HTTP (port ${port}), Node ${process.version}, ${n} memories × ${DIMS}-d (loaded in ${(loadMs / 1000).toFixed(1)} s), ${iters} timed iterations per op after ${warm} warm-up`,
    );
    console.log(
      `${'op'.padEnd(24)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}`,
    );
    for (const [k, v] of Object.entries({ 'floor (GET /v1/health)': result.floor, ...ops })) {
      console.log(`${k.padEnd(24)} ${ms(v.p50_us)} ${ms(v.p95_us)} ${ms(v.p99_us)} ${ms(v.max_us)}`);
    }
    const f = (x) => `${x.toFixed(1)} ms`;
    console.log(
      `cold start (DO evicted: new workerd over the same state; vectors reloaded from SQL), first hybrid search: ${cold.map((c) => f(c.first_ms)).join(', ')} ` +
        `(the next: ${cold.map((c) => f(c.second_ms)).join(', ')}); with a cold isolate too: ${f(coldIsolate.first_ms)}`,
    );
  }
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
