/** The latency job's 10k-memory namespace: fact-sized LoCoMo turns and sentences with their e5 vectors. */

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
 * Fact-sized memories from the LoCoMo turns in `data`, with e5 vectors: every turn (`speaker: text`, its own
 * vector) and, for turns of several sentences, each sentence of 20+ characters (`speaker: sentence`, the turn's
 * vector jittered: σ 0.03, renormalised), shuffled with a fixed seed — 11,171 texts, ~86 characters on average.
 * `split(n, m)` gives the first `n` as the stored memories and `m` facts the store has not seen: the rest, then
 * the same sentences said of the other speaker (another entity, a close vector). Also the questions and vectors.
 * @param {string} data
 */
export function loadE5Corpus(data) {
  const turns = readJsonl(join(data, 'turns.jsonl'));
  const questions = readJsonl(join(data, 'questions.jsonl'));
  const turnVecs = readF32(join(data, 'turns.e5.f32'), turns.length);
  const questionVecs = readF32(join(data, 'questions.e5.f32'), questions.length);
  const r = rng(42);
  /** @type {{ text: string, embedding: Float32Array, speaker: string, sentence: string }[]} */
  const units = [];
  for (const [i, t] of turns.entries()) {
    units.push({
      text: `${t.speaker}: ${t.embed_text}`,
      embedding: turnVecs[i],
      speaker: t.speaker,
      sentence: t.embed_text,
    });
    const sentences = String(t.embed_text)
      .split(/(?<=[.!?])\s+/)
      .filter((x) => x.length >= 20);
    if (sentences.length > 1) {
      for (const x of sentences) {
        units.push({ text: `${t.speaker}: ${x}`, embedding: jitter(turnVecs[i], r), speaker: t.speaker, sentence: x });
      }
    }
  }
  for (let i = units.length - 1; i > 0; i--) {
    const j = r.below(i + 1);
    [units[i], units[j]] = [units[j], units[i]];
  }
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  /**
   * @param {number} n stored memories @param {number} m unseen facts
   * @returns {{ stored: { text: string, embedding: Float32Array }[], fresh: { text: string, embedding: Float32Array }[] }}
   */
  const split = (n, m) => {
    if (n > units.length) throw new Error(`${n} memories asked, ${units.length} texts in the corpus`);
    const fresh = units.slice(n, n + m);
    const rf = rng(7);
    while (fresh.length < m) {
      const u = units[rf.below(units.length)];
      const other = speakers.filter((s) => s !== u.speaker)[rf.below(speakers.length - 1)];
      fresh.push({ ...u, text: `${other}: ${u.sentence}`, embedding: jitter(u.embedding, rf) });
    }
    return { stored: units.slice(0, n), fresh };
  };
  return { split, size: units.length, questions: questions.map((q) => q.question), questionVecs };
}
