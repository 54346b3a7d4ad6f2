// @ts-check
// Seqs are JavaScript numbers: a store whose seq passes 2^53-1 (reachable only by importing a document at
// the limit) must fail loudly — an INTERNAL EdgememError, no event delivered — never hand out a rounded seq.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { rejectsWith } from './contract-suite.js';

const MAX = Number.MAX_SAFE_INTEGER;

/** An empty store's export, moved to seq 2^53-1. */
async function docAtLimit() {
  const s = await openStore();
  const doc = await s.export();
  await s.close();
  return { ...doc, seq: MAX };
}

describe('seqs at the 2^53-1 limit', () => {
  it('a store at seq 2^53-1 reads fine, and a write past it is INTERNAL with no rounded seq anywhere', async () => {
    const s = await openStore();
    await s.import(await docAtLimit());
    assert.equal((await s.stats()).seq, MAX);

    /** @type {number[]} */
    const seen = [];
    const sub = await s.subscribe({}, (e) => seen.push(e.seq));
    const errors = console.error;
    console.error = () => {}; // the dropped events are logged; keep the test output clean
    try {
      await rejectsWith(s.put({ namespace: ['n'], key: 'a', value: 1 }), 'INTERNAL');
      await rejectsWith(s.notify('c', 'x'), 'INTERNAL');
    } finally {
      console.error = errors;
    }
    assert.deepEqual(seen, [], 'no event may carry a seq beyond 2^53-1');
    await rejectsWith(s.get(['n'], 'a'), 'INTERNAL');
    await rejectsWith(s.changes(MAX), 'INTERNAL');
    await sub.unsubscribe();
    await s.close();
  });
});
