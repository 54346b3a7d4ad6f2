// The `langgraph` suite: edgemem/langgraph beside LangGraph's own persistence on one workload, in one process —
// EdgememSaver over a Node file store against SqliteSaver (@langchain/langgraph-checkpoint-sqlite,
// better-sqlite3, a file) and MemorySaver; EdgememStore against InMemoryStore.
//   step          put + putWrites + getTuple of one superstep of a 20-channel graph (2 channels change a
//                 step, one of them a growing message list), a thread of `--steps` steps
//   list          list() of a thread of 1,000 checkpoints, all of them
//   store_search  search(prefix, { query }) over 10k items, top 10, the same vectors for both (LoCoMo MiniLM,
//                 padded with clustered vectors); edgemem in vector mode, as InMemoryStore ranks
// Prints one JSON document: { edgemem, sqlite, memory } × { step, list, store_search } × { p50, p95, p99 } in ms.
//
//   node bench/node/langgraph.mjs --data DIR [--steps 300] [--lists 20] [--items 10000] [--queries 200] [--storage file|memory] --json

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryStore, MemorySaver, uuid6 } from '@langchain/langgraph-checkpoint';
import { openStore } from 'edgemem';
import { EdgememSaver, EdgememStore } from 'edgemem/langgraph';
import { summarizeMs } from '../lib/stats.mjs';
import { DIMS, flag, generators, loadCorpus } from './corpus.mjs';

const args = process.argv.slice(2);
const data = flag(args, '--data', fileURLToPath(new URL('../../../shared/datasets/locomo', import.meta.url)));
const STEPS = Number(flag(args, '--steps', '300'));
const LISTS = Number(flag(args, '--lists', '20'));
const ITEMS = Number(flag(args, '--items', '10000'));
const QUERIES = Number(flag(args, '--queries', '200'));
const CHANNELS = 20;
// The saver's store: a file (default, as the sqlite saver's) or memory.
const STORAGE = flag(args, '--storage', 'file');
const log = (m) => process.stderr.write(`langgraph: ${m}\n`);

// The sqlite saver is a bench peer (bench/peers/package.json), installed by scripts/bench.
const peers = createRequire(fileURLToPath(new URL('../peers/package.json', import.meta.url)));
const { SqliteSaver } = await import(peers.resolve('@langchain/langgraph-checkpoint-sqlite'));

const dir = mkdtempSync(join(tmpdir(), 'edgemem-bench-langgraph-'));
const g = generators(7);

/** The supersteps of one thread: each checkpoint names all 20 channels; two change per step. */
function* supersteps(threadId, n) {
  const versions = Object.fromEntries(Array.from({ length: CHANNELS }, (_, c) => [`ch${c}`, 1]));
  const values = Object.fromEntries(Array.from({ length: CHANNELS }, (_, c) => [`ch${c}`, { n: c, note: g.sentence(20) }]));
  values.messages = [];
  versions.messages = 1;
  let parent;
  for (let step = 0; step < n; step++) {
    const changed = ['messages', `ch${step % CHANNELS}`];
    values.messages = [...values.messages, { role: step % 2 ? 'ai' : 'human', content: g.sentence(25) }];
    values[changed[1]] = { n: step, note: g.sentence(20) };
    const newVersions = {};
    for (const c of changed) newVersions[c] = versions[c] = versions[c] + 1;
    const checkpoint = { v: 4, id: uuid6(-1), ts: new Date().toISOString(), channel_values: { ...values }, channel_versions: { ...versions }, versions_seen: { model: { messages: versions.messages } } };
    const config = { configurable: { thread_id: threadId, checkpoint_ns: '', ...(parent ? { checkpoint_id: parent } : {}) } };
    yield { config, checkpoint, metadata: { source: 'loop', step, parents: {} }, newVersions, writes: [['messages', values.messages.at(-1)], [changed[1], values[changed[1]]]] };
    parent = checkpoint.id;
  }
}

async function stepBench(saver, threadId, n) {
  const times = [];
  for (const s of supersteps(threadId, n)) {
    const t0 = performance.now();
    const cfg = await saver.put(s.config, s.checkpoint, s.metadata, s.newVersions);
    await saver.putWrites(cfg, s.writes, `task-${s.metadata.step}`);
    await saver.getTuple(cfg);
    times.push(performance.now() - t0);
  }
  return times.slice(Math.min(20, Math.floor(n / 10))); // warm-up
}

async function listBench(saver, threadId, lists) {
  for (const s of supersteps(threadId, 1000)) await saver.put(s.config, s.checkpoint, s.metadata, s.newVersions);
  const times = [];
  for (let i = 0; i < lists + 2; i++) {
    const t0 = performance.now();
    let count = 0;
    for await (const _ of saver.list({ configurable: { thread_id: threadId } })) count++;
    if (count !== 1000) throw new Error(`list gave ${count} checkpoints, not 1000`);
    times.push(performance.now() - t0);
  }
  return times.slice(2);
}

/** Embeddings that look the text up: every store gets the same vectors. */
function lookupEmbeddings(byText) {
  return {
    embedDocuments: async (texts) => texts.map((t) => Array.from(byText.get(t))),
    embedQuery: async (t) => Array.from(byText.get(t)),
  };
}

async function searchBench(store, corpus) {
  const batch = [];
  for (let i = 0; i < ITEMS; i++) {
    batch.push({ namespace: ['memories', `u${i % 10}`], key: `m${i}`, value: { text: corpus.itemTexts[i] } });
    if (batch.length === 500 || i === ITEMS - 1) await store.batch(batch.splice(0));
  }
  const times = [];
  for (let q = 0; q < QUERIES + 10; q++) {
    const query = corpus.queryTexts[q % corpus.queryTexts.length];
    const t0 = performance.now();
    const hits = await store.search(['memories'], { query, limit: 10 });
    times.push(performance.now() - t0);
    if (hits.length !== 10) throw new Error(`search gave ${hits.length} hits`);
  }
  return times.slice(10);
}

const pct = (times) => {
  const s = summarizeMs(times);
  return { p50: s.p50, p95: s.p95, p99: s.p99, n: s.n };
};

try {
  const out = { edgemem: {}, sqlite: {}, memory: {}, params: { steps: STEPS, lists: LISTS, items: ITEMS, queries: QUERIES, channels: CHANNELS } };
  const edgeFile = await openStore(STORAGE === 'memory' ? {} : { storage: { file: join(dir, 'edgemem.db') } });
  const savers = { edgemem: new EdgememSaver(edgeFile), sqlite: SqliteSaver.fromConnString(join(dir, 'sqlite.db')), memory: new MemorySaver() };
  for (const [name, saver] of Object.entries(savers)) {
    log(`${name}: step × ${STEPS}`);
    out[name].step = pct(await stepBench(saver, `steps-${name}`, STEPS));
    log(`${name}: list of 1,000 × ${LISTS}`);
    out[name].list = pct(await listBench(saver, `list-${name}`, LISTS));
  }
  await edgeFile.close();

  log(`store search: ${ITEMS} items, ${QUERIES} queries`);
  const c = loadCorpus(data, ITEMS);
  const corpus = { itemTexts: c.vecs.map((_, i) => `${c.texts[i % c.texts.length]} #${i}`), queryTexts: c.questions.map((q, i) => `${q.question} ?${i}`) };
  const byText = new Map();
  corpus.itemTexts.forEach((t, i) => byText.set(t, c.vecs[i]));
  corpus.queryTexts.forEach((t, i) => byText.set(t, c.questionVecs[i]));
  const index = { dims: DIMS, embeddings: lookupEmbeddings(byText), fields: ['text'] };
  const edgeMem = await openStore({ dims: DIMS });
  out.edgemem.store_search = pct(await searchBench(new EdgememStore(edgeMem, { index, searchMode: 'vector' }), corpus));
  await edgeMem.close();
  out.memory.store_search = pct(await searchBench(new InMemoryStore({ index }), corpus));
  out.sqlite.store_search = null; // no sqlite store in LangGraph.js
  console.log(JSON.stringify(out));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
