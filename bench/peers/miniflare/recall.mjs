#!/usr/bin/env node
/**
 * LoCoMo retrieval recall through the plain-Durable-Object peer (bench/peers/plain-do/worker.mjs) under Miniflare,
 * over HTTP — the procedure of `edgemem-bench locomo` (bench/src/locomo.rs): one agent (= one Durable Object) per
 * conversation; each turn is a memory in namespace ["conv", <conv>] with key = dia_id, value { speaker, text },
 * text "<speaker>: <embed_text>" and the turn's vector (turns.<vectors>.f32; 384-d little-endian f32, row i =
 * line i of turns.jsonl), loaded in batches of 100 (the HTTP API's limit); every question with a non-empty
 * evidence_clean is asked in each mode (vector, lexical, hybrid), top 10, with its text and its vector
 * (questions.<vectors>.f32); hit@k = any evidence_clean id in the top k. Categories 1–4 together, 5 apart; R@1,
 * R@5, R@10 rounded to 3 decimals.
 *
 *   node bench/peers/miniflare/recall.mjs [--data DIR] [--vectors e5|minilm] [--pool N] [--rrf-k K] [--json]
 *
 * `--pool` / `--rrf-k` override the hybrid's RRF depth (default max(k, 32)) and constant (default 60), for
 * experiments. `--json` prints exactly one line:
 * `{"peer":"plain-do","vectors","config","modes":{"vector"|"lexical"|"hybrid":{"cat1-4"|"cat5":{"r1","r5","r10","n"}}}}`.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const DIMS = 384;
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const data = flag('--data', '../shared/datasets/locomo');
const vectors = flag('--vectors', 'e5');
if (vectors !== 'e5' && vectors !== 'minilm') throw new Error(`--vectors must be e5 or minilm, got ${vectors}`);
const pool = flag('--pool') === undefined ? undefined : Number(flag('--pool'));
const rrfK = flag('--rrf-k') === undefined ? undefined : Number(flag('--rrf-k'));
const fusion = pool === undefined && rrfK === undefined ? undefined : { pool, rrfK };
const asJson = args.includes('--json');
const log = (...m) => { if (!asJson) console.error(...m); };

const WORKER = fileURLToPath(new URL('../plain-do/worker.mjs', import.meta.url));
const TOKEN = 'bench-plain-token';
const K = 10;

const readJsonl = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
function readF32(path, rows) {
  const buf = readFileSync(path);
  if (buf.length !== rows * DIMS * 4) throw new Error(`${path}: expected ${rows} rows of ${DIMS} f32`);
  const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  return Array.from({ length: rows }, (_, i) => all.subarray(i * DIMS, (i + 1) * DIMS));
}
const turns = readJsonl(join(data, 'turns.jsonl'));
const questions = readJsonl(join(data, 'questions.jsonl'));
const turnVecs = readF32(join(data, `turns.${vectors}.f32`), turns.length);
const questionVecs = readF32(join(data, `questions.${vectors}.f32`), questions.length);

const dir = mkdtempSync(join(tmpdir(), 'plain-do-recall-'));
const mf = new Miniflare({
  modules: true,
  scriptPath: WORKER,
  compatibilityDate: '2026-04-20',
  durableObjects: { PLAIN_MEMORY: { className: 'PlainMemory', useSQLite: true } },
  bindings: { PLAIN_TOKEN: TOKEN, PLAIN_DIMS: String(DIMS) },
  defaultPersistRoot: join(dir, 'state'),
  durableObjectsPersist: true,
  cf: false,
  port: 0,
});
const url = (await mf.ready).origin;
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const agentOf = (conv) => `locomo-${conv}`;
async function call(agent, path, body) {
  const res = await fetch(`${url}/v1/agents/${agent}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

try {
  // One agent per conversation, turns in file order, batches of 100.
  const byConv = new Map();
  turns.forEach((t, i) => {
    if (!byConv.has(t.conv)) byConv.set(t.conv, []);
    byConv.get(t.conv).push({
      namespace: ['conv', t.conv],
      key: t.dia_id,
      value: { speaker: t.speaker, text: t.embed_text },
      text: `${t.speaker}: ${t.embed_text}`,
      embedding: Array.from(turnVecs[i]),
    });
  });
  log(`loading ${turns.length} turns into ${byConv.size} agents…`);
  for (const [conv, memories] of byConv) {
    for (let s = 0; s < memories.length; s += 100) await call(agentOf(conv), '/memories/batch', { memories: memories.slice(s, s + 100) });
  }

  const tally = () => ({ h1: 0, h5: 0, h10: 0, n: 0 });
  const round = (h, n) => (n === 0 ? 0 : Math.round((h / n) * 1000) / 1000);
  const json = (t) => ({ r1: round(t.h1, t.n), r5: round(t.h5, t.n), r10: round(t.h10, t.n), n: t.n });
  const modes = {};
  for (const mode of ['vector', 'lexical', 'hybrid']) {
    log(`asking in ${mode} mode…`);
    const main = tally();
    const adv = tally();
    for (let qi = 0; qi < questions.length; qi++) {
      const q = questions[qi];
      if (!q.evidence_clean?.length) continue;
      if (!byConv.has(q.conv)) throw new Error(`question for unknown conversation ${q.conv}`);
      const body = { mode, text: q.question, vector: Array.from(questionVecs[qi]), k: K };
      if (fusion) body.fusion = fusion;
      const { hits } = await call(agentOf(q.conv), '/search', body);
      const rank = hits.findIndex((h) => q.evidence_clean.includes(h.key));
      const t = q.category === 5 ? adv : main;
      t.n++;
      if (rank >= 0) {
        t.h1 += rank < 1;
        t.h5 += rank < 5;
        t.h10 += rank < 10;
      }
    }
    modes[mode] = { 'cat1-4': json(main), cat5: json(adv) };
  }

  const config = {
    k: K,
    layout: 'one agent (Durable Object) per conversation',
    fts: "FTS5 porter unicode61, bm25; query = quoted non-stopword terms OR-ed",
    vector: 'exact cosine (JS brute force)',
    hybrid: `RRF k=${rrfK ?? 60} of bm25 top-N and vector top-N, N = ${pool ?? 'max(k, 32)'}`,
  };
  const report = { peer: 'plain-do', vectors, config, modes };
  if (asJson) {
    console.log(JSON.stringify(report));
  } else {
    console.log(`LoCoMo recall through the plain Durable Object peer (${vectors} vectors, ${config.layout}, ${config.hybrid})`);
    const p = (s, w) => String(s).padStart(w);
    console.log(`${'mode'.padEnd(8)} ${p('R@1', 6)} ${p('R@5', 6)} ${p('R@10', 6)} ${p('n', 5)} | ${p('c5 R@1', 6)} ${p('R@5', 6)} ${p('R@10', 6)} ${p('n', 5)}`);
    for (const [name, m] of Object.entries(modes)) {
      const [a, b] = [m['cat1-4'], m.cat5];
      console.log(`${name.padEnd(8)} ${p(a.r1, 6)} ${p(a.r5, 6)} ${p(a.r10, 6)} ${p(a.n, 5)} | ${p(b.r1, 6)} ${p(b.r5, 6)} ${p(b.r10, 6)} ${p(b.n, 5)}`);
    }
  }
} finally {
  await mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
