/** The latency job's 10k-memory namespace: LoCoMo turn texts with their e5 vectors, padded with close variants. */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../node/corpus.mjs';

export const DIMS = 384;

/** @param {string} path */
const readJsonl = (path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** Rows of 384 f32. @param {string} path @param {number} rows */
function readF32(path, rows) {
  const buf = readFileSync(path);
  if (buf.length !== rows * DIMS * 4) throw new Error(`${path}: expected ${rows} rows of ${DIMS} f32`);
  const all = new Float32Array(buf.buffer, buf.byteOffset, rows * DIMS);
  return Array.from({ length: rows }, (_, i) => all.slice(i * DIMS, (i + 1) * DIMS));
}

/** `v` plus Gaussian noise of `sigma`, renormalised. @param {Float32Array} v @param {ReturnType<typeof rng>} r */
function jitter(v, r, sigma = 0.03) {
  const out = new Float32Array(DIMS);
  let norm = 0;
  for (let i = 0; i < DIMS; i++) {
    out[i] = v[i] + sigma * r.gauss();
    norm += out[i] * out[i];
  }
  norm = Math.sqrt(norm) || 1e-9;
  for (let i = 0; i < DIMS; i++) out[i] /= norm;
  return out;
}

/**
 * Facts as an agent's memory would hold them, from the LoCoMo turns in `data` (`speaker: text`, e5 vectors):
 * the real turns first, then variants — a turn's text followed by another turn's, with the first's vector
 * jittered (σ 0.03, renormalised: close to real vectors, not uniformly random ones) — as many as asked; a
 * separate stream (`seed`) gives facts the store has not seen. Also the LoCoMo questions with their e5 vectors.
 * @param {string} data
 */
export function loadE5Corpus(data) {
  const turns = readJsonl(join(data, 'turns.jsonl'));
  const questions = readJsonl(join(data, 'questions.jsonl'));
  const turnVecs = readF32(join(data, 'turns.e5.f32'), turns.length);
  const questionVecs = readF32(join(data, 'questions.e5.f32'), questions.length);
  const texts = turns.map((t) => `${t.speaker}: ${t.embed_text}`);
  /**
   * `count` facts; the real turns first when `real` is true.
   * @param {number} count @param {number} seed @param {boolean} real
   * @returns {{ text: string, embedding: Float32Array }[]}
   */
  const facts = (count, seed, real) => {
    const r = rng(seed);
    const out = real ? texts.slice(0, count).map((text, i) => ({ text, embedding: turnVecs[i] })) : [];
    while (out.length < count) {
      const b = r.below(texts.length);
      const other = turns[r.below(turns.length)].embed_text;
      out.push({ text: `${texts[b]} ${other}`, embedding: jitter(turnVecs[b], r) });
    }
    return out;
  };
  return { facts, questions: questions.map((q) => q.question), questionVecs };
}
