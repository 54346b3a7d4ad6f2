#!/usr/bin/env node
/**
 * The `coherence` suite's latency job: one in-memory store (the npm package) with `--n` memories in ONE
 * namespace (fact-sized LoCoMo turns and sentences with e5 vectors: corpus.mjs; a tenth of them closed in valid
 * time), then, alternating which goes first, `put` of a new fact against `remember` of a new fact (every fourth
 * `remember` restates a stored fact: the duplicate path), and hybrid `search` top-10 over LoCoMo questions with
 * `validAt` omitted, `validAt: Date.now()` and `validAt: 'any'`, in rotation. Embeddings are given, so no
 * embedder runs. The floor of a decision is measured in the same blocks: a `put` plus the one search `remember`
 * makes (vector, top 8, in the namespace) — `remember_vs_floor`. Reports p50 / p95 / p99 (µs), the p50 ratios, and their spread over five consecutive blocks.
 *
 *   node bench/coherence/latency.mjs [--data DIR] [--n 10000] [--iters 2000] [--json]
 */
import { openStore } from 'edgemem';
import { LOCOMO_DIR } from '../lib/locomo.mjs';
import { summarize } from '../node/corpus.mjs';
import { DIMS, loadE5Corpus } from './corpus.mjs';

const args = process.argv.slice(2);
const flag = (/** @type {string} */ name, /** @type {string} */ dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const data = flag('--data', LOCOMO_DIR);
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '2000'));
const warm = Math.floor(iters / 10);
const BLOCKS = 5;
const namespace = ['agent', 'user-1'];
const log = (/** @type {string} */ m) => console.error(`coherence latency: ${m}`);

const { split, questions, questionVecs } = loadE5Corpus(data);
const { stored, fresh } = split(n, 2 * (iters + warm));
const store = await openStore({ dims: DIMS });
if (typeof (/** @type {any} */ (store).remember) !== 'function') {
  console.error('coherence latency: this build of edgemem has no store.remember');
  process.exit(1);
}
const now = Date.now();
const DAY = 86_400_000;
const t0 = performance.now();
for (let start = 0; start < n; start += 500) {
  const batch = stored.slice(start, start + 500).map((f, j) => {
    const i = start + j;
    // A tenth closed in valid time (as superseded facts are): what validAt filters out.
    const closed = i % 10 === 9 ? { validFrom: now - 30 * DAY, validTo: now - DAY } : {};
    return { namespace, key: `m${i}`, value: f.text, text: f.text, embedding: f.embedding, ...closed };
  });
  await store.putBatch(batch);
}
log(`${n} memories in one namespace in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

/** Times `f` in ms. @param {() => Promise<unknown>} f */
async function time(f) {
  const t = performance.now();
  const out = await f();
  return { ms: performance.now() - t, out };
}

// put vs remember, alternating which goes first.
const put = [];
const remember = [];
/** The vector search a decision makes (top 8 of the namespace), timed beside each pair. */
const lookup = [];
/** @type {Record<string, number>} */
const decisions = {};
for (let it = 0; it < iters + warm; it++) {
  const a = fresh[2 * it];
  const b = fresh[2 * it + 1];
  const again = it % 4 === 3 ? stored[(it * 7919) % n] : null;
  const doPut = () =>
    time(() => store.put({ namespace, key: `p${it}`, value: a.text, text: a.text, embedding: a.embedding }));
  const doRemember = () =>
    time(() =>
      /** @type {any} */ (store).remember({ namespace, text: (again ?? b).text, embedding: (again ?? b).embedding }),
    );
  let p;
  let r;
  if (it % 2 === 0) {
    p = await doPut();
    r = await doRemember();
  } else {
    r = await doRemember();
    p = await doPut();
  }
  const l = await time(() => store.search({ vector: b.embedding, k: 8, mode: 'vector', namespace }));
  if (it < warm) continue;
  put.push(p.ms);
  remember.push(r.ms);
  lookup.push(l.ms);
  const d = (Array.isArray(r.out) ? r.out[0] : r.out)?.decision ?? 'unknown';
  decisions[d] = (decisions[d] ?? 0) + 1;
}
log(`put / remember: ${put.length} each`);

// search: validAt omitted, now, 'any', in rotation.
/** @type {Record<string, number[]>} */
const search = { omitted: [], valid_at_now: [], valid_at_any: [] };
const variants = /** @type {const} */ ([
  ['omitted', () => ({})],
  ['valid_at_now', () => ({ validAt: Date.now() })],
  ['valid_at_any', () => ({ validAt: 'any' })],
]);
for (let it = 0; it < iters + warm; it++) {
  const q = it % questions.length;
  for (let j = 0; j < variants.length; j++) {
    const [name, extra] = variants[(it + j) % variants.length];
    const { ms, out } = await time(() =>
      store.search({ text: questions[q], vector: questionVecs[q], k: 10, mode: 'hybrid', namespace, ...extra() }),
    );
    if (!Array.isArray(out) || out.length !== 10) throw new Error(`search (${name}) returned ${out?.length} hits`);
    if (it >= warm) search[name].push(ms);
  }
}
await store.close();

/** p50 of `xs` (ms). @param {number[]} xs */
const p50 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};
/**
 * `a`'s p50 over `b`'s, and that ratio in each of BLOCKS consecutive blocks of the run (its spread).
 * @param {number[]} a @param {number[]} b
 */
function ratio(a, b) {
  const size = Math.floor(a.length / BLOCKS);
  const blocks = Array.from({ length: BLOCKS }, (_, k) => {
    const lo = k * size;
    return Math.round((p50(a.slice(lo, lo + size)) / p50(b.slice(lo, lo + size))) * 1000) / 1000;
  });
  return {
    ratio_p50: Math.round((p50(a) / p50(b)) * 1000) / 1000,
    blocks,
    min: Math.min(...blocks),
    max: Math.max(...blocks),
  };
}

const out = {
  memories: n,
  namespace_memories: n,
  closed_share: 0.1,
  iters,
  put: summarize(put),
  remember: summarize(remember),
  remember_decisions: decisions,
  remember_vs_put: { ...ratio(remember, put), target: 2 },
  lookup: summarize(lookup),
  remember_vs_floor: ratio(
    remember,
    put.map((ms, i) => ms + lookup[i]),
  ),
  search: {
    omitted: summarize(search.omitted),
    valid_at_now: summarize(search.valid_at_now),
    valid_at_any: summarize(search.valid_at_any),
    now_vs_omitted: { ...ratio(search.valid_at_now, search.omitted), target: 1.1 },
    now_vs_any: { ...ratio(search.valid_at_now, search.valid_at_any), target: 1.1 },
  },
};
if (args.includes('--json')) console.log(JSON.stringify(out));
else console.log(JSON.stringify(out, null, 2));
