// @ts-check
// The engine's memory budget in the Worker: EDGEMEM_MEMORY_BUDGET (default 96 MiB of the isolate's 128 MB) reaches
// each agent's store, which refuses a write that would index vectors past it with QUOTA_EXCEEDED naming the
// budget; the agent keeps answering, and stats() shows the budget, the projection and the heap.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-budget-'));
const bundle = join(dir, 'bundle');
const ADMIN = 'budget-test-token';
// 4-d i4 vectors (the Worker's default): 8 + 256 bytes each in the engine's model (two words of codes and norm,
// then graph), over 16 MiB of page cache and overhead (core/src/state/memory_budget.rs): room for exactly 20 vectors.
const BUDGET = (16 << 20) + 264 * 20;

/** @param {{ url: string }} server @param {string} method @param {string} path @param {unknown} [body] */
async function call(server, method, path, body) {
  const res = await fetch(new URL(path, server.url), {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

before(() => bundleWorker(bundle, join(dir, 'config')));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('memory budget', () => {
  it('refuses writes that would index past the budget, coded, and keeps serving', async () => {
    const server = await startWorker({
      bundle,
      bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '4', EDGEMEM_MEMORY_BUDGET: String(BUDGET) },
    });
    try {
      const a = '/v1/agents/budgeted';
      for (let i = 0; i < 20; i++) {
        const r = await call(server, 'PUT', `${a}/memories/k${i}?ns=b`, { value: i, embedding: [i + 1, 1, 0, 0] });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      const refused = await call(server, 'PUT', `${a}/memories/k20?ns=b`, { value: 20, embedding: [21, 1, 0, 0] });
      assert.equal(refused.status, 507);
      assert.equal(refused.body.error.code, 'QUOTA_EXCEEDED');
      assert.match(refused.body.error.message, new RegExp(`memory budget of .*${BUDGET} bytes`));
      // A write without a vector indexes nothing; reads and searches go on.
      assert.equal((await call(server, 'PUT', `${a}/memories/plain?ns=b`, { value: 'no vector' })).status, 200);
      assert.equal((await call(server, 'GET', `${a}/memories/k20?ns=b`)).status, 404);
      const hits = await call(server, 'POST', `${a}/search`, { vector: [5, 1, 0, 0], k: 3 });
      assert.equal(hits.body.hits.length, 3);
      const stats = (await call(server, 'GET', `${a}/stats`)).body;
      assert.equal(stats.memoryBudget, BUDGET);
      assert.equal(stats.projectedPeakBytes, BUDGET);
      assert.ok(stats.heapBytes > 0 && stats.heapBytes < 128 << 20, `heap ${stats.heapBytes}`);
    } finally {
      await server.mf.dispose();
    }
  });
});
