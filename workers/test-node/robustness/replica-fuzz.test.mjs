// @ts-check
/**
 * The replica convergence fuzz, short (replica-fuzz.mjs; the bench's robustness suite runs it long): writer
 * processes with file replicas SIGKILLed mid-sync and mid-push, a memory replica writing alongside, network cuts
 * on every side; at the end every replica equals the agent and no acknowledged write is lost.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { testWorker } from '../test-worker.mjs';
import { runReplicaFuzz } from './replica-fuzz.mjs';

const ADMIN = 'replica-fuzz-admin';
const worker = testWorker('edgemem-replica-fuzz', { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' });
const dir = mkdtempSync(join(tmpdir(), 'edgemem-replica-fuzz-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('replicas killed at random converge with the agent, and no acknowledged write is lost', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
  const report = await runReplicaFuzz({
    url: worker().url,
    adminToken: ADMIN,
    dir,
    seed,
    writers: 2,
    rounds: 4,
    ops: 80,
    killAfterMs: [20, 500], // after a writer's first acknowledged write
    log: (l) => console.log(l),
  });
  console.log(`replica fuzz (FUZZ_SEED=${seed}): ${JSON.stringify(report)}`);
  assert.deepEqual(report.lost, [], `FUZZ_SEED=${seed}: acknowledged writes lost`);
  assert.deepEqual(report.diverged, [], `FUZZ_SEED=${seed}: replicas differ from the agent`);
  assert.ok(report.kills >= 1, 'at least one writer was killed mid-run');
  assert.ok(report.acked > 50);
});
