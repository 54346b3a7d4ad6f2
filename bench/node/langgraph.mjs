// The `langgraph` suite: edgemem/langgraph beside LangGraph's own persistence on one workload, in one process,
// the contenders alternated (each step, list and query runs every contender in turn, in a rotating order, so
// load on the machine falls on all of them alike).
//   step          put + putWrites + getTuple of one superstep of a 20-channel graph (2 channels change a
//                 step, one of them a growing message list), a thread of `--steps` steps
//   list          list() of a thread of 1,000 checkpoints, all of them
//   store_search  search(prefix, { query }) over 10k items, top 10, the same vectors for both (LoCoMo MiniLM,
//                 padded with clustered vectors); edgemem in vector mode, as InMemoryStore ranks
// Savers, like for like on durability:
//   edgemem         EdgememSaver over a Node file store: fsyncs at each commit (durable)
//   edgemem_memory  EdgememSaver over a memory store (no disk)
//   sqlite          SqliteSaver as shipped: better-sqlite3, WAL, whose build sets SQLITE_DEFAULT_WAL_SYNCHRONOUS=1
//                   (synchronous=NORMAL): no fsync at commit (a power cut can lose the last commits)
//   sqlite_full     SqliteSaver with synchronous=FULL: fsyncs the WAL at each commit (durable, as edgemem's file)
//   memory          MemorySaver
// Pairs: edgemem_memory ~ sqlite (neither waits for the disk at commit), edgemem ~ sqlite_full (both do).
// `fsync`: this machine's floor, a 4 KiB write + fsync in the same directory, alternated with the steps.
// Prints one JSON document: contenders × { step, list, store_search } × { p50, p95, p99 } in ms, the fsync
// floor, fsyncs per edgemem file step, and the ratios.
//
//   node bench/node/langgraph.mjs --data DIR [--steps 300] [--lists 20] [--items 10000] [--queries 200] --json

import fs, { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryStore, MemorySaver, uuid6 } from '@langchain/langgraph-checkpoint';
import { openStore } from 'edgemem';
import { EdgememSaver, EdgememStore } from 'edgemem/langgraph';
import { LOCOMO_DIR } from '../lib/locomo.mjs';
import { summarizeMs } from '../lib/stats.mjs';
import { DIMS, flag, generators, loadCorpus } from './corpus.mjs';

const args = process.argv.slice(2);
const data = flag(args, '--data', LOCOMO_DIR);
const STEPS = Number(flag(args, '--steps', '300'));
const LISTS = Number(flag(args, '--lists', '20'));
const ITEMS = Number(flag(args, '--items', '10000'));
const QUERIES = Number(flag(args, '--queries', '200'));
const CHANNELS = 20;
const log = (m) => process.stderr.write(`langgraph: ${m}\n`);

// The sqlite saver is a bench peer (bench/peers/package.json), installed by scripts/bench.
const peers = createRequire(fileURLToPath(new URL('../peers/package.json', import.meta.url)));
const { SqliteSaver } = await import(peers.resolve('@langchain/langgraph-checkpoint-sqlite'));

const dir = mkdtempSync(join(tmpdir(), 'edgemem-bench-langgraph-'));

/** The supersteps of one thread: each checkpoint names all 20 channels; two change per step. The same texts for every saver. */
function* supersteps(threadId, n) {
  const g = generators(7);
  const versions = Object.fromEntries(Array.from({ length: CHANNELS }, (_, c) => [`ch${c}`, 1]));
  const values = Object.fromEntries(
    Array.from({ length: CHANNELS }, (_, c) => [`ch${c}`, { n: c, note: g.sentence(20) }]),
  );
  values.messages = [];
  versions.messages = 1;
  let parent;
  for (let step = 0; step < n; step++) {
    const changed = ['messages', `ch${step % CHANNELS}`];
    values.messages = [...values.messages, { role: step % 2 ? 'ai' : 'human', content: g.sentence(25) }];
    values[changed[1]] = { n: step, note: g.sentence(20) };
    const newVersions = {};
    for (const c of changed) newVersions[c] = versions[c] = versions[c] + 1;
    const checkpoint = {
      v: 4,
      id: uuid6(-1),
      ts: new Date().toISOString(),
      channel_values: { ...values },
      channel_versions: { ...versions },
      versions_seen: { model: { messages: versions.messages } },
    };
    const config = {
      configurable: { thread_id: threadId, checkpoint_ns: '', ...(parent ? { checkpoint_id: parent } : {}) },
    };
    yield {
      config,
      checkpoint,
      metadata: { source: 'loop', step, parents: {} },
      newVersions,
      writes: [
        ['messages', values.messages.at(-1)],
        [changed[1], values[changed[1]]],
      ],
    };
    parent = checkpoint.id;
  }
}

/** `order` rotated by `i`: who goes first changes every round. */
const rotate = (order, i) => order.map((_, j) => order[(i + j) % order.length]);

/** Fsyncs and fdatasyncs made by this process's JS (edgemem's Node file store syncs with fdatasync), counted. */
let fsyncs = 0;
const realFsync = fs.fsyncSync;
const realFdatasync = fs.fdatasyncSync;
fs.fsyncSync = (fd) => {
  fsyncs++;
  return realFsync(fd);
};
fs.fdatasyncSync = (fd) => {
  fsyncs++;
  return realFdatasync(fd);
};
syncBuiltinESMExports();

/** One 4 KiB write + fsync: the disk's floor under a durable commit. */
function fsyncFloor(fd, buf) {
  const t0 = performance.now();
  writeSync(fd, buf, 0, buf.length, 0);
  fsyncSync(fd);
  return performance.now() - t0;
}

/** Each saver runs a thread of `n` steps, the savers alternated step by step; the fsync floor in between. */
async function stepBench(savers, n) {
  const names = Object.keys(savers);
  const threads = Object.fromEntries(names.map((name) => [name, supersteps(`steps-${name}`, n)]));
  const times = Object.fromEntries([...names, 'fsync'].map((name) => [name, []]));
  const fd = openSync(join(dir, 'fsync-floor'), 'w');
  const buf = Buffer.alloc(4096, 7);
  let edgemFsyncs = 0;
  try {
    for (let i = 0; i < n; i++) {
      for (const name of rotate([...names, 'fsync'], i)) {
        if (name === 'fsync') {
          times.fsync.push(fsyncFloor(fd, buf));
          continue;
        }
        const s = threads[name].next().value;
        const saver = savers[name];
        const before = fsyncs;
        const t0 = performance.now();
        const cfg = await saver.put(s.config, s.checkpoint, s.metadata, s.newVersions);
        await saver.putWrites(cfg, s.writes, `task-${s.metadata.step}`);
        await saver.getTuple(cfg);
        times[name].push(performance.now() - t0);
        if (name === 'edgemem') edgemFsyncs += fsyncs - before;
      }
    }
  } finally {
    closeSync(fd);
  }
  const warm = Math.min(20, Math.floor(n / 10));
  for (const name of Object.keys(times)) times[name] = times[name].slice(warm);
  return { times, fsyncsPerEdgememStep: edgemFsyncs / n };
}

/** Each saver gets a thread of 1,000 checkpoints, then lists it whole `lists` times, the savers alternated. */
async function listBench(savers, lists) {
  const names = Object.keys(savers);
  for (const name of names)
    for (const s of supersteps(`list-${name}`, 1000))
      await savers[name].put(s.config, s.checkpoint, s.metadata, s.newVersions);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < lists + 2; i++) {
    for (const name of rotate(names, i)) {
      const t0 = performance.now();
      let count = 0;
      for await (const _ of savers[name].list({ configurable: { thread_id: `list-${name}` } })) count++;
      if (count !== 1000) throw new Error(`${name}: list gave ${count} checkpoints, not 1000`);
      if (i >= 2) times[name].push(performance.now() - t0);
    }
  }
  return times;
}

/** Embeddings that look the text up: every store gets the same vectors. */
function lookupEmbeddings(byText) {
  return {
    embedDocuments: async (texts) => texts.map((t) => Array.from(byText.get(t))),
    embedQuery: async (t) => Array.from(byText.get(t)),
  };
}

async function load(store, corpus) {
  const batch = [];
  for (let i = 0; i < ITEMS; i++) {
    batch.push({ namespace: ['memories', `u${i % 10}`], key: `m${i}`, value: { text: corpus.itemTexts[i] } });
    if (batch.length === 500 || i === ITEMS - 1) await store.batch(batch.splice(0));
  }
}

/** The stores answer each query in turn (rotating who goes first); edgemem's top 10 is compared with the brute force's. */
async function searchBench(stores, corpus) {
  const names = Object.keys(stores);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  let overlap = 0;
  for (let q = 0; q < QUERIES + 10; q++) {
    const query = corpus.queryTexts[q % corpus.queryTexts.length];
    const keys = {};
    for (const name of rotate(names, q)) {
      const t0 = performance.now();
      const hits = await stores[name].search(['memories'], { query, limit: 10 });
      const ms = performance.now() - t0;
      if (hits.length !== 10) throw new Error(`${name}: search gave ${hits.length} hits`);
      if (q >= 10) times[name].push(ms);
      keys[name] = hits.map((h) => h.key);
    }
    if (q >= 10) overlap += keys.edgemem.filter((k) => keys.memory.includes(k)).length / 10;
  }
  return { times, recallVsBruteForce: overlap / QUERIES };
}

const pct = (times) => {
  const s = summarizeMs(times);
  return { p50: s.p50, p95: s.p95, p99: s.p99, n: s.n };
};

const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null);

try {
  const out = { params: { steps: STEPS, lists: LISTS, items: ITEMS, queries: QUERIES, channels: CHANNELS } };
  const edgeFile = await openStore({ storage: { file: join(dir, 'edgemem.db') } });
  const edgeMemory = await openStore({});
  const sqliteFull = SqliteSaver.fromConnString(join(dir, 'sqlite-full.db'));
  sqliteFull.db.pragma('synchronous=FULL');
  const savers = {
    edgemem: new EdgememSaver(edgeFile),
    edgemem_memory: new EdgememSaver(edgeMemory),
    sqlite: SqliteSaver.fromConnString(join(dir, 'sqlite.db')),
    sqlite_full: sqliteFull,
    memory: new MemorySaver(),
  };
  for (const name of Object.keys(savers)) out[name] = {};
  log(`step × ${STEPS}, ${Object.keys(savers).join(' ')} alternated`);
  const steps = await stepBench(savers, STEPS);
  for (const name of Object.keys(savers)) out[name].step = pct(steps.times[name]);
  log(`list of 1,000 × ${LISTS}, alternated`);
  const lists = await listBench(savers, LISTS);
  for (const name of Object.keys(savers)) out[name].list = pct(lists[name]);
  const sync = (saver) => String(saver.db.pragma('synchronous', { simple: true }));
  out.durability = {
    edgemem: `Node file store, redo log fdatasynced at each commit (${steps.fsyncsPerEdgememStep} fsync calls a step)`,
    edgemem_memory: 'memory store: no disk',
    sqlite: `better-sqlite3 ${peers('better-sqlite3/package.json').version}, WAL, synchronous=${sync(savers.sqlite)} (1 = NORMAL, the build's SQLITE_DEFAULT_WAL_SYNCHRONOUS): no fsync at commit`,
    sqlite_full: `WAL, synchronous=${sync(sqliteFull)} (2 = FULL): the WAL fsynced at each commit`,
    memory: 'MemorySaver: no disk',
  };
  out.fsync = { ...pct(steps.times.fsync), what: '4 KiB write + fsync, the same directory, alternated with the steps' };
  out.fsyncs_per_edgemem_step = steps.fsyncsPerEdgememStep;
  await edgeFile.close();
  await edgeMemory.close();

  log(`store search: ${ITEMS} items, ${QUERIES} queries, alternated`);
  const c = loadCorpus(data, ITEMS);
  const corpus = {
    itemTexts: c.vecs.map((_, i) => `${c.texts[i % c.texts.length]} #${i}`),
    queryTexts: c.questions.map((q, i) => `${q.question} ?${i}`),
  };
  const byText = new Map();
  for (const [i, t] of corpus.itemTexts.entries()) byText.set(t, c.vecs[i]);
  for (const [i, t] of corpus.queryTexts.entries()) byText.set(t, c.questionVecs[i]);
  const index = { dims: DIMS, embeddings: lookupEmbeddings(byText), fields: ['text'] };
  const edgeSearch = await openStore({ dims: DIMS });
  const stores = {
    edgemem: new EdgememStore(edgeSearch, { index, searchMode: 'vector' }),
    memory: new InMemoryStore({ index }),
  };
  for (const store of Object.values(stores)) await load(store, corpus);
  const search = await searchBench(stores, corpus);
  out.edgemem.store_search = {
    ...pct(search.times.edgemem),
    recall_at_10_vs_brute_force: search.recallVsBruteForce,
    scalar: (await edgeSearch.stats()).scalar,
  };
  out.memory.store_search = pct(search.times.memory);
  out.sqlite.store_search = null; // no sqlite store in LangGraph.js
  await edgeSearch.close();

  const p = (name, op, q) => out[name][op]?.[q];
  out.ratios = {
    what: 'edgemem ÷ peer, same run (below 1: edgemem faster); store_search: InMemoryStore ÷ edgemem (the speed-up)',
    step_p50_edgemem_memory_vs_sqlite: ratio(p('edgemem_memory', 'step', 'p50'), p('sqlite', 'step', 'p50')),
    step_p99_edgemem_memory_vs_sqlite: ratio(p('edgemem_memory', 'step', 'p99'), p('sqlite', 'step', 'p99')),
    step_p50_edgemem_vs_sqlite_full: ratio(p('edgemem', 'step', 'p50'), p('sqlite_full', 'step', 'p50')),
    step_p99_edgemem_vs_sqlite_full: ratio(p('edgemem', 'step', 'p99'), p('sqlite_full', 'step', 'p99')),
    step_p50_edgemem_vs_sqlite: ratio(p('edgemem', 'step', 'p50'), p('sqlite', 'step', 'p50')),
    list_p50_edgemem_memory_vs_sqlite: ratio(p('edgemem_memory', 'list', 'p50'), p('sqlite', 'list', 'p50')),
    list_p50_edgemem_vs_sqlite_full: ratio(p('edgemem', 'list', 'p50'), p('sqlite_full', 'list', 'p50')),
    store_search_p50_memory_vs_edgemem: ratio(p('memory', 'store_search', 'p50'), p('edgemem', 'store_search', 'p50')),
  };
  console.log(JSON.stringify(out));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
