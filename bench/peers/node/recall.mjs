#!/usr/bin/env node
// The recall suite's in-process Node peers: LoCoMo retrieval recall exactly as `edgemem-bench locomo`
// (bench/src/locomo.rs) measures edgemem, run against `--peer sqlite-vec` (./sqlite-vec-peer.mjs) or `--peer orama`
// (./orama-peer.mjs). One store per conversation; each turn is a memory in namespace ["conv", conv] with key dia_id,
// value {speaker, text}, text "<speaker>: <embed_text>" and the turn's vector; each question (those with an empty
// evidence_clean skipped) is asked through the peer's own search in each mode — vector, lexical, hybrid — top 10,
// with its text and its vector; hit@k = any evidence_clean id among the first k keys. Categories 1–4 together,
// 5 apart; recalls rounded to 3 decimals.
//
//   node bench/peers/node/recall.mjs --peer sqlite-vec|orama [--data DIR] [--vectors e5|minilm] [--json]
//
// The data folder is laid out as ../shared/datasets/locomo (its README: 384-d little-endian f32 rows, row i of a
// .f32 file = line i of the matching .jsonl).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIMS, flag as flagOf } from '../../node/corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const peerName = flag('--peer', '');
const data = flag('--data', '../shared/datasets/locomo');
const vectors = flag('--vectors', 'e5');
const asJson = args.includes('--json');
const PEERS = { 'sqlite-vec': './sqlite-vec-peer.mjs', orama: './orama-peer.mjs' };
if (!PEERS[peerName] || !['e5', 'minilm'].includes(vectors)) {
  console.error(`usage: recall.mjs --peer ${Object.keys(PEERS).join('|')} [--data DIR] [--vectors e5|minilm] [--json]`);
  process.exit(2);
}
const { open } = await import(PEERS[peerName]);

const readJsonl = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
function readF32(path, rows) {
  const buf = readFileSync(path);
  if (buf.length !== rows * DIMS * 4) throw new Error(`${path}: expected ${rows} rows of ${DIMS} f32, got ${buf.length} bytes`);
  const out = [];
  for (let i = 0; i < rows; i++) {
    const v = new Float32Array(DIMS);
    for (let j = 0; j < DIMS; j++) v[j] = buf.readFloatLE((i * DIMS + j) * 4);
    out.push(v);
  }
  return out;
}

const turns = readJsonl(join(data, 'turns.jsonl'));
const questions = readJsonl(join(data, 'questions.jsonl'));
const turnVecs = readF32(join(data, `turns.${vectors}.f32`), turns.length);
const questionVecs = readF32(join(data, `questions.${vectors}.f32`), questions.length);

// One store per conversation, filled in file order, 1,000 turns per batch (as locomo.rs).
const batches = new Map();
turns.forEach((t, i) => {
  if (!batches.has(t.conv)) batches.set(t.conv, []);
  batches.get(t.conv).push({
    namespace: ['conv', t.conv], key: t.dia_id, value: { speaker: t.speaker, text: t.embed_text },
    text: `${t.speaker}: ${t.embed_text}`, embedding: turnVecs[i],
  });
});
const stores = new Map();
let config, versions;
for (const [conv, puts] of batches) {
  const s = await open({ dims: DIMS });
  for (let i = 0; i < puts.length; i += 1000) await s.putBatch(puts.slice(i, i + 1000));
  stores.set(conv, s);
  ({ config, versions } = s);
}

const tally = () => ({ h1: 0, h5: 0, h10: 0, n: 0 });
const round = (h, n) => (n === 0 ? 0 : Math.round((h / n) * 1000) / 1000);
const report = (t) => ({ r1: round(t.h1, t.n), r5: round(t.h5, t.n), r10: round(t.h10, t.n), n: t.n });
const modes = {};
for (const mode of ['vector', 'lexical', 'hybrid']) {
  const main = tally(), adv = tally();
  for (let qi = 0; qi < questions.length; qi++) {
    const q = questions[qi];
    if (!q.evidence_clean?.length) continue;
    const s = stores.get(q.conv);
    if (!s) throw new Error(`question for unknown conversation ${q.conv}`);
    const hits = await s.search({ text: q.question, vector: questionVecs[qi], k: 10, mode });
    const rank = hits.findIndex((h) => q.evidence_clean.includes(h.key));
    const t = q.category === 5 ? adv : main;
    t.n++;
    if (rank >= 0) {
      t.h1 += rank < 1;
      t.h5 += rank < 5;
      t.h10 += rank < 10;
    }
  }
  modes[mode] = { 'cat1-4': report(main), cat5: report(adv) };
}
for (const s of stores.values()) await s.close();

if (asJson) {
  console.log(JSON.stringify({ peer: peerName, vectors, versions, config, modes }));
} else {
  console.log(`LoCoMo recall, peer ${peerName} (${vectors} vectors, one store per conversation)`);
  const c = (x) => String(x).padStart(6);
  console.log(`${'mode'.padEnd(8)} ${c('R@1')} ${c('R@5')} ${c('R@10')} ${'n'.padStart(5)} | ${c('c5 R@1')} ${c('R@5')} ${c('R@10')} ${'n'.padStart(5)}`);
  for (const [name, m] of Object.entries(modes)) {
    const [a, b] = [m['cat1-4'], m.cat5];
    console.log(`${name.padEnd(8)} ${c(a.r1)} ${c(a.r5)} ${c(a.r10)} ${String(a.n).padStart(5)} | ${c(b.r1)} ${c(b.r5)} ${c(b.r10)} ${String(b.n).padStart(5)}`);
  }
}
