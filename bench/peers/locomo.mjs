// The LoCoMo recall procedure of `edgemem-bench locomo` (bench/src/locomo.rs), for the peers' recall scripts
// (node/recall.mjs, miniflare/recall.mjs): the data folder read (turns, questions and their 384-d little-endian
// f32 vectors, row i = line i of the .jsonl), one memory per turn grouped by conversation (namespace
// ["conv", conv], key dia_id, value { speaker, text }, text "<speaker>: <embed_text>", the turn's vector), and
// the tally: every question with evidence asked in each mode, top 10, hit@k = any evidence_clean id in the top k,
// categories 1–4 together and 5 apart, recalls rounded to 3 decimals.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIMS } from '../node/corpus.mjs';

export const MODES = ['vector', 'lexical', 'hybrid'];

const readJsonl = (path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

function readF32(path, rows) {
  const buf = readFileSync(path);
  if (buf.length !== rows * DIMS * 4)
    throw new Error(`${path}: expected ${rows} rows of ${DIMS} f32, got ${buf.length} bytes`);
  const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  return Array.from({ length: rows }, (_, i) => all.subarray(i * DIMS, (i + 1) * DIMS));
}

/** The data folder with `vectors` ('e5' | 'minilm') embeddings. */
export function loadLocomo(data, vectors) {
  if (vectors !== 'e5' && vectors !== 'minilm') throw new Error(`--vectors must be e5 or minilm, got ${vectors}`);
  const turns = readJsonl(join(data, 'turns.jsonl'));
  const questions = readJsonl(join(data, 'questions.jsonl'));
  return {
    turns,
    questions,
    turnVecs: readF32(join(data, `turns.${vectors}.f32`), turns.length),
    questionVecs: readF32(join(data, `questions.${vectors}.f32`), questions.length),
  };
}

/** conversation → its turns as memories, in file order. */
export function memoriesByConversation({ turns, turnVecs }) {
  const by = new Map();
  turns.forEach((t, i) => {
    if (!by.has(t.conv)) by.set(t.conv, []);
    by.get(t.conv).push({
      namespace: ['conv', t.conv],
      key: t.dia_id,
      value: { speaker: t.speaker, text: t.embed_text },
      text: `${t.speaker}: ${t.embed_text}`,
      embedding: turnVecs[i],
    });
  });
  return by;
}

/**
 * Asks every question with evidence in each mode through `search(mode, question, vector, conv)` → hit keys, best
 * first; returns `{ vector|lexical|hybrid: { "cat1-4", cat5: { r1, r5, r10, n } } }`.
 */
export async function measureRecall({ questions, questionVecs }, search, onMode = () => {}) {
  const tally = () => ({ h1: 0, h5: 0, h10: 0, n: 0 });
  const round = (h, n) => (n === 0 ? 0 : Math.round((h / n) * 1000) / 1000);
  const report = (t) => ({ r1: round(t.h1, t.n), r5: round(t.h5, t.n), r10: round(t.h10, t.n), n: t.n });
  const modes = {};
  for (const mode of MODES) {
    onMode(mode);
    const main = tally();
    const adv = tally();
    for (let qi = 0; qi < questions.length; qi++) {
      const q = questions[qi];
      if (!q.evidence_clean?.length) continue;
      const keys = await search(mode, q.question, questionVecs[qi], q.conv);
      const rank = keys.findIndex((k) => q.evidence_clean.includes(k));
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
  return modes;
}

/** The human-readable recall table under `title`. */
export function printRecall(title, modes) {
  console.log(title);
  const c = (x) => String(x).padStart(6);
  console.log(
    `${'mode'.padEnd(8)} ${c('R@1')} ${c('R@5')} ${c('R@10')} ${'n'.padStart(5)} | ${c('c5 R@1')} ${c('R@5')} ${c('R@10')} ${'n'.padStart(5)}`,
  );
  for (const [name, m] of Object.entries(modes)) {
    const [a, b] = [m['cat1-4'], m.cat5];
    console.log(
      `${name.padEnd(8)} ${c(a.r1)} ${c(a.r5)} ${c(a.r10)} ${String(a.n).padStart(5)} | ${c(b.r1)} ${c(b.r5)} ${c(b.r10)} ${String(b.n).padStart(5)}`,
    );
  }
}
