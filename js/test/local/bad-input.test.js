// @ts-check
// Bad input never crashes and never surfaces as a raw TypeError or INTERNAL: every method answers a wrong
// type, a null options object, a BigInt or cyclic JSON value, or a value nested too deep with INVALID_ARGUMENT.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';

/** @type {any} */
const cyclic = { a: 1 };
cyclic.self = cyclic;
const deep = /** @type {any} */ ({});
for (let i = 0, d = deep; i < 20000; i++) d = d.x = {};

describe('bad input is INVALID_ARGUMENT', () => {
  it('on every method', async () => {
    const s = /** @type {any} */ (await openStore({ dims: 2 }));
    const bad = [
      () => s.put(null),
      () => s.put({ namespace: ['n'], key: 'k', value: 1n }),
      () => s.put({ namespace: ['n'], key: 'k', value: cyclic }),
      () => s.put({ namespace: ['n'], key: 'k', value: deep }),
      () => s.put({ namespace: 'n', key: 'k', value: 1 }),
      () => s.putBatch([{ namespace: ['n'], key: 'k', value: 1n }]),
      () => s.get(['n'], 'k', null),
      () => s.get(['n'], 'k', { asOf: null }),
      () => s.get(['n'], 'k', { asOf: 5 }),
      () => s.delete(['n'], 'k', 7),
      () => s.list(null),
      () => s.list({ limit: 0 }),
      () => s.search(null),
      () => s.search({ text: 'x', fusion: null }),
      () => s.putCheckpoint(null),
      () => s.putCheckpoint({ threadId: 't', checkpointId: 'c', data: 1n }),
      () => s.getCheckpoint('t', null),
      () => s.listCheckpoints(null),
      () => s.listCheckpoints({ threadId: 5 }),
      () => s.listCheckpoints({ threadId: 't', limit: 0 }),
      () => s.putWrites(null),
      () => s.putWrites({ threadId: 't', checkpointId: 'c', taskId: 'x', writes: [null] }),
      () => s.notify('c', 1n),
      () => s.notify('c', cyclic),
      () => s.subscribe(null, () => {}),
      () => s.subscribe({}, null),
      () => s.changes(0, null),
      () => s.changes(0, { limit: 0 }),
      () => s.changes(-1),
      () => s.import(null),
    ];
    for (const call of bad) await rejectsWith(Promise.resolve().then(call), 'INVALID_ARGUMENT');
    await s.close();
  });

  it('a subscribe callback that throws or rejects is logged, not fatal, and other subscribers still get the event', async () => {
    const s = await openStore();
    /** @type {unknown[]} */
    const unhandled = [];
    const onUnhandled = (/** @type {unknown} */ e) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const logged = console.error;
    let logs = 0;
    console.error = () => {
      logs++;
    };
    try {
      await s.subscribe({}, () => {
        throw new Error('sync boom');
      });
      await s.subscribe({}, async () => {
        throw new Error('async boom');
      });
      let got = 0;
      await s.subscribe({}, () => {
        got++;
      });
      await s.put({ namespace: ['n'], key: 'k', value: 1 });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(got, 1);
      assert.equal(logs, 2);
      assert.deepEqual(unhandled, []);
    } finally {
      console.error = logged;
      process.off('unhandledRejection', onUnhandled);
      await s.close();
    }
  });

  it('openStore', async () => {
    await rejectsWith(openStore(/** @type {any} */ (null)), 'INVALID_ARGUMENT');
    await rejectsWith(openStore({ storage: /** @type {any} */ ({ pages: {} }) }), 'INVALID_ARGUMENT');
    await rejectsWith(openStore({ storage: /** @type {any} */ ({ bogus: 1 }) }), 'INVALID_ARGUMENT');
  });
});
