// Bulk loads for the Miniflare benches (paired.mjs, request-path.mjs, do-breakdown.mjs, search-profile.mjs,
// search-gap.mjs): the corpus's memories as edgemem's NDJSON export (streamed into the Worker's `POST /import`), a new
// agent to load them into, the plain DO's import lines (`POST /import`, a few thousand a request), edgemem's Worker
// served with one agent loaded, and what they share: the admin token, the agent, the corpus memory.
//
// A request that keeps workerd busy for seconds (the import, `maintain`, the first call of an agent whose index must
// be rebuilt) goes on a connection of its own (`requestOnce`), never on the keep-alive pool the measured requests
// use: workerd closes a kept-alive connection 5 s after its event loop last waited, so right after a response that
// took longer it closes that connection at once, and a request the client sends next on it is reset (ECONNRESET or
// "other side closed"; undici keeps an idle connection 4 s and cannot know).

import { request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { connect, createAgent, mintToken } from '../../../js/dist/entries/node.js';
import { DIMS } from '../../node/corpus.mjs';
import { workerdPids } from './workerd-cpu.mjs';

/** The Worker's admin token and the agent the benches load. */
export const ADMIN = 'bench-admin-token';
export const AGENT = 'bench-agent';

/**
 * The loaded benches' Worker variables: no heap budget (as the size suite: the default 96 MiB refuses past ~60k
 * 384-d vectors), and a maintenance alarm an hour after a write rather than 5 minutes: the benches run `maintain`
 * themselves once loaded (`importInto`), and the alarm the import armed would otherwise fire in the middle of the
 * measured requests only when a run is slow (past 300 s), stalling them behind its work.
 */
export const edgememBindings = () => ({
  ADMIN_TOKEN: ADMIN,
  EDGEMEM_DIMS: String(DIMS),
  EDGEMEM_MEMORY_BUDGET: '0',
  EDGEMEM_ALARM_MS: String(3600_000),
});

/**
 * Memory `i` of the benches' corpus: a 1 KB value (`value1k`), the i-th LoCoMo text (cycling), the i-th vector, in
 * namespace `nsOf(i)` under key `m{i}` (`generators` and `loadCorpus` in bench/node/corpus.mjs give the parts).
 */
export const corpusMemory =
  ({ texts, vecs, nsOf, value1k }) =>
  (i) => ({ namespace: nsOf(i), key: `m${i}`, value: value1k(i), text: texts[i % texts.length], embedding: vecs[i] });

/** Six decimals: shorter JSON, below f32 precision anyway (bench/miniflare/size.mjs rounds the same way). */
const rounded = (v) => `[${Array.from(v, (x) => Math.round(x * 1e6) / 1e6).join(',')}]`;

/**
 * The n memories `memory(i)` ({ namespace, key, value, text, embedding }) as the lines of an edgemem export
 * (format edgemem-export/2: header, one live version each, the commit log, end), in chunks of ~`chunkLines`.
 */
export function* edgememExport({ n, dims, memory, chunkLines = 500 }) {
  const ts = Date.now() - n; // one commit per memory, 1 ms apart, never in the future
  yield `${JSON.stringify({ kind: 'header', format: 'edgemem-export/2', dims, metric: 'cosine', seq: n })}\n`;
  let out = '';
  for (let i = 0; i < n; i++) {
    const m = memory(i);
    const at = ts + i;
    out +=
      `{"kind":"version","memory":{"namespace":${JSON.stringify(m.namespace)},"key":${JSON.stringify(m.key)},` +
      `"value":${JSON.stringify(m.value)},"text":${JSON.stringify(m.text)},"embedding":${rounded(m.embedding)},` +
      `"metadata":{},"pinned":false,"expires_at":null,"created_at":${at},"updated_at":${at},"version":1,` +
      `"seq":${i + 1},"size":0},"seq_to":null,"ended_at":null,"end_kind":null}\n`;
    if ((i + 1) % chunkLines === 0) {
      yield out;
      out = '';
    }
  }
  if (out) yield out;
  for (let s = 0; s < n; s += 1000) {
    const items = [];
    for (let i = s; i < Math.min(n, s + 1000); i++) items.push([i + 1, ts + i]);
    yield `${JSON.stringify({ kind: 'commits', items })}\n`;
  }
  yield `${JSON.stringify({ kind: 'end', history_floor: 0, versions: n, commits: n, checkpoints: 0, writes: 0 })}\n`;
}

/** The n memories as the plain DO's import requests: NDJSON bodies of `perRequest` lines. */
export function* plainImport({ n, memory, perRequest = 2000 }) {
  for (let s = 0; s < n; s += perRequest) {
    let body = '';
    for (let i = s; i < Math.min(n, s + perRequest); i++) {
      const m = memory(i);
      body +=
        `{"namespace":${JSON.stringify(m.namespace)},"key":${JSON.stringify(m.key)},"value":${JSON.stringify(m.value)},` +
        `"text":${JSON.stringify(m.text)},"embedding":${rounded(m.embedding)}}\n`;
    }
    yield body;
  }
}

/**
 * POSTs the strings of `gen` as one chunked body on a connection of its own (`requestOnce`; workerd also resets a
 * connection after a streamed request body, which would fail the next request sent on it); resolves to
 * { status, text }.
 */
export function postStream(url, headers, gen) {
  return requestOnce(url, { method: 'POST', headers, body: gen });
}

/**
 * One request on a connection of its own, closed after the response (node:http, no keep-alive, so nothing else is
 * ever sent on it); `body`: none, a string, or a generator of strings sent as a chunked body. Resolves to
 * { status, text }.
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string | Generator<string> }} [o]
 * @returns {Promise<{ status: number | undefined, text: string }>}
 */
export function requestOnce(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body === undefined || typeof body === 'string') {
      req.end(body);
      return;
    }
    const pump = () => {
      for (let next = body.next(); !next.done; next = body.next()) {
        if (!req.write(next.value)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

/** Creates `agent` with `dims` on the edgemem Worker at `url`; resolves to a read and write token for it (a day). */
export async function newAgent({ url, adminToken, agent, dims }) {
  await createAgent({ url, adminToken, agent, settings: { dims } });
  const scopes = ['read', 'write'];
  return (await mintToken({ url, adminToken, agent, scopes, ttlSeconds: 86400 })).token;
}

/**
 * Streams the n memories `memory(i)` into `agent` (POST /import of `edgememExport`) with `token`, then runs
 * `maintain()` (`POST /maintain`, on a connection of its own: `requestOnce`); resolves to { store: the agent through
 * `connect()`, open, importMs, maintainMs }. `phase` is told each step's name as it starts (for a failure report).
 */
export async function importInto({ url, agent, token, n, dims, memory, phase = (/** @type {string} */ _) => {} }) {
  const store = await connect({ url, agent, token });
  const auth = { authorization: `Bearer ${token}` };
  phase('edgemem: POST /import');
  const t = performance.now();
  const res = await postStream(
    `${url}/v1/agents/${agent}/import`,
    { ...auth, 'content-type': 'application/x-ndjson' },
    edgememExport({ n, dims, memory }),
  );
  if (res.status !== 200) throw new Error(`import into ${agent}: HTTP ${res.status} ${res.text}`);
  const imported = performance.now();
  phase('edgemem: POST /maintain');
  const m = await requestOnce(`${url}/v1/agents/${agent}/maintain`, { method: 'POST', headers: auth });
  if (m.status !== 200) throw new Error(`maintain ${agent}: HTTP ${m.status} ${m.text}`);
  return { store, importMs: imported - t, maintainMs: performance.now() - imported };
}

/**
 * Opens `agent`'s store in its Durable Object (`GET /stats`, on a connection of its own: `requestOnce`) and
 * resolves to the milliseconds it took. After the object sat idle (workerd evicts it after ~10 s), this is its
 * cold open, paid here rather than by the first measured request: loading the index snapshot, or rebuilding the
 * index from SQLite when there is none (seconds at 100k memories).
 */
export async function openAgent({ url, agent, token }) {
  const t = performance.now();
  const res = await requestOnce(`${url}/v1/agents/${agent}/stats`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`open ${agent}: HTTP ${res.status} ${res.text}`);
  return performance.now() - t;
}

/**
 * edgemem's Worker bundled and served by Miniflare under `dir` (with `edgememBindings`), and agent
 * AGENT loaded with `n` corpus memories (`memory(i)`) through `importInto`: the server (dispose its `mf`), a
 * `connect()` store on the agent and the workerd process's pid. `log` reports progress.
 */
export async function loadedWorker({ dir, n, memory, log }) {
  log('bundling the Worker…');
  bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
  const server = await startWorker({
    bundle: join(dir, 'bundle'),
    bindings: edgememBindings(),
    persist: join(dir, 'state'),
  });
  try {
    const pid = workerdPids()[0];
    if (pid === undefined) throw new Error('no workerd process found');
    const token = await newAgent({ url: server.url, adminToken: ADMIN, agent: AGENT, dims: DIMS });
    log(`loading ${n} memories (POST /import, maintain)…`);
    const { store } = await importInto({ url: server.url, agent: AGENT, token, n, dims: DIMS, memory });
    return { server, store, pid };
  } catch (e) {
    await server.mf.dispose();
    throw e;
  }
}
