// @ts-check
// `memoryBudget`: a store refuses a write that would take the engine's projected peak heap past the budget,
// with QUOTA_EXCEEDED naming it (the whole batch, nothing written); writes that index no vector pass; stats()
// reports the budget, the projection and the wasm heap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';

// 8-d f32 vectors: 32 + 256 bytes each in the engine's model, over 16 MiB of page cache and overhead
// (memory_budget.rs).
const OVERHEAD = 16 << 20;
const BUDGET = OVERHEAD + 288 * 30;
const vec = (/** @type {number} */ i) => Array.from({ length: 8 }, (_, d) => ((i * 7 + d * 3) % 11) + 1);

describe('memoryBudget', () => {
  it('refuses writes that would index past the budget', async () => {
    const s = await openStore({ dims: 8, scalar: 'f32', memoryBudget: BUDGET });
    await s.putBatch(
      Array.from({ length: 29 }, (_, i) => ({ namespace: ['b'], key: `k${i}`, value: i, embedding: vec(i) })),
    );
    const two = [29, 30].map((i) => ({ namespace: ['b'], key: `k${i}`, value: i, embedding: vec(i) }));
    const e = await rejectsWith(s.putBatch(two), 'QUOTA_EXCEEDED');
    assert.match(String(e?.message ?? ''), new RegExp(`memory budget of .*${BUDGET} bytes`));
    assert.equal((await s.stats()).memories, 29, 'the batch was refused whole');
    await s.put({ namespace: ['b'], key: 'plain', value: 'no vector' });
    await s.put({ namespace: ['b'], key: 'k29', value: 29, embedding: vec(29) });
    await rejectsWith(s.put({ namespace: ['b'], key: 'k30', value: 30, embedding: vec(30) }), 'QUOTA_EXCEEDED');
    const stats = await s.stats();
    assert.equal(stats.memoryBudget, BUDGET);
    assert.equal(stats.projectedPeakBytes, BUDGET);
    assert.ok(stats.heapBytes > 0, 'the wasm heap is reported');
    assert.equal((await s.search({ vector: vec(3), k: 1 }))[0].key, 'k3');
    await s.close();
  });

  it('counts an i4 vector as its codes, its norm and the graph: 8-d is 4 + 4 + 256 bytes', async () => {
    const budget = OVERHEAD + 264 * 10;
    const s = await openStore({ dims: 8, scalar: 'i4', memoryBudget: budget });
    await s.putBatch(
      Array.from({ length: 10 }, (_, i) => ({ namespace: ['b'], key: `k${i}`, value: i, embedding: vec(i) })),
    );
    await rejectsWith(s.put({ namespace: ['b'], key: 'k10', value: 10, embedding: vec(10) }), 'QUOTA_EXCEEDED');
    const stats = await s.stats();
    assert.deepEqual([stats.scalar, stats.projectedPeakBytes], ['i4', budget]);
    const [hit] = await s.search({ vector: vec(3), k: 1, mode: 'vector' });
    assert.equal(hit.key, 'k3');
    assert.ok(Math.abs(hit.score - 1) < 1e-6, `an exact score, not the codes': ${hit.score}`);
    await s.close();
  });

  it('is no limit when absent, and must be a non-negative integer', async () => {
    const s = await openStore({ dims: 8 });
    assert.equal((await s.stats()).memoryBudget, 0);
    await s.close();
    await rejectsWith(openStore({ dims: 8, memoryBudget: -1 }), 'INVALID_ARGUMENT');
  });
});
