// @ts-check
/**
 * The MemoryStore contract, checkpoints: put / get / list / delete, pending writes, channel values stored once per
 * version.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejectsWith } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function checkpointCases(fresh) {
  it('stores checkpoints and pending writes', async () => {
    const s = await fresh();
    const bytes = Uint8Array.from([0, 1, 2, 250, 255]);
    const seq1 = await s.putCheckpoint({
      threadId: 't1',
      checkpointId: 'c1',
      data: { step: 1 },
      metadata: { source: 'input' },
    });
    assert.ok(seq1 > 0);
    await s.putCheckpoint({
      threadId: 't1',
      checkpointId: 'c2',
      parentId: 'c1',
      data: bytes,
      metadata: { source: 'loop' },
    });
    await s.putCheckpoint({ threadId: 't2', checkpointId: 'x', data: null });

    const latest = await s.getCheckpoint('t1');
    assert.equal(latest?.checkpointId, 'c2');
    assert.equal(latest?.parentId, 'c1');
    assert.deepEqual(latest?.data, bytes);
    const first = await s.getCheckpoint('t1', { checkpointId: 'c1' });
    assert.deepEqual(first?.data, { step: 1 });
    assert.equal(first?.checkpointNs, '');
    assert.equal(await s.getCheckpoint('nope'), null);

    const all = await s.listCheckpoints({ threadId: 't1' });
    assert.deepEqual(
      all.map((c) => c.checkpointId),
      ['c2', 'c1'],
    );
    const older = await s.listCheckpoints({ threadId: 't1', before: 'c2' });
    assert.deepEqual(
      older.map((c) => c.checkpointId),
      ['c1'],
    );
    const bySource = await s.listCheckpoints({
      threadId: 't1',
      filter: [{ field: 'source', op: 'eq', value: 'input' }],
    });
    assert.deepEqual(
      bySource.map((c) => c.checkpointId),
      ['c1'],
    );
    await rejectsWith(s.listCheckpoints({ threadId: 't1', before: 'missing' }), 'NOT_FOUND');

    await s.putWrites({
      threadId: 't1',
      checkpointId: 'c2',
      taskId: 'task',
      writes: [
        ['messages', { text: 'hi' }],
        ['raw', Uint8Array.from([7])],
      ],
    });
    const withWrites = await s.getCheckpoint('t1');
    assert.deepEqual(
      withWrites?.pendingWrites.map((w) => [w.taskId, w.idx, w.channel, w.value]),
      [
        ['task', 0, 'messages', { text: 'hi' }],
        ['task', 1, 'raw', Uint8Array.from([7])],
      ],
    );

    assert.equal(await s.deleteThread('t1'), 2);
    assert.equal(await s.getCheckpoint('t1'), null);
    assert.equal((await s.getCheckpoint('t2'))?.data, null);
  });

  it("stores checkpoint channel values once per version, lists across threads, and keeps a task's first writes", async () => {
    const s = await fresh();
    const raw = Uint8Array.from([1, 2, 255]);
    await s.putCheckpoint({
      threadId: 'a',
      checkpointId: 'a1',
      data: {},
      metadata: { source: 'input' },
      channelVersions: { messages: '1', raw: '1' },
      blobs: [
        { channel: 'messages', version: '1', data: ['hi'] },
        { channel: 'raw', version: '1', data: raw },
      ],
    });
    await s.putCheckpoint({ threadId: 'b', checkpointId: 'b1', data: {}, metadata: { source: 'input' } });
    // a2 makes only `step`; `messages` and `raw` are a1's blobs, named again.
    await s.putCheckpoint({
      threadId: 'a',
      checkpointId: 'a2',
      parentId: 'a1',
      data: {},
      metadata: { source: 'loop' },
      channelVersions: { messages: '1', raw: '1', step: '2' },
      blobs: [{ channel: 'step', version: '2', data: 2 }],
    });
    const a2 = await s.getCheckpoint('a');
    assert.deepEqual(a2?.channelVersions, { messages: '1', raw: '1', step: '2' });
    assert.deepEqual(a2?.blobs, [
      { channel: 'messages', version: '1', data: ['hi'] },
      { channel: 'raw', version: '1', data: raw },
      { channel: 'step', version: '2', data: 2 },
    ]);
    assert.deepEqual(
      (await s.listCheckpoints()).map((c) => c.checkpointId),
      ['a2', 'b1', 'a1'],
    );
    assert.deepEqual(
      (await s.listCheckpoints({ before: 'a2', limit: 1 })).map((c) => c.checkpointId),
      ['b1'],
    );
    assert.deepEqual(
      (await s.listCheckpoints({ threadId: 'a', before: 'b1' })).map((c) => c.checkpointId),
      ['a1'],
    );
    const inputs = await s.listCheckpoints({ filter: [{ field: 'source', op: 'eq', value: 'input' }] });
    assert.deepEqual(
      inputs.map((c) => c.checkpointId),
      ['b1', 'a1'],
    );
    await rejectsWith(
      s.putCheckpoint({
        threadId: 'a',
        checkpointId: 'x',
        data: {},
        blobs: [{ channel: '', version: '1', data: 1 }],
      }),
      'INVALID_ARGUMENT',
    );

    await s.putWrites({
      threadId: 'a',
      checkpointId: 'a2',
      taskId: 't',
      writes: [
        ['x', 1],
        ['__interrupt__', 'ask'],
      ],
    });
    await s.putWrites({
      threadId: 'a',
      checkpointId: 'a2',
      taskId: 't',
      writes: [
        ['x', 2],
        ['__interrupt__', 'again'],
      ],
    });
    assert.deepEqual(
      (await s.getCheckpoint('a'))?.pendingWrites.map((w) => [w.idx, w.channel, w.value]),
      [
        [-3, '__interrupt__', 'again'],
        [0, 'x', 1],
      ],
    );
  });
}
