#!/usr/bin/env node
// @ts-check
/**
 * Crash durability of the local Worker: `wrangler dev` (wrangler-dev.mjs, state under --persist-to) takes HTTP
 * writes for one agent and is SIGKILLed — its whole process group, workerd included — at a random moment, in turn:
 * - `batch`: mid-batch (POST /memories/batch of 20-100 memories), a random part of a batch's duration after the
 *   previous batch was acknowledged;
 * - `recovery`: right after a restart over the state the previous kill left, while the first request (the Durable
 *   Object opening the store: pages, vector index replay) is in flight, at a random point within the time such a
 *   first request took before;
 * - `write`: among single PUTs (and checkpoints), a few ms after a random acknowledgment (a 200 answer).
 * After each kill, with workerd down: every Durable Object's SQLite file must pass SQLite's integrity check (in a
 * copy, its WAL recovered), and so must the engine database rebuilt from the object's KV pages (do-pages.mjs).
 * Each restart that is not a `recovery` kill first checks every write acknowledged since the last check — read
 * AS OF its seq, so it must have its acknowledged seq, version and content — and that the agent's seq did not go
 * back; at the end a last restart checks every acknowledged write.
 *
 *   node bench/robustness/crash-wrangler.mjs [--kills 50] [--seed N] [--json]
 *
 * Progress on stderr; with --json, `{ kills, acked, lost, ... }` on stdout (exit 0: the figures say it); without
 * --json, exits 1 when a write was lost or a check failed (`runWranglerCrash` returns the figures to the tests).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { doSqliteFiles, engineDbFromDo } from './do-pages.mjs';
import { prng } from './prng.mjs';
import { integrityCheck, requireSqlite3 } from './sqlite-check.mjs';
import { startWrangler } from './wrangler-dev.mjs';

const MODES = /** @type {const} */ (['batch', 'recovery', 'write']);
const ADMIN = 'crash-test-admin-token';
const AGENT = 'crash-agent';
const KEYS = 40;

/**
 * @typedef {import('./crash-file-store.mjs').Ack} Ack
 * @typedef {{ kills: number, acked: number, lost: number, integrity_failures: number, problems: string[], by_mode: Record<string, number>,
 *   recovery_kills_mid_open: number, checks: number, restarts: number, seconds: number, seed: number }} WranglerCrashReport
 */

/**
 * @param {{ kills: number, seed?: number, log?: (m: string) => void }} o
 * @returns {Promise<WranglerCrashReport>}
 */
export async function runWranglerCrash(o) {
  requireSqlite3();
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const seed = o.seed ?? Date.now() % 1e9;
  const rand = prng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-crash-wrangler-'));
  const persist = join(dir, 'state');
  const configDir = join(dir, 'config');
  /** @type {Ack[]} */
  const all = [];
  /** @type {Ack[]} */
  let unchecked = [];
  /** @type {Set<string>} */
  const lost = new Set();
  /** @type {string[]} */
  const problems = [];
  /** @type {WranglerCrashReport} */
  const report = {
    kills: 0,
    acked: 0,
    lost: 0,
    integrity_failures: 0,
    problems,
    by_mode: { write: 0, recovery: 0, batch: 0 },
    recovery_kills_mid_open: 0,
    checks: 0,
    restarts: 0,
    seconds: 0,
    seed,
  };
  const state = { n: 0, maxSeq: 0, firstMs: 50, batchMs: 50 };
  const start = async () => {
    report.restarts++;
    return startWrangler({ persist, configDir, admin: ADMIN, dims: 2 });
  };
  try {
    for (let k = 0; k < o.kills; k++) {
      const mode = MODES[k % MODES.length];
      const w = await start();
      try {
        if (mode !== 'recovery') {
          state.firstMs = await verify(w.url, unchecked, state.maxSeq, lost, problems, `restart before kill ${k}`);
          report.checks++;
          unchecked = [];
        }
        const cycle = await writeUntilKilled(w, mode, k, rand, state);
        if (mode === 'recovery' && !cycle.answeredFirst) report.recovery_kills_mid_open++;
        for (const a of cycle.acks) state.maxSeq = Math.max(state.maxSeq, a.seq);
        all.push(...cycle.acks);
        unchecked.push(...cycle.acks);
        log(
          `kill ${k + 1}/${o.kills} (${mode}${mode === 'recovery' ? (cycle.answeredFirst ? ', landed after the first answer' : ', mid-open') : ''}): ${cycle.acks.length} acknowledged, ${all.length} in all, ${lost.size} lost`,
        );
      } finally {
        await w.kill();
      }
      report.kills++;
      report.by_mode[mode]++;
      report.integrity_failures += checkImages(persist, problems, `after kill ${k} (${mode})`);
    }
    const w = await start();
    try {
      await verify(w.url, all, state.maxSeq, lost, problems, 'at the end (every acknowledged write)');
      report.checks++;
    } finally {
      await w.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report.acked = all.length;
  report.lost = lost.size;
  report.seconds = (Date.now() - t0) / 1000;
  return report;
}

/**
 * SQLite's integrity check on every object file and on the engine database in its pages; the failures counted.
 * @param {string} persist @param {string[]} problems @param {string} when
 */
function checkImages(persist, problems, when) {
  let failures = 0;
  const files = doSqliteFiles(persist);
  if (files.length === 0) problems.push(`${when}: no Durable Object SQLite file under the persist folder`);
  for (const f of files) {
    const object = integrityCheck(f);
    if (!object.ok) {
      failures++;
      problems.push(`${when}: the Durable Object file fails SQLite's integrity check: ${object.output.slice(0, 400)}`);
    }
    const engine = `${f}.engine.db`;
    try {
      if (engineDbFromDo(f, engine)) {
        const db = integrityCheck(engine);
        if (!db.ok) {
          failures++;
          problems.push(
            `${when}: the engine database in the object's pages fails SQLite's integrity check: ${db.output.slice(0, 400)}`,
          );
        }
      }
    } finally {
      rmSync(engine, { force: true });
    }
  }
  return failures;
}

/**
 * Writes until the kill this cycle's mode schedules (the kill itself is in the caller's finally).
 * @param {Awaited<ReturnType<typeof startWrangler>>} w
 * @param {typeof MODES[number]} mode @param {number} k @param {() => number} rand
 * @param {{ n: number, firstMs: number, batchMs: number }} state
 */
async function writeUntilKilled(w, mode, k, rand, state) {
  /** @type {Ack[]} */
  const acks = [];
  let stop = false;
  let answeredFirst = false;
  const afterAcks = mode === 'write' ? 1 + Math.floor(rand() * 60) : mode === 'batch' ? Math.floor(rand() * 3) : 0;
  const delayMs =
    mode === 'write' ? Math.floor(rand() * 3) : mode === 'batch' ? rand() * state.batchMs : rand() * state.firstMs;
  const batch = 20 + Math.floor(rand() * 81);
  /** @type {Promise<void> | undefined} */
  let killing;
  const killSoon = () => {
    killing ??= new Promise((r) => setTimeout(r, delayMs)).then(async () => {
      stop = true;
      await w.kill();
    });
  };
  const json = async (/** @type {string} */ method, /** @type {string} */ path, /** @type {unknown} */ body) => {
    const r = await fetch(`${w.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const memory = () => {
    const i = state.n++;
    return {
      namespace: ['crash', String(i % 3)],
      key: `k${i % KEYS}`,
      value: { k, i, pad: 'z'.repeat((i * 37) % 500) },
      text: `crash write ${k} ${i}`,
      embedding: [Math.sin(i), Math.cos(i)],
    };
  };
  if (mode === 'recovery') killSoon(); // from the first request on, which opens the object and its store
  let count = 0;
  let last = performance.now();
  try {
    for (let round = 0; !stop; round++) {
      if (mode === 'batch') {
        const items = Array.from({ length: batch }, memory);
        const r = await json('POST', `/v1/agents/${AGENT}/memories/batch`, { memories: items });
        acks.push(
          ...items.map((m, j) => ({
            id: `${k}:${round}:${j}`,
            op: 'put',
            ns: m.namespace,
            key: m.key,
            value: m.value,
            seq: r.acks[j].seq,
            version: r.acks[j].version,
          })),
        );
        const now = performance.now();
        state.batchMs = now - last;
        last = now;
      } else {
        const m = memory();
        const ns = m.namespace.join('/');
        const r = await json('PUT', `/v1/agents/${AGENT}/memories/${m.key}?ns=${encodeURIComponent(ns)}`, {
          value: m.value,
          text: m.text,
          embedding: m.embedding,
        });
        acks.push({
          id: `${k}:${round}`,
          op: 'put',
          ns: m.namespace,
          key: m.key,
          value: m.value,
          seq: r.seq,
          version: r.version,
        });
        answeredFirst = true;
      }
      if (round % 10 === 9) {
        const data = { k, round, s: 'c'.repeat(round % 200) };
        const cp = { threadId: `t${k % 4}`, checkpointId: `c-${k}-${round}`, data };
        const r = await json('POST', `/v1/agents/${AGENT}/checkpoints`, cp);
        acks.push({
          id: `${k}:${round}:cp`,
          op: 'checkpoint',
          threadId: cp.threadId,
          checkpointId: cp.checkpointId,
          data,
          seq: r.seq,
        });
      }
      if (++count >= afterAcks && mode !== 'recovery') killSoon();
    }
  } catch (e) {
    if (!stop && !killing) throw e; // a failure before any kill was scheduled is a real error
  }
  await killing;
  return { acks, answeredFirst };
}

/**
 * Checks `acks` over HTTP; adds the ids of missing or altered writes to `lost`. Resolves how long its first
 * request took (after a restart: the object opening its store — what a `recovery` kill aims inside).
 * @param {string} url @param {Ack[]} acks @param {number} maxSeq @param {Set<string>} lost @param {string[]} problems @param {string} when
 */
async function verify(url, acks, maxSeq, lost, problems, when) {
  const get = async (/** @type {string} */ path) => {
    const r = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    return { status: r.status, body: /** @type {any} */ (await r.json()) };
  };
  const t0 = performance.now();
  const stats = await get(`/v1/agents/${AGENT}/stats`);
  const firstMs = performance.now() - t0;
  if (stats.status !== 200) problems.push(`${when}: stats → ${stats.status} ${JSON.stringify(stats.body)}`);
  else if (stats.body.seq < maxSeq)
    problems.push(`${when}: the agent's seq is ${stats.body.seq}, below the acknowledged ${maxSeq}`);
  for (const a of acks) {
    /** @type {string | undefined} */
    let wrong;
    if (a.op === 'checkpoint') {
      const r = await get(
        `/v1/agents/${AGENT}/checkpoints/${a.threadId}?checkpointId=${encodeURIComponent(/** @type {string} */ (a.checkpointId))}`,
      );
      if (r.status !== 200) wrong = `${r.status} ${JSON.stringify(r.body).slice(0, 120)}`;
      else if (r.body.seq !== a.seq || !isDeepStrictEqual(r.body.data, a.data))
        wrong = `seq ${r.body.seq}, data ${JSON.stringify(r.body.data).slice(0, 80)}`;
    } else {
      const r = await get(
        `/v1/agents/${AGENT}/memories/${a.key}?ns=${encodeURIComponent(/** @type {string[]} */ (a.ns).join('/'))}&asOfSeq=${a.seq}`,
      );
      if (r.status !== 200) wrong = `${r.status} ${JSON.stringify(r.body).slice(0, 120)}`;
      else if (r.body.seq !== a.seq || r.body.version !== a.version || !isDeepStrictEqual(r.body.value, a.value))
        wrong = `seq ${r.body.seq}, version ${r.body.version}, value ${JSON.stringify(r.body.value).slice(0, 80)}`;
    }
    if (wrong && !lost.has(a.id)) {
      lost.add(a.id);
      if (lost.size <= 20) problems.push(`${when}: acknowledged ${a.op} ${JSON.stringify(a).slice(0, 160)} → ${wrong}`);
    }
  }
  return firstMs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (/** @type {string} */ name, /** @type {string | undefined} */ dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const r = await runWranglerCrash({
    kills: Number(flag('--kills', '50')),
    seed: flag('--seed', undefined) === undefined ? undefined : Number(flag('--seed', '0')),
    log: (m) => console.error(`[crash-wrangler] ${m}`),
  });
  for (const p of r.problems) console.error(`[crash-wrangler] PROBLEM ${p}`);
  console.error(
    `[crash-wrangler] ${r.kills} kills (${JSON.stringify(r.by_mode)}, ${r.recovery_kills_mid_open} mid-open), ${r.restarts} restarts, ${r.acked} acknowledged writes, ${r.lost} lost, ${r.integrity_failures} integrity failures, ${r.seconds.toFixed(1)} s, seed ${r.seed}`,
  );
  // With --json (the bench harness) the figures carry the verdict and the exit is 0; without, a problem exits 1.
  if (args.includes('--json')) console.log(JSON.stringify(r));
  process.exit(args.includes('--json') || (r.lost === 0 && r.problems.length === 0) ? 0 : 1);
}
