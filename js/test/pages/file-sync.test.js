// @ts-check
// The Node file store's syncs (fdatasync): each commit appends its chunks to the redo log in one write and makes
// that durable with one sync — the commit point — then writes the chunks in place without a sync (the log
// has them until a checkpoint). A commit is 1 sync, a read none.
import assert from 'node:assert/strict';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { openStore } from 'edgemem';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-file-sync-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('a commit syncs its redo log once, and nothing else; a read syncs nothing', async () => {
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
    /** @type {Set<number>} */
    const synced = new Set();
    for (let i = 0; i < 5; i++) {
      fds.length = 0;
      await store.put({ namespace: ['n'], key: `k${i}`, value: `value ${i}` });
      assert.equal(fds.length, 1, `put ${i}: ${fds.length} fsyncs`);
      for (const fd of fds) synced.add(fd);
    }
    assert.equal(synced.size, 1, 'always the same file: the redo log');
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

it('a commit is one write to the log, a few in place, no resize and no read', async () => {
  /** @type {Record<string, number[]>} the fd of each call */
  const calls = { write: [], ftruncate: [], read: [] };
  const real = { write: fs.writeSync, ftruncate: fs.ftruncateSync, read: fs.readSync };
  /** @param {'write' | 'ftruncate' | 'read'} name */
  const counted =
    (name) =>
    /** @param {any[]} args */
    (...args) => {
      calls[name]?.push(args[0]);
      return /** @type {Function} */ (real[name])(...args);
    };
  fs.writeSync = /** @type {typeof fs.writeSync} */ (counted('write'));
  fs.ftruncateSync = /** @type {typeof fs.ftruncateSync} */ (counted('ftruncate'));
  fs.readSync = /** @type {typeof fs.readSync} */ (counted('read'));
  syncBuiltinESMExports();
  try {
    const store = await openStore({ storage: { file: join(dir, 'b.db') } });
    await store.put({ namespace: ['n'], key: 'warm', value: 'first write creates the tables' });
    let grown = 0;
    for (let i = 0; i < 5; i++) {
      for (const c of Object.values(calls)) c.length = 0;
      await store.put({ namespace: ['n'], key: `k${i}`, value: `value ${i}`.repeat(50) });
      const byFd = new Map();
      for (const fd of calls.write ?? []) byFd.set(fd, (byFd.get(fd) ?? 0) + 1);
      const [log, inPlace] = [...byFd.values()].sort((a, b) => a - b);
      // Before the redo log: the journal and the database each written, synced, and the journal cut (12 writes).
      assert.equal(byFd.size, 2, `put ${i}: writes to ${byFd.size} files`);
      // Once, and once more with zeros when the log file grows (doubling from 64 KiB: syncs then write over blocks
      // the file has).
      assert.ok(log === 1 || log === 2, `put ${i}: the log is written ${log} times`);
      grown += (log ?? 1) - 1;
      assert.ok((inPlace ?? 0) <= 6, `put ${i}: ${inPlace} writes in place (runs of changed pages)`);
      assert.equal(calls.ftruncate?.length, 0, `put ${i}: resizes`);
      assert.equal(calls.read?.length, 0, `put ${i}: reads (the pages are in the engine's cache)`);
    }
    assert.ok(grown <= 2, `the log grew ${grown} times in 5 commits`);
    await store.close();
    const reopened = await openStore({ storage: { file: join(dir, 'b.db') } });
    assert.equal((await reopened.get(['n'], 'k4'))?.value, 'value 4'.repeat(50));
    await reopened.close();
  } finally {
    Object.assign(fs, { writeSync: real.write, ftruncateSync: real.ftruncate, readSync: real.read });
    syncBuiltinESMExports();
  }
});
