#!/usr/bin/env node
/**
 * Where a request's time goes in edgemem's Worker and Durable Object under Miniflare: the Worker bundled with an
 * instrumented object (do-probe-worker.ts: the real routes and `AgentMemory`, its KV counted and timed), two agents
 * loaded alike with the latency corpus through `POST /import` — one keeping its pages in the object's page table
 * (`table`, what new stores do), one in the synchronous KV (`kv`, stores made before) —, then:
 * - end to end over HTTP, interleaved: the floor (`GET /v1/health`), PUT, GET, CHECKPOINT PUT, hybrid SEARCH through
 *   `connect()` on each agent, with the workerd process's CPU time and bytes written per request (/proc), and a bare commit of 0, 1,
 *   4 or 13 pages of 8 KiB (one KV transaction in the object, answered once durable) — what a commit's size costs;
 * - inside the object (no RPC): the store calls alone per agent, ms per call, and on the `kv` agent the pages each
 *   reads and writes and the time in KV;
 * - inside the Worker: auth (JWT), JSON parse + zod, RPC round trips (empty, with the call's arguments, with its
 *   result), the store call over RPC, the response's JSON.
 *
 *   node bench/peers/miniflare/do-breakdown.mjs [--data DIR] [--n 10000] [--iters 200] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { mintToken } from '../../../js/dist/entries/node.js';
import { DIMS, flag as flagOf, generators, loadCorpus, summarize } from '../../node/corpus.mjs';
import { ADMIN, corpusMemory, importInto, newAgent } from './bulk-load.mjs';
import { cpuMs, workerdPids, writtenBytes } from './workerd-cpu.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '200'));
const asJson = args.includes('--json');
const log = (...m) => {
  if (!asJson) console.error(...m);
};

const LAYOUTS = { table: 'agent-table', kv: 'agent-kv' };
const entry = fileURLToPath(new URL('./do-probe-worker.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'do-breakdown-'));

const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + iters * 4);
const { r, value1k, nsOf, checkpointPayload } = generators(1);
const memory = corpusMemory({ texts, vecs, nsOf, value1k });

log('bundling the instrumented Worker…');
bundleWorker(join(dir, 'bundle'), join(dir, 'config'), { main: entry });
const server = await startWorker({
  bundle: join(dir, 'bundle'),
  bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: String(DIMS), EDGEMEM_MEMORY_BUDGET: '0' },
  persist: join(dir, 'state'),
});
const url = server.url;

/** POST `body` as JSON to a probe route; its JSON answer. */
async function probe(path, body) {
  const res = await fetch(url + path, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

try {
  const pid = workerdPids()[0] ?? null;
  const stores = {};
  const tokens = {};
  const loadMs = {};
  for (const [layout, agent] of Object.entries(LAYOUTS)) {
    // The kv agent's empty store is made in the KV first; creating the agent would re-create an empty store.
    let token;
    if (layout === 'kv') {
      await probe(`/probe/kv-layout?agent=${agent}&dims=${DIMS}`, {});
      const scopes = ['read', 'write'];
      token = (await mintToken({ url, adminToken: ADMIN, agent, scopes, ttlSeconds: 86400 })).token;
    } else token = await newAgent({ url, adminToken: ADMIN, agent, dims: DIMS });
    tokens[layout] = token;
    log(`loading ${n} memories into ${agent} (POST /import, maintain)…`);
    const load = await importInto({ url, agent, token, n, dims: DIMS, memory });
    stores[layout] = load.store;
    loadMs[layout] = { import: load.importMs, maintain: load.maintainMs };
  }

  // The store calls as the Worker passes them over RPC (after zod: embeddings as plain arrays).
  let fresh = n;
  const cpPayload = checkpointPayload();
  let cp = 0;
  const calls = {
    put: () => {
      const i = r.below(2) === 0 ? r.below(n) : fresh++;
      const embedding = Array.from(vecs[n + r.below(iters * 4)]);
      return ['put', [{ ...memory(i), text: texts[r.below(texts.length)], embedding }]];
    },
    get: () => {
      const i = r.below(n);
      return ['get', [nsOf(i), `m${i}`]];
    },
    checkpoint_put: () => {
      const it = cp++;
      const c = { threadId: `thread-${it % 16}`, checkpointId: `cp-${String(it).padStart(8, '0')}`, data: cpPayload };
      return ['putCheckpoint', [{ ...c, metadata: { step: it } }]];
    },
    search: () => {
      const q = r.below(questions.length);
      return ['search', [{ text: questions[q].question, vector: Array.from(questionVecs[q]), k: 10 }]];
    },
  };

  log('inside the object…');
  const inside = { table: {}, kv: {} };
  const KEYS = ['ms', 'n', 'gets', 'getMs', 'getBytes', 'puts', 'putMs', 'putBytes', 'putZeroRuns'];
  for (const [op, make] of Object.entries(calls)) {
    const tot = { table: {}, kv: {} };
    for (const layout of Object.keys(LAYOUTS)) {
      for (const k of KEYS) tot[layout][k] = 0;
      await probe(`/probe/store?agent=${LAYOUTS[layout]}`, { calls: Array.from({ length: 10 }, make) }); // warm-up
    }
    for (let done = 0; done < iters; done += 50) {
      const batch = Array.from({ length: 50 }, make); // the same calls on both, alternating
      for (const layout of done % 100 === 0 ? ['table', 'kv'] : ['kv', 'table']) {
        const p = await probe(`/probe/store?agent=${LAYOUTS[layout]}`, { calls: batch });
        tot[layout].ms += p.ms;
        tot[layout].n += p.n;
        for (const k of KEYS.slice(2)) tot[layout][k] += p.kv[k];
      }
    }
    for (const layout of Object.keys(LAYOUTS)) {
      const t = tot[layout];
      inside[layout][op] = {
        ms: t.ms / t.n,
        pages_read: t.gets / t.n,
        kv_read_ms: t.getMs / t.n,
        pages_written: t.puts / t.n,
        bytes_written: t.putBytes / t.n,
        zero_run_bytes_written: t.putZeroRuns / t.n,
        kv_write_ms: t.putMs / t.n,
      };
    }
  }
  const kvOnly = {};
  for (const pages of [1, 13]) kvOnly[pages] = (await probe('/probe/kv', { pages, times: iters })).ms / iters;

  log('inside the Worker…');
  const worker = {};
  for (const op of ['put', 'search']) {
    const w = await probe('/probe/worker?agent=agent-table', { times: iters, token: tokens.table, call: calls[op]() });
    const { times: _, ...each } = w;
    worker[op] = Object.fromEntries(Object.entries(each).map(([k, v]) => [k, v / iters]));
  }

  log('end to end…');
  const health = `${url}/v1/health`;
  const e2e = { floor: [], commit_0: [], commit_1: [], commit_4: [], commit_13: [] };
  const cpu = {};
  const written = {};
  const viaClient = {
    put: (s, [, [m]]) => s.put(m),
    get: (s, [, [ns, key]]) => s.get(ns, key),
    checkpoint_put: (s, [, [c]]) => s.putCheckpoint(c),
    search: (s, [, [q]]) => s.search(q),
  };
  for (const layout of Object.keys(LAYOUTS))
    for (const op of Object.keys(viaClient)) {
      e2e[`${op}_${layout}`] = [];
      cpu[`${op}_${layout}`] = 0;
      written[`${op}_${layout}`] = 0;
    }
  const warm = Math.max(10, Math.floor(iters / 10));
  for (let it = 0; it < iters + warm; it++) {
    const t0 = performance.now();
    await (await fetch(health)).arrayBuffer();
    if (it >= warm) e2e.floor.push(performance.now() - t0);
    for (const op of Object.keys(viaClient)) {
      const c = calls[op]();
      for (const layout of it % 2 === 0 ? ['table', 'kv'] : ['kv', 'table']) {
        const c0 = cpuMs(pid);
        const w0 = writtenBytes(pid);
        const t = performance.now();
        await viaClient[op](stores[layout], c);
        if (it >= warm) {
          e2e[`${op}_${layout}`].push(performance.now() - t);
          cpu[`${op}_${layout}`] += cpuMs(pid) - c0;
          written[`${op}_${layout}`] += writtenBytes(pid) - w0;
        }
      }
    }
    for (const pages of [0, 1, 4, 13]) {
      const w0 = writtenBytes(pid);
      const t = performance.now();
      await (await fetch(`${url}/probe/commit?pages=${pages}&agent=commits`)).arrayBuffer();
      if (it >= warm) {
        e2e[`commit_${pages}`].push(performance.now() - t);
        written[`commit_${pages}`] = (written[`commit_${pages}`] ?? 0) + writtenBytes(pid) - w0;
      }
    }
  }
  for (const s of Object.values(stores)) await s.close();
  const endToEnd = Object.fromEntries(
    Object.entries(e2e).map(([k, v]) => [
      k,
      {
        ...summarize(v),
        cpu_ms: k in cpu && pid ? cpu[k] / iters : null,
        written_bytes: k in written && pid ? written[k] / iters : null,
      },
    ]),
  );

  const result = {
    memories: n,
    iters,
    load_ms: loadMs,
    end_to_end: endToEnd,
    inside_object: inside,
    kv_commit_ms: kvOnly,
    worker,
  };
  if (asJson) {
    console.log(JSON.stringify(result));
  } else {
    const ms = (x) => (x == null ? '–' : x.toFixed(3)).padStart(8);
    console.log(`edgemem Worker under Miniflare, ${n} memories × ${DIMS}-d, ${iters} iterations each`);
    for (const [layout, l] of Object.entries(loadMs))
      console.log(
        `load (${layout} layout): import ${(l.import / 1000).toFixed(1)} s, maintain ${(l.maintain / 1000).toFixed(1)} s`,
      );
    console.log('end to end (HTTP, interleaved): p50 / p99 ms, workerd CPU ms and KiB written per request');
    for (const [k, v] of Object.entries(endToEnd)) {
      const kib = v.written_bytes == null ? '–' : (v.written_bytes / 1024).toFixed(1);
      console.log(`  ${k.padEnd(22)} ${ms(v.p50_us / 1000)} ${ms(v.p99_us / 1000)} ${ms(v.cpu_ms)} ${kib.padStart(8)}`);
    }
    for (const layout of Object.keys(LAYOUTS)) {
      console.log(`inside the object (${layout} layout), mean per call (no RPC):`);
      for (const [k, v] of Object.entries(inside[layout])) {
        console.log(
          `  ${k.padEnd(16)} ${ms(v.ms)} ms; KV pages read ${v.pages_read.toFixed(2)} (${ms(v.kv_read_ms)} ms), written ${v.pages_written.toFixed(2)} = ${(v.bytes_written / 1024).toFixed(1)} KiB (${ms(v.kv_write_ms)} ms, ${(v.zero_run_bytes_written / 1024).toFixed(1)} KiB of it zero runs)`,
        );
      }
    }
    console.log(`  KV alone, one transaction of 1 page ${ms(kvOnly[1])} ms, of 13 pages ${ms(kvOnly[13])} ms`);
    console.log('inside the Worker, mean per call, ms:');
    for (const [op, w] of Object.entries(worker)) {
      console.log(
        `  ${op}: ${Object.entries(w)
          .map(([k, v]) => `${k} ${v.toFixed(3)}`)
          .join(', ')}`,
      );
    }
  }
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
