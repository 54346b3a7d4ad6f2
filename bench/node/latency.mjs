#!/usr/bin/env node
// The wasm-in-Node latency of the npm package `edgemem` (js/dist, built by scripts/test-package or
// `npm run build -w edgemem`): the same agent-shaped workload as the native `edgemem-bench latency`
// (workload.mjs: a 10k-memory store of LoCoMo turn texts with LoCoMo minilm vectors plus clustered
// synthetic ones, then PUT, GET, CHECKPOINT PUT, hybrid SEARCH top-10), then NOTIFY publish → callback.
// Each op is awaited as a user would; p50/p95/p99 after warm-up.
//
//   node bench/node/latency.mjs [--data DIR] [--n 10000] [--iters 2000] [--storage memory|FILE]
//     [--sequence none|namespace] [--json]
// (`--sequence namespace`: each namespace's memories form a sequence, so every search scores neighbours.)

import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openStore } from 'edgemem';
import { LOCOMO_DIR } from '../lib/locomo.mjs';
import { flag as flagOf, summarize } from './corpus.mjs';
import { DIMS, printOps, runWorkload } from './workload.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', LOCOMO_DIR);
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '2000'));
const storageFlag = flag('--storage', 'memory');
const asJson = args.includes('--json');
const sequence = /** @type {'none' | 'namespace'} */ (flag('--sequence', 'none'));

if (storageFlag !== 'memory') rmSync(storageFlag, { force: true });
const storage = storageFlag === 'memory' ? 'memory' : { file: storageFlag };
const store = await openStore({ dims: DIMS, storage, sequence });
const { buildMs, warm, ops } = await runWorkload(store, { data, n, iters });

const notify = [];
let got;
const sub = await store.subscribe({ kinds: ['notify'] }, () => {
  got = performance.now();
});
for (let it = 0; it < iters + warm; it++) {
  got = undefined;
  const t = performance.now();
  await store.notify('bench', { i: it });
  if (got === undefined) throw new Error('notify callback did not run');
  if (it >= warm) notify.push(got - t);
}
await sub.unsubscribe();
ops.notify = summarize(notify);
const stats = await store.stats();
await store.close();

if (asJson) {
  console.log(
    JSON.stringify({
      host: 'wasm-node',
      node: process.version,
      memories: n,
      build_ms: buildMs,
      ops,
      db_bytes: stats.dbBytes,
      index_bytes: stats.indexBytes,
    }),
  );
} else {
  console.log(
    `wasm in Node ${process.version}, ${n} memories × ${DIMS}-d (built in ${buildMs.toFixed(0)} ms), ${iters} timed iterations after ${warm} warm-up`,
  );
  printOps(ops);
}
