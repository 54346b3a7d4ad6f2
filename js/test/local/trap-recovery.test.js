// @ts-check
// A wasm trap (C++ throw, panic, `unreachable`) poisons the instance: the package re-creates it and
// reopens every store from its page store, so no acknowledged write is lost. Forced with the adapter's
// test-only `__trap()` (edgemem/testing).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EdgememError, MemoryPageStore, openStore } from 'edgemem';
import { forceTrap, trapAfterPageWrites, trapCount } from 'edgemem/testing';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-trap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Forces a trap and checks it surfaces as an INTERNAL EdgememError. */
async function trap() {
  const before = trapCount();
  const e = await forceTrap().then(
    () => assert.fail('no trap'),
    (err) => err,
  );
  assert.ok(e instanceof EdgememError && e.code === 'INTERNAL', String(e));
  assert.ok(e.cause instanceof WebAssembly.RuntimeError);
  assert.equal(trapCount(), before + 1);
}

/**
 * Writes through `store`, traps, and checks every acknowledged write afterwards.
 * @param {import('edgemem').MemoryStore} store
 */
async function writeTrapVerify(store) {
  /** @type {Map<string, number>} */
  const acked = new Map();
  for (let i = 0; i < 20; i++) {
    await store.put({ namespace: ['t'], key: `k${i}`, value: i, text: `memory number ${i}`, embedding: [i, 1, 0] });
    acked.set(`k${i}`, i);
  }
  await store.putCheckpoint({ threadId: 'th', checkpointId: 'c1', data: { at: 'before' } });
  await trap();

  // The next call succeeds transparently, on a fresh instance.
  assert.equal((await store.get(['t'], 'k0'))?.value, 0);
  for (const [key, value] of acked) assert.equal((await store.get(['t'], key))?.value, value, key);
  assert.equal((await store.stats()).memories, 20);
  assert.equal((await store.getCheckpoint('th'))?.checkpointId, 'c1');
  const hits = await store.search({ text: 'number 7', vector: [7, 1, 0], k: 1 });
  assert.equal(hits[0]?.key, 'k7');

  // And it keeps working: writes after the trap continue the seq.
  const before = (await store.stats()).seq;
  const ack = await store.put({ namespace: ['t'], key: 'after', value: 'trap' });
  assert.equal(ack.seq, before + 1);
}

describe('trap recovery', () => {
  it('a file store keeps every acknowledged write across a trap', async () => {
    const s = await openStore({ dims: 3, storage: { file: join(dir, 'a.db') } });
    await writeTrapVerify(s);
    await s.close();
    const again = await openStore({ dims: 3, storage: { file: join(dir, 'a.db') } });
    assert.equal((await again.stats()).memories, 21);
    await again.close();
  });

  it('a memory store (pages in a JS Map) survives a trap too', async () => {
    const s = await openStore({ dims: 3, storage: 'memory' });
    await writeTrapVerify(s);
    await s.close();
  });

  it('a write torn at any page (as a trap mid-transaction leaves it) rolls back on reopen', async () => {
    /** @type {Map<string, Uint8Array>} */
    const pages = new Map();
    /** @type {Map<string, Uint8Array>[]} */
    const snapshots = [];
    let record = false;
    /** @type {import('edgemem').PageStore} */
    const recording = {
      get: (k) => pages.get(k),
      put: (k, v) => {
        pages.set(k, v.slice());
        if (record) snapshots.push(new Map(pages));
      },
      delete: (k) => {
        pages.delete(k);
        if (record) snapshots.push(new Map(pages));
      },
      sync: () => {},
    };
    const s = await openStore({ dims: 3, storage: { pages: recording } });
    for (let i = 0; i < 10; i++) await s.put({ namespace: ['t'], key: `k${i}`, value: i, embedding: [i, 1, 0] });
    record = true;
    await s.putBatch(
      Array.from({ length: 30 }, (_, i) => ({
        namespace: ['u'],
        key: `b${i}`,
        value: 'y'.repeat(500),
        embedding: [1, i, 0],
      })),
    );
    record = false;
    await s.close();
    assert.ok(snapshots.length > 5, `${snapshots.length} page writes`);
    for (const snap of snapshots) {
      const copy = new Map(snap);
      const r = await openStore({
        dims: 3,
        storage: {
          pages: {
            get: (k) => copy.get(k),
            put: (k, v) => void copy.set(k, v.slice()),
            delete: (k) => void copy.delete(k),
            sync: () => {},
          },
        },
      });
      const n = (await r.stats()).memories;
      assert.ok(n === 10 || n === 40, `torn write left ${n} memories`);
      for (let i = 0; i < 10; i++) assert.equal((await r.get(['t'], `k${i}`))?.value, i);
      await r.close();
    }
  });

  /**
   * Traps at the n-th page write of a 40-memory batch, for n = 1, 2, 3, 5, 8, … until the batch gets
   * through untrapped: each time the batch is all-or-nothing after recovery and every earlier write is kept.
   * @param {() => Promise<import('edgemem').MemoryStore>} open
   */
  async function trapMidWrite(open) {
    let store = await open();
    for (let i = 0; i < 20; i++)
      await store.put({ namespace: ['t'], key: `k${i}`, value: i, text: `kept ${i}`, embedding: [i, 1, 0] });
    let trapped = 0;
    for (let n = 1, prev = 1, round = 0; ; [n, prev] = [n + prev, n], round++) {
      const batch = Array.from({ length: 40 }, (_, j) => ({
        namespace: ['b', String(round)],
        key: `j${j}`,
        value: 'x'.repeat(400),
        text: `batch ${round} item ${j}`,
        embedding: [j, 0, 1],
      }));
      trapAfterPageWrites(n);
      const r = await store.putBatch(batch).then(
        () => 'ok',
        (e) => e,
      );
      trapAfterPageWrites(0);
      const { memories } = await store.stats();
      if (r === 'ok') {
        assert.equal(memories, 20 + 40 * (round + 1 - trapped));
        break;
      }
      trapped++;
      assert.ok(r instanceof EdgememError && r.code === 'INTERNAL', String(r));
      assert.equal(memories, 20 + 40 * (round - trapped + 1), `trap at page write ${n}: the batch is all or nothing`);
      assert.equal((await store.list({ prefix: ['b', String(round)] })).items.length, 0);
      for (let i = 0; i < 20; i++) assert.equal((await store.get(['t'], `k${i}`))?.value, i);
      assert.equal((await store.search({ text: 'kept 7', vector: [7, 1, 0], k: 1 }))[0]?.key, 'k7');
      // Reopening from storage (a new process would) sees the same state.
      await store.close();
      store = await open();
      assert.equal((await store.stats()).memories, memories);
    }
    assert.ok(trapped >= 3, `trapped ${trapped} times`);
    await store.close();
  }

  it('a trap in the middle of a write: file storage discards the write (never reaches its redo log)', async () => {
    const file = join(dir, 'mid.db');
    await trapMidWrite(() => openStore({ dims: 3, storage: { file } }));
  });

  it('a trap in the middle of a write: an atomic page store discards the write', async () => {
    const mem = new MemoryPageStore();
    /** @type {import('edgemem').PageStore} a host's storage: outlives every store opened over it */
    const pages = {
      get: (k) => mem.get(k),
      put: (k, b) => mem.put(k, b),
      delete: (k) => mem.delete(k),
      sync: () => {},
      transaction: (fn) => mem.transaction(fn),
    };
    await trapMidWrite(() => openStore({ dims: 3, storage: { pages, atomic: true } }));
  });

  it('atomic: true without a host transaction is refused (a trap would tear the database)', async () => {
    const pages = new MemoryPageStore();
    /** @type {import('edgemem').PageStore} */
    const noTx = {
      get: (k) => pages.get(k),
      put: (k, b) => pages.put(k, b),
      delete: (k) => pages.delete(k),
      sync: () => {},
    };
    const e = await openStore({ storage: { pages: noTx, atomic: true } }).then(
      () => assert.fail('accepted'),
      (err) => err,
    );
    assert.ok(e instanceof EdgememError && e.code === 'INVALID_ARGUMENT', String(e));
    const s = await openStore({ storage: { pages: noTx } }); // non-atomic: journals into the pages
    await s.put({ namespace: ['a'], key: 'k', value: 1 });
    await s.close();
    const bad = await openStore({ storage: { pages: /** @type {any} */ ({ get() {} }) } }).then(
      () => 'accepted',
      (err) => err,
    );
    assert.ok(bad instanceof EdgememError && bad.code === 'INVALID_ARGUMENT', String(bad));
  });

  it('every open store recovers, and subscriptions continue', async () => {
    const a = await openStore({ storage: 'memory' });
    const b = await openStore({ storage: { file: join(dir, 'b.db') } });
    /** @type {unknown[]} */
    const got = [];
    const sub = await a.subscribe({ channels: ['c'], kinds: ['notify'] }, (e) => got.push(e.payload));
    await a.notify('c', 'before');
    await b.put({ namespace: ['b'], key: 'k', value: 1 });
    await trap();
    await trap(); // twice in a row: stores skip the intermediate instance
    await a.notify('c', 'after');
    assert.deepEqual(got, ['before', 'after']);
    assert.equal((await b.get(['b'], 'k'))?.value, 1);
    await sub.unsubscribe();
    await a.notify('c', 'unsubscribed');
    assert.deepEqual(got, ['before', 'after']);
    await a.close();
    await b.close();
  });
});
