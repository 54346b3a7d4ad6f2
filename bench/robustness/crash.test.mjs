// @ts-check
// Crash durability, the short run of `npm test` (scripts/test-robustness): 3 SIGKILLs of a Node process writing
// through the file store (mid-write, mid-recovery, mid-batch: crash-file-store.mjs) and 2 of the local Worker
// under `wrangler dev` (mid-batch, mid-recovery: crash-wrangler.mjs). Every acknowledged write must be there after
// the restart, with its seq, version and content, and every crash image must pass SQLite's integrity check. The
// bench suite `robustness` runs the same with ≥ 200 kills. CRASH_SEED=<n> replays a kill schedule.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runFileCrash } from './crash-file-store.mjs';
import { runWranglerCrash } from './crash-wrangler.mjs';

const seed = process.env.CRASH_SEED === undefined ? undefined : Number(process.env.CRASH_SEED);
const log = (/** @type {string} */ tag) => (/** @type {string} */ m) => console.error(`[${tag}] ${m}`);

describe('crash durability (SIGKILL, then reopen)', () => {
  it('the Node file store keeps every acknowledged write and a sound database through 3 kills', async () => {
    const r = await runFileCrash({ kills: 3, seed, log: log('crash-file') });
    console.error(
      `[crash-file] seed ${r.seed}: ${r.kills} kills, ${r.acked} acknowledged, ${r.lost} lost, ${r.replayed} replays that changed the database`,
    );
    assert.equal(r.kills, 3);
    assert.ok(r.acked > 0, 'the writer acknowledged nothing: the test tested nothing');
    assert.deepEqual(r.problems, [], `seed ${r.seed}`);
    assert.equal(r.lost, 0);
    assert.equal(r.integrity_failures, 0);
  });

  it('the Worker under wrangler dev keeps every acknowledged write and sound databases through 2 kills', async () => {
    const r = await runWranglerCrash({ kills: 2, seed, log: log('crash-wrangler') });
    console.error(`[crash-wrangler] seed ${r.seed}: ${r.kills} kills, ${r.acked} acknowledged, ${r.lost} lost`);
    assert.equal(r.kills, 2);
    assert.ok(r.acked > 0, 'nothing was acknowledged: the test tested nothing');
    assert.deepEqual(r.problems, [], `seed ${r.seed}`);
    assert.equal(r.lost, 0);
    assert.equal(r.integrity_failures, 0);
  });
});
