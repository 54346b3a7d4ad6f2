// @ts-check
/**
 * The MemoryStore contract, page sizes: pages of lists, history, the change feed and checkpoints end by size too,
 * and say where to go on.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function pageSizeCases(fresh) {
  it('pages of lists, history, the change feed and checkpoints end by size too, and say where to go on', async () => {
    const s = await fresh();
    const fill = 'x'.repeat(250_000);
    const key = (/** @type {number} */ i) => `k${String(i).padStart(2, '0')}`;
    for (let i = 0; i < 20; i++) await s.put({ namespace: ['big'], key: key(i), value: { i, fill } });
    const first = await s.list({ prefix: ['big'], limit: 1000 });
    assert.ok(first.items.length < 20 && first.nextCursor, `${first.items.length} items`);
    /** @type {string[]} */
    const keys = [];
    /** @type {string | null | undefined} */
    let cursor;
    do {
      const page = await s.list({ prefix: ['big'], limit: 1000, ...(cursor ? { cursor } : {}) });
      keys.push(...page.items.map((m) => m.key));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(
      keys,
      Array.from({ length: 20 }, (_, i) => key(i)),
    );

    for (let i = 0; i < 20; i++) await s.put({ namespace: ['h'], key: 'k', value: { i, fill } });
    const hp = await s.historyPage(['h'], 'k');
    assert.ok(hp.versions.length < 20 && hp.nextAfterSeq === hp.versions.at(-1)?.seq, `${hp.versions.length} versions`);
    assert.deepEqual(
      (await s.history(['h'], 'k')).map((m) => m.version),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const byCount = await s.historyPage(['h'], 'k', { afterSeq: hp.versions[0]?.seq ?? 0, limit: 2 });
    assert.deepEqual(
      byCount.versions.map((m) => m.version),
      [2, 3],
    );

    const after = await s.seq();
    for (let i = 0; i < 80; i++) await s.notify('big', 'p'.repeat(60_000));
    const cp = await s.changesPage(after, { limit: 1000 });
    assert.ok(cp.more && cp.events.length < 80, `${cp.events.length} events`);
    assert.equal((await s.changes(after, { limit: 1000 })).length, 80);

    for (let i = 0; i < 10; i++)
      await s.putCheckpoint({ threadId: 'big', checkpointId: key(i), data: new Uint8Array(600_000).fill(i) });
    const lp = await s.listCheckpointsPage({ threadId: 'big', limit: 1000 });
    assert.ok(
      lp.checkpoints.length < 10 && lp.nextBefore === lp.checkpoints.at(-1)?.checkpointId,
      `${lp.checkpoints.length} checkpoints`,
    );
    const all = await s.listCheckpoints({ threadId: 'big', limit: 1000 });
    assert.deepEqual(
      all.map((c) => c.checkpointId),
      Array.from({ length: 10 }, (_, i) => key(9 - i)),
    );
  });
}
