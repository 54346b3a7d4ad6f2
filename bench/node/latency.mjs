#!/usr/bin/env node
// The wasm-in-Node latency of the npm package `edgemem` (wasm/dist, built by scripts/test-package or
// `npm run build -w edgemem`): the same agent-shaped workload as the native `edgemem-bench latency` —
// a 10k-memory store of LoCoMo turn texts with LoCoMo minilm vectors plus clustered synthetic ones, then
// PUT (1 KB value + 384-d vector), GET, CHECKPOINT PUT (1 KB JSON), hybrid SEARCH top-10 (LoCoMo
// questions), NOTIFY publish → callback. Each op is awaited as a user would; p50/p95/p99 after warm-up.
//
//   node bench/node/latency.mjs [--data DIR] [--n 10000] [--iters 2000] [--storage memory|FILE] [--json]

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../../wasm/dist/node.js';

const DIMS = 384;
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '2000'));
const storageFlag = flag('--storage', 'memory');
const asJson = args.includes('--json');

function readJsonl(path) {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}
function readF32(path, rows) {
  const buf = readFileSync(path);
  if (buf.length !== rows * DIMS * 4) throw new Error(`${path}: expected ${rows} rows of ${DIMS} f32`);
  const all = new Float32Array(buf.buffer, buf.byteOffset, rows * DIMS);
  return Array.from({ length: rows }, (_, i) => all.slice(i * DIMS, (i + 1) * DIMS));
}

/** splitmix64, as bench/src/corpus.rs. */
function rng(seed) {
  let s = BigInt.asUintN(64, BigInt(seed) ^ 0x9e3779b97f4a7c15n);
  const next = () => {
    s = BigInt.asUintN(64, s + 0x9e3779b97f4a7c15n);
    let z = s;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  };
  return {
    below: (k) => Number(next() % BigInt(k)),
    gauss: () => {
      let t = 0;
      for (let i = 0; i < 4; i++) t += Number(next() >> 40n) / 2 ** 24;
      return t - 2;
    },
  };
}

/** The real vectors first, then each a real one plus small Gaussian noise, renormalised. */
function realisticVectors(real, count, seed) {
  const r = rng(seed);
  const out = real.slice(0, count);
  while (out.length < count) {
    const base = real[r.below(real.length)];
    const v = new Float32Array(DIMS);
    let norm = 0;
    for (let i = 0; i < DIMS; i++) {
      v[i] = base[i] + 0.03 * r.gauss();
      norm += v[i] * v[i];
    }
    norm = Math.sqrt(norm) || 1e-9;
    for (let i = 0; i < DIMS; i++) v[i] /= norm;
    out.push(v);
  }
  return out;
}

const WORDS = ('meeting project deadline coffee travel paris budget report family birthday gym doctor recipe garden ' +
  'music concert book movie python rust launch customer invoice weekend hiking camera painting school exam flight ' +
  'hotel dinner allergy preference').split(' ');
const r = rng(1);
const sentence = (k) => Array.from({ length: k }, () => WORDS[r.below(WORDS.length)]).join(' ');
const value1k = (i) => ({ id: i, note: sentence(40), pad: 'x'.repeat(700) });
const KINDS = ['facts', 'prefs', 'episodes', 'tasks'];
const nsOf = (i) => ['agent', KINDS[i % 4]];

function summarize(samples) {
  const s = Float64Array.from(samples).sort();
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))] * 1000;
  return { p50_us: at(0.5), p95_us: at(0.95), p99_us: at(0.99), max_us: s[s.length - 1] * 1000, n: s.length };
}

async function timed(samples, keep, f) {
  const t = performance.now();
  const out = await f();
  if (keep) samples.push(performance.now() - t);
  return out;
}

const turns = readJsonl(join(data, 'turns.jsonl'));
const questions = readJsonl(join(data, 'questions.jsonl'));
const turnVecs = readF32(join(data, 'turns.minilm.f32'), turns.length);
const questionVecs = readF32(join(data, 'questions.minilm.f32'), questions.length);
const texts = turns.map((t) => `${t.speaker}: ${t.embed_text}`);
const vecs = realisticVectors(turnVecs, n + iters * 2, 42);

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
