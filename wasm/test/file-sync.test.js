// @ts-check
// The Node file store's fsyncs: each commit makes its journal and its database durable (SQLite syncs one file at
// a time) and fsyncs only files written since their last fsync — a commit is 2 fsyncs, a read none.
import assert from 'node:assert/strict';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { openStore } from 'edgemem';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-file-sync-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('a commit fsyncs its journal and database once each; a read fsyncs nothing', async () => {
  /** @type {number[]} */
  const fds = [];
  const real = fs.fsyncSync;
  fs.fsyncSync = (fd) => {
    fds.push(fd);
    return real(fd);
  };
  syncBuiltinESMExports();
  try {
    const store = await openStore({ storage: { file: join(dir, 'a.db') } });
    await store.put({ namespace: ['n'], key: 'warm', value: 'first write creates the tables' });
    for (let i = 0; i < 5; i++) {
      fds.length = 0;
      await store.put({ namespace: ['n'], key: `k${i}`, value: `value ${i}` });
      assert.equal(fds.length, 2, `put ${i}: ${fds.length} fsyncs`);
      assert.equal(new Set(fds).size, 2, 'two different files: the journal, then the database');
    }
    fds.length = 0;
    assert.equal((await store.get(['n'], 'k3'))?.value, 'value 3');
    assert.equal(fds.length, 0);
    await store.close();
  } finally {
    fs.fsyncSync = real;
    syncBuiltinESMExports();
  }
});
