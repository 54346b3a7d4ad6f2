#!/usr/bin/env node
/**
 * The size bench: the npm package's wasm module raw and gzip -9 (js/dist-wasm/edgemem_wasm_bg.wasm, what the
 * Worker bundles; GNU gzip, as scripts/build-wasm reports it), and the memory one Durable Object holding
 * N memories × 384-d costs, measured as the RSS of the workerd process (bench/miniflare/workerd-rss.mjs) — the
 * honest outside view, since workerd reports no per-isolate figure to a local run.
 *
 * Per configuration (`--configs 10000:f32,100000:i4` = memories:scalar), on a fresh workerd over a new state dir:
 * agent `empty` (same settings, no data) is opened first, so the isolate, the wasm instance and an open store
 * are in the baseline; then agent `loaded` takes N memories (LoCoMo turn texts, the corpus's MiniLM + clustered
 * vectors, a small JSON value) in batches of 100, `maintain()` (index built, snapshot taken) and one hybrid
 * search. Two deltas are reported:
 * - `after_load`: RSS after loading minus the baseline — includes whatever the load left behind (the wasm heap
 *   never shrinks, allocator slack, SQLite caches);
 * - `reopened`: workerd restarted over the same state (the DO evicted), `empty` opened (baseline), then
 *   `loaded` opened by one stats call and one hybrid search — what a cold DO holding that data needs to answer.
 * `package`: what `npm install edgemem` brings and two apps built from it cost (bench/node/package-size.mjs).
 * The store's own figures (`dbBytes`, `indexBytes`) are reported beside them, and the engine's own heap — the
 * wasm linear memory of the same store built, reopened, and in use (reopened, then 2,000 different hybrid searches
 * and 600 PUTs, which run the sweep that persists the searches' read recency) by the npm package in fresh Node
 * processes (bench/node/heap.mjs, file storage) — which is what the isolate is charged for the engine.
 *
 *   node bench/miniflare/size.mjs [--data DIR] [--configs 10000:f32,100000:i4] [--json]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { connect, createAgent } from 'edgemem';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { LOCOMO_DIR } from '../lib/locomo.mjs';
import { DIMS, flag as flagOf, loadCorpus } from '../node/corpus.mjs';
import { measurePackage } from '../node/package-size.mjs';
import { rss, workerdPid } from './workerd-rss.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', LOCOMO_DIR);
const configs = flag('--configs', '10000:f32,100000:i4')
  .split(',')
  .map((c) => {
    const [m, scalar] = c.split(':');
    return { memories: Number(m), scalar };
  });
const asJson = args.includes('--json');
const log = (m) => console.error(`[size] ${m}`);
const ADMIN = 'bench-admin-token';

const wasmPath = fileURLToPath(new URL('../../js/dist-wasm/edgemem_wasm_bg.wasm', import.meta.url));
const wasm = readFileSync(wasmPath);
/** gzip -9 as scripts/build-wasm reports it (GNU gzip), or Node's zlib at level 9 where gzip is missing. */
function gzipBytes() {
  try {
    return { bytes: execFileSync('gzip', ['-9', '-c', wasmPath], { maxBuffer: 64 << 20 }).length, tool: 'gzip -9' };
  } catch {
    return { bytes: gzipSync(wasm, { level: 9 }).length, tool: 'zlib level 9' };
  }
}
const gz = gzipBytes();
const module = {
  wasm_path: 'js/dist-wasm/edgemem_wasm_bg.wasm',
  wasm_bytes: wasm.length,
  wasm_gzip_bytes: gz.bytes,
  gzip_tool: gz.tool,
};

const maxN = Math.max(...configs.map((c) => c.memories));
const { texts, questions, questionVecs, vecs } = loadCorpus(data, maxN);
const round = (v) => Array.from(v, (x) => Math.round(x * 1e6) / 1e6); // shorter JSON; below f32 precision anyway

const dir = mkdtempSync(join(tmpdir(), 'edgemem-size-'));
log('bundling the Worker…');
bundleWorker(join(dir, 'bundle'), join(dir, 'config'));

async function withWorker(persist, fn) {
  const server = await startWorker({
    bundle: join(dir, 'bundle'),
    bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: String(DIMS), EDGEMEM_MEMORY_BUDGET: '0' },
    persist,
  });
  try {
    return await fn(server.url, workerdPid());
  } finally {
    await server.mf.dispose();
  }
}

/** bench/node/heap.mjs in a fresh Node process (a fresh wasm instance): its JSON line. */
function heap(argv) {
  const out = execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../node/heap.mjs', import.meta.url)), '--data', data, ...argv],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').pop());
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
const search = (s, q) => s.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });

const rows = [];
try {
  for (const { memories, scalar } of configs) {
    const persist = join(dir, `state-${memories}-${scalar}`);
    const settings = { dims: DIMS, scalar };
    const loaded = await withWorker(persist, async (url, pid) => {
      const empty = await connect({ url, agent: 'empty', token: ADMIN });
      await createAgent({ url, adminToken: ADMIN, agent: 'empty', settings });
      await createAgent({ url, adminToken: ADMIN, agent: 'loaded', settings });
      await empty.stats();
      await settle();
      const base = rss(pid).rss;
      const s = await connect({ url, agent: 'loaded', token: ADMIN });
      log(`${memories} × ${DIMS} ${scalar}: loading…`);
      const t0 = Date.now();
      for (let start = 0; start < memories; start += 100) {
        const batch = [];
        for (let i = start; i < Math.min(memories, start + 100); i++) {
          batch.push({
            namespace: ['agent', 'facts'],
            key: `m${i}`,
            value: { i },
            text: texts[i % texts.length],
            embedding: round(vecs[i]),
          });
        }
        await s.putBatch(batch);
        const done = Math.min(memories, start + 100);
        if (Math.floor((done * 10) / memories) > Math.floor((start * 10) / memories) && done < memories) {
          log(
            `${memories} × ${DIMS} ${scalar}: ${Math.floor((done * 10) / memories) * 10} % (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
          );
        }
      }
      await s.maintain();
      await search(s, 0);
      const stats = await s.stats();
      await settle();
      const after = rss(pid);
      await s.close();
      await empty.close();
      return { base, after: after.rss, peak: after.hwm, stats, load_s: (Date.now() - t0) / 1000 };
    });
    log(`${memories} × ${DIMS} ${scalar}: reopening on a new workerd…`);
    const reopened = await withWorker(persist, async (url, pid) => {
      const empty = await connect({ url, agent: 'empty', token: ADMIN });
      await empty.stats();
      await settle();
      const base = rss(pid).rss;
      const s = await connect({ url, agent: 'loaded', token: ADMIN });
      await s.stats();
      await search(s, 1);
      await settle();
      const after = rss(pid).rss;
      await s.close();
      await empty.close();
      return { base, after };
    });
    log(`${memories} × ${DIMS} ${scalar}: the engine's wasm heap in Node (bench/node/heap.mjs)…`);
    const heapFile = join(dir, `heap-${memories}-${scalar}.db`);
    const heapLoad = heap(['--file', heapFile, '--load', String(memories), '--scalar', scalar]);
    const heapOpen = heap(['--file', heapFile, '--open', '--scalar', scalar]);
    const heapInUse = heap(['--file', heapFile, '--open', '--scalar', scalar, '--searches', '2000', '--writes', '600']);
    rmSync(heapFile, { force: true });
    rows.push({
      memories,
      dims: DIMS,
      scalar,
      load_s: loaded.load_s,
      db_bytes: loaded.stats.dbBytes,
      index_bytes: loaded.stats.indexBytes,
      index_vectors: loaded.stats.indexVectors,
      after_load: {
        base_rss_bytes: loaded.base,
        rss_bytes: loaded.after,
        delta_bytes: loaded.after - loaded.base,
        workerd_peak_rss_bytes: loaded.peak,
      },
      reopened: {
        base_rss_bytes: reopened.base,
        rss_bytes: reopened.after,
        delta_bytes: reopened.after - reopened.base,
      },
      // Linear memory never shrinks: after the load it is the load's peak.
      engine_heap: {
        base_wasm_bytes: heapOpen.base_wasm_bytes,
        peak_wasm_bytes: heapLoad.wasm_bytes,
        reopened_wasm_bytes: heapOpen.wasm_bytes,
        in_use_wasm_bytes: heapInUse.wasm_bytes,
      },
      index: { recall_vs_exact: heapLoad.recall_vs_exact, k: 10, queries: heapLoad.recall_queries },
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
log('what npm install edgemem brings, and two apps built from it (bench/node/package-size.mjs)…');
const pkg = measurePackage(log);
const out = { ...module, package: pkg, do_memory: rows };
const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
if (asJson) console.log(JSON.stringify(out));
else {
  console.log(`wasm module: ${mib(module.wasm_bytes)} raw, ${mib(module.wasm_gzip_bytes)} gzip -9`);
  console.log(
    `npm install edgemem: ${pkg.installed_packages} package(s), ${mib(pkg.installed_bytes)}; a browser app of openStore ` +
      `${(pkg.browser_open_store_js_gzip_bytes / 1024).toFixed(1)} KiB gzip (the .wasm apart), a Worker of connect ` +
      `${(pkg.worker_connect_js_gzip_bytes / 1024).toFixed(1)} KiB gzip`,
  );
  for (const r of rows) {
    console.log(
      `${r.memories} × ${r.dims} ${r.scalar}: workerd RSS +${mib(r.after_load.delta_bytes)} after loading, +${mib(r.reopened.delta_bytes)} reopened cold; ` +
        `engine wasm heap ${mib(r.engine_heap.peak_wasm_bytes)} at the load's peak, ${mib(r.engine_heap.reopened_wasm_bytes)} reopened, ${mib(r.engine_heap.in_use_wasm_bytes)} in use; index R@10 vs exact ${r.index.recall_vs_exact?.toFixed(3)}; db ${mib(r.db_bytes)}, index ${mib(r.index_bytes)}`,
    );
  }
}
