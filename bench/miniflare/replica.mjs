#!/usr/bin/env node
/**
 * The replica bench: a live local replica of an agent (`openStore({ replicaOf })`) beside the same agent through
 * `connect()`, the Worker under Miniflare on a real port, in one run. Measures, alternating the sides sample by
 * sample so they share the machine's noise:
 * - `get` and hybrid `search` on the replica (in-process, a file store) vs through connect() (HTTP);
 * - a write's acknowledgement on the replica vs on a plain local file store;
 * - a write on one replica until another replica has applied it (both live) vs the floor: a PUT through connect()
 *   until a second connect() client's WebSocket delivers its event (a plain round trip plus a push);
 * - the first sync of `--n` memories (384-d, LoCoMo texts and vectors) vs an export streamed into an import of the
 *   same agent (time and bytes received);
 * - catching up after `--offline` writes made offline on the replica and as many at the agent meanwhile.
 *
 *   node bench/miniflare/replica.mjs [--data DIR] [--n 10000] [--iters 300] [--offline 1000] [--reps 3] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createAgent, mintToken, openStore } from 'edgemem';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { summarizeMs } from '../lib/stats.mjs';
import { flag as flagOf, generators, loadCorpus } from '../node/corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '300'));
const offlineWrites = Number(flag('--offline', '1000'));
const reps = Number(flag('--reps', '3'));
const asJson = args.includes('--json');
const log = (m) => console.error(`[replica] ${m}`);
const ADMIN = 'bench-replica-admin';
const AGENT = 'replica-bench';
const DIMS = 384;
const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ratio = (a, b) => (a && b ? a / b : null);

/**
 * A fetch that counts the bytes of the bodies it receives as they stream through, and can be cut (every request
 * fails while `down`).
 */
function meteredFetch() {
  const m = { bytes: 0, down: false };
  const f = async (input, init) => {
    if (m.down) throw new TypeError('network cut');
    const res = await fetch(input, init);
    if (!res.body) return res;
    const counted = res.body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          m.bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { m, fetch: f };
}

/**
 * Samples of several sides in alternating blocks of `block` (so all share the machine's state over the run, while
 * no side's samples sit right after another side's I/O): each `sides[k](i)` returns its own time in ms.
 */
async function alternating(count, block, ...sides) {
  const out = sides.map(() => []);
  for (let i = 0; i < count; i += block) {
    for (const [k, side] of sides.entries()) {
      for (let j = i; j < Math.min(count, i + block); j++) out[k].push(await side(j));
    }
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'edgemem-bench-replica-'));
let files = 0;
const file = () => join(dir, `store-${files++}.db`);
log('bundling the Worker…');
bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
const server = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
const out = {};
try {
  const { url } = server;
  await createAgent({ url, adminToken: ADMIN, agent: AGENT, settings: { dims: DIMS } });
  const { token } = await mintToken({
    url,
    adminToken: ADMIN,
    agent: AGENT,
    scopes: ['read', 'write', 'subscribe'],
    ttlSeconds: 7200,
  });
  const remote = await connect({ url, agent: AGENT, token });
  const corpus = loadCorpus(data, n);
  const g = generators(7);
  const memory = (i) => ({
    namespace: g.nsOf(i),
    key: `m${i}`,
    value: g.value1k(i),
    text: corpus.texts[i % corpus.texts.length],
    embedding: corpus.vecs[i],
  });
  log(`loading ${n} memories into the agent…`);
  for (let i = 0; i < n; i += 100) {
    await remote.putBatch(Array.from({ length: Math.min(100, n - i) }, (_, j) => memory(i + j)));
  }
  await remote.maintain();

  // First sync vs export → import, fresh file stores each time: a warm-up of both first (not counted: the first of
  // each pays one-time costs), then the two in turn, each going first every other time.
  const sync = { replica_ms: [], export_import_ms: [], replica_bytes: 0, export_import_bytes: 0 };
  const viaReplica = async () => {
    const { m, fetch: f } = meteredFetch();
    const t0 = now();
    const rep = await openStore({
      storage: { file: file() },
      replicaOf: { url, agent: AGENT, token, live: false, fetch: f },
    });
    await rep.sync();
    const ms = now() - t0;
    await rep.close();
    return { ms, bytes: m.bytes };
  };
  /** @type {Promise<import('edgemem').LocalMemoryStore> | undefined} */
  let imported;
  const viaExport = async () => {
    const { m, fetch: f } = meteredFetch();
    const t0 = now();
    const src = await connect({ url, agent: AGENT, token, fetch: f });
    const dst = await openStore({ storage: { file: file() }, dims: DIMS });
    await dst.importStream(src.exportStream());
    const ms = now() - t0;
    await src.close();
    // The last copy stays open: the plain local store the reads below are compared with.
    (await imported)?.close();
    imported = Promise.resolve(dst);
    return { ms, bytes: m.bytes };
  };
  await viaReplica();
  await viaExport();
  for (let r = 0; r < reps; r++) {
    const [a, b] = r % 2 === 0 ? [await viaReplica(), await viaExport()] : [null, await viaExport()];
    const replica = a ?? (await viaReplica());
    sync.replica_ms.push(replica.ms);
    sync.export_import_ms.push(b.ms);
    sync.replica_bytes = replica.bytes;
    sync.export_import_bytes = b.bytes;
    log(`first sync ${r + 1}/${reps}: replica ${replica.ms.toFixed(0)} ms, export+import ${b.ms.toFixed(0)} ms`);
  }
  out.first_sync = {
    memories: n,
    replica_ms: median(sync.replica_ms),
    export_import_ms: median(sync.export_import_ms),
    ratio_time: ratio(median(sync.replica_ms), median(sync.export_import_ms)),
    replica_bytes: sync.replica_bytes,
    export_import_bytes: sync.export_import_bytes,
    ratio_bytes: ratio(sync.replica_bytes, sync.export_import_bytes),
    runs: { replica_ms: sync.replica_ms, export_import_ms: sync.export_import_ms },
    targets: { ratio_time: 1.2, ratio_bytes: 1.1 },
  };

  // Reads: the replica vs connect(), alternated.
  const r1 = await openStore({ storage: { file: file() }, replicaOf: { url, agent: AGENT, token, live: true } });
  await r1.sync();
  const g2 = generators(11);
  const keys = Array.from({ length: iters }, () => g2.r.below(n));
  const queries = Array.from({ length: iters }, () => {
    const q = g2.r.below(corpus.questions.length);
    return { text: corpus.questions[q].question, vector: corpus.questionVecs[q], k: 10 };
  });
  const timedMs = async (f) => {
    const t0 = now();
    await f();
    return now() - t0;
  };
  const BLOCK = 20;
  // A plain local file store holding the same agent (the last export + import above): the replica's own floor.
  const local = await imported;
  const [getR, getL, getC] = await alternating(
    iters,
    BLOCK,
    (i) => timedMs(() => r1.get(g.nsOf(keys[i]), `m${keys[i]}`)),
    (i) => timedMs(() => local.get(g.nsOf(keys[i]), `m${keys[i]}`)),
    (i) => timedMs(() => remote.get(g.nsOf(keys[i]), `m${keys[i]}`)),
  );
  const [findR, findL, findC] = await alternating(
    iters,
    BLOCK,
    (i) => timedMs(() => r1.search(queries[i])),
    (i) => timedMs(() => local.search(queries[i])),
    (i) => timedMs(() => remote.search(queries[i])),
  );
  await local.close();
  const reads = { replica: getR, local: getL, connect: getC };
  const searches = { replica: findR, local: findL, connect: findC };
  const side = (s) => {
    const a = summarizeMs(s.replica);
    const l = summarizeMs(s.local);
    const b = summarizeMs(s.connect);
    return {
      replica: a,
      local: l,
      connect: b,
      speedup_p50: ratio(b.p50, a.p50),
      speedup_p99: ratio(b.p99, a.p99),
      replica_vs_local_p50: ratio(a.p50, l.p50),
      local_speedup_p50: ratio(b.p50, l.p50),
    };
  };
  out.get = { ...side(reads), target_speedup_p50: 100 };
  out.search = { ...side(searches), mode: 'hybrid', k: 10, target_speedup_p50: 3 };

  // Write acknowledgement: the replica vs a plain local file store, alternated.
  const plain = await openStore({ storage: { file: file() }, dims: DIMS });
  const [ackR, ackP] = await alternating(
    iters,
    BLOCK,
    (i) => timedMs(() => r1.put({ ...memory(n + i), namespace: ['bench', 'writes'] })),
    (i) => timedMs(() => plain.put({ ...memory(n + i), namespace: ['bench', 'writes'] })),
  );
  const writes = { replica: ackR, plain: ackP };
  await plain.close();
  const wr = summarizeMs(writes.replica);
  const wp = summarizeMs(writes.plain);
  out.write_ack = {
    replica: wr,
    plain: wp,
    ratio_p50: ratio(wr.p50, wp.p50),
    ratio_p99: ratio(wr.p99, wp.p99),
    target_ratio_p50: 1.5,
  };
  await r1.sync();

  // Propagation: a write on r1 until r2 applied it, vs PUT + push between two connect() clients; alternated.
  const r2 = await openStore({ storage: { file: file() }, replicaOf: { url, agent: AGENT, token, live: true } });
  await r2.sync();
  const watcher = await connect({ url, agent: AGENT, token });
  const waiting = new Map();
  const arrived = (key) => {
    const w = waiting.get(key);
    if (w) {
      waiting.delete(key);
      w(now());
    }
  };
  await r2.subscribe({ kinds: ['put'], namespaces: [['bench', 'prop']] }, (e) => arrived(e.key));
  await watcher.subscribe({ kinds: ['put'], namespaces: [['bench', 'floor']] }, (e) => arrived(e.key));
  await new Promise((r) => setTimeout(r, 300)); // the sockets open
  const prop = { replica: [], floor: [] };
  const timed = async (key, write) => {
    const seen = new Promise((resolve) => waiting.set(key, resolve));
    const t0 = now();
    await write();
    const t1 = await Promise.race([seen, new Promise((r) => setTimeout(() => r(null), 5000))]);
    return t1 === null ? null : t1 - t0;
  };
  let missed = 0;
  for (let i = 0; i < Math.min(iters, 200); i++) {
    const a = await timed(`p${i}`, () => r1.put({ namespace: ['bench', 'prop'], key: `p${i}`, value: i }));
    const b = await timed(`f${i}`, () => remote.put({ namespace: ['bench', 'floor'], key: `f${i}`, value: i }));
    if (a === null || b === null) missed += 1;
    else {
      prop.replica.push(a);
      prop.floor.push(b);
    }
    await new Promise((r) => setTimeout(r, 20)); // writes a little apart, as an agent makes them
  }
  const pr = summarizeMs(prop.replica);
  const pf = summarizeMs(prop.floor);
  out.propagation = {
    replica_to_replica: pr,
    floor: { ...pf, what: 'PUT through connect() until a second client’s WebSocket delivers its event' },
    ratio_p50: ratio(pr?.p50, pf?.p50),
    ratio_p99: ratio(pr?.p99, pf?.p99),
    missed,
    target_ratio_p99: 2,
  };
  await watcher.close();
  await r2.close();

  // Catch-up: offline writes on the replica and at the agent, then one sync.
  const { m: net, fetch: cut } = meteredFetch();
  const r3 = await openStore({
    storage: { file: file() },
    replicaOf: { url, agent: AGENT, token, live: false, fetch: cut },
  });
  await r3.sync();
  net.down = true;
  for (let i = 0; i < offlineWrites; i++) {
    await r3.put({
      namespace: ['bench', 'offline'],
      key: `r${i}`,
      value: i,
      text: `offline note ${i}`,
      embedding: corpus.vecs[i],
    });
  }
  for (let i = 0; i < offlineWrites; i += 100) {
    await remote.putBatch(
      Array.from({ length: 100 }, (_, j) => ({
        namespace: ['bench', 'edge'],
        key: `a${i + j}`,
        value: i + j,
        embedding: corpus.vecs[i + j],
      })),
    );
  }
  net.down = false;
  net.bytes = 0;
  const t0 = now();
  await r3.sync();
  out.catch_up = {
    writes_each_side: offlineWrites,
    ms: now() - t0,
    bytes_received: net.bytes,
    pending_after: r3.status().pending,
    lag_after: r3.status().lag,
  };
  await r3.close();
  await r1.close();
  await remote.close();
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
if (asJson) console.log(JSON.stringify(out));
else console.error(JSON.stringify(out, null, 2));
