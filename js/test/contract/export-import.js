// @ts-check
/**
 * The MemoryStore contract, export and import: JSON documents, NDJSON streams, and imports validated like live
 * writes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejectsWith } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function exportImportCases(fresh) {
  it('round-trips export and import', async () => {
    const a = await fresh({ dims: 2 });
    await a.put({ namespace: ['e'], key: 'k', value: 'v1', text: 'first words', embedding: [1, 0] });
    await a.put({
      namespace: ['e'],
      key: 'k',
      value: 'v2',
      text: 'second words',
      embedding: [0, 1],
      metadata: { m: true },
    });
    await a.put({ namespace: ['e', 'sub'], key: 'j', value: [1, 2, 3], pinned: true });
    await a.putCheckpoint({ threadId: 't', checkpointId: 'c', data: Uint8Array.from([1, 2]) });
    const doc = await a.export();
    assert.equal(doc.format, 'edgemem-export/1');
    assert.equal(doc.seq, 4);

    const b = await fresh({ dims: 2 });
    await b.import(JSON.parse(JSON.stringify(doc)));
    assert.deepEqual(await b.export(), doc);
    assert.deepEqual(await b.get(['e'], 'k'), await a.get(['e'], 'k'));
    assert.deepEqual(await b.history(['e'], 'k'), await a.history(['e'], 'k'));
    assert.deepEqual(
      (await b.search({ text: 'second' })).map((h) => h.key),
      ['k'],
    );
    assert.deepEqual(
      (await b.search({ vector: [0, 1], k: 1 })).map((h) => h.key),
      ['k'],
    );
    assert.deepEqual((await b.getCheckpoint('t'))?.data, Uint8Array.from([1, 2]));
    const next = await b.put({ namespace: ['e'], key: 'new', value: 0 });
    assert.equal(next.seq, 5);
  });

  it('streams export and import as NDJSON, in chunks of whole lines', async () => {
    const a = await fresh({ dims: 2 });
    for (let i = 0; i < 30; i++) {
      await a.put({
        namespace: ['s', String(i % 3)],
        key: `k${i % 10}`,
        value: { i },
        text: `words ${i}`,
        embedding: [1, i + 1],
      });
    }
    await a.putCheckpoint({ threadId: 't', checkpointId: 'c', data: { step: 1 } });
    await a.putWrites({ threadId: 't', checkpointId: 'c', taskId: 'task', writes: [['ch', 'v']] });
    /** @type {string[]} */
    const chunks = [];
    for await (const chunk of a.exportStream({ chunkBytes: 256 })) chunks.push(chunk);
    const text = chunks.join('');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines[0].kind, 'header');
    assert.equal(lines[0].format, 'edgemem-export/2');
    assert.equal(lines.at(-1).kind, 'end');
    assert.deepEqual(
      { versions: lines.at(-1).versions, checkpoints: lines.at(-1).checkpoints, writes: lines.at(-1).writes },
      { versions: 30, checkpoints: 1, writes: 1 },
    );
    const b = await fresh({ dims: 2 });
    // Bytes cut anywhere (inside lines and characters) are reassembled.
    const bytes = new TextEncoder().encode(text);
    const pieces = [];
    for (let i = 0; i < bytes.length; i += 97) pieces.push(bytes.slice(i, i + 97));
    const progress = await b.importStream(pieces);
    // Commits: the 30 puts, the checkpoint and its pending writes.
    assert.deepEqual(progress, { done: true, versions: 30, commits: 32, checkpoints: 1, writes: 1 });
    assert.deepEqual(await b.export(), await a.export());
    assert.deepEqual((await b.put({ namespace: ['s'], key: 'after', value: 1 })).seq, (await a.seq()) + 1);
  });

  it('an NDJSON import cut short, or with a bad line, is INVALID_ARGUMENT and leaves the store empty and writable', async () => {
    const a = await fresh({ dims: 2 });
    for (let i = 0; i < 5; i++) await a.put({ namespace: ['c'], key: `k${i}`, value: i, embedding: [1, i] });
    let text = '';
    for await (const chunk of a.exportStream()) text += chunk;
    const lines = text.trim().split('\n');
    const b = await fresh({ dims: 2 });
    await rejectsWith(b.importStream(lines.slice(0, -1).join('\n')), 'INVALID_ARGUMENT');
    await rejectsWith(
      b.importStream([...lines.slice(0, 3), '{"kind":"version","memory":', ...lines.slice(3)].join('\n')),
      'INVALID_ARGUMENT',
    );
    const dup = [...lines.slice(0, 2), lines[1], ...lines.slice(2)];
    await rejectsWith(b.importStream(dup.join('\n')), 'INVALID_ARGUMENT');
    assert.equal((await b.stats()).memories, 0);
    await b.put({ namespace: ['c'], key: 'mine', value: 1 });
    await rejectsWith(b.importStream(text), 'CONFLICT');
  });

  it('one verdict per stream: lines after the end (in a later chunk) or a second header leave the store empty', async () => {
    const a = await fresh({ dims: 2 });
    for (let i = 0; i < 4; i++) await a.put({ namespace: ['v'], key: `k${i}`, value: i, embedding: [1, i] });
    let text = '';
    for await (const chunk of a.exportStream()) text += chunk;
    const lines = text.trim().split('\n');
    const b = await fresh({ dims: 2 });
    // Past the end, 1.25 MiB of lines (more than one import chunk of 1 MiB), so what follows the end line comes
    // in a later chunk than the end line did: the whole stream is still refused, nothing of it kept.
    const after = Array.from({ length: 20 }, () => 'x'.repeat(1 << 16));
    await rejectsWith(b.importStream([...lines, ...after].join('\n')), 'INVALID_ARGUMENT');
    assert.deepEqual([(await b.stats()).memories, await b.seq()], [0, 0]);
    await rejectsWith(b.importStream([...lines, ...after, lines[1]].join('\n')), 'INVALID_ARGUMENT');
    assert.deepEqual([(await b.stats()).memories, await b.seq()], [0, 0]);
    // A second header in the middle (here with a seq beyond the first's) is refused, not taken as a new start.
    const header = JSON.parse(lines[0]);
    const second = JSON.stringify({ ...header, seq: header.seq + 100 });
    await rejectsWith(b.importStream([...lines.slice(0, 2), second, ...lines.slice(2)].join('\n')), 'INVALID_ARGUMENT');
    assert.deepEqual([(await b.stats()).memories, await b.seq()], [0, 0]);
    // The same stream, whole and alone, goes in.
    await b.importStream(text);
    assert.deepEqual(await b.export(), await a.export());
  });

  it('an import is validated like live writes: duplicates, commit times, sizes', async () => {
    const a = await fresh({ dims: 2 });
    await a.put({ namespace: ['v'], key: 'k', value: 1, embedding: [1, 0] });
    await a.put({ namespace: ['v'], key: 'k', value: 2, embedding: [0, 1] });
    await a.putCheckpoint({ threadId: 't', checkpointId: 'c', data: { x: 1 } });
    const doc = await a.export();
    /** @type {((d: any) => void)[]} */
    const corruptions = [
      (d) => {
        d.versions.push(d.versions[0]);
      },
      (d) => {
        d.checkpoints.push(d.checkpoints[0]);
      },
      (d) => {
        d.commits.push(d.commits[0]);
      },
      (d) => {
        d.commits[1][1] = d.commits[0][1] - 1000;
      },
      (d) => {
        d.memories[0].embedding = [3e38, 3e38];
        d.versions[1].memory.embedding = [3e38, 3e38];
      },
    ];
    for (const corrupt of corruptions) {
      const bad = JSON.parse(JSON.stringify(doc));
      corrupt(bad);
      const b = await fresh({ dims: 2 });
      await rejectsWith(b.import(bad), 'INVALID_ARGUMENT');
      assert.equal((await b.stats()).seq, 0);
    }
  });
}
