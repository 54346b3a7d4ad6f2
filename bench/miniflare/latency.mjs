#!/usr/bin/env node
/**
 * The edgemem Worker's latency under Miniflare over a real port (not dispatchFetch): the Worker bundled by
 * wrangler and served by Miniflare (workerd) with its Durable Objects persisted in a temp dir; one agent
 * loaded with the latency corpus (bench/node/corpus.mjs: 10k LoCoMo turn texts, MiniLM + clustered synthetic
 * 384-d vectors, 1 KB values); then, sequentially over keep-alive HTTP through the package's remote client
 * (`connect`, a token scoped to the agent): PUT (1 KB value + 384-d vector), GET, CHECKPOINT PUT (1 KB JSON),
 * hybrid SEARCH top-10 (LoCoMo questions), and WebSocket push (notify over HTTP → the event on a subscribed
 * socket). The floor — `GET /v1/health`, which touches no Durable Object, with plain fetch — is measured in the
 * same run, one request before each measured op. p50/p95/p99 after warm-up.
 *
 * Cold start: Miniflare is disposed and a new one (a new workerd process) started over the same persist dir,
 * so the Durable Object holding the 10k memories is truly evicted; then the first hybrid search is timed — once
 * with the PUTs of the timed run not yet in the index snapshot (replayed on open), then with a current one — after
 * one health request (cold Durable Object: instantiate, wasm init, store open from its KV pages, index snapshot
 * load), and, on one more restart, with nothing before it (cold isolate too). Target ≤ 150 ms.
 *
 *   node bench/miniflare/latency.mjs [--data DIR] [--n 10000] [--iters 500] [--cold 3] [--json]
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect, createAgent, mintToken } from 'edgemem';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { LOCOMO_DIR } from '../lib/locomo.mjs';
import { DIMS, flag as flagOf, generators, loadCorpus, summarize } from '../node/corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', LOCOMO_DIR);
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '500'));
const coldRuns = Number(flag('--cold', '3'));
const asJson = args.includes('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const ADMIN = 'bench-admin-token';
const AGENT = 'bench-agent';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-mf-bench-'));
const bundle = join(dir, 'bundle');
const persist = join(dir, 'state');
const bindings = { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: String(DIMS) };

const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + iters * 2);
const { r, value1k, nsOf, checkpointPayload } = generators(1);

log('bundling the Worker (wrangler deploy --dry-run)…');
bundleWorker(bundle, join(dir, 'config'));
let server = await startWorker({ bundle, bindings, persist });
const port = Number(new URL(server.url).port);
const url = server.url;

try {
  await createAgent({ url, adminToken: ADMIN, agent: AGENT, settings: { dims: DIMS } });
  const { token } = await mintToken({
    url,
    adminToken: ADMIN,
    agent: AGENT,
    scopes: ['read', 'write', 'subscribe'],
    ttlSeconds: 24 * 3600,
  });
  const store = await connect({ url, agent: AGENT, token });

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
        embedding: vecs[i],
      });
    }
    await store.putBatch(batch);
  }
  await store.maintain(); // what the alarm does after writes: buffered vectors into the index, a snapshot
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
    return store.put({
      namespace: nsOf(i),
      key: `m${i}`,
      value: value1k(i),
      text: texts[r.below(texts.length)],
      embedding: vecs[n + it],
    });
  });
  ops.get = await measure('GET', async () => {
    const i = r.below(n);
    if (!(await store.get(nsOf(i), `m${i}`))) throw new Error(`GET m${i} found nothing`);
  });
  const cpPayload = checkpointPayload();
  ops.checkpoint_put = await measure('CHECKPOINT PUT', (it) =>
    store.putCheckpoint({
      threadId: `thread-${it % 16}`,
      checkpointId: `cp-${String(it).padStart(8, '0')}`,
      parentId: it >= 16 ? `cp-${String(it - 16).padStart(8, '0')}` : null,
      data: cpPayload,
      metadata: { step: it, source: 'loop' },
    }),
  );
  ops.search = await measure('SEARCH', async () => {
    const q = r.below(questions.length);
    const hits = await store.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
    if (hits.length !== 10) throw new Error(`search returned ${hits.length} hits`);
  });
  let arrived = () => {};
  const sub = await store.subscribe({ kinds: ['notify'], channels: ['bench'] }, () => arrived());
  ops.ws_push = await measure('WebSocket push', async (it) => {
    const got = new Promise((resolve) => {
      arrived = resolve;
    });
    await store.notify('bench', { i: it });
    await got;
  });
  await sub.unsubscribe();
  const stats = await store.stats();
  await store.close();

  /** Restarts workerd over the same state; times the first search (after a health request when `warmIsolate`). */
  async function coldSearch(warmIsolate) {
    await server.mf.dispose();
    server = await startWorker({ bundle, bindings, persist, port });
    if (warmIsolate) await trivial();
    const s = await connect({ url, agent: AGENT, token });
    const q = r.below(questions.length);
    const t = performance.now();
    const hits = await s.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
    const ms = performance.now() - t;
    if (hits.length !== 10) throw new Error(`cold search returned ${hits.length} hits`);
    const t2 = performance.now();
    await s.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
    await s.close();
    return { first_ms: ms, second_ms: performance.now() - t2 };
  }
  log('cold starts…');
  // As left by the timed ops: ~iters PUTs since the index snapshot (the alarm, 5 min after writes, had no time
  // to take a new one), which opening the store replays into the index.
  const stale = await coldSearch(true);
  const admin = await connect({ url, agent: AGENT, token });
  await admin.maintain(); // a current snapshot, as after the alarm
  await admin.close();
  const cold = [];
  for (let i = 0; i < coldRuns; i++) cold.push(await coldSearch(true));
  const coldIsolate = await coldSearch(false);
  // Where the cold search goes: opening the store (the first stats) vs the first search on the open store.
  await server.mf.dispose();
  server = await startWorker({ bundle, bindings, persist, port });
  await trivial();
  const probe = await connect({ url, agent: AGENT, token });
  let t = performance.now();
  await probe.stats();
  const openMs = performance.now() - t;
  const q = r.below(questions.length);
  t = performance.now();
  await probe.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
  const firstSearchOpenMs = performance.now() - t;
  await probe.close();

  const result = {
    host: 'worker-miniflare',
    node: process.version,
    memories: n,
    iters,
    load_ms: loadMs,
    floor: summarize(floor),
    ops,
    cold_start: {
      stale_snapshot_first_search_ms: stale.first_ms,
      first_search_ms: cold.map((c) => c.first_ms),
      second_search_ms: cold.map((c) => c.second_ms),
      cold_isolate_first_search_ms: coldIsolate.first_ms,
      open_via_stats_ms: openMs,
      then_first_search_ms: firstSearchOpenMs,
      target_ms: 150,
    },
    db_bytes: stats.dbBytes,
    index_bytes: stats.indexBytes,
  };
  if (asJson) {
    console.log(JSON.stringify(result));
  } else {
    const ms = (us) => (us / 1000).toFixed(2).padStart(8);
    console.log(
      `edgemem Worker under Miniflare over HTTP (port ${port}), Node ${process.version}, ${n} memories × ${DIMS}-d (loaded in ${(loadMs / 1000).toFixed(1)} s), ${iters} timed iterations per op after ${warm} warm-up`,
    );
    console.log(
      `${'op'.padEnd(24)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}`,
    );
    for (const [k, v] of Object.entries({ 'floor (GET /v1/health)': result.floor, ...ops })) {
      console.log(`${k.padEnd(24)} ${ms(v.p50_us)} ${ms(v.p95_us)} ${ms(v.p99_us)} ${ms(v.max_us)}`);
    }
    const f = (x) => `${x.toFixed(1)} ms`;
    console.log(
      `cold start (DO evicted: new workerd over the same state), first hybrid search: ${cold.map((c) => f(c.first_ms)).join(', ')} ` +
        `(the next: ${cold.map((c) => f(c.second_ms)).join(', ')}); with a cold isolate too: ${f(coldIsolate.first_ms)}; target ≤ 150 ms`,
    );
    console.log(
      `  with ${iters + warm} PUTs since the index snapshot (replayed on open): first search ${f(stale.first_ms)}`,
    );
    console.log(`  split: a first stats (opens the store) ${f(openMs)}, then the first search ${f(firstSearchOpenMs)}`);
  }
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
