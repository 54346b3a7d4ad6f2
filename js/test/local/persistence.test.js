// @ts-check
// Node file storage: the store is an ordinary SQLite database file that survives close and reopen.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'edgemem-persist-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('file storage', () => {
  it('keeps memories, history, vectors, checkpoints and the feed across close and reopen', async () => {
    const file = join(dir, 'p.db');
    const s = await openStore({ dims: 2, storage: { file } });
    const first = await s.put({ namespace: ['p'], key: 'k', value: 'v1', text: 'persistent words', embedding: [1, 0] });
    await s.put({ namespace: ['p'], key: 'k', value: 'v2', text: 'persistent words again', embedding: [0, 1] });
    for (let i = 0; i < 200; i++)
      await s.put({ namespace: ['bulk'], key: `b${i}`, value: 'x'.repeat(100), embedding: [i, 1] });
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
    assert.deepEqual(
      (await r.search({ vector: [0, 1], k: 1, namespace: ['p'] })).map((h) => h.key),
      ['k'],
    );
    assert.deepEqual(
      (await r.search({ text: 'again' })).map((h) => h.key),
      ['k'],
    );
    assert.deepEqual((await r.getCheckpoint('t'))?.data, { n: 1 });
    assert.equal((await r.changes(seq - 1))[0]?.payload, 'payload');
    const next = await r.put({ namespace: ['p'], key: 'k', value: 'v3' });
    assert.equal(next.seq, seq + 1);
    assert.equal(next.version, 3);
    await r.close();
  });

  it('reopens a store whose process was killed (SIGKILL, no close): every acknowledged write is there', async () => {
    const file = join(dir, 'crash.db');
    // The child acknowledges each write on stdout, then kills itself mid-stream without closing.
    const child = `
      import { openStore } from 'edgemem';
      const s = await openStore({ dims: 2, storage: { file: ${JSON.stringify(file)} } });
      for (let i = 0; ; i++) {
        await s.put({ namespace: ['c'], key: 'k' + i, value: i, text: 'crash ' + i, embedding: [i, 1] });
        process.stdout.write(i + '\\n');
        if (i === 300) process.kill(process.pid, 'SIGKILL');
      }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], { cwd: here, encoding: 'utf8' });
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    const acked = r.stdout.split('\n').filter(Boolean).map(Number);
    assert.equal(acked.length, 301);
    const s = await openStore({ dims: 2, storage: { file } });
    for (const i of acked) assert.equal((await s.get(['c'], `k${i}`))?.value, i);
    assert.equal((await s.search({ text: 'crash 250', vector: [250, 1], k: 1 }))[0]?.key, 'k250');
    await s.close();
  });

  it('one open store per file in a process: a second open is CONFLICT until the first closes', async () => {
    const file = join(dir, 'once.db');
    const s = await openStore({ storage: { file } });
    await rejectsWith(openStore({ storage: { file } }), 'CONFLICT');
    await rejectsWith(openStore({ storage: { file: join(dir, '.', 'once.db') } }), 'CONFLICT');
    await s.close();
    const again = await openStore({ storage: { file } });
    await again.close();
  });

  it('a path that cannot be a database is INVALID_ARGUMENT naming it, and a failed open leaks nothing', async () => {
    const e = await rejectsWith(openStore({ storage: { file: join(dir, 'missing-dir', 'x.db') } }), 'INVALID_ARGUMENT');
    assert.match(e.message, /missing-dir/);
    await rejectsWith(openStore({ storage: { file: dir } }), 'INVALID_ARGUMENT');
    const file = join(dir, 'dims-lock.db');
    await (await openStore({ dims: 4, storage: { file } })).close();
    for (let i = 0; i < 3; i++) await rejectsWith(openStore({ dims: 8, storage: { file } }), 'DIMENSION_MISMATCH');
    const ok = await openStore({ dims: 4, storage: { file } }); // not held by the failed opens
    await ok.close();
  });

  it('an existing store keeps its dims', async () => {
    const file = join(dir, 'dims.db');
    const s = await openStore({ dims: 4, storage: { file } });
    await s.close();
    await rejectsWith(openStore({ dims: 8, storage: { file } }), 'DIMENSION_MISMATCH');
  });
});
