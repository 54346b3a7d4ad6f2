// @ts-check
/**
 * The MemoryStore contract, upkeep: expired memories swept, stats reported.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function upkeepCases(fresh) {
  it('sweeps expired memories', async () => {
    const s = await fresh();
    await s.put({ namespace: ['x'], key: 'short', value: 1, ttlMs: 1 });
    await s.put({ namespace: ['x'], key: 'long', value: 2 });
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(await s.get(['x'], 'short'), null);
    assert.equal(await s.sweep(), 1);
    assert.equal((await s.stats()).memories, 1);
    await s.maintain();
  });

  it('reports stats', async () => {
    const s = await fresh({ dims: 2 });
    await s.put({ namespace: ['s'], key: 'a', value: 'x', embedding: [1, 0], pinned: true });
    await s.put({ namespace: ['s'], key: 'b', value: 'y' });
    await s.putCheckpoint({ threadId: 't', checkpointId: 'c', data: 1 });
    const st = await s.stats();
    assert.equal(await s.seq(), st.seq);
    assert.equal(st.memories, 2);
    assert.equal(st.pinnedMemories, 1);
    assert.equal(st.checkpoints, 1);
    assert.equal(st.dims, 2);
    assert.equal(st.metric, 'cosine');
    assert.equal(st.scalar, 'f32');
    assert.equal(st.seq, 3);
    assert.ok(st.bytes > 0 && st.dbBytes > 0);
    assert.equal(Math.max(st.indexVectors, st.indexPending), 1);
  });
}
