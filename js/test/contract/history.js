// @ts-check
/**
 * The MemoryStore contract, history: reads and searches AS OF a past seq, and the versions of a key.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function historyCases(fresh) {
  it('reads and searches AS OF a past seq', async () => {
    const s = await fresh({ dims: 2 });
    const a1 = await s.put({ namespace: ['t'], key: 'k', value: 'first', text: 'alpha', embedding: [1, 0] });
    await s.put({ namespace: ['t'], key: 'k', value: 'second', text: 'beta', embedding: [0, 1] });
    const a3 = await s.put({ namespace: ['t'], key: 'other', value: 'later' });
    assert.equal((await s.get(['t'], 'k', { asOf: { seq: a1.seq } }))?.value, 'first');
    assert.equal((await s.get(['t'], 'k'))?.value, 'second');
    assert.equal(await s.get(['t'], 'other', { asOf: { seq: a1.seq } }), null);
    assert.equal((await s.get(['t'], 'other', { asOf: { seq: a3.seq } }))?.value, 'later');
    const old = await s.list({ prefix: ['t'], asOf: { seq: a1.seq } });
    assert.deepEqual(
      old.items.map((m) => m.value),
      ['first'],
    );
    const hits = await s.search({ text: 'alpha', asOf: { seq: a1.seq } });
    assert.deepEqual(
      hits.map((h) => h.value),
      ['first'],
    );
    assert.deepEqual(await s.search({ text: 'alpha' }), []);
    assert.equal((await s.get(['t'], 'k', { asOf: { time: Date.now() + 1000 } }))?.value, 'second');
  });

  it('keeps history', async () => {
    const s = await fresh();
    await s.put({ namespace: ['h'], key: 'k', value: 1 });
    await s.put({ namespace: ['h'], key: 'k', value: 2 });
    await s.put({ namespace: ['h'], key: 'k', value: 3 });
    const h = await s.history(['h'], 'k');
    assert.deepEqual(
      h.map((m) => m.version),
      [1, 2, 3],
    );
    assert.deepEqual(
      h.map((m) => m.value),
      [1, 2, 3],
    );
    assert.deepEqual(await s.history(['h'], 'nothing'), []);
  });
}
