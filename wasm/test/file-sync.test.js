// @ts-check
// The Node file store's syncs (fdatasync): each commit makes its journal and its database durable (SQLite syncs one
// file at a time) and syncs only files written since their last sync — a commit is 2 syncs, a read none; and
// the chunks a commit puts reach each file in a few writes, not one write, read and resize per SQLite write.
import assert from 'node:assert/strict';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { openStore } from 'edgemem';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-file-sync-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('a commit syncs its journal and database once each; a read syncs nothing', async () => {
  /** @type {number[]} */
  const fds = [];
  const realFsync = fs.fsyncSync;
  const real = fs.fdatasyncSync;
  fs.fsyncSync = (fd) => {
    fds.push(fd);
    return realFsync(fd);
  };
  fs.fdatasyncSync = (fd) => {
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
    fs.fsyncSync = realFsync;
    fs.fdatasyncSync = real;
    syncBuiltinESMExports();
  }
});

it('a commit writes each file in runs of chunks, resizes the journal once, and reads none of it back', async () => {
  const counts = { write: 0, ftruncate: 0, read: 0 };
  const real = { write: fs.writeSync, ftruncate: fs.ftruncateSync, read: fs.readSync };
  /** @param {'write' | 'ftruncate' | 'read'} name */
  const counted =
    (name) =>
    /** @param {any[]} args */
    (...args) => {
      counts[name]++;
      return /** @type {Function} */ (real[name])(...args);
    };
  fs.writeSync = /** @type {typeof fs.writeSync} */ (counted('write'));
  fs.ftruncateSync = /** @type {typeof fs.ftruncateSync} */ (counted('ftruncate'));
  fs.readSync = /** @type {typeof fs.readSync} */ (counted('read'));
  syncBuiltinESMExports();
  try {
    const store = await openStore({ storage: { file: join(dir, 'b.db') } });
    await store.put({ namespace: ['n'], key: 'warm', value: 'first write creates the tables' });
    for (let i = 0; i < 5; i++) {
      Object.assign(counts, { write: 0, ftruncate: 0, read: 0 });
      await store.put({ namespace: ['n'], key: `k${i}`, value: `value ${i}`.repeat(50) });
      // Before: a journal record was three SQLite writes, each a chunk read, write and resize (dozens a commit).
      assert.ok(counts.write <= 12, `put ${i}: ${counts.write} writes`);
      assert.ok(counts.ftruncate <= 2, `put ${i}: ${counts.ftruncate} resizes (the journal's truncation)`);
      assert.equal(counts.read, 0, `put ${i}: reads (the pages are in the engine's cache, the journal pending)`);
    }
    await store.close();
    const reopened = await openStore({ storage: { file: join(dir, 'b.db') } });
    assert.equal((await reopened.get(['n'], 'k4'))?.value, 'value 4'.repeat(50));
    await reopened.close();
  } finally {
    Object.assign(fs, { writeSync: real.write, ftruncateSync: real.ftruncate, readSync: real.read });
    syncBuiltinESMExports();
  }
});
