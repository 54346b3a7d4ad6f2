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

import { LOCOMO_DIR } from '../../lib/locomo.mjs';
import { DIMS, flag as flagOf } from '../../node/corpus.mjs';
import { loadLocomo, measureRecall, memoriesByConversation, printRecall } from '../locomo.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const peerName = flag('--peer', '');
const data = flag('--data', LOCOMO_DIR);
const vectors = flag('--vectors', 'e5');
const asJson = args.includes('--json');
const PEERS = { 'sqlite-vec': './sqlite-vec-peer.mjs', orama: './orama-peer.mjs' };
if (!PEERS[peerName] || !['e5', 'minilm'].includes(vectors)) {
  console.error(`usage: recall.mjs --peer ${Object.keys(PEERS).join('|')} [--data DIR] [--vectors e5|minilm] [--json]`);
  process.exit(2);
}
const { open } = await import(PEERS[peerName]);

const set = loadLocomo(data, vectors);
const stores = new Map();
let config, versions;
for (const [conv, puts] of memoriesByConversation(set)) {
  const s = await open({ dims: DIMS });
  for (let i = 0; i < puts.length; i += 1000) await s.putBatch(puts.slice(i, i + 1000));
  stores.set(conv, s);
  ({ config, versions } = s);
}

const modes = await measureRecall(set, async (mode, text, vector, conv) => {
  const s = stores.get(conv);
  if (!s) throw new Error(`question for unknown conversation ${conv}`);
  return (await s.search({ text, vector, k: 10, mode })).map((h) => h.key);
});
for (const s of stores.values()) await s.close();

if (asJson) {
  console.log(JSON.stringify({ peer: peerName, vectors, versions, config, modes }));
} else {
  printRecall(`LoCoMo recall, peer ${peerName} (${vectors} vectors, one store per conversation)`, modes);
}
