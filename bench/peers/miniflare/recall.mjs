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

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCOMO_DIR } from '../../lib/locomo.mjs';
import { loadLocomo, measureRecall, memoriesByConversation, printRecall } from '../locomo.mjs';
import { startPeer, PEER_TOKEN as TOKEN } from './peer-worker.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const data = flag('--data', LOCOMO_DIR);
const vectors = flag('--vectors', 'e5');
const pool = flag('--pool') === undefined ? undefined : Number(flag('--pool'));
const rrfK = flag('--rrf-k') === undefined ? undefined : Number(flag('--rrf-k'));
const fusion = pool === undefined && rrfK === undefined ? undefined : { pool, rrfK };
const asJson = args.includes('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const K = 10;

const set = loadLocomo(data, vectors);

const dir = mkdtempSync(join(tmpdir(), 'plain-do-recall-'));
const { mf, url } = await startPeer({ persist: join(dir, 'state') });
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const agentOf = (conv) => `locomo-${conv}`;
async function call(agent, path, body) {
  const res = await fetch(`${url}/v1/agents/${agent}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

try {
  // One agent per conversation, turns in file order, batches of 100 (the vectors as JSON arrays).
  const byConv = memoriesByConversation(set);
  log(`loading ${set.turns.length} turns into ${byConv.size} agents…`);
  for (const [conv, memories] of byConv) {
    for (let s = 0; s < memories.length; s += 100) {
      const batch = memories.slice(s, s + 100).map((m) => ({ ...m, embedding: Array.from(m.embedding) }));
      await call(agentOf(conv), '/memories/batch', { memories: batch });
    }
  }

  const modes = await measureRecall(
    set,
    async (mode, text, vector, conv) => {
      if (!byConv.has(conv)) throw new Error(`question for unknown conversation ${conv}`);
      const body = { mode, text, vector: Array.from(vector), k: K };
      if (fusion) body.fusion = fusion;
      return (await call(agentOf(conv), '/search', body)).hits.map((h) => h.key);
    },
    (mode) => log(`asking in ${mode} mode…`),
  );

  const config = {
    k: K,
    layout: 'one agent (Durable Object) per conversation',
    fts: 'FTS5 porter unicode61, bm25; query = quoted non-stopword terms OR-ed',
    vector: 'exact cosine (JS brute force)',
    hybrid: `RRF k=${rrfK ?? 60} of bm25 top-N and vector top-N, N = ${pool ?? 'max(k, 32)'}`,
  };
  const report = { peer: 'plain-do', vectors, config, modes };
  if (asJson) {
    console.log(JSON.stringify(report));
  } else {
    printRecall(
      `LoCoMo recall through the plain Durable Object peer (${vectors} vectors, ${config.layout}, ${config.hybrid})`,
      modes,
    );
  }
} finally {
  await mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
