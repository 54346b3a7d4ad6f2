#!/usr/bin/env node
/**
 * The engine's own heap for the size bench (bench/miniflare/size.mjs runs it): the wasm linear memory of the npm
 * package's module in a fresh Node process — the memory a Durable Object's isolate is charged for the engine
 * (SQLite with its page cache, the HNSW index, buffers), without workerd's own process memory around it.
 * Linear memory only grows, so its size is the high-water mark of the engine's heap in this process.
 *
 *   node bench/node/heap.mjs --file F --load N --scalar f32|i8|i4 [--data DIR]   # build the store into F
 *   node bench/node/heap.mjs --file F --open --scalar f32|i8|i4 [--data DIR]     # open F, stats + one search
 *   node bench/node/heap.mjs --file F --open --scalar i4 --searches 20             # ... + 20 different searches
 *   node bench/node/heap.mjs --file F --open --scalar i4 --searches 2000 --writes 600  # ... then 600 PUTs
 *
 * Both first open an empty in-memory store (the baseline: module instantiated, one store open), then print one
 * JSON line `{ "phase", "base_wasm_bytes", "wasm_bytes", "seconds" }`. `--load` writes N memories of the corpus
 * (LoCoMo texts, MiniLM + clustered vectors, small values) in batches of 500, then `maintain()` and one search,
 * then measures the index against exact search (after the heap figure: its scratch is JavaScript's, not the
 * engine's): `recall_vs_exact` is the mean overlap of the top 10 of a vector-only search with the exact top 10
 * (cosine, brute force here) over `recall_queries` LoCoMo questions. `--searches N` (--open only) runs N different
 * hybrid searches instead of one (the first is the usual one): the heap as the page cache and the search caches
 * fill. `--writes M` (--open only) then PUTs M new memories one by one: past 500 writes the engine's sweep persists
 * the read recency the searches left (core/src/state/recency.rs), the heap of a store in use.
 */
import { rmSync } from 'node:fs';
import { openStore } from 'edgemem';
import { wasmMemoryBytes } from 'edgemem/testing';
import { LOCOMO_DIR } from '../lib/locomo.mjs';
import { DIMS, flag as flagOf, loadCorpus } from './corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const file = flag('--file');
const scalar = flag('--scalar', 'f32');
const load = Number(flag('--load', '0'));
const searches = load ? 1 : Number(flag('--searches', '1'));
const writes = load ? 0 : Number(flag('--writes', '0'));
const data = flag('--data', LOCOMO_DIR);
const wasmBytes = wasmMemoryBytes;

const t0 = Date.now();
const { texts, questions, questionVecs, vecs } = loadCorpus(data, Math.max(load, writes, 1));
const empty = await openStore({ dims: DIMS, scalar, storage: 'memory' });
await empty.stats();
const base = wasmBytes();
if (load) rmSync(file, { force: true });
const store = await openStore({ dims: DIMS, scalar, storage: { file } });
for (let start = 0; start < load; start += 500) {
  const batch = [];
  for (let i = start; i < Math.min(load, start + 500); i++) {
    batch.push({
      namespace: ['agent', 'facts'],
      key: `m${i}`,
      value: { i },
      text: texts[i % texts.length],
      embedding: vecs[i],
    });
  }
  await store.putBatch(batch);
}
if (load) await store.maintain();
await store.stats();
for (let i = 0; i < searches; i++) {
  const q = load ? 0 : i === 0 ? 1 : (i * 37) % questions.length;
  await store.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
}
for (let i = 0; i < writes; i++) {
  const text = texts[i % texts.length];
  await store.put({ namespace: ['agent', 'writes'], key: `w${i}`, value: { i }, text, embedding: vecs[i] });
}
const wasm_bytes = wasmBytes();
const recall = load ? await recallVsExact(100) : {};
console.log(
  JSON.stringify({
    phase: load ? 'load' : 'open',
    ...(searches > 1 ? { searches } : {}),
    ...(writes > 0 ? { writes } : {}),
    base_wasm_bytes: base,
    wasm_bytes,
    ...recall,
    seconds: (Date.now() - t0) / 1000,
  }),
);

/** Mean top-10 overlap of the store's vector search with exact cosine search, over `n` questions. */
async function recallVsExact(n) {
  const unit = (v) => {
    const norm = Math.hypot(...v) || 1;
    return Float32Array.from(v, (x) => x / norm);
  };
  const corpus = vecs.slice(0, load).map(unit);
  let sum = 0;
  const queries = Math.min(n, questionVecs.length);
  for (let j = 0; j < queries; j++) {
    const q = questionVecs[Math.floor((j * questionVecs.length) / queries)];
    const qu = unit(q);
    const exact = corpus
      .map((v, i) => {
        let d = 0;
        for (let x = 0; x < DIMS; x++) d += v[x] * qu[x];
        return [i, d];
      })
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([i]) => `m${i}`);
    const got = (await store.search({ vector: q, k: 10, mode: 'vector' })).map((h) => h.key);
    sum += got.filter((k) => exact.includes(k)).length / 10;
  }
  return { recall_vs_exact: sum / queries, recall_queries: queries };
}
await store.close();
await empty.close();
