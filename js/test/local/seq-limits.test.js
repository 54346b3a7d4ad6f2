// @ts-check
// Seqs are JavaScript numbers, so they must stay exact (≤ 2^53-1). The only way to move a store's seq near
// that is importing a document: import keeps 2^40 changes of headroom below the limit, and a store imported
// just under that line keeps handing out exact seqs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';

const MAX = Number.MAX_SAFE_INTEGER;
const HEADROOM = 2 ** 40;

/** An empty store's export, moved to `seq`. */
async function docAt(/** @type {number} */ seq) {
  const s = await openStore();
  const doc = await s.export();
  await s.close();
  return { ...doc, seq };
}

describe('seqs near the 2^53-1 limit', () => {
  it('an import that leaves no headroom below 2^53-1 is refused', async () => {
    const s = await openStore();
    await rejectsWith(s.import(await docAt(MAX)), 'INVALID_ARGUMENT');
    await rejectsWith(s.import(await docAt(MAX - HEADROOM + 1)), 'INVALID_ARGUMENT');
    await rejectsWith(s.import(await docAt(MAX + 2)), 'INVALID_ARGUMENT'); // not even a safe integer
    assert.equal((await s.stats()).seq, 0, 'nothing was imported');
    await s.close();
  });

  it('a store imported at the headroom line hands out exact seqs and events', async () => {
    const s = await openStore();
    const base = MAX - HEADROOM;
    await s.import(await docAt(base));
    /** @type {number[]} */
    const seen = [];
    const sub = await s.subscribe({}, (e) => seen.push(e.seq));
    const a = await s.put({ namespace: ['n'], key: 'a', value: 1 });
    const b = await s.notify('c', 'x');
    assert.deepEqual([a.seq, b], [base + 1, base + 2]);
    assert.deepEqual(seen, [base + 1, base + 2]);
    assert.equal((await s.get(['n'], 'a'))?.seq, base + 1);
    assert.deepEqual(
      (await s.changes(base)).map((e) => e.seq),
      [base + 1, base + 2],
    );
    await sub.unsubscribe();
    await s.close();
  });
});
