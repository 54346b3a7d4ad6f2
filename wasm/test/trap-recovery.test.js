// @ts-check
// A wasm trap (C++ throw, panic, `unreachable`) poisons the instance: the package re-creates it and
// reopens every store from its page store, so no acknowledged write is lost. Forced with the adapter's
// test-only `__trap()` (edgemem/testing).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EdgememError, openStore } from 'edgemem';
import { forceTrap, trapCount } from 'edgemem/testing';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-trap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Forces a trap and checks it surfaces as an INTERNAL EdgememError. */
async function trap() {
  const before = trapCount();
  const e = await forceTrap().then(() => assert.fail('no trap'), (err) => err);
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
    await s.putBatch(Array.from({ length: 30 }, (_, i) => ({ namespace: ['u'], key: `b${i}`, value: 'y'.repeat(500), embedding: [1, i, 0] })));
    record = false;
    await s.close();
    assert.ok(snapshots.length > 5, `${snapshots.length} page writes`);
    for (const snap of snapshots) {
      const copy = new Map(snap);
      const r = await openStore({ dims: 3, storage: { pages: { get: (k) => copy.get(k), put: (k, v) => void copy.set(k, v.slice()), delete: (k) => void copy.delete(k), sync: () => {} } } });
      const n = (await r.stats()).memories;
      assert.ok(n === 10 || n === 40, `torn write left ${n} memories`);
      for (let i = 0; i < 10; i++) assert.equal((await r.get(['t'], `k${i}`))?.value, i);
      await r.close();
    }
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
