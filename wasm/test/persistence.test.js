// @ts-check
// Node file storage: the store is an ordinary SQLite database file that survives close and reopen.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { rejectsWith } from './contract-suite.js';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-persist-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('file storage', () => {
  it('keeps memories, history, vectors, checkpoints and the feed across close and reopen', async () => {
    const file = join(dir, 'p.db');
    const s = await openStore({ dims: 2, storage: { file } });
    const first = await s.put({ namespace: ['p'], key: 'k', value: 'v1', text: 'persistent words', embedding: [1, 0] });
    await s.put({ namespace: ['p'], key: 'k', value: 'v2', text: 'persistent words again', embedding: [0, 1] });
    for (let i = 0; i < 200; i++) await s.put({ namespace: ['bulk'], key: `b${i}`, value: 'x'.repeat(100), embedding: [i, 1] });
    await s.putCheckpoint({ threadId: 't', checkpointId: 'c', data: { n: 1 } });
    const seq = await s.notify('ch', 'payload');
    await s.close();

    const header = readFileSync(file).subarray(0, 16).toString('latin1');
    assert.equal(header, 'SQLite format 3\0');
    assert.equal(statSync(file).size % 8192, 0);

    const r = await openStore({ dims: 2, storage: { file } });
    assert.equal((await r.get(['p'], 'k'))?.value, 'v2');
    assert.equal((await r.get(['p'], 'k', { asOf: { seq: first.seq } }))?.value, 'v1');
    assert.equal((await r.history(['p'], 'k')).length, 2);
    assert.equal((await r.stats()).memories, 201);
    assert.equal((await r.stats()).seq, seq);
    assert.deepEqual((await r.search({ vector: [0, 1], k: 1, namespace: ['p'] })).map((h) => h.key), ['k']);
    assert.deepEqual((await r.search({ text: 'again' })).map((h) => h.key), ['k']);
    assert.deepEqual((await r.getCheckpoint('t'))?.data, { n: 1 });
    assert.equal((await r.changes(seq - 1))[0]?.payload, 'payload');
    const next = await r.put({ namespace: ['p'], key: 'k', value: 'v3' });
    assert.equal(next.seq, seq + 1);
    assert.equal(next.version, 3);
    await r.close();
  });

  it('reopens a store that was never closed (process killed)', async () => {
    const file = join(dir, 'crash.db');
    const s = await openStore({ storage: { file } });
    for (let i = 0; i < 50; i++) await s.put({ namespace: ['c'], key: `k${i}`, value: i });
    // no close: a second open of the same file sees every committed write
    const r = await openStore({ storage: { file } });
    assert.equal((await r.stats()).memories, 50);
    await r.close();
  });

  it('an existing store keeps its dims', async () => {
    const file = join(dir, 'dims.db');
    const s = await openStore({ dims: 4, storage: { file } });
    await s.close();
    await rejectsWith(openStore({ dims: 8, storage: { file } }), 'DIMENSION_MISMATCH');
  });
});
