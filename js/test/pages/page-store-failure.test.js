// @ts-check
// A page store that starts throwing in the middle of a write (a full disk, a storage limit): the write is
// all or nothing, every earlier acknowledged write is kept, the store goes on once the pages work again,
// and a new instance opening the same pages without the old one's help (an evicted Durable Object, a new
// process) sees exactly that state.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EdgememError, openStore } from 'edgemem';

/** A host's page storage: committed pages, and a transaction overlay an exception discards (like a DO's). */
class HostPages {
  /** @type {Map<string, Uint8Array>} */
  committed = new Map();
  /** @type {Map<string, Uint8Array | undefined> | undefined} */
  overlay;
  /** Page writes left before every later one throws; -1: never. */
  failIn = -1;

  /** @param {string} k */
  get(k) {
    return this.overlay?.has(k) ? this.overlay.get(k) : this.committed.get(k);
  }
  /** @param {string} k @param {Uint8Array} b */
  put(k, b) {
    if (this.failIn === 0) throw new Error('storage full');
    if (this.failIn > 0) this.failIn--;
    (this.overlay ?? this.committed).set(k, b.slice());
  }
  /** @param {string} k */
  delete(k) {
    if (this.overlay) this.overlay.set(k, undefined);
    else this.committed.delete(k);
  }
  sync() {}
  /** @template T @param {() => T} fn @returns {T} */
  transaction(fn) {
    const overlay = new Map();
    this.overlay = overlay;
    try {
      const result = fn();
      for (const [k, v] of overlay) {
        if (v === undefined) this.committed.delete(k);
        else this.committed.set(k, v);
      }
      return result;
    } finally {
      this.overlay = undefined;
    }
  }
  /** Every committed page, for comparing states. */
  fingerprint() {
    return JSON.stringify(
      [...this.committed].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    );
  }
  /** The committed pages alone, as a new instance would find them. */
  copy() {
    const c = new HostPages();
    c.committed = new Map(this.committed);
    return c;
  }
}

/** The PageStore a store is opened with: `host`'s calls, its transaction only when `atomic`. */
function storage(/** @type {HostPages} */ host, /** @type {boolean} */ atomic) {
  /** @type {import('edgemem').PageStore} */
  const pages = {
    get: (k) => host.get(k),
    put: (k, b) => host.put(k, b),
    delete: (k) => host.delete(k),
    sync: () => host.sync(),
  };
  if (atomic) pages.transaction = (fn) => host.transaction(fn);
  return { pages, atomic };
}

/** Checks the 20 kept memories and `memories` in all through `store`. @param {import('edgemem').MemoryStore} store */
async function verify(store, /** @type {number} */ memories) {
  assert.equal((await store.stats()).memories, memories);
  for (let i = 0; i < 20; i++) assert.equal((await store.get(['t'], `k${i}`))?.value, i);
  assert.equal((await store.search({ text: 'kept 7', vector: [7, 1, 0], k: 1 }))[0]?.key, 'k7');
}

/**
 * Makes the page store fail from the n-th page write of a 40-memory batch on, for n = 1, 2, 3, 5, 8, …
 * until the batch gets through: each time the batch is all or nothing and everything before it is kept.
 */
async function failMidWrite(/** @type {boolean} */ atomic) {
  const host = new HostPages();
  const store = await openStore({ dims: 3, storage: storage(host, atomic) });
  for (let i = 0; i < 20; i++)
    await store.put({ namespace: ['t'], key: `k${i}`, value: i, text: `kept ${i}`, embedding: [i, 1, 0] });
  let failed = 0;
  for (let n = 1, prev = 1, round = 0; ; [n, prev] = [n + prev, n], round++) {
    // `r${round}`, not the bare round number: in round 7 a bare "7" would be in every batch item, the word of
    // the verifying search ("kept 7") would be too common to rank by, and k7 would not come first.
    const batch = Array.from({ length: 40 }, (_, j) => ({
      namespace: ['b', String(round)],
      key: `j${j}`,
      value: 'x'.repeat(400),
      text: `batch r${round} item ${j}`,
      embedding: [j, 0, 1],
    }));
    const before = host.fingerprint();
    host.failIn = n - 1;
    const r = await store.putBatch(batch).then(
      () => 'ok',
      (e) => e,
    );
    host.failIn = -1;
    const memories = 20 + 40 * (round - failed);
    if (r === 'ok') {
      await verify(store, memories + 40);
      break;
    }
    failed++;
    assert.ok(r instanceof EdgememError && r.code === 'INTERNAL', String(r));
    // Atomic: nothing of the failed call reached the pages (SQLite's undo record lived in wasm memory).
    if (atomic) assert.equal(host.fingerprint(), before, `write failing at page ${n} left pages behind`);
    // A new instance on the pages as they are now, without the old one's help, sees the same state...
    const fresh = await openStore({ dims: 3, storage: storage(host.copy(), atomic) });
    await verify(fresh, memories);
    assert.equal((await fresh.list({ prefix: ['b', String(round)] })).items.length, 0);
    await fresh.close();
    // ...and so does this one, once the pages work again.
    await verify(store, memories);
    assert.equal((await store.list({ prefix: ['b', String(round)] })).items.length, 0);
  }
  assert.ok(failed >= 3, `failed ${failed} times`);
  const ack = await store.put({ namespace: ['t'], key: 'after', value: 'failure' });
  assert.equal((await store.get(['t'], 'after'))?.seq, ack.seq);
  await store.close();
}

describe('page store failures', () => {
  it('an atomic page store keeps none of a write that failed half way', async () => {
    await failMidWrite(true);
  });

  it('a page store without transactions rolls a failed write back from its journal', async () => {
    await failMidWrite(false);
  });
});
