// @ts-check
/**
 * The MemoryStore contract, memories: put, get, delete, exact numbers, lists and namespaces by prefix with cursors,
 * compare-and-set, atomic batches.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejectsWith, vec } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function memoryCases(fresh) {
  it('puts, gets and deletes a memory', async () => {
    const s = await fresh({ dims: 3 });
    const ack = await s.put({
      namespace: ['user', '42'],
      key: 'coffee',
      value: { likes: 'oat milk' },
      text: 'prefers oat milk flat whites',
      embedding: [0.1, 0.2, 0.3],
      metadata: { kind: 'preference' },
    });
    assert.equal(ack.version, 1);
    assert.ok(Number.isSafeInteger(ack.seq) && ack.seq > 0);
    assert.deepEqual(ack.evicted, []);
    const m = await s.get(['user', '42'], 'coffee');
    assert.ok(m);
    assert.deepEqual(m.namespace, ['user', '42']);
    assert.deepEqual(m.value, { likes: 'oat milk' });
    assert.equal(m.text, 'prefers oat milk flat whites');
    assert.deepEqual(m.metadata, { kind: 'preference' });
    assert.equal(m.version, 1);
    assert.equal(m.seq, ack.seq);
    assert.equal(m.pinned, false);
    assert.equal(m.embedding, undefined, 'embeddings only when asked for');
    const withEmbedding = await s.get(['user', '42'], 'coffee', { includeEmbedding: true });
    assert.deepEqual(withEmbedding?.embedding, vec([0.1, 0.2, 0.3]));

    const ack2 = await s.put({ namespace: ['user', '42'], key: 'coffee', value: 'black' });
    assert.equal(ack2.version, 2);
    assert.ok(ack2.seq > ack.seq);
    assert.equal((await s.get(['user', '42'], 'coffee'))?.value, 'black');

    assert.equal(await s.get(['user', '42'], 'tea'), null);
    const delSeq = await s.delete(['user', '42'], 'coffee');
    assert.ok(delSeq > ack2.seq);
    assert.equal(await s.get(['user', '42'], 'coffee'), null);
    await rejectsWith(s.delete(['user', '42'], 'coffee'), 'NOT_FOUND');
  });

  it('gives numbers back exactly as they were put', async () => {
    const s = await fresh({});
    // Doubles whose shortest decimal form a fast float parser reads one ULP off.
    const value = { xs: [1.1362275116276523e-8, 2.2201838057111728e-13, 0.1, 1e300, -5e-324, 2 ** 53 - 1] };
    await s.put({ namespace: ['n'], key: 'k', value, metadata: { x: 1.1362275116276523e-8 } });
    const m = await s.get(['n'], 'k');
    assert.deepEqual(m?.value, value);
    assert.equal(m?.metadata.x, 1.1362275116276523e-8);
    assert.deepEqual((await s.list({ prefix: ['n'] })).items[0]?.value, value);
    assert.deepEqual((await s.history(['n'], 'k'))[0]?.value, value);
  });

  it('lists by namespace prefix with cursors', async () => {
    const s = await fresh();
    for (let i = 0; i < 5; i++) await s.put({ namespace: ['p', 'a'], key: `k${i}`, value: i });
    await s.put({ namespace: ['p', 'b'], key: 'x', value: 'other' });
    await s.put({ namespace: ['q'], key: 'y', value: 'elsewhere' });

    const keys = [];
    /** @type {string | undefined} */
    let cursor;
    let pages = 0;
    do {
      const page = await s.list({ prefix: ['p', 'a'], limit: 2, cursor });
      assert.ok(page.items.length <= 2);
      keys.push(...page.items.map((m) => m.key));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    assert.deepEqual(keys, ['k0', 'k1', 'k2', 'k3', 'k4']);
    assert.ok(pages >= 3);

    const p = await s.list({ prefix: ['p'] });
    assert.equal(p.items.length, 6);
    assert.equal(p.nextCursor, null);
    assert.equal((await s.list()).items.length, 7);
  });

  it('compare-and-set with ifVersion: CONFLICT on a stale version', async () => {
    const s = await fresh();
    await s.put({ namespace: ['n'], key: 'k', value: 1 });
    const ok = await s.put({ namespace: ['n'], key: 'k', value: 2, ifVersion: 1 });
    assert.equal(ok.version, 2);
    await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 3, ifVersion: 1 }), 'CONFLICT');
    assert.equal((await s.get(['n'], 'k'))?.value, 2);
    await rejectsWith(s.delete(['n'], 'k', { ifVersion: 1 }), 'CONFLICT');
    await s.delete(['n'], 'k', { ifVersion: 2 });
    assert.equal(await s.get(['n'], 'k'), null);
  });

  it('writes a batch atomically', async () => {
    const s = await fresh({ dims: 2 });
    const acks = await s.putBatch([
      { namespace: ['b'], key: 'one', value: 1, embedding: [1, 0] },
      { namespace: ['b'], key: 'two', value: 2 },
      { namespace: ['b'], key: 'three', value: 3, embedding: vec([0, 1]) },
    ]);
    assert.equal(acks.length, 3);
    assert.equal((await s.get(['b'], 'three'))?.value, 3);
    const before = await s.stats();
    await rejectsWith(
      s.putBatch([
        { namespace: ['b'], key: 'four', value: 4 },
        { namespace: ['b'], key: 'five', value: 5, embedding: [1, 2, 3] },
      ]),
      'DIMENSION_MISMATCH',
    );
    await rejectsWith(
      s.putBatch([
        { namespace: ['b'], key: 'four', value: 4 },
        { namespace: ['b'], key: 'one', value: 9, ifVersion: 7 },
      ]),
      'CONFLICT',
    );
    assert.equal(await s.get(['b'], 'four'), null);
    assert.equal((await s.get(['b'], 'one'))?.value, 1);
    assert.equal((await s.stats()).seq, before.seq);
  });

  it('lists namespaces by prefix, suffix, wildcard and depth; filters on value fields; offsets', async () => {
    const s = await fresh();
    for (const ns of [
      ['a', 'b', 'c'],
      ['a', 'b', 'd', 'e'],
      ['a', 'c', 'f'],
      ['b', 'a', 'f'],
      ['users', '1'],
    ]) {
      await s.put({ namespace: ns, key: 'k', value: { size: ns.length, tag: ns[0] }, text: `apple ${ns.join(' ')}` });
    }
    const names = async (/** @type {import('edgemem').ListNamespacesOptions} */ o) =>
      (await s.listNamespaces(o)).map((n) => n.join('/'));
    assert.deepEqual(await names({}), ['a/b/c', 'a/b/d/e', 'a/c/f', 'b/a/f', 'users/1']);
    assert.deepEqual(await names({ prefix: ['a'] }), ['a/b/c', 'a/b/d/e', 'a/c/f']);
    assert.deepEqual(await names({ suffix: ['f'] }), ['a/c/f', 'b/a/f']);
    assert.deepEqual(await names({ prefix: ['*', '*', 'f'] }), ['a/c/f', 'b/a/f']);
    assert.deepEqual(await names({ maxDepth: 2, limit: 2, offset: 1 }), ['a/c', 'b/a']);
    await rejectsWith(s.listNamespaces({ limit: 0 }), 'INVALID_ARGUMENT');

    const listed = await s.list({ valueFilter: [{ field: 'size', op: 'gte', value: 4 }] });
    assert.deepEqual(
      listed.items.map((m) => m.namespace.join('/')),
      ['a/b/d/e'],
    );
    const notA = await s.list({ valueFilter: [{ field: 'tag', op: 'nin', value: ['a'] }], offset: 1 });
    assert.deepEqual(
      notA.items.map((m) => m.namespace.join('/')),
      ['users/1'],
    );
    const hits = await s.search({ text: 'apple', k: 10, valueFilter: [{ field: 'tag', op: 'eq', value: 'a' }] });
    assert.deepEqual(hits.map((h) => h.namespace[0]).sort(), ['a', 'a', 'a']);
    const page = await s.search({ text: 'apple', k: 2, offset: 1 });
    assert.deepEqual(
      page.map((h) => h.key + h.namespace.join('/')),
      (await s.search({ text: 'apple', k: 3 })).slice(1).map((h) => h.key + h.namespace.join('/')),
    );
  });
}
