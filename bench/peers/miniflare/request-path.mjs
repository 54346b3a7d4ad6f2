#!/usr/bin/env node
/**
 * The fixed cost of a request in edgemem's Worker under Miniflare, piece by piece: the Worker bundled with
 * request-path-worker.ts (the real routes and `AgentMemory`, plus a probe route), one agent loaded with the latency
 * corpus through `POST /import`, then for GET, PUT, CHECKPOINT PUT and hybrid SEARCH (the requests of paired.mjs),
 * inside the isolate: the whole request through the Worker's `fetch` (no socket; for GET also the bare route
 * below; for PUT and CHECKPOINT PUT the Worker's part also through the router, the request sent without its
 * Content-Length), the Hono floor (`/v1/health`), auth, validation, the object's id, the RPC with the store call,
 * the call inside the object, an empty `transactionSync`, an echo RPC of the call's arguments and of its result,
 * the response's JSON. `--rounds` runs of the probe; the medians are printed (ms per request). Then over HTTP, interleaved (`--http` times each, the
 * order rotating): the floor (`GET /v1/health`), the API's GET, a bare GET (the probe's route: the path split
 * by hand, the token checked, the store call, its JSON — what routing, middleware and validation add is the
 * difference) and the bare GET with its read inside a transaction, each with the workerd process's CPU per
 * request (/proc: clock ticks, so only many requests give a steady figure).
 *
 *   node bench/peers/miniflare/request-path.mjs [--data DIR] [--n 10000] [--times 100] [--rounds 3] [--http 1000] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { DIMS, flag as flagOf, generators, loadCorpus, summarize } from '../../node/corpus.mjs';
import { ADMIN, AGENT, corpusMemory, importInto, newAgent } from './bulk-load.mjs';
import { cpuMs, workerdPids } from './workerd-cpu.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const times = Number(flag('--times', '100'));
const rounds = Number(flag('--rounds', '3'));
const httpIters = Number(flag('--http', '1000'));
const asJson = args.includes('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const entry = fileURLToPath(new URL('./request-path-worker.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'request-path-'));

const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + 1);
const { value1k, nsOf, checkpointPayload } = generators(1);
const memory = corpusMemory({ texts, vecs, nsOf, value1k });
const nsq = (ns) => encodeURIComponent(ns.join('/'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The four requests of paired.mjs as the client sends them, with the store call each route makes. */
function ops() {
  const m = memory(7);
  const put = { value: m.value, text: texts[3], embedding: Array.from(vecs[n]) };
  const cp = {
    threadId: 'thread-1',
    checkpointId: 'cp-00000001',
    parentId: null,
    data: checkpointPayload(),
    metadata: { step: 1, source: 'loop' },
  };
  const q = { text: questions[0].question, vector: Array.from(questionVecs[0]), k: 10 };
  const path = (p) => `/v1/agents/${AGENT}${p}`;
  return {
    get: {
      method: 'GET',
      path: path(`/memories/${m.key}?ns=${nsq(m.namespace)}`),
      call: ['get', [m.namespace, m.key, { includeEmbedding: false }]],
    },
    put: {
      method: 'PUT',
      path: path(`/memories/${m.key}?ns=${nsq(m.namespace)}`),
      body: JSON.stringify(put),
      call: ['put', [{ ...put, namespace: m.namespace, key: m.key }]],
    },
    checkpoint_put: {
      method: 'POST',
      path: path('/checkpoints'),
      body: JSON.stringify(cp),
      call: ['putCheckpoint', [cp]],
    },
    search: { method: 'POST', path: path('/search'), body: JSON.stringify(q), call: ['search', [q]] },
  };
}

log('bundling the probed Worker…');
bundleWorker(join(dir, 'bundle'), join(dir, 'config'), { main: entry });
const server = await startWorker({
  bundle: join(dir, 'bundle'),
  bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: String(DIMS), EDGEMEM_MEMORY_BUDGET: '0' },
  persist: join(dir, 'state'),
});
try {
  const url = server.url;
  const token = await newAgent({ url, adminToken: ADMIN, agent: AGENT, dims: DIMS });
  log(`loading ${n} memories (POST /import, maintain)…`);
  await (await importInto({ url, agent: AGENT, token, n, dims: DIMS, memory })).store.close();

  // One probe request per op and round: a request making thousands of calls to the object resets workerd now and
  // then (seen with --times 300; the connection is dropped, nothing is logged).
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    log(`probe round ${r + 1}/${rounds}…`);
    const run = {};
    for (const [op, o] of Object.entries(ops())) {
      const p = await fetch(`${url}/probe/path`, {
        method: 'POST',
        body: JSON.stringify({ agent: AGENT, token, times, ops: { [op]: o } }),
      });
      if (!p.ok) throw new Error(`probe: HTTP ${p.status} ${await p.text()}`);
      Object.assign(run, await p.json());
    }
    runs.push(run);
  }

  log('over HTTP: floor, GET, bare GET without and with a transaction…');
  const pid = workerdPids()[0] ?? null;
  const get = ops().get;
  const auth = { authorization: `Bearer ${token}` };
  const http = {
    floor: () => fetch(`${url}/v1/health`),
    get: () => fetch(url + get.path, { headers: auth }),
    bare_get: () => fetch(url + get.path.replace('/v1/', '/bare/'), { headers: auth }),
    bare_get_tx: () => fetch(url + get.path.replace('/v1/', '/bare-tx/'), { headers: auth }),
  };
  const order = Object.keys(http);
  const samples = Object.fromEntries(Object.keys(http).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(http).map((k) => [k, 0]));
  const warm = Math.max(10, httpIters / 10);
  for (let it = 0; it < httpIters + warm; it++) {
    for (const k of order.slice(it % order.length).concat(order.slice(0, it % order.length))) {
      const f = http[k];
      const c0 = cpuMs(pid);
      const t = performance.now();
      const res = await f();
      if (!res.ok) throw new Error(`${k}: HTTP ${res.status}`);
      await res.arrayBuffer();
      if (it >= warm) {
        samples[k].push(performance.now() - t);
        cpu[k] += cpuMs(pid) - c0;
      }
    }
  }
  const overHttp = Object.fromEntries(
    Object.keys(http).map((k) => {
      const s = summarize(samples[k]);
      return [k, { p50_ms: s.p50_us / 1000, p99_ms: s.p99_us / 1000, cpu_ms: cpu[k] / samples[k].length }];
    }),
  );

  const result = {
    http: Object.fromEntries(
      Object.entries(overHttp).flatMap(([k, v]) => Object.entries(v).map(([m, x]) => [`${k}_${m}`, x])),
    ),
  };
  for (const [group, figures] of Object.entries(runs[0])) {
    result[group] = Object.fromEntries(Object.keys(figures).map((k) => [k, median(runs.map((x) => x[group][k]))]));
  }
  if (asJson) {
    console.log(JSON.stringify({ memories: n, times, rounds, ms: result }));
  } else {
    console.log(
      `edgemem Worker under Miniflare, ${n} memories × ${DIMS}-d: ms per request, median of ${rounds} rounds`,
    );
    for (const [group, figures] of Object.entries(result)) {
      console.log(
        `  ${group.padEnd(15)} ${Object.entries(figures)
          .map(([k, v]) => `${k.replace(/_ms$/, '')} ${v.toFixed(3)}`)
          .join(', ')}`,
      );
    }
  }
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
