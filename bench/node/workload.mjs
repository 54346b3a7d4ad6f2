// The in-process agent-step workload, one definition for every Node host: edgemem's npm package
// (bench/node/latency.mjs) and the in-process peers (bench/peers/node/latency.mjs) run exactly this — the
// corpus of corpus.mjs (LoCoMo turn texts, MiniLM + clustered synthetic 384-d vectors), a store of `n`
// memories built in batches of 500, then PUT (1 KB value + 384-d vector; even iterations update an existing
// key, odd ones add a new key), GET, CHECKPOINT PUT (1 KB JSON), hybrid SEARCH top-10 over LoCoMo questions,
// each op awaited as a user would, the first 10 % of iterations as warm-up; every GET must find its memory
// and every search return 10 hits. `store` needs putBatch, put, get(namespace, key), putCheckpoint and
// search({ text, vector, k, mode }).

import { performance } from 'node:perf_hooks';
import { DIMS, generators, loadCorpus, summarize } from './corpus.mjs';

async function timed(samples, keep, f) {
  const t = performance.now();
  const out = await f();
  if (keep) samples.push(performance.now() - t);
  return out;
}

/** Runs the workload on `store`; returns the build time, the warm-up count and each op's summary (µs). */
export async function runWorkload(store, { data, n, iters }) {
  const { r, sentence, value1k, nsOf } = generators(1);
  const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + iters * 2);
  const t0 = performance.now();
  for (let start = 0; start < n; start += 500) {
    const batch = [];
    for (let i = start; i < Math.min(n, start + 500); i++) {
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
  const buildMs = performance.now() - t0;

  const warm = Math.floor(iters / 10);
  const put = [],
    get = [],
    cp = [],
    search = [];
  for (let it = 0; it < iters + warm; it++) {
    const i = it % 2 === 0 ? r.below(n) : n + it;
    const m = {
      namespace: nsOf(i),
      key: `m${i}`,
      value: value1k(i),
      text: texts[r.below(texts.length)],
      embedding: vecs[n + it],
    };
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
      store.search({ text: questions[q].question, vector: questionVecs[q], k: 10, mode: 'hybrid' }),
    );
    if (hits.length !== 10) throw new Error(`search returned ${hits.length} hits`);
  }
  return {
    buildMs,
    warm,
    ops: { put: summarize(put), get: summarize(get), checkpoint_put: summarize(cp), search: summarize(search) },
  };
}

/** The human-readable table of `ops` (µs). */
export function printOps(ops) {
  console.log(
    `${'op'.padEnd(16)} ${'p50 µs'.padStart(9)} ${'p95 µs'.padStart(9)} ${'p99 µs'.padStart(9)} ${'max µs'.padStart(9)}`,
  );
  for (const [k, v] of Object.entries(ops)) {
    console.log(
      `${k.padEnd(16)} ${v.p50_us.toFixed(1).padStart(9)} ${v.p95_us.toFixed(1).padStart(9)} ${v.p99_us.toFixed(1).padStart(9)} ${v.max_us.toFixed(1).padStart(9)}`,
    );
  }
}

export { DIMS };
