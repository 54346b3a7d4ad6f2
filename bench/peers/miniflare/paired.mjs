#!/usr/bin/env node
/**
 * edgemem's Worker and the plain Durable Object (../plain-do/worker.mjs) side by side at a large store (default
 * 100k memories), interleaved request by request, so both see the same machine at the same moment: the workload of
 * bench/miniflare/latency.mjs and ./latency.mjs (PUT 1 KB value + 384-d vector, half updates; GET; CHECKPOINT PUT
 * 1 KB; hybrid SEARCH top-10 of LoCoMo questions), each iteration one floor request (`GET /v1/health` of the
 * edgemem Worker, no Durable Object) then the op on both sides, the side that goes first alternating, the same
 * seeded inputs to both; the first max(10, iters/10) discarded as warm-up.
 *
 * Both servers are Miniflare with the same options (cf: false, compatibility date 2026-04-20, SQLite-backed
 * Durable Objects persisted in one temp dir, real ports). Loading goes through each side's bulk path: edgemem's
 * `POST /import` streaming its NDJSON export format (chunks of 1 MiB into the object) and then `maintain()` (the
 * index built and snapshotted, as the alarm would); the plain DO's `POST /import` (2,000 memories a transaction).
 * Then edgemem's agent is opened once more (`GET /stats`, `load_ms.edgemem_reopen`): workerd evicted the object
 * while the plain DO loaded, and its cold open (the index snapshot loaded, or the index rebuilt when there is none)
 * is not one of the measured requests (an import leaves no index snapshot unless workerd happened to restart the
 * object before `maintain`, which then rebuilds and snapshots it; otherwise this open rebuilds the index from
 * SQLite: ~15 s at 100k on the 2-core VM). The long ones (import, maintain, that open) each go on a connection of their
 * own (bulk-load.mjs `requestOnce`: workerd closes a kept-alive connection at once after a response that kept it
 * busy past 5 s, and a request sent next on it is reset).
 * edgemem's store runs without its heap budget (EDGEMEM_MEMORY_BUDGET=0, as the size suite): the default 96 MiB
 * refuses past ~60k 384-d vectors; its maintenance alarm is an hour away (bulk-load.mjs `edgememBindings`), so a
 * slow run does not measure it. The machine's floor is measured in the same run: the trivial fetch above, and
 * fsync (a 4 KiB write + fdatasync in the persist dir, 200 times) — what one durable commit costs at least.
 * Beside the latencies, each side's workerd CPU time per request (`cpu_ms`: user + system, from /proc, over the
 * timed iterations): the cost of the work itself, which a loaded machine does not inflate the way it does latency;
 * and the bytes it wrote per request (/proc `wchar`: the Durable Object's WAL and database writes).
 * A request that fails ends the run with a failure line (../../lib/failure.mjs): the step, the error and its causes,
 * how long each side's connection had been idle, and each workerd's state (alive or its exit, memory, stderr tail).
 *
 *   node bench/peers/miniflare/paired.mjs [--data DIR] [--n 100000] [--iters 300] [--json]
 */

import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { chainText, errorChain, reportFailure } from '../../lib/failure.mjs';
import { DIMS, flag as flagOf, generators, loadCorpus, summarize } from '../../node/corpus.mjs';
import {
  ADMIN,
  AGENT,
  corpusMemory,
  edgememBindings,
  importInto,
  newAgent,
  openAgent,
  plainImport,
} from './bulk-load.mjs';
import { PEER_TOKEN, startPeer } from './peer-worker.mjs';
import { cpuMs, workerdPids, writtenBytes } from './workerd-cpu.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '100000'));
const iters = Number(flag('--iters', '300'));
const asJson = args.includes('--json');
/** Progress, on stderr in both modes (the harness passes a job's stderr through as its progress). */
const log = (...m) => console.error(...m);

const dir = mkdtempSync(join(tmpdir(), 'paired-mf-bench-'));

const { texts, questions, questionVecs, vecs } = loadCorpus(data, n + iters * 2);
const { r, value1k, nsOf, checkpointPayload } = generators(1);
const memory = corpusMemory({ texts, vecs, nsOf, value1k });

/** The disk's floor: `times` 4 KiB writes each followed by fdatasync, in the persist dir. */
function fsyncFloor(times) {
  const fd = openSync(join(dir, 'fsync-probe'), 'w');
  const page = Buffer.alloc(4096, 7);
  const samples = [];
  try {
    for (let i = 0; i < times; i++) {
      const t = performance.now();
      writeSync(fd, page, 0, page.length, (i % 16) * 4096);
      fdatasyncSync(fd);
      samples.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
  }
  return summarize(samples);
}

log('bundling the Worker (wrangler deploy --dry-run)…');
bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
const edge = await startWorker({
  bundle: join(dir, 'bundle'),
  bindings: edgememBindings(),
  persist: join(dir, 'edgemem'),
});
const edgePid = edge.runtime.pid ?? workerdPids()[0] ?? null;
const peer = await startPeer({ persist: join(dir, 'plain-do') });
const peerPid = peer.runtime.pid ?? workerdPids().find((p) => p !== edgePid) ?? null;
const pids = { edgemem: edgePid, plain_do: peerPid };

/**
 * What the run is doing (the step a failure happened in); when each side last answered (performance.now()), and
 * its last step and how long that took (after a response that kept workerd busy past 5 s, workerd closes that
 * connection at once: a request sent next on it is reset).
 */
let phase = 'starting';
let phaseStarted = performance.now();
const startPhase = (/** @type {string} */ name) => {
  phase = name;
  phaseStarted = performance.now();
};
const answered = { edgemem: performance.now(), plain_do: performance.now() };
/** @type {Record<'edgemem' | 'plain_do', { step: string, ms: number } | null>} */
const lastStep = { edgemem: null, plain_do: null };
/** Records that `side` answered the current step; returns the time. @param {'edgemem' | 'plain_do'} side */
const finished = (side) => {
  answered[side] = performance.now();
  lastStep[side] = { step: phase, ms: answered[side] - phaseStarted };
  return answered[side];
};

try {
  startPhase('edgemem: create the agent');
  const token = await newAgent({ url: edge.url, adminToken: ADMIN, agent: AGENT, dims: DIMS });
  finished('edgemem');
  log(`loading ${n} memories into edgemem (POST /import, then maintain)…`);
  const load = await importInto({ url: edge.url, agent: AGENT, token, n, dims: DIMS, memory, phase: startPhase });
  finished('edgemem');
  const store = load.store;
  const edgeImportMs = load.importMs;
  const edgeLoadMs = load.importMs + load.maintainMs;

  log(`loading ${n} memories into the plain DO (POST /import)…`);
  startPhase('plain DO: POST /import');
  const peerBase = `${peer.url}/v1/agents/${AGENT}`;
  const peerHeaders = { authorization: `Bearer ${PEER_TOKEN}`, 'content-type': 'application/json' };
  let t = performance.now();
  for (const body of plainImport({ n, memory })) {
    const res = await fetch(`${peerBase}/import`, { method: 'POST', headers: peerHeaders, body });
    if (!res.ok) throw new Error(`plain DO import: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    finished('plain_do');
  }
  const peerLoadMs = performance.now() - t;

  startPhase('edgemem: open the agent again (GET /stats)');
  const edgeReopenMs = await openAgent({ url: edge.url, agent: AGENT, token });
  finished('edgemem');
  log(`edgemem's agent opened again in ${(edgeReopenMs / 1000).toFixed(1)} s`);

  /** One JSON request to the peer; the parsed body of a 2xx, null on 404, throws otherwise. */
  async function peerCall(method, path, body) {
    const res = await fetch(peerBase + path, {
      method,
      headers: peerHeaders,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 404) {
      await res.arrayBuffer();
      return null;
    }
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  }
  const nsq = (namespace) => encodeURIComponent(namespace.join('/'));

  // Each op: (it) → the inputs, then how each side runs them (and checks the answer).
  const sides = {
    edgemem: {
      put: (m) => store.put(m),
      get: async ([ns, key]) => {
        if (!(await store.get(ns, key))) throw new Error(`edgemem GET ${key} found nothing`);
      },
      checkpoint_put: (c) => store.putCheckpoint(c),
      search: async (q) => {
        const hits = await store.search(q);
        if (hits.length !== 10) throw new Error(`edgemem search returned ${hits.length} hits`);
      },
    },
    plain_do: {
      put: (m) =>
        peerCall('PUT', `/memories/${encodeURIComponent(m.key)}?ns=${nsq(m.namespace)}`, {
          value: m.value,
          text: m.text,
          embedding: Array.from(m.embedding),
        }),
      get: async ([ns, key]) => {
        if (!(await peerCall('GET', `/memories/${encodeURIComponent(key)}?ns=${nsq(ns)}`)))
          throw new Error(`plain DO GET ${key} found nothing`);
      },
      checkpoint_put: (c) => peerCall('POST', '/checkpoints', c),
      search: async (q) => {
        const { hits } = await peerCall('POST', '/search', { text: q.text, vector: Array.from(q.vector), k: q.k });
        if (hits.length !== 10) throw new Error(`plain DO search returned ${hits.length} hits`);
      },
    },
  };
  const cpPayload = checkpointPayload();
  const inputs = {
    put: (it) => {
      const i = it % 2 === 0 ? r.below(n) : n + it;
      return { ...memory(i), text: texts[r.below(texts.length)], embedding: vecs[n + it] };
    },
    get: () => {
      const i = r.below(n);
      return [nsOf(i), `m${i}`];
    },
    checkpoint_put: (it) => ({
      threadId: `thread-${it % 16}`,
      checkpointId: `cp-${String(it).padStart(8, '0')}`,
      parentId: it >= 16 ? `cp-${String(it - 16).padStart(8, '0')}` : null,
      data: cpPayload,
      metadata: { step: it, source: 'loop' },
    }),
    search: () => {
      const q = r.below(questions.length);
      return { text: questions[q].question, vector: questionVecs[q], k: 10 };
    },
  };

  const floor = [];
  const health = `${edge.url}/v1/health`;
  const warm = Math.max(10, Math.floor(iters / 10));
  const ops = {};
  for (const op of Object.keys(inputs)) {
    log(`measuring ${op}…`);
    const samples = { edgemem: [], plain_do: [] };
    const cpu = { edgemem: 0, plain_do: 0 };
    const written = { edgemem: 0, plain_do: 0 };
    for (let it = 0; it < iters + warm; it++) {
      startPhase(`${op} #${it}: edgemem GET /v1/health (the floor)`);
      t = performance.now();
      await (await fetch(health)).arrayBuffer();
      const floorDone = finished('edgemem');
      if (it >= warm) floor.push(floorDone - t);
      const input = inputs[op](it);
      for (const side of it % 2 === 0 ? ['edgemem', 'plain_do'] : ['plain_do', 'edgemem']) {
        startPhase(`${op} #${it}: ${side}`);
        const c0 = cpuMs(pids[side]);
        const w0 = writtenBytes(pids[side]);
        t = performance.now();
        await sides[side][op](input);
        finished(/** @type {'edgemem' | 'plain_do'} */ (side));
        if (it >= warm) {
          samples[side].push(performance.now() - t);
          cpu[side] += cpuMs(pids[side]) - c0;
          written[side] += writtenBytes(pids[side]) - w0;
        }
      }
    }
    const side = (name) => ({
      ...summarize(samples[name]),
      cpu_ms: pids[name] ? cpu[name] / iters : null,
      written_bytes: pids[name] ? written[name] / iters : null,
    });
    ops[op] = { edgemem: side('edgemem'), plain_do: side('plain_do') };
  }
  startPhase('edgemem: stats');
  const stats = await store.stats();
  await store.close();

  const result = {
    host: 'miniflare',
    node: process.version,
    memories: n,
    iters,
    load_ms: { edgemem: edgeLoadMs, edgemem_import: edgeImportMs, edgemem_reopen: edgeReopenMs, plain_do: peerLoadMs },
    floor: summarize(floor),
    fsync: fsyncFloor(200),
    ops,
    edgemem_store: { memories: stats.memories, db_bytes: stats.dbBytes, index_bytes: stats.indexBytes },
    config: {
      interleaved: 'one floor request, then the op on both sides (alternating which goes first), same inputs',
      load: 'edgemem: POST /import (NDJSON export format) + maintain, then a cold open (GET /stats) after the plain DO loaded; plain DO: POST /import, 2,000 per transaction',
      edgemem_budget:
        'EDGEMEM_MEMORY_BUDGET=0 (no heap budget), default vectors (i4 for cosine); EDGEMEM_ALARM_MS=3600000',
    },
  };
  if (asJson) {
    console.log(JSON.stringify(result));
  } else {
    const ms = (us) => (us / 1000).toFixed(2).padStart(7);
    console.log(
      `edgemem Worker and plain DO, interleaved under Miniflare, ${n} memories × ${DIMS}-d (load: edgemem ${(edgeLoadMs / 1000).toFixed(1)} s of which import ${(edgeImportMs / 1000).toFixed(1)} s, then a cold open ${(edgeReopenMs / 1000).toFixed(1)} s; plain DO ${(peerLoadMs / 1000).toFixed(1)} s), ${iters} iterations after ${warm} warm-up`,
    );
    const f = result.floor;
    const fs = result.fsync;
    console.log(
      `floor: trivial fetch p50 ${ms(f.p50_us)} p99 ${ms(f.p99_us)} ms; fsync 4 KiB p50 ${ms(fs.p50_us)} p99 ${ms(fs.p99_us)} ms`,
    );
    console.log(
      `${'op'.padEnd(16)} ${'edgemem p50 / p99'.padStart(20)} ${'plain DO p50 / p99'.padStart(20)}  ratio p50 / p99   CPU ms edgemem / plain DO   KiB written`,
    );
    for (const [op, v] of Object.entries(ops)) {
      const e = v.edgemem;
      const p = v.plain_do;
      console.log(
        `${op.padEnd(16)} ${ms(e.p50_us)} / ${ms(e.p99_us)}     ${ms(p.p50_us)} / ${ms(p.p99_us)}     ${(e.p50_us / p.p50_us).toFixed(2)} / ${(e.p99_us / p.p99_us).toFixed(2)}        ${e.cpu_ms?.toFixed(2)} / ${p.cpu_ms?.toFixed(2)}   ${(e.written_bytes / 1024).toFixed(0)} / ${(p.written_bytes / 1024).toFixed(0)}`,
      );
    }
  }
} catch (e) {
  // Say why: the step, the error's causes, and whether each workerd still runs (and what it printed).
  const failedAt = performance.now();
  await edge.runtime.settle();
  const chain = errorChain(e);
  const workerd = { edgemem: edge.runtime.report(), plain_do: peer.runtime.report() };
  const mib = (/** @type {number | null} */ b) => (b == null ? '?' : `${(b / 2 ** 20).toFixed(0)} MiB`);
  const state = (/** @type {import('edgemem-worker/harness/miniflare').RuntimeReport} */ w) =>
    w.alive === null
      ? 'not found'
      : w.alive
        ? `alive (RSS ${mib(w.rss_bytes)}, peak ${mib(w.peak_rss_bytes)})`
        : `exited (${w.exit ? `code ${w.exit.code}, signal ${w.exit.signal}` : 'status unknown'})`;
  const lastErr = workerd.edgemem.stderr_tail.at(-1);
  const before = lastStep.edgemem
    ? `; edgemem's previous step (${lastStep.edgemem.step}) took ${(lastStep.edgemem.ms / 1000).toFixed(1)} s`
    : '';
  reportFailure(
    `${phase}, ${((failedAt - phaseStarted) / 1000).toFixed(1)} s in: ${chainText(chain)}${before}; edgemem workerd ${state(workerd.edgemem)}${lastErr ? ` (last stderr: ${lastErr})` : ''}; plain DO workerd ${state(workerd.plain_do)}`,
    {
      phase,
      phase_ms: failedAt - phaseStarted,
      error: chain,
      stack: e instanceof Error ? e.stack : undefined,
      // How long each side had been silent when the step began (a keep-alive connection idle that long may be gone).
      idle_before_ms: { edgemem: phaseStarted - answered.edgemem, plain_do: phaseStarted - answered.plain_do },
      previous_step: lastStep,
      workerd,
      memories: n,
      iters,
    },
  );
} finally {
  await edge.mf.dispose();
  await peer.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
