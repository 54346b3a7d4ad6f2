#!/usr/bin/env node
// The latency suite's in-process Node peers: exactly the workload of bench/node/latency.mjs (edgemem's npm package in
// Node) run against another store — `--peer sqlite-vec` (better-sqlite3 + sqlite-vec + FTS5, ./sqlite-vec-peer.mjs)
// or `--peer orama` (@orama/orama, ./orama-peer.mjs). Same corpus (bench/node/corpus.mjs `loadCorpus`), same seeded
// generator consumed in the same order (so every PUT, GET, checkpoint and question is the one edgemem gets): a 10k
// store built in batches of 500, then PUT (1 KB value + 384-d vector; even iterations update an existing key, odd
// ones add a new key), GET, CHECKPOINT PUT (1 KB JSON), hybrid SEARCH top-10 over LoCoMo questions with their MiniLM
// vectors, each op awaited as a user would, the first 10 % of iterations as warm-up. No NOTIFY: neither peer has a
// change feed. Checked as the edgemem run is: every GET finds its memory, every search returns 10 hits.
//
//   node bench/peers/node/latency.mjs --peer sqlite-vec|orama [--data DIR] [--n 10000] [--iters 2000] [--json]

import { performance } from 'node:perf_hooks';
import { DIMS, flag as flagOf, generators, loadCorpus, summarize } from '../../node/corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const peerName = flag('--peer', '');
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '2000'));
const asJson = args.includes('--json');
const PEERS = { 'sqlite-vec': './sqlite-vec-peer.mjs', orama: './orama-peer.mjs' };
if (!PEERS[peerName]) {
  console.error(`usage: latency.mjs --peer ${Object.keys(PEERS).join('|')} [--data DIR] [--n N] [--iters N] [--json]`);
  process.exit(2);
}
const { open } = await import(PEERS[peerName]);
const { r, sentence, value1k, nsOf } = generators(1);

async function timed(samples, keep, f) {
  const t = performance.now();
  const out = await f();
  if (keep) samples.push(performance.now() - t);
  return out;
}

const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + iters * 2);

const store = await open({ dims: DIMS });
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
const put = [], get = [], cp = [], search = [];
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
    store.search({ text: questions[q].question, vector: questionVecs[q], k: 10, mode: 'hybrid' }));
  if (hits.length !== 10) throw new Error(`search returned ${hits.length} hits`);
}
await store.close();

const ops = { put: summarize(put), get: summarize(get), checkpoint_put: summarize(cp), search: summarize(search) };
if (asJson) {
  console.log(JSON.stringify({
    host: 'node', peer: peerName, node: process.version, versions: store.versions, config: store.config,
    memories: n, build_ms: buildMs, ops,
  }));
} else {
  const v = Object.entries(store.versions).map(([k, x]) => `${k} ${x}`).join(', ');
  console.log(`peer ${peerName} (${v}) in Node ${process.version}, ${n} memories × ${DIMS}-d (built in ${buildMs.toFixed(0)} ms), ${iters} timed iterations after ${warm} warm-up`);
  console.log(`${'op'.padEnd(16)} ${'p50 µs'.padStart(9)} ${'p95 µs'.padStart(9)} ${'p99 µs'.padStart(9)} ${'max µs'.padStart(9)}`);
  for (const [k, s] of Object.entries(ops)) {
    console.log(`${k.padEnd(16)} ${s.p50_us.toFixed(1).padStart(9)} ${s.p95_us.toFixed(1).padStart(9)} ${s.p99_us.toFixed(1).padStart(9)} ${s.max_us.toFixed(1).padStart(9)}`);
  }
}
