// @ts-check
// The file store's redo log (FilePageStore, through NodeFilePageStore): a transaction's puts are all or nothing
// (also when the disk fails under a commit);
// a crash image — the files as a kill or a power cut leaves them — recovers every committed transaction and
// nothing else: the in-place writes lost, the log's tail torn, frames left from before a checkpoint, a kill in
// the middle of the replay itself; a transaction larger than the memory bound goes through the log.
import assert from 'node:assert/strict';
import fs, { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EdgememError, NodeFilePageStore, openStore } from 'edgemem';

const CHUNK = 8192;
const dir = mkdtempSync(join(tmpdir(), 'edgemem-redo-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `s${n++}.db`);

/** @param {number} byte */
const page = (byte) => new Uint8Array(CHUNK).fill(byte);
/** @param {number} bytes */
const size = (bytes) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(bytes), true);
  return b;
};

/**
 * Writes chunks `chunks` (index → fill byte) and the size that covers them, as one transaction.
 * @param {NodeFilePageStore} s @param {Record<number, number>} chunks @param {number} [length]
 */
function commit(s, chunks, length) {
  s.transaction(() => {
    for (const [ci, byte] of Object.entries(chunks)) s.put(`db/${ci}`, page(byte));
    const end = (Math.max(...Object.keys(chunks).map(Number)) + 1) * CHUNK;
    const now = Number(
      new DataView(/** @type {Uint8Array} */ (s.get('db/size') ?? size(0)).buffer).getBigUint64(0, true),
    );
    s.put('db/size', size(length ?? Math.max(now, end)));
  });
}

/** The fill byte of each chunk of the database file at `path` (-1: mixed), read from disk. */
function chunksOnDisk(/** @type {string} */ path) {
  const b = readFileSync(path);
  const out = [];
  for (let at = 0; at < b.length; at += CHUNK) {
    const c = b.subarray(at, at + CHUNK);
    out.push(c.every((x) => x === c[0]) ? c[0] : -1);
  }
  return out;
}

/** Copies the store's files as they are now (what a SIGKILL leaves: every write the kernel got) to a new path. */
function crashImage(/** @type {string} */ path) {
  const copy = fresh();
  copyFileSync(path, copy);
  copyFileSync(`${path}-redo`, `${copy}-redo`);
  return copy;
}

/** Opens `path` (replaying its log), returns its chunks as the store reads them, and closes it. */
function recovered(/** @type {string} */ path) {
  const s = new NodeFilePageStore(path);
  const length = Number(
    new DataView(/** @type {Uint8Array} */ (s.get('db/size') ?? size(0)).buffer).getBigUint64(0, true),
  );
  const out = [];
  for (let ci = 0; ci * CHUNK < length; ci++) {
    const c = /** @type {Uint8Array} */ (s.get(`db/${ci}`));
    out.push(c.every((x) => x === c[0]) ? c[0] : -1);
  }
  s.close();
  assert.deepEqual(chunksOnDisk(path), out, 'after close the database file holds what the store read');
  return out;
}

describe('file store redo log', () => {
  it('a transaction is seen inside it, kept when it returns, dropped when it throws', () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    commit(s, { 0: 1 });
    assert.throws(
      () =>
        s.transaction(() => {
          s.put('db/0', page(2));
          s.put('db/1', page(2));
          s.put('db/size', size(2 * CHUNK));
          assert.equal(s.get('db/0')?.[0], 2, 'reads see the running transaction');
          assert.equal(s.get('db/1')?.[0], 2);
          throw new Error('trap');
        }),
      /trap/,
    );
    assert.equal(s.get('db/0')?.[0], 1);
    assert.equal(s.get('db/1'), undefined);
    assert.deepEqual(s.get('db/size'), size(CHUNK));
    commit(s, { 1: 3 });
    s.close();
    assert.deepEqual(chunksOnDisk(path), [1, 3]);
    assert.deepEqual(recovered(path), [1, 3]);
  });

  it('a crash image recovers every committed transaction, also when the in-place writes never reached the disk', () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    commit(s, { 0: 1, 1: 1 });
    s.close(); // checkpointed: the file holds [1, 1], flushed
    const before = readFileSync(path);
    const t = new NodeFilePageStore(path);
    commit(t, { 1: 2, 2: 2 });
    commit(t, { 2: 3, 3: 3 });
    commit(t, { 0: 4 }, 3 * CHUNK); // and cut back to 3 chunks
    const image = crashImage(path);
    const lost = crashImage(path);
    t.close();
    assert.deepEqual(recovered(image), [4, 2, 3]);
    // A power cut loses the writes that were never flushed: the database as of the last checkpoint.
    writeFileSync(lost, before);
    assert.deepEqual(recovered(lost), [4, 2, 3]);
  });

  it('a torn tail is no transaction: cut anywhere in its frames, the log gives the state before it', () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    commit(s, { 0: 1, 1: 1 });
    s.close();
    const t = new NodeFilePageStore(path);
    commit(t, { 0: 2 });
    commit(t, { 1: 3, 2: 3 });
    const image = crashImage(path);
    // The log's layout: a 32-byte header; a 32-byte head before each chunk; a commit frame of 32 + 24 per file.
    const mid = 32 + (32 + CHUNK) + 56;
    const full = mid + 2 * (32 + CHUNK) + 56;
    t.close();
    const redo = readFileSync(`${image}-redo`);
    for (const cut of [mid, mid + 10, mid + 32 + CHUNK, full - 30, full - 1]) {
      const torn = fresh();
      copyFileSync(image, torn);
      // The database as of the checkpoint (a power cut lost the in-place writes), the log cut short.
      writeFileSync(`${torn}-redo`, redo.subarray(0, cut));
      writeFileSync(torn, Buffer.concat([page(1), page(1)]));
      assert.deepEqual(recovered(torn), [2, 1], `log cut at ${cut} of ${full}`);
    }
    // A bit flipped inside the last transaction's chunk fails its checksum the same way.
    const flipped = fresh();
    copyFileSync(image, flipped);
    const bad = Buffer.from(redo);
    bad[full - 100] ^= 1;
    writeFileSync(`${flipped}-redo`, bad);
    writeFileSync(flipped, Buffer.concat([page(1), page(1)]));
    assert.deepEqual(recovered(flipped), [2, 1]);
    assert.deepEqual(recovered(image), [2, 3, 3]);
  });

  it('frames from before a checkpoint are never replayed, nor those of a transaction that threw', () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    commit(s, { 0: 1 });
    commit(s, { 0: 2, 1: 2, 2: 2, 3: 2 });
    s.close(); // checkpoint: a new salt; the old frames stay in the file behind the header
    assert.ok(statSync(`${path}-redo`).size > 4 * CHUNK, 'the old frames are still there');
    // The file changes under the store after the checkpoint, as later commits would: replaying the old frames
    // over it would bring back 2s.
    writeFileSync(path, Buffer.concat([page(5), page(5), page(5), page(5)]));
    assert.deepEqual(recovered(crashImage(path)), [5, 5, 5, 5]);
    const t = new NodeFilePageStore(path);
    assert.throws(() =>
      t.transaction(() => {
        for (let ci = 0; ci < 600; ci++) t.put(`db/${ci}`, page(6)); // past the memory bound: into the log
        t.put('db/size', size(600 * CHUNK));
        throw new Error('trap');
      }),
    );
    commit(t, { 1: 7 }); // overwrites the start of the thrown transaction's frames, not the rest
    const image = crashImage(path);
    t.close();
    writeFileSync(image, Buffer.concat([page(5), page(5), page(5), page(5)])); // only the log has the 7
    assert.deepEqual(recovered(image), [5, 7, 5, 5]);
  });

  it('a kill in the middle of the replay: the next open replays again to the same state', () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    commit(s, { 0: 1, 1: 1, 2: 1 });
    s.close();
    const before = readFileSync(path);
    const t = new NodeFilePageStore(path);
    for (let i = 2; i < 12; i++) commit(t, { [i % 3]: i, [3 + (i % 2)]: i });
    const image = crashImage(path);
    t.close();
    writeFileSync(image, before); // none of it in place: the replay writes it all
    for (const stopAt of [1, 3, 7, 15]) {
      const copy = crashImage(image);
      const real = fs.writeSync;
      let writes = 0;
      fs.writeSync = /** @type {typeof fs.writeSync} */ (
        (/** @type {any[]} */ ...args) => {
          if (++writes === stopAt) throw new Error('killed');
          return /** @type {Function} */ (real)(...args);
        }
      );
      syncBuiltinESMExports();
      try {
        assert.throws(() => new NodeFilePageStore(copy), /killed/);
      } finally {
        fs.writeSync = real;
        syncBuiltinESMExports();
      }
      assert.deepEqual(recovered(copy), [9, 10, 11, 10, 11], `killed at replay write ${stopAt}`);
    }
  });

  it('a transaction past the memory bound moves its chunks to the log, and commits, cuts and recovers alike', () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    commit(s, { 0: 1 });
    const chunks = 1500; // 12 MiB
    s.transaction(() => {
      for (let ci = 0; ci < chunks; ci++) s.put(`db/${ci}`, page(ci % 200));
      s.put('db/size', size(chunks * CHUNK));
      assert.ok(statSync(`${path}-redo`).size > 6 << 20, 'chunks went to the log before the commit');
      assert.equal(s.get('db/3')?.[0], 3, 'read back from the log');
      s.put('db/size', size(1000 * CHUNK + 100)); // a cut after chunks past it were logged
      s.put('db/1000', new Uint8Array(CHUNK)); // the VFS zeroes the rest of a cut chunk
      s.put('db/1000', page(9).subarray(0, 100));
      s.put('db/size', size(1001 * CHUNK));
    });
    const image = crashImage(path);
    s.close();
    writeFileSync(image, page(1)); // only the log has the large transaction
    const want = Array.from({ length: 1001 }, (_, ci) => (ci === 1000 ? -1 : ci % 200));
    assert.deepEqual(recovered(path), want);
    assert.deepEqual(recovered(image), want);
    const tail = readFileSync(path).subarray(1000 * CHUNK);
    assert.deepEqual([tail[0], tail[99], tail[100], tail[CHUNK - 1]], [9, 9, 0, 0]);
  });

  it('commits that pause with a MiB in the log checkpoint on their own: the database flushed, then the log', async () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    /** @type {number[]} */
    const synced = [];
    const real = fs.fdatasyncSync;
    fs.fdatasyncSync = (fd) => {
      synced.push(fd);
      return real(fd);
    };
    syncBuiltinESMExports();
    try {
      commit(s, Object.fromEntries(Array.from({ length: 140 }, (_, ci) => [ci, 1]))); // 1.1 MiB
      assert.equal(synced.length, 1, 'the commit: the log');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(synced.length, 3, 'the checkpoint: the database, then the log');
      assert.notEqual(synced[1], synced[0]);
      assert.equal(synced[2], synced[0]);
    } finally {
      fs.fdatasyncSync = real;
      syncBuiltinESMExports();
    }
    const image = crashImage(path);
    writeFileSync(image, ''); // the log no longer holds the commit: nothing to replay
    assert.deepEqual(recovered(image), []);
    s.close();
  });

  /**
   * Runs `f` with the `k`-th fs.writeSync from now throwing ENOSPC.
   * @template T @param {number} k @param {() => Promise<T>} f @returns {Promise<T>}
   */
  async function diskFullAt(k, f) {
    const real = fs.writeSync;
    let writes = 0;
    fs.writeSync = /** @type {typeof fs.writeSync} */ (
      (/** @type {any[]} */ ...args) => {
        if (++writes === k) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        return /** @type {Function} */ (real)(...args);
      }
    );
    syncBuiltinESMExports();
    try {
      return await f();
    } finally {
      fs.writeSync = real;
      syncBuiltinESMExports();
    }
  }

  it('a commit that cannot reach the log fails its call and keeps none of it; the store goes on', async () => {
    const path = fresh();
    const s = await openStore({ storage: { file: path } });
    await s.put({ namespace: ['d'], key: 'k1', value: 1 });
    const e = await diskFullAt(1, () =>
      s.put({ namespace: ['d'], key: 'k2', value: 2 }).then(
        () => 'ok',
        (err) => err,
      ),
    );
    assert.ok(e instanceof EdgememError && e.code === 'INTERNAL', String(e));
    assert.equal(await s.get(['d'], 'k2'), null);
    await s.put({ namespace: ['d'], key: 'k3', value: 3 });
    await s.close();
    const again = await openStore({ storage: { file: path } });
    assert.deepEqual(
      [await again.get(['d'], 'k1'), await again.get(['d'], 'k2'), await again.get(['d'], 'k3')].map(
        (m) => m?.value ?? null,
      ),
      [1, null, 3],
    );
    await again.close();
  });

  it('a commit in the log whose writes in place fail is kept: the log is replayed before the next call reads', async () => {
    const path = fresh();
    const s = await openStore({ storage: { file: path } });
    await s.put({ namespace: ['d'], key: 'k1', value: 1 });
    // The 1st write is the log's (the commit), the 2nd one in place.
    const ack = await diskFullAt(2, () => s.put({ namespace: ['d'], key: 'k2', value: 'x'.repeat(20000) }));
    assert.ok(ack.seq > 0);
    assert.equal((await s.get(['d'], 'k2'))?.value, 'x'.repeat(20000));
    await s.put({ namespace: ['d'], key: 'k3', value: 3 });
    const image = crashImage(path);
    await s.close();
    for (const p of [path, image]) {
      const again = await openStore({ storage: { file: p } });
      assert.equal((await again.stats()).memories, 3, p);
      assert.equal((await again.get(['d'], 'k2'))?.value, 'x'.repeat(20000));
      await again.close();
    }
  });

  it('a deleted file is removed at the commit, and not when the transaction throws', () => {
    const path = fresh();
    const s = new NodeFilePageStore(path);
    s.transaction(() => {
      s.put('journal/0', page(1));
      s.put('journal/size', size(100));
    });
    assert.equal(statSync(`${path}-journal`).size, 100);
    assert.throws(() =>
      s.transaction(() => {
        s.delete('journal/size');
        assert.equal(s.get('journal/size'), undefined);
        throw new Error('trap');
      }),
    );
    assert.deepEqual(s.get('journal/size'), size(100));
    s.transaction(() => s.delete('journal/size'));
    assert.equal(existsSync(`${path}-journal`), false);
    assert.equal(s.get('journal/0'), undefined);
    s.close();
  });
});
