#!/usr/bin/env node
// @ts-check
/**
 * Crash durability of the Node file store: a child process (file-writer.mjs) writes through `openStore` with
 * file storage and prints each acknowledgment; this process SIGKILLs it at a random moment, in turn:
 * - `write`: among single puts (and checkpoints), a few ms after a random acknowledgment;
 * - `recovery`: while the child is reopening the store the previous kill left (replaying its redo log), at a random
 *   point within the time an open took before (the `write` kill before it is not followed by a check, so the
 *   child is the first to open what that crash left);
 * - `batch`: mid-batch, a random part of a batch's duration after the previous batch was acknowledged.
 * After each kill the crash image (database + redo log, copied) must pass SQLite's integrity check once the file
 * store has recovered it (replayed the log's committed transactions); then — except right before a `recovery` kill — the store is reopened here and every write
 * acknowledged since the last check must be there with its acknowledged seq, version and content (read AS OF its
 * seq, so overwritten versions are checked too), the store's seq must not have gone back, and the closed file must
 * pass the integrity check (FTS5 included). At the end every acknowledged write is checked once more.
 *
 *   node bench/robustness/crash-file-store.mjs [--kills 150] [--seed N] [--json]
 *
 * Prints progress on stderr and, with --json, `{ kills, acked, lost, ... }` on stdout (exit 0: the figures say it);
 * without --json, exits 1 when a write was lost or a check failed (`runFileCrash` returns the figures to the tests).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { NodeFilePageStore, openStore } from 'edgemem';
import { prng } from './prng.mjs';
import { integrityCheck, requireSqlite3 } from './sqlite-check.mjs';

const WRITER = fileURLToPath(new URL('./file-writer.mjs', import.meta.url));
const MODES = /** @type {const} */ (['write', 'recovery', 'batch']);
/** What the store does first on open: replays the committed transactions of its redo log into the database file. */
const recover = (/** @type {string} */ copy) => new NodeFilePageStore(copy).close();

/**
 * @typedef {{ id: string, op: 'put' | 'batch' | 'checkpoint', ns?: string[], key?: string, value?: unknown, seq: number,
 *   version?: number, threadId?: string, checkpointId?: string, data?: unknown }} Ack
 * @typedef {{ kills: number, acked: number, lost: number, integrity_failures: number, problems: string[],
 *   by_mode: Record<string, number>, recovery_kills_mid_open: number, replayed: number, checks: number, seconds: number, seed: number }} FileCrashReport
 */

/**
 * Runs `kills` crash cycles on a fresh store file.
 * @param {{ kills: number, seed?: number, log?: (m: string) => void }} o
 * @returns {Promise<FileCrashReport>}
 */
export async function runFileCrash(o) {
  requireSqlite3();
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const seed = o.seed ?? Date.now() % 1e9;
  const rand = prng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-crash-file-'));
  const file = join(dir, 'store.db');
  /** @type {Ack[]} */
  const all = [];
  /** @type {Ack[]} */
  let unchecked = [];
  /** @type {Set<string>} */
  const lost = new Set();
  /** @type {string[]} */
  const problems = [];
  /** @type {FileCrashReport} */
  const report = {
    kills: 0,
    acked: 0,
    lost: 0,
    integrity_failures: 0,
    problems,
    by_mode: { write: 0, recovery: 0, batch: 0 },
    recovery_kills_mid_open: 0,
    replayed: 0,
    checks: 0,
    seconds: 0,
    seed,
  };
  let openMs = 30;
  let batchMs = 30;
  let maxSeq = 0;
  try {
    for (let k = 0; k < o.kills; k++) {
      const mode = MODES[k % MODES.length];
      const cycle = await killOnce({ file, mode, id: k, rand, openMs, batchMs });
      report.kills++;
      report.by_mode[mode]++;
      if (cycle.openMs !== undefined) openMs = cycle.openMs;
      if (cycle.batchMs !== undefined) batchMs = cycle.batchMs;
      if (mode === 'recovery' && !cycle.opened) report.recovery_kills_mid_open++;
      if (cycle.openSeq !== undefined && cycle.openSeq < maxSeq)
        problems.push(`kill ${k}: the store reopened at seq ${cycle.openSeq}, below the acknowledged seq ${maxSeq}`);
      if (cycle.error) problems.push(`kill ${k} (${mode}): ${cycle.error}`);
      for (const a of cycle.acks) maxSeq = Math.max(maxSeq, a.seq);
      all.push(...cycle.acks);
      unchecked.push(...cycle.acks);
      const image = integrityCheck(file, { recover });
      if (image.replayed) report.replayed++;
      if (!image.ok) {
        report.integrity_failures++;
        problems.push(
          `kill ${k} (${mode}): the crash image fails SQLite's integrity check: ${image.output.slice(0, 400)}`,
        );
      }
      const nextIsRecovery = MODES[(k + 1) % MODES.length] === 'recovery' && k + 1 < o.kills;
      if (!nextIsRecovery) {
        await verify(file, unchecked, maxSeq, lost, problems, `after kill ${k} (${mode})`);
        report.checks++;
        unchecked = [];
        const closed = integrityCheck(file, { recover });
        if (!closed.ok) {
          report.integrity_failures++;
          problems.push(
            `after kill ${k}: the reopened and closed store fails SQLite's integrity check: ${closed.output.slice(0, 400)}`,
          );
        }
      }
      log(
        `kill ${k + 1}/${o.kills} (${mode}${mode === 'recovery' ? (cycle.opened ? ', landed after the open' : ', mid-open') : ''}): ${cycle.acks.length} acknowledged, ${all.length} in all, ${lost.size} lost`,
      );
    }
    await verify(file, all, maxSeq, lost, problems, 'at the end (every acknowledged write)');
    report.checks++;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report.acked = all.length;
  report.lost = lost.size;
  report.seconds = (Date.now() - t0) / 1000;
  return report;
}

/**
 * One child, killed as `mode` says; its acknowledgments.
 * @param {{ file: string, mode: typeof MODES[number], id: number, rand: () => number, openMs: number, batchMs: number }} o
 * @returns {Promise<{ acks: Ack[], opened: boolean, openSeq?: number, openMs?: number, batchMs?: number, error?: string }>}
 */
function killOnce(o) {
  const childMode = o.mode === 'batch' ? 'batch' : 'write';
  const batch = 20 + Math.floor(o.rand() * 180);
  const child = spawn(
    process.execPath,
    [WRITER, '--file', o.file, '--mode', childMode, '--id', String(o.id), '--batch', String(batch)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  /** @type {Ack[]} */
  const acks = [];
  let opened = false;
  /** @type {number | undefined} */
  let openSeq;
  /** @type {number | undefined} */
  let openMs;
  /** @type {number | undefined} */
  let batchMs;
  let openingAt = 0;
  let lastAckAt = 0;
  let killed = false;
  let stderr = '';
  const kill = () => {
    if (!killed) {
      killed = true;
      child.kill('SIGKILL');
    }
  };
  // Kill points: after `afterAcks` acknowledgments, `delayMs` later (write, batch); `delayMs` after `opening` (recovery).
  const afterAcks =
    o.mode === 'write' ? 1 + Math.floor(o.rand() * 150) : o.mode === 'batch' ? Math.floor(o.rand() * 3) : Infinity;
  const delayMs =
    o.mode === 'write' ? Math.floor(o.rand() * 3) : o.mode === 'batch' ? o.rand() * o.batchMs : o.rand() * o.openMs;
  let count = 0;
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    /** @type {any} */
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return; // a line cut by the kill: not an acknowledgment
    }
    const now = performance.now();
    if (m.t === 'opening') {
      openingAt = now;
      if (o.mode === 'recovery') setTimeout(kill, delayMs);
    } else if (m.t === 'open') {
      opened = true;
      openSeq = m.seq;
      openMs = now - openingAt;
      lastAckAt = now;
      if (o.mode === 'batch' && afterAcks === 0) setTimeout(kill, delayMs);
    } else if (m.t === 'ack') {
      if (m.op === 'batch') {
        batchMs = now - lastAckAt;
        acks.push(
          ...m.items.map((/** @type {any} */ it, /** @type {number} */ j) => ({
            id: `${o.id}:${count}:${j}`,
            op: 'put',
            ns: it.ns,
            key: it.key,
            value: it.value,
            seq: it.seq,
            version: it.version,
          })),
        );
      } else if (m.op === 'put')
        acks.push({
          id: `${o.id}:${count}`,
          op: 'put',
          ns: m.ns,
          key: m.key,
          value: m.value,
          seq: m.seq,
          version: m.version,
        });
      else
        acks.push({
          id: `${o.id}:${count}`,
          op: 'checkpoint',
          threadId: m.threadId,
          checkpointId: m.checkpointId,
          data: m.data,
          seq: m.seq,
        });
      lastAckAt = now;
      if (m.op !== 'checkpoint' && ++count === afterAcks) setTimeout(kill, delayMs);
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const error =
        signal === 'SIGKILL' && killed
          ? undefined
          : `the writer exited by itself (code ${code}, signal ${signal}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
      resolve({ acks, opened, openSeq, openMs, batchMs, error });
    });
  });
}

/**
 * Reopens the store and checks `acks`; adds the ids of missing or altered writes to `lost`.
 * @param {string} file @param {Ack[]} acks @param {number} maxSeq @param {Set<string>} lost @param {string[]} problems @param {string} when
 */
async function verify(file, acks, maxSeq, lost, problems, when) {
  const s = await openStore({ dims: 2, storage: { file } });
  try {
    const seq = (await s.stats()).seq;
    if (seq < maxSeq) problems.push(`${when}: the store's seq is ${seq}, below the acknowledged ${maxSeq}`);
    for (const a of acks) {
      /** @type {string | undefined} */
      let wrong;
      if (a.op === 'checkpoint') {
        const cp = await s.getCheckpoint(/** @type {string} */ (a.threadId), { checkpointId: a.checkpointId });
        if (!cp) wrong = 'missing';
        else if (cp.seq !== a.seq || !isDeepStrictEqual(cp.data, a.data))
          wrong = `seq ${cp.seq}, data ${JSON.stringify(cp.data).slice(0, 80)}`;
      } else {
        const m = await s.get(/** @type {string[]} */ (a.ns), /** @type {string} */ (a.key), { asOf: { seq: a.seq } });
        if (!m) wrong = 'missing';
        else if (m.seq !== a.seq || m.version !== a.version || !isDeepStrictEqual(m.value, a.value))
          wrong = `seq ${m.seq}, version ${m.version}, value ${JSON.stringify(m.value).slice(0, 80)}`;
      }
      if (wrong && !lost.has(a.id)) {
        lost.add(a.id);
        if (lost.size <= 20)
          problems.push(`${when}: acknowledged ${a.op} ${JSON.stringify(a).slice(0, 160)} → ${wrong}`);
      }
    }
  } finally {
    await s.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (/** @type {string} */ name, /** @type {string | undefined} */ dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const r = await runFileCrash({
    kills: Number(flag('--kills', '150')),
    seed: flag('--seed', undefined) === undefined ? undefined : Number(flag('--seed', '0')),
    log: (m) => console.error(`[crash-file] ${m}`),
  });
  for (const p of r.problems) console.error(`[crash-file] PROBLEM ${p}`);
  console.error(
    `[crash-file] ${r.kills} kills (${JSON.stringify(r.by_mode)}, ${r.recovery_kills_mid_open} mid-open, ${r.replayed} where the redo log's replay changed the database), ${r.acked} acknowledged writes, ${r.lost} lost, ${r.integrity_failures} integrity failures, ${r.seconds.toFixed(1)} s, seed ${r.seed}`,
  );
  // With --json (the bench harness) the figures carry the verdict and the exit is 0; without, a problem exits 1.
  if (args.includes('--json')) console.log(JSON.stringify(r));
  process.exit(args.includes('--json') || (r.lost === 0 && r.problems.length === 0) ? 0 : 1);
}
