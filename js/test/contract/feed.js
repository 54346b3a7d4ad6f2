// @ts-check
/**
 * The MemoryStore contract, the change feed: subscribe / notify / unsubscribe, and replaying changes after a seq.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { waitFor } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function feedCases(fresh) {
  it('notifies subscribers until they unsubscribe', async () => {
    const s = await fresh();
    /** @type {import('edgemem').ChangeEvent[]} */
    const got = [];
    /** @type {import('edgemem').ChangeEvent[]} */
    const puts = [];
    const sub = await s.subscribe({ kinds: ['notify'], channels: ['room'] }, (e) => got.push(e));
    const subPuts = await s.subscribe({ kinds: ['put'], namespaces: [['watched']] }, (e) => puts.push(e));
    const seq = await s.notify('room', { hello: 'world' });
    await s.notify('elsewhere', 1);
    await s.put({ namespace: ['watched', 'x'], key: 'k', value: 1 });
    await s.put({ namespace: ['ignored'], key: 'k', value: 1 });
    await waitFor(() => got.length >= 1 && puts.length >= 1);
    assert.equal(got.length, 1);
    assert.deepEqual(got[0], { seq, ts: got[0]?.ts, kind: 'notify', channel: 'room', payload: { hello: 'world' } });
    assert.equal(puts.length, 1);
    assert.deepEqual(puts[0]?.namespace, ['watched', 'x']);
    assert.equal(puts[0]?.key, 'k');
    assert.equal(puts[0]?.version, 1);

    await sub.unsubscribe();
    await sub.unsubscribe();
    await s.notify('room', 'after unsubscribe');
    await s.put({ namespace: ['watched'], key: 'k2', value: 2 });
    await waitFor(() => puts.length >= 2);
    assert.equal(got.length, 1);
    await subPuts.unsubscribe();
  });

  it('replays changes after a seq', async () => {
    const s = await fresh();
    const a = await s.put({ namespace: ['c'], key: 'k', value: 1 });
    const d = await s.delete(['c'], 'k');
    const n = await s.notify('ch', 'p');
    const cp = await s.putCheckpoint({ threadId: 'th', checkpointId: 'cp', data: {} });
    const all = await s.changes(0);
    assert.deepEqual(
      all.map((e) => [e.seq, e.kind]),
      [
        [a.seq, 'put'],
        [d, 'delete'],
        [n, 'notify'],
        [cp, 'checkpoint'],
      ],
    );
    assert.deepEqual(
      (await s.changes(d)).map((e) => e.seq),
      [n, cp],
    );
    assert.deepEqual(
      (await s.changes(0, { limit: 1 })).map((e) => e.seq),
      [a.seq],
    );
    assert.deepEqual(
      (await s.changes(0, { filter: { kinds: ['notify'] } })).map((e) => e.payload),
      ['p'],
    );
    assert.deepEqual(await s.changes(cp), []);
  });
}
