// The latency benchmarks' shared corpus (bench/node/latency.mjs, bench/miniflare/latency.mjs), as the native
// `edgemem-bench latency` builds it (bench/src/corpus.rs): LoCoMo turn texts and questions with their MiniLM
// vectors, padded to the store size with clustered synthetic vectors (a real vector plus small Gaussian noise,
// renormalised — uniformly random vectors are HNSW's worst case and not what agents store), 1 KB values, and
// the percentile summary every host reports.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DIMS = 384;

/** `--name value` of argv, or `dflt`. */
export function flag(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
}

function readJsonl(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function readF32(path, rows) {
  const buf = readFileSync(path);
  if (buf.length !== rows * DIMS * 4) throw new Error(`${path}: expected ${rows} rows of ${DIMS} f32`);
  const all = new Float32Array(buf.buffer, buf.byteOffset, rows * DIMS);
  return Array.from({ length: rows }, (_, i) => all.slice(i * DIMS, (i + 1) * DIMS));
}

/** splitmix64, as bench/src/corpus.rs. */
export function rng(seed) {
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
export function realisticVectors(real, count, seed) {
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

/**
 * The LoCoMo corpus in `data` with `count` memory vectors: turn texts (`speaker: text`), questions and their
 * vectors, and the vectors.
 */
export function loadCorpus(data, count) {
  const turns = readJsonl(join(data, 'turns.jsonl'));
  const questions = readJsonl(join(data, 'questions.jsonl'));
  const turnVecs = readF32(join(data, 'turns.minilm.f32'), turns.length);
  const questionVecs = readF32(join(data, 'questions.minilm.f32'), questions.length);
  return {
    texts: turns.map((t) => `${t.speaker}: ${t.embed_text}`),
    questions,
    questionVecs,
    vecs: realisticVectors(turnVecs, count, 42),
  };
}

const WORDS = (
  'meeting project deadline coffee travel paris budget report family birthday gym doctor recipe garden ' +
  'music concert book movie python rust launch customer invoice weekend hiking camera painting school exam flight ' +
  'hotel dinner allergy preference'
).split(' ');
const KINDS = ['facts', 'prefs', 'episodes', 'tasks'];

/** Random words, a ~1 KB value, the namespace of memory i, and a 1 KB checkpoint payload, from one seeded stream. */
export function generators(seed = 1) {
  const r = rng(seed);
  const sentence = (k) => Array.from({ length: k }, () => WORDS[r.below(WORDS.length)]).join(' ');
  return {
    r,
    sentence,
    value1k: (i) => ({ id: i, note: sentence(40), pad: 'x'.repeat(700) }),
    nsOf: (i) => ['agent', KINDS[i % 4]],
    checkpointPayload: () => ({ channel_values: { messages: [sentence(60), sentence(60)] }, pad: 'y'.repeat(300) }),
  };
}

/** p50/p95/p99/max in µs of samples in ms. */
export function summarize(samples) {
  const s = Float64Array.from(samples).sort();
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))] * 1000;
  return { p50_us: at(0.5), p95_us: at(0.95), p99_us: at(0.99), max_us: s[s.length - 1] * 1000, n: s.length };
}
