#!/usr/bin/env node
// @ts-check
/**
 * The long replica convergence fuzz of the bench suite `robustness` (the short one is in npm test): the bundled Worker
 * under Miniflare, writer processes with file replicas SIGKILLed mid-sync and mid-push `--kills` times or more, a
 * memory replica writing alongside, network cuts everywhere (workers/test-node/robustness/replica-fuzz.mjs); then
 * every replica must equal the agent and no acknowledged write may be lost.
 *
 *   node bench/robustness/replica.mjs [--kills 100] [--seed N] [--json]
 *
 * Progress on stderr; with --json, `{ kills, rounds, acked, lost, diverged, seed, seconds }` on stdout and exit 0
 * (the figures say it); without it, exit 1 when a write was lost or a replica diverged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runReplicaFuzz } from 'edgemem-worker/harness/fuzz';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';

const args = process.argv.slice(2);
const flag = (/** @type {string} */ name, /** @type {string} */ dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? dflt) : dflt;
};
const kills = Number(flag('--kills', '100'));
const seed = Number(flag('--seed', String(Date.now() % 1_000_000)));
const asJson = args.includes('--json');
const ADMIN = 'bench-replica-admin-token';
const WRITERS = 3;

const dir = mkdtempSync(join(tmpdir(), 'edgemem-bench-replica-'));
let failed = false;
try {
  bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
  const server = await startWorker({
    bundle: join(dir, 'bundle'),
    bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' },
  });
  try {
    const totals = {
      kills: 0,
      rounds: 0,
      acked: 0,
      lost: /** @type {string[]} */ ([]),
      diverged: /** @type {string[]} */ ([]),
    };
    const started = Date.now();
    // Runs of 12 rounds (a fresh agent each) until the kills are reached: almost every round's writers are killed.
    for (let run = 0; totals.kills < kills; run++) {
      const r = await runReplicaFuzz({
        url: server.url,
        adminToken: ADMIN,
        dir,
        seed: seed + run,
        writers: WRITERS,
        rounds: 12,
        ops: 150,
        killAfterMs: [20, 800],
        log: (l) => console.error(`[replica] run ${run + 1}: ${l}`),
      });
      totals.kills += r.kills;
      totals.rounds += r.rounds;
      totals.acked += r.acked;
      totals.lost.push(...r.lost);
      totals.diverged.push(...r.diverged);
    }
    const report = {
      kills: totals.kills,
      rounds: totals.rounds,
      acked: totals.acked,
      lost: totals.lost.length,
      diverged: totals.diverged.length,
      problems: [...totals.lost, ...totals.diverged].slice(0, 10),
      seed,
      seconds: (Date.now() - started) / 1000,
    };
    failed = report.lost > 0 || report.diverged > 0;
    if (asJson) console.log(JSON.stringify(report));
    else console.error(JSON.stringify(report, null, 2));
  } finally {
    await server.mf.dispose();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed && !asJson ? 1 : 0);
