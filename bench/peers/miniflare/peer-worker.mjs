// The plain-Durable-Object peer (../plain-do/worker.mjs) served by Miniflare for its latency and recall scripts,
// with the options of edgemem's Worker in workers/harness/miniflare.mjs: ES modules, cf: false,
// compatibility date 2026-04-20, SQLite-backed Durable Objects persisted under `persist`, a real port.

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeWatch } from 'edgemem-worker/harness/miniflare';
import { Miniflare } from 'miniflare';
import { DIMS } from '../../node/corpus.mjs';

const WORKER = fileURLToPath(new URL('../plain-do/worker.mjs', import.meta.url));

/** The bearer secret the peer Worker checks (bindings.PLAIN_TOKEN). */
export const PEER_TOKEN = 'bench-plain-token';

/** Starts the peer on `port` (0: a free one); returns Miniflare, the origin URL and its workerd's `runtimeWatch`. */
export async function startPeer({ persist, port = 0 }) {
  const runtime = runtimeWatch();
  const mf = new Miniflare({
    ...runtime.options,
    modules: true,
    scriptPath: WORKER,
    modulesRoot: dirname(dirname(WORKER)), // bench/peers: the worker imports ../terms.mjs
    compatibilityDate: '2026-04-20',
    durableObjects: { PLAIN_MEMORY: { className: 'PlainMemory', useSQLite: true } },
    bindings: { PLAIN_TOKEN: PEER_TOKEN, PLAIN_DIMS: String(DIMS) },
    defaultPersistRoot: persist,
    durableObjectsPersist: true,
    cf: false,
    port,
  });
  const url = await mf.ready;
  return { mf, url: url.origin, runtime };
}
