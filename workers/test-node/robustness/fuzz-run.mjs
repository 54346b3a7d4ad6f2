// @ts-check
/**
 * One fuzz run of the HTTP API against a Worker already serving on `url`: sets up the fuzz agents (settings of
 * several kinds, some memories — extreme vectors too, when the API takes them —, a checkpoint thread, feed
 * events), mints their tokens, fetches `/v1/openapi.json` and derives the request arbitrary from it
 * (fuzz-requests.mjs), then lets fast-check send `runs` requests one after another, judging each answer
 * (fuzz-client.mjs); a success of the operation the request was made for must also match its documented response
 * schema (response-schema.mjs), and a memory PUT must read back as written. Every `livenessEvery` requests, and
 * after any failure, each agent must still answer correctly: its settings can be put back, a PUT then GET
 * round-trips, stats answers.
 *
 * By default every failure is collected (the run goes on, so one run shows every class of bug) with the seed and
 * path that replay it; `replay: { seed, path }` re-runs one request as a failing fast-check property, so fast-check
 * prints the counterexample (and shrinks it). Used by fuzz-http.test.mjs (short) and bench/robustness/fuzz.mjs.
 */

import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { authResolver, mintTokens } from './fuzz-auth.mjs';
import { closeClient, judge, send } from './fuzz-client.mjs';
import { requestArb } from './fuzz-requests.mjs';
import { describe } from './json-text.mjs';
import { operations } from './openapi-ops.mjs';
import { violation } from './response-schema.mjs';

/**
 * The fuzz agents and the settings each goes back to (dims 4 is the Worker's EDGEMEM_DIMS in the runs): defaults,
 * a cap, no vectors, and the f32 indexes of the other two metrics (where huge components overflow scores).
 */
export const AGENT_SETTINGS = {
  'fz-a': {},
  'fz-b': { maxMemories: 200 },
  'fz-c': { dims: 0 },
  'fz-d': { metric: 'l2', scalar: 'f32' },
  'fz-e': { metric: 'ip', scalar: 'f32' },
};
const AGENTS = Object.keys(AGENT_SETTINGS);
const FRESH = ['fz-new-0', 'fz-new-1'];
/** Import targets: an import needs an empty agent, so there are several (each a Durable Object of its own). */
const IMPORT = Array.from({ length: 24 }, (_, i) => `fz-imp-${i}`);
const TIMEOUT_MS = 20_000;

/**
 * @typedef {{ index: number, op: string, why: string, request: string, answer: string, replay: string }} Failure
 * @typedef {{ requests: number, unsent: number, fivexx: number, statuses: Record<string, number>,
 *   byOp: Record<string, Record<string, number>>, failures: Failure[],
 *   classes: { key: string, count: number, first: Failure }[], seed: number, runs: number, ms: number }} FuzzReport
 */

/**
 * A JSON call with the admin token.
 * @param {string} url @param {string} admin
 */
export function adminCall(url, admin) {
  return async (/** @type {string} */ method, /** @type {string} */ path, /** @type {unknown} */ body = undefined) => {
    const res = await fetch(new URL(path, url), {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: /** @type {any} */ (json), text };
  };
}

/**
 * Creates the fuzz agents and gives them something to read, update, search and import.
 * @param {ReturnType<typeof adminCall>} call
 */
async function setUp(call) {
  const must = async (/** @type {string} */ m, /** @type {string} */ p, /** @type {unknown} */ b) => {
    const r = await call(m, p, b);
    if (r.status !== 200) throw new Error(`fuzz set-up: ${m} ${p} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  for (const [a, settings] of Object.entries(AGENT_SETTINGS)) {
    await must('PUT', `/v1/agents/${a}`, settings);
    const vec = (/** @type {number} */ i) => (a === 'fz-c' ? undefined : [i, 1, 0.5, -1]);
    for (let i = 0; i < 4; i++) {
      await must('PUT', `/v1/agents/${a}/memories/k${i}?ns=n`, {
        value: { i },
        text: `coffee note ${i} with oat milk`,
        embedding: vec(i),
        metadata: { topic: i % 2 ? 'a' : 'b', n: i },
      });
    }
    await must('POST', `/v1/agents/${a}/memories/batch`, {
      memories: [0, 1, 2].map((i) => ({
        namespace: ['user', '42'],
        key: `b${i}`,
        value: i,
        text: `batch ${i}`,
        embedding: vec(i),
      })),
    });
    await must('POST', `/v1/agents/${a}/checkpoints`, {
      threadId: 't0',
      checkpointId: 'c0',
      data: { step: 0 },
      metadata: { topic: 'a' },
    });
    await must('POST', `/v1/agents/${a}/checkpoints/t0/writes`, {
      checkpointId: 'c0',
      taskId: 'task0',
      writes: [{ channel: 'ch0', data: 1 }],
    });
    await must('POST', `/v1/agents/${a}/notify`, { channel: 'ch0', payload: { hello: 1 } });
    if (a !== 'fz-c') {
      // Extreme vectors, if the API takes them (it may refuse them: then nothing is stored), so that searches of
      // every later request meet them: huge components overflow l2 and ip scores, a tiny one has no direction.
      for (const [k, embedding] of [
        ['huge', [3e38, 3e38, 3e38, 3e38]],
        ['huge-neg', [-3e38, 3e38, -3e38, 3e38]],
        ['tiny', [1e-30, 0, 0, 0]],
      ]) {
        await call('PUT', `/v1/agents/${a}/memories/${k}?ns=n`, { value: k, text: `extreme ${k} milk`, embedding });
      }
    }
  }
  // An export to mutate into import bodies (an empty one if the export route fails: the fuzz reports that).
  const exp = await call('GET', `/v1/agents/${AGENTS[0]}/export`);
  return exp.status === 200 ? exp.text : '{}\n';
}

/**
 * Whether agent `a` still answers correctly; a message saying what broke, or undefined.
 * @param {ReturnType<typeof adminCall>} call @param {string} a @param {number} n
 */
export async function liveness(call, a, n) {
  try {
    const s = await call(
      'PUT',
      `/v1/agents/${a}`,
      AGENT_SETTINGS[/** @type {keyof typeof AGENT_SETTINGS} */ (a)] ?? {},
    );
    if (s.status !== 200 && s.status !== 409)
      return `PUT /v1/agents/${a} (settings back) → ${s.status} ${describe(JSON.stringify(s.body))}`;
    const value = { live: n, s: 'é😀' };
    const put = await call('PUT', `/v1/agents/${a}/memories/live-check?ns=live`, { value, text: 'liveness check' });
    if (put.status !== 200) return `PUT live-check → ${put.status} ${describe(JSON.stringify(put.body))}`;
    const get = await call('GET', `/v1/agents/${a}/memories/live-check?ns=live`);
    if (
      get.status !== 200 ||
      JSON.stringify(get.body.value) !== JSON.stringify(value) ||
      get.body.seq !== put.body.seq
    ) {
      return `GET live-check after PUT (seq ${put.body.seq}) → ${get.status} ${describe(JSON.stringify(get.body))}`;
    }
    const stats = await call('GET', `/v1/agents/${a}/stats`);
    if (stats.status !== 200 || typeof stats.body.seq !== 'number' || stats.body.seq < put.body.seq)
      return `GET stats → ${stats.status} ${describe(JSON.stringify(stats.body))}`;
    return undefined;
  } catch (e) {
    return `liveness calls failed: ${/** @type {Error} */ (e).message}`;
  }
}

/**
 * @param {{ url: string, admin: string, runs: number, seed?: number, livenessEvery?: number,
 *   replay?: { seed: number, path: string }, log?: (m: string) => void, replayCommand?: string, trace?: boolean }} o
 * @returns {Promise<FuzzReport>}
 */
export async function runFuzz(o) {
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const call = adminCall(o.url, o.admin);
  const exportText = await setUp(call);
  const tokens = await mintTokens(call, AGENTS);
  const auth = authResolver(o.admin, tokens, AGENTS);
  const docRes = await call('GET', '/v1/openapi.json');
  if (docRes.status !== 200) throw new Error(`GET /v1/openapi.json → ${docRes.status}`);
  const ops = operations(docRes.body);
  const opsById = new Map(ops.map((op) => [op.id, op]));
  const arb = requestArb(ops, docRes.body, { agents: AGENTS, freshAgents: FRESH, importAgents: IMPORT, exportText });
  const seed = o.replay?.seed ?? o.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const every = o.livenessEvery ?? 250;
  const replayCmd = o.replayCommand ?? 'FUZZ_SEED=%s FUZZ_PATH=%p';

  /** @type {FuzzReport} */
  const report = {
    requests: 0,
    unsent: 0,
    fivexx: 0,
    statuses: {},
    byOp: {},
    failures: [],
    classes: [],
    seed,
    runs: o.runs,
    ms: 0,
  };
  /** @type {Map<string, { key: string, count: number, first: Failure }>} */
  const classes = new Map();
  let index = o.replay ? Number(o.replay.path.split(':')[0]) : 0;
  let checks = 0;

  const record = (/** @type {Omit<Failure, 'replay'>} */ f) => {
    const failure = { ...f, replay: replayCmd.replace('%s', String(seed)).replace('%p', String(f.index)) };
    report.failures.push(failure);
    // One class per route and kind of failure: array indexes and long numbers (seqs, sizes) do not split classes.
    const key = `${f.op} → ${f.why
      .replace(/\[\d+\]/g, '[i]')
      .replace(/\d{4,}/g, 'N')
      .slice(0, 200)}`;
    const c = classes.get(key);
    if (c) c.count++;
    else classes.set(key, { key, count: 1, first: failure });
    return failure;
  };

  const property = fc.asyncProperty(arb, async (req) => {
    const i = index++;
    const a = await send(o.url, req, auth, TIMEOUT_MS);
    if ('unsent' in a) {
      report.unsent++;
      return true;
    }
    report.requests++;
    const status = 'status' in a ? String(a.status) : 'earlyClose' in a ? 'early-close' : 'none';
    report.statuses[status] = (report.statuses[status] ?? 0) + 1;
    report.byOp[req.op] ??= {};
    const per = report.byOp[req.op];
    per[status] = (per[status] ?? 0) + 1;
    if ('status' in a && a.status >= 500 && a.status !== 507) report.fivexx++;
    const why = judge(req.method, a) ?? (await conforms(req, a, opsById.get(req.op), docRes.body, call));
    if (o.trace)
      log(
        `#${i} ${summarize(req).slice(0, 300)} → ${'status' in a ? `${a.status} ${describe(a.body, 120)}` : 'error' in a ? a.error : 'closed early'}`,
      );
    /** @type {string | undefined} */
    let broken;
    if (why || i % every === every - 1) {
      const agents = why && req.agent && AGENTS.includes(req.agent) ? [req.agent] : AGENTS;
      for (const ag of agents) {
        const dead = await liveness(call, ag, checks++);
        if (dead) broken = `${ag}: ${dead}`;
      }
    }
    if (why || broken) {
      const f = record({
        index: i,
        op: req.op,
        why: why ? (broken ? `${why}; then agent ${broken}` : why) : `agent ${broken}`,
        request: summarize(req),
        answer: 'status' in a ? `${a.status} ${describe(a.body, 400)}` : 'error' in a ? a.error : 'closed early',
      });
      if (o.replay) throw new Error(`${f.why}\n  request: ${f.request}\n  answer: ${f.answer}`);
    }
    if (report.requests % 500 === 0)
      log(
        `${report.requests} requests, ${report.fivexx} 5xx, ${report.failures.length} failures (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
      );
    return true;
  });

  try {
    if (o.replay) {
      await fc.assert(property, { seed, path: o.replay.path, numRuns: 1, endOnFailure: false });
    } else {
      const details = await fc.check(property, { seed, numRuns: o.runs });
      if (details.failed)
        throw new Error(
          `the fuzz property itself threw: ${/** @type {any} */ (details.errorInstance)?.stack ?? String(details.errorInstance)}`,
        );
      for (const ag of AGENTS) {
        const dead = await liveness(call, ag, checks++);
        if (dead)
          record({ index: index - 1, op: '(after the run)', why: `agent ${ag}: ${dead}`, request: '-', answer: '-' });
      }
    }
  } finally {
    closeClient();
  }
  report.classes = [...classes.values()];
  report.ms = Date.now() - t0;
  return report;
}

/**
 * For a success of the operation the request was made for: why its body breaks the documented response schema,
 * or — for a PUT of a memory — why reading it back does not give what was written (value and text, as JSON can
 * carry them); undefined when neither.
 * @param {import('./fuzz-requests.mjs').FuzzRequest} req
 * @param {import('./fuzz-client.mjs').Answer} a
 * @param {import('./openapi-ops.mjs').Operation | undefined} op
 * @param {Record<string, any>} doc
 * @param {ReturnType<typeof adminCall>} call
 */
async function conforms(req, a, op, doc, call) {
  if (
    !op ||
    !req.routed ||
    !('status' in a) ||
    a.upgraded ||
    a.status < 200 ||
    a.status > 299 ||
    !(a.contentType ?? '').includes('application/json')
  )
    return undefined;
  const schema = op.responses[String(a.status)];
  /** @type {any} */
  const json = JSON.parse(a.body);
  const bad = schema ? violation(json, schema, doc) : undefined;
  if (bad) return `${a.status} whose body breaks the documented schema: ${bad}`;
  if (op.method !== 'PUT' || !op.path.endsWith('/memories/{key}') || req.body.kind !== 'text') return undefined;
  /** @type {any} */
  let sent;
  try {
    sent = JSON.parse(req.body.text);
  } catch {
    return undefined;
  }
  // Skipped when the memory may be gone by the time it is read: a TTL, or evicted by the agent's caps.
  if (!sent || typeof sent !== 'object' || 'ttlMs' in sent || json.evicted?.length) return undefined;
  const ns = req.query.split('&').find((kv) => kv.startsWith('ns='));
  if (ns === undefined) return undefined;
  // Whatever its valid time (a PUT may give a validTo already past): the memory written, not the one valid now.
  const back = await call('GET', `${req.path}?${ns}&validAt=any`);
  if (back.status !== 200)
    return `read back after the PUT (seq ${json.seq}) → ${back.status} ${describe(back.text, 200)}`;
  const norm = (/** @type {unknown} */ v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  if (!isDeepStrictEqual(norm(back.body.value), norm(sent.value)))
    return `read back after the PUT: value ${describe(JSON.stringify(back.body.value), 120)} ≠ written ${describe(JSON.stringify(sent.value), 120)}`;
  if (typeof sent.text === 'string' && back.body.text !== sent.text)
    return `read back after the PUT: text ${describe(JSON.stringify(back.body.text), 120)} ≠ written ${describe(JSON.stringify(sent.text), 120)}`;
  return undefined;
}

/**
 * A request in one line for reports.
 * @param {import('./fuzz-requests.mjs').FuzzRequest} r
 */
export function summarize(r) {
  const body =
    r.body.kind === 'text'
      ? describe(r.body.text, 300)
      : r.body.kind === 'bytes'
        ? `<${r.body.bytes.length} bytes>`
        : r.body.kind === 'huge'
          ? `<${r.body.bytes} bytes>`
          : '<none>';
  const hdrs = r.headers.length ? ` headers ${JSON.stringify(r.headers)}` : '';
  return `${r.method} ${describe(r.path, 200)}${r.query ? `?${describe(r.query, 200)}` : ''} auth=${r.auth}/${r.authVariant} content-type=${JSON.stringify(r.contentType)}${hdrs} body=${body}`;
}

/**
 * The report as text: totals, then each failure class with its count, first example and replay command.
 * @param {FuzzReport} r
 * @param {boolean} [verbose] also the statuses per operation
 */
export function formatReport(r, verbose = false) {
  const lines = verbose ? Object.entries(r.byOp).map(([op, st]) => `  ${op}: ${JSON.stringify(st)}`) : [];
  lines.push(
    `fuzz: ${r.requests} requests (${r.unsent} not sendable by the client) in ${(r.ms / 1000).toFixed(1)} s, seed ${r.seed}; statuses ${JSON.stringify(r.statuses)}; ${r.fivexx} 5xx; ${r.failures.length} failures in ${r.classes.length} classes`,
  );
  for (const c of r.classes) {
    lines.push(
      `- ${c.key} (×${c.count})`,
      `    request: ${c.first.request}`,
      `    answer: ${c.first.answer}`,
      `    replay: ${c.first.replay}`,
    );
  }
  return lines.join('\n');
}
