// @ts-check
// MemoryPageStore, the pages behind `storage: 'memory'`: its transaction keeps a call's writes in an
// overlay that is committed when the call returns and discarded when it throws (how an in-memory store
// survives a trap), reads inside the call see those writes, a nested transaction is part of the outer
// one, and a call that only reads leaves the pages as they were.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryPageStore } from 'edgemem';

const CHUNK = 8192;
/** @param {number} fill */
const page = (fill) => new Uint8Array(CHUNK).fill(fill);

/** @param {MemoryPageStore} store @param {string} key */
const first = (store, key) => store.get(key)?.[0];

describe('MemoryPageStore', () => {
  it('keeps a copy of what put is given (the engine passes a view it reuses)', () => {
    const s = new MemoryPageStore();
    const bytes = page(1);
    s.put('db/0', bytes);
    bytes.fill(9);
    assert.equal(first(s, 'db/0'), 1);
  });

  it('commits a transaction’s writes and deletes when it returns, and shows them inside it', () => {
    const s = new MemoryPageStore();
    s.put('db/0', page(1));
    s.put('db/1', page(2));
    const out = s.transaction(() => {
      s.put('db/0', page(3));
      s.delete('db/1');
      s.put('db/2', page(4));
      assert.equal(first(s, 'db/0'), 3);
      assert.equal(s.get('db/1'), undefined);
      assert.equal(first(s, 'db/2'), 4);
      return 'done';
    });
    assert.equal(out, 'done');
    assert.equal(first(s, 'db/0'), 3);
    assert.equal(s.get('db/1'), undefined);
    assert.equal(first(s, 'db/2'), 4);
    assert.equal(s.bytes, 2 * CHUNK);
  });

  it('discards every write and delete of a transaction that throws', () => {
    const s = new MemoryPageStore();
    s.put('db/0', page(1));
    s.put('db/1', page(2));
    assert.throws(
      () =>
        s.transaction(() => {
          s.put('db/0', page(3));
          s.delete('db/1');
          s.put('db/2', page(4));
          throw new Error('trap');
        }),
      /trap/,
    );
    assert.equal(first(s, 'db/0'), 1);
    assert.equal(first(s, 'db/1'), 2);
    assert.equal(s.get('db/2'), undefined);
    // The next transaction starts clean: nothing of the discarded one comes back.
    s.transaction(() => s.put('db/3', page(5)));
    assert.equal(s.get('db/2'), undefined);
    assert.equal(first(s, 'db/3'), 5);
  });

  it('runs a nested transaction as part of the outer one', () => {
    const s = new MemoryPageStore();
    assert.throws(
      () =>
        s.transaction(() => {
          s.transaction(() => s.put('db/0', page(1)));
          assert.equal(first(s, 'db/0'), 1);
          throw new Error('outer fails');
        }),
      /outer fails/,
    );
    assert.equal(s.get('db/0'), undefined);
  });

  it('leaves the pages as they were after transactions that only read, returning or throwing', () => {
    const s = new MemoryPageStore();
    s.put('db/0', page(1));
    assert.equal(
      s.transaction(() => first(s, 'db/0')),
      1,
    );
    assert.throws(
      () =>
        s.transaction(() => {
          first(s, 'db/0');
          throw new Error('read failed');
        }),
      /read failed/,
    );
    assert.equal(first(s, 'db/0'), 1);
    // Writes outside any transaction go straight to the pages.
    s.put('db/1', page(2));
    assert.equal(first(s, 'db/1'), 2);
    assert.equal(s.bytes, 2 * CHUNK);
  });
});
