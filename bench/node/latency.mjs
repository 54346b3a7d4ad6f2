#!/usr/bin/env node
// The wasm-in-Node latency of the npm package `edgemem` (wasm/dist, built by scripts/test-package or
// `npm run build -w edgemem`): the same agent-shaped workload as the native `edgemem-bench latency` —
// a 10k-memory store of LoCoMo turn texts with LoCoMo minilm vectors plus clustered synthetic ones, then
// PUT (1 KB value + 384-d vector), GET, CHECKPOINT PUT (1 KB JSON), hybrid SEARCH top-10 (LoCoMo
// questions), NOTIFY publish → callback. Each op is awaited as a user would; p50/p95/p99 after warm-up.
//
//   node bench/node/latency.mjs [--data DIR] [--n 10000] [--iters 2000] [--storage memory|FILE] [--json]

import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openStore } from '../../wasm/dist/node.js';
import { DIMS, flag as flagOf, generators, loadCorpus, summarize } from './corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '2000'));
const storageFlag = flag('--storage', 'memory');
const asJson = args.includes('--json');
const { r, sentence, value1k, nsOf } = generators(1);

async function timed(samples, keep, f) {
  const t = performance.now();
  const out = await f();
  if (keep) samples.push(performance.now() - t);
  return out;
}

const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + iters * 2);

if (storageFlag !== 'memory') rmSync(storageFlag, { force: true });
const store = await openStore({ dims: DIMS, storage: storageFlag === 'memory' ? 'memory' : { file: storageFlag } });
const t0 = performance.now();
for (let start = 0; start < n; start += 500) {
  const batch = [];
  for (let i = start; i < Math.min(n, start + 500); i++) {
    batch.push({ namespace: nsOf(i), key: `m${i}`, value: value1k(i), text: texts[i % texts.length], embedding: vecs[i] });
  }
  await store.putBatch(batch);
}
const buildMs = performance.now() - t0;

const warm = Math.floor(iters / 10);
const put = [], get = [], cp = [], search = [], notify = [];
for (let it = 0; it < iters + warm; it++) {
  const i = it % 2 === 0 ? r.below(n) : n + it;
  const m = { namespace: nsOf(i), key: `m${i}`, value: value1k(i), text: texts[r.below(texts.length)], embedding: vecs[n + it] };
  await timed(put, it >= warm, () => store.put(m));
}
for (let it = 0; it < iters + warm; it++) {
  const i = r.below(n);
  const m = await timed(get, it >= warm, () => store.get(nsOf(i), `m${i}`));
  if (!m) throw new Error(`GET m${i} found nothing`);
}
const cpPayload = { channel_values: { messages: [sentence(60), sentence(60)] }, pad: 'y'.repeat(300) };
for (let it = 0; it < iters + warm; it++) {
  const c = {
    threadId: `thread-${it % 16}`,
    checkpointId: `cp-${String(it).padStart(8, '0')}`,
    parentId: it >= 16 ? `cp-${String(it - 16).padStart(8, '0')}` : null,
    data: cpPayload,
    metadata: { step: it, source: 'loop' },
  };
  await timed(cp, it >= warm, () => store.putCheckpoint(c));
}
for (let it = 0; it < iters + warm; it++) {
  const q = r.below(questions.length);
  const hits = await timed(search, it >= warm, () =>
    store.search({ text: questions[q].question, vector: questionVecs[q], k: 10 }));
  if (hits.length !== 10) throw new Error(`search returned ${hits.length} hits`);
}
let got;
const sub = await store.subscribe({ kinds: ['notify'] }, () => { got = performance.now(); });
for (let it = 0; it < iters + warm; it++) {
  got = undefined;
  const t = performance.now();
  await store.notify('bench', { i: it });
  if (got === undefined) throw new Error('notify callback did not run');
  if (it >= warm) notify.push(got - t);
}
await sub.unsubscribe();
const stats = await store.stats();
await store.close();

const ops = { put: summarize(put), get: summarize(get), checkpoint_put: summarize(cp), search: summarize(search), notify: summarize(notify) };
if (asJson) {
  console.log(JSON.stringify({ host: 'wasm-node', node: process.version, memories: n, build_ms: buildMs, ops, db_bytes: stats.dbBytes, index_bytes: stats.indexBytes }));
} else {
  console.log(`wasm in Node ${process.version}, ${n} memories × ${DIMS}-d (built in ${buildMs.toFixed(0)} ms), ${iters} timed iterations after ${warm} warm-up`);
  console.log(`${'op'.padEnd(16)} ${'p50 µs'.padStart(9)} ${'p95 µs'.padStart(9)} ${'p99 µs'.padStart(9)} ${'max µs'.padStart(9)}`);
  for (const [k, v] of Object.entries(ops)) {
    console.log(`${k.padEnd(16)} ${v.p50_us.toFixed(1).padStart(9)} ${v.p95_us.toFixed(1).padStart(9)} ${v.p99_us.toFixed(1).padStart(9)} ${v.max_us.toFixed(1).padStart(9)}`);
  }
}
