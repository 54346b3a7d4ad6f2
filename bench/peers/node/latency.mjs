#!/usr/bin/env node

// The latency suite's in-process Node peers: exactly the workload edgemem's npm package runs in Node
// (bench/node/workload.mjs, shared with bench/node/latency.mjs) run against another store — `--peer sqlite-vec`
// (better-sqlite3 + sqlite-vec + FTS5, ./sqlite-vec-peer.mjs) or `--peer orama` (@orama/orama, ./orama-peer.mjs). Same corpus (bench/node/corpus.mjs `loadCorpus`), same seeded
// generator consumed in the same order (so every PUT, GET, checkpoint and question is the one edgemem gets): a 10k
// store built in batches of 500, then PUT (1 KB value + 384-d vector; even iterations update an existing key, odd
// ones add a new key), GET, CHECKPOINT PUT (1 KB JSON), hybrid SEARCH top-10 over LoCoMo questions with their MiniLM
// vectors, each op awaited as a user would, the first 10 % of iterations as warm-up. No NOTIFY: neither peer has a
// change feed. Checked as the edgemem run is: every GET finds its memory, every search returns 10 hits.
//
//   node bench/peers/node/latency.mjs --peer sqlite-vec|orama [--data DIR] [--n 10000] [--iters 2000] [--json]

import { LOCOMO_DIR } from '../../lib/locomo.mjs';
import { flag as flagOf } from '../../node/corpus.mjs';
import { DIMS, printOps, runWorkload } from '../../node/workload.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const peerName = flag('--peer', '');
const data = flag('--data', LOCOMO_DIR);
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '2000'));
const asJson = args.includes('--json');
const PEERS = { 'sqlite-vec': './sqlite-vec-peer.mjs', orama: './orama-peer.mjs' };
if (!PEERS[peerName]) {
  console.error(`usage: latency.mjs --peer ${Object.keys(PEERS).join('|')} [--data DIR] [--n N] [--iters N] [--json]`);
  process.exit(2);
}
const { open } = await import(PEERS[peerName]);

const store = await open({ dims: DIMS });
const { buildMs, warm, ops } = await runWorkload(store, { data, n, iters });
await store.close();

if (asJson) {
  console.log(
    JSON.stringify({
      host: 'node',
      peer: peerName,
      node: process.version,
      versions: store.versions,
      config: store.config,
      memories: n,
      build_ms: buildMs,
      ops,
    }),
  );
} else {
  const v = Object.entries(store.versions)
    .map(([k, x]) => `${k} ${x}`)
    .join(', ');
  console.log(
    `peer ${peerName} (${v}) in Node ${process.version}, ${n} memories × ${DIMS}-d (built in ${buildMs.toFixed(0)} ms), ${iters} timed iterations after ${warm} warm-up`,
  );
  printOps(ops);
}
