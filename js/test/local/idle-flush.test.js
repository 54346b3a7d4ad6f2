// @ts-check
// Buffered writes are indexed once writes pause (StoreSettings.idleFlushMs), not by a later write or search.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore } from 'edgemem';

/** @param {number} i */
const vec = (i) => Array.from({ length: 4 }, (_, j) => Math.sin(i * 7 + j) + 1.5);

/** @param {{ idleFlushMs: number }} settings */
async function pendingAfterPause(settings) {
  const store = await openStore({ dims: 4, storage: 'memory', ...settings });
  try {
    for (let i = 0; i < 20; i++)
      await store.put({ namespace: ['n'], key: `k${i}`, value: i, text: `note ${i}`, embedding: vec(i) });
    const before = (await store.stats()).indexPending;
    await sleep(300);
    return [before, (await store.stats()).indexPending];
  } finally {
    await store.close();
  }
}

test('once writes pause, buffered vectors are indexed without a call', async () => {
  assert.deepEqual(await pendingAfterPause({ idleFlushMs: 50 }), [20, 0]);
});

test('idleFlushMs: 0 leaves them buffered until a write fills the buffer or maintain()', async () => {
  assert.deepEqual(await pendingAfterPause({ idleFlushMs: 0 }), [20, 20]);
});

test('a closed store flushes nothing later, and bad values are INVALID_ARGUMENT', async () => {
  const store = await openStore({ dims: 4, storage: 'memory', idleFlushMs: 20 });
  await store.put({ namespace: ['n'], key: 'k', value: 1, embedding: vec(1) });
  await store.close();
  await sleep(60); // the timer was cleared: no call into a closed store (it would throw unhandled)
  for (const bad of [-1, Number.NaN, '100']) {
    await assert.rejects(openStore({ dims: 4, storage: 'memory', idleFlushMs: /** @type {any} */ (bad) }), {
      code: 'INVALID_ARGUMENT',
    });
  }
});
