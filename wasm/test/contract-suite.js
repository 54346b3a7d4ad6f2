// @ts-check
/**
 * The MemoryStore contract: behaviour every edgemem store must show, whatever implements it (the
 * in-process wasm store today, the remote client later). `contractSuite(name, factory)` registers the
 * tests with node:test; `factory(settings)` returns a fresh, empty store with those settings.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { EdgememError } from 'edgemem';
import { fidelityCases } from './contract-fidelity.js';

/** @typedef {import('edgemem').MemoryStore} MemoryStore */
/** @typedef {import('edgemem').StoreSettings} StoreSettings */
/** @typedef {(settings?: StoreSettings) => Promise<MemoryStore>} StoreFactory */

/**
 * Awaits `promise`, expecting an EdgememError with `code`.
 * @param {Promise<unknown>} promise
 * @param {import('edgemem').ErrorCode} code
 */
export async function rejectsWith(promise, code) {
  const e = await promise.then(
    () => assert.fail(`expected ${code}, but the call succeeded`),
    (err) => err,
  );
  assert.ok(e instanceof Error, 'an Error');
  assert.ok(e instanceof EdgememError, `an EdgememError, got ${e}`);
  assert.equal(e.name, 'EdgememError');
  assert.equal(e.code, code, e.message);
  assert.equal(typeof e.message, 'string');
  return e;
}

/**
 * Imports `doc` changed by each of `corruptions` into a fresh store: each import is INVALID_ARGUMENT and leaves
 * the store empty.
 * @param {() => Promise<MemoryStore>} fresh
 * @param {import('edgemem').ExportDoc} doc
 * @param {((d: any) => void)[]} corruptions
 */
export async function rejectsCorruptImports(fresh, doc, corruptions) {
  for (const corrupt of corruptions) {
    const bad = JSON.parse(JSON.stringify(doc));
    corrupt(bad);
    const b = await fresh();
    await rejectsWith(b.import(bad), 'INVALID_ARGUMENT');
    const stats = await b.stats();
    assert.deepEqual([stats.memories, stats.seq], [0, 0]);
  }
}

/**
 * Polls `check` until it returns true (subscriptions may deliver asynchronously on remote stores).
 * @param {() => boolean} check
 */
async function waitFor(check, ms = 2000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** @param {number[]} v */
const vec = (v) => Float32Array.from(v);

/**
 * @param {string} name
 * @param {StoreFactory} factory
 */
export function contractSuite(name, factory) {
  describe(`MemoryStore contract: ${name}`, () => {
    /** @type {MemoryStore[]} */
    const open = [];
    /** @param {StoreSettings} [settings] */
    const fresh = async (settings) => {
      const s = await factory(settings);
      open.push(s);
      return s;
    };
    after(async () => {
      for (const s of open) await s.close();
    });

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

    it('searches lexically, by vector and hybrid, with filters', async () => {
      const s = await fresh({ dims: 4 });
      await s.putBatch([
        {
          namespace: ['u', '1'],
          key: 'milk',
          value: 'm',
          text: 'oat milk in coffee',
          embedding: [1, 0, 0, 0],
          metadata: { kind: 'drink', n: 1 },
        },
        {
          namespace: ['u', '1'],
          key: 'tea',
          value: 't',
          text: 'green tea in the morning',
          embedding: [0, 1, 0, 0],
          metadata: { kind: 'drink', n: 2 },
        },
        {
          namespace: ['u', '1'],
          key: 'bike',
          value: 'b',
          text: 'rides a bike to work',
          embedding: [0, 0, 1, 0],
          metadata: { kind: 'habit', n: 3 },
        },
        {
          namespace: ['u', '2'],
          key: 'milk2',
          value: 'm2',
          text: 'milk allergy',
          embedding: [0.9, 0.1, 0, 0],
          metadata: { kind: 'health', n: 4 },
        },
      ]);
      const lex = await s.search({ text: 'milk', mode: 'lexical' });
      assert.deepEqual(lex.map((h) => h.key).sort(), ['milk', 'milk2']);
      assert.ok(lex.every((h) => h.lexicalRank !== null));

      const v = await s.search({ vector: [1, 0, 0, 0], mode: 'vector', k: 2 });
      assert.deepEqual(
        v.map((h) => h.key),
        ['milk', 'milk2'],
      );
      assert.ok(v[0] && v[0].score >= (v[1]?.score ?? 0));

      const hy = await s.search({ text: 'bike', vector: vec([0, 0, 1, 0]), k: 3 });
      assert.equal(hy[0]?.key, 'bike');
      assert.ok(hy[0]?.vectorRank !== null && hy[0]?.lexicalRank !== null);

      const filtered = await s.search({
        vector: [1, 0, 0, 0],
        k: 10,
        filter: [{ field: 'kind', op: 'eq', value: 'drink' }],
      });
      assert.deepEqual(filtered.map((h) => h.key).sort(), ['milk', 'tea']);
      const gt = await s.search({ vector: [1, 0, 0, 0], k: 10, filter: [{ field: 'n', op: 'gte', value: 3 }] });
      assert.deepEqual(gt.map((h) => h.key).sort(), ['bike', 'milk2']);
      const ns = await s.search({ text: 'milk', namespace: ['u', '2'] });
      assert.deepEqual(
        ns.map((h) => h.key),
        ['milk2'],
      );
    });

    it('fuses hybrid rankings by each fusion method, z-scores included', async () => {
      const s = await fresh({ dims: 2 });
      const items = [
        { key: 'a', text: 'red apple pie', embedding: [1, 0] },
        { key: 'b', text: 'apple juice', embedding: [0.8, 0.6] },
        { key: 'c', text: 'green pear', embedding: [0.6, 0.8] },
        { key: 'd', text: 'apple tree by the pear tree', embedding: [0, 1] },
      ];
      await s.putBatch(items.map((m) => ({ ...m, namespace: ['z'], value: m.key })));
      const q = { text: 'apple', vector: [1, 0], k: 4, fusion: { feedbackDocs: 0 } };
      const scores = async (/** @type {any} */ method) =>
        (await s.search({ ...q, fusion: { ...q.fusion, method } })).map((h) => h.score);
      // Relative fusion scales each signal to [0, 1]; z-scores centre each on its mean, so over all the
      // candidates the fused scores sum to 0 and some are negative.
      const relative = await scores('relative');
      assert.ok(
        relative.every((x) => x >= 0 && x <= 1),
        `relative: ${relative}`,
      );
      const z = await scores('z_score');
      assert.equal(z.length, 4);
      assert.ok(Math.abs(z.reduce((a, b) => a + b, 0)) < 1e-9, `z_score: ${z}`);
      assert.ok(
        z.some((x) => x < 0),
        `z_score: ${z}`,
      );
      assert.deepEqual(await scores(undefined), relative, 'relative is the default');
      await rejectsWith(s.search({ ...q, fusion: { method: /** @type {any} */ ('zscore') } }), 'INVALID_ARGUMENT');
    });

    it('expands hybrid questions with feedback words unless told not to', async () => {
      const s = await fresh({ dims: 4 });
      const texts = [
        'kayak trip along the fjord with Ingrid',
        'planning a kayak trip to the fjord, Ingrid says',
        'Ingrid booked the kayak trip on the fjord',
        'the fjord kayak trip, Ingrid and me',
        ...Array.from(
          { length: 20 },
          (_, i) =>
            `a note about the ${['garden', 'invoice', 'piano', 'recipe', 'tennis', 'compiler', 'museum', 'harbour'][i % 8]}`,
        ),
        'Ingrid packed the drysuit for the fjord',
      ];
      await s.putBatch(texts.map((t, i) => ({ namespace: ['f'], key: `k${i}`, value: t, embedding: [1, 0, 0, 0] })));
      const q = { text: 'Which kayak trip?', vector: [0, 1, 0, 0], k: 5 };
      // "fjord" and "ingrid", shared by the best matches, give the drysuit memory a lexical score.
      const withFeedback = await s.search(q);
      assert.equal(withFeedback[4]?.key, 'k24');
      assert.equal(withFeedback[4]?.lexicalRank, 5);
      const without = await s.search({ ...q, fusion: { feedbackDocs: 0 } });
      assert.ok(without.every((h) => h.key !== 'k24'));
      assert.deepEqual(
        await s.search({ ...q, fusion: { feedbackDocs: 5, feedbackTerms: 10, feedbackWeight: 0.3 } }),
        withFeedback,
      );
      for (const fusion of [
        { feedbackDocs: 21 },
        { feedbackTerms: -1 },
        { feedbackWeight: 1.5 },
        { feedbackDocs: 2.5 },
      ]) {
        await rejectsWith(s.search({ ...q, fusion }), 'INVALID_ARGUMENT');
      }
    });

    it('reads and searches AS OF a past seq', async () => {
      const s = await fresh({ dims: 2 });
      const a1 = await s.put({ namespace: ['t'], key: 'k', value: 'first', text: 'alpha', embedding: [1, 0] });
      await s.put({ namespace: ['t'], key: 'k', value: 'second', text: 'beta', embedding: [0, 1] });
      const a3 = await s.put({ namespace: ['t'], key: 'other', value: 'later' });
      assert.equal((await s.get(['t'], 'k', { asOf: { seq: a1.seq } }))?.value, 'first');
      assert.equal((await s.get(['t'], 'k'))?.value, 'second');
      assert.equal(await s.get(['t'], 'other', { asOf: { seq: a1.seq } }), null);
      assert.equal((await s.get(['t'], 'other', { asOf: { seq: a3.seq } }))?.value, 'later');
      const old = await s.list({ prefix: ['t'], asOf: { seq: a1.seq } });
      assert.deepEqual(
        old.items.map((m) => m.value),
        ['first'],
      );
      const hits = await s.search({ text: 'alpha', asOf: { seq: a1.seq } });
      assert.deepEqual(
        hits.map((h) => h.value),
        ['first'],
      );
      assert.deepEqual(await s.search({ text: 'alpha' }), []);
      assert.equal((await s.get(['t'], 'k', { asOf: { time: Date.now() + 1000 } }))?.value, 'second');
    });

    it('keeps history', async () => {
      const s = await fresh();
      await s.put({ namespace: ['h'], key: 'k', value: 1 });
      await s.put({ namespace: ['h'], key: 'k', value: 2 });
      await s.put({ namespace: ['h'], key: 'k', value: 3 });
      const h = await s.history(['h'], 'k');
      assert.deepEqual(
        h.map((m) => m.version),
        [1, 2, 3],
      );
      assert.deepEqual(
        h.map((m) => m.value),
        [1, 2, 3],
      );
      assert.deepEqual(await s.history(['h'], 'nothing'), []);
    });

    it('stores checkpoints and pending writes', async () => {
      const s = await fresh();
      const bytes = Uint8Array.from([0, 1, 2, 250, 255]);
      const seq1 = await s.putCheckpoint({
        threadId: 't1',
        checkpointId: 'c1',
        data: { step: 1 },
        metadata: { source: 'input' },
      });
      assert.ok(seq1 > 0);
      await s.putCheckpoint({
        threadId: 't1',
        checkpointId: 'c2',
        parentId: 'c1',
        data: bytes,
        metadata: { source: 'loop' },
      });
      await s.putCheckpoint({ threadId: 't2', checkpointId: 'x', data: null });

      const latest = await s.getCheckpoint('t1');
      assert.equal(latest?.checkpointId, 'c2');
      assert.equal(latest?.parentId, 'c1');
      assert.deepEqual(latest?.data, bytes);
      const first = await s.getCheckpoint('t1', { checkpointId: 'c1' });
      assert.deepEqual(first?.data, { step: 1 });
      assert.equal(first?.checkpointNs, '');
      assert.equal(await s.getCheckpoint('nope'), null);

      const all = await s.listCheckpoints({ threadId: 't1' });
      assert.deepEqual(
        all.map((c) => c.checkpointId),
        ['c2', 'c1'],
      );
      const older = await s.listCheckpoints({ threadId: 't1', before: 'c2' });
      assert.deepEqual(
        older.map((c) => c.checkpointId),
        ['c1'],
      );
      const bySource = await s.listCheckpoints({
        threadId: 't1',
        filter: [{ field: 'source', op: 'eq', value: 'input' }],
      });
      assert.deepEqual(
        bySource.map((c) => c.checkpointId),
        ['c1'],
      );
      await rejectsWith(s.listCheckpoints({ threadId: 't1', before: 'missing' }), 'NOT_FOUND');

      await s.putWrites({
        threadId: 't1',
        checkpointId: 'c2',
        taskId: 'task',
        writes: [
          ['messages', { text: 'hi' }],
          ['raw', Uint8Array.from([7])],
        ],
      });
      const withWrites = await s.getCheckpoint('t1');
      assert.deepEqual(
        withWrites?.pendingWrites.map((w) => [w.taskId, w.idx, w.channel, w.value]),
        [
          ['task', 0, 'messages', { text: 'hi' }],
          ['task', 1, 'raw', Uint8Array.from([7])],
        ],
      );

      assert.equal(await s.deleteThread('t1'), 2);
      assert.equal(await s.getCheckpoint('t1'), null);
      assert.equal((await s.getCheckpoint('t2'))?.data, null);
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

    it("stores checkpoint channel values once per version, lists across threads, and keeps a task's first writes", async () => {
      const s = await fresh();
      const raw = Uint8Array.from([1, 2, 255]);
      await s.putCheckpoint({
        threadId: 'a',
        checkpointId: 'a1',
        data: {},
        metadata: { source: 'input' },
        channelVersions: { messages: '1', raw: '1' },
        blobs: [
          { channel: 'messages', version: '1', data: ['hi'] },
          { channel: 'raw', version: '1', data: raw },
        ],
      });
      await s.putCheckpoint({ threadId: 'b', checkpointId: 'b1', data: {}, metadata: { source: 'input' } });
      // a2 makes only `step`; `messages` and `raw` are a1's blobs, named again.
      await s.putCheckpoint({
        threadId: 'a',
        checkpointId: 'a2',
        parentId: 'a1',
        data: {},
        metadata: { source: 'loop' },
        channelVersions: { messages: '1', raw: '1', step: '2' },
        blobs: [{ channel: 'step', version: '2', data: 2 }],
      });
      const a2 = await s.getCheckpoint('a');
      assert.deepEqual(a2?.channelVersions, { messages: '1', raw: '1', step: '2' });
      assert.deepEqual(a2?.blobs, [
        { channel: 'messages', version: '1', data: ['hi'] },
        { channel: 'raw', version: '1', data: raw },
        { channel: 'step', version: '2', data: 2 },
      ]);
      assert.deepEqual(
        (await s.listCheckpoints()).map((c) => c.checkpointId),
        ['a2', 'b1', 'a1'],
      );
      assert.deepEqual(
        (await s.listCheckpoints({ before: 'a2', limit: 1 })).map((c) => c.checkpointId),
        ['b1'],
      );
      assert.deepEqual(
        (await s.listCheckpoints({ threadId: 'a', before: 'b1' })).map((c) => c.checkpointId),
        ['a1'],
      );
      const inputs = await s.listCheckpoints({ filter: [{ field: 'source', op: 'eq', value: 'input' }] });
      assert.deepEqual(
        inputs.map((c) => c.checkpointId),
        ['b1', 'a1'],
      );
      await rejectsWith(
        s.putCheckpoint({
          threadId: 'a',
          checkpointId: 'x',
          data: {},
          blobs: [{ channel: '', version: '1', data: 1 }],
        }),
        'INVALID_ARGUMENT',
      );

      await s.putWrites({
        threadId: 'a',
        checkpointId: 'a2',
        taskId: 't',
        writes: [
          ['x', 1],
          ['__interrupt__', 'ask'],
        ],
      });
      await s.putWrites({
        threadId: 'a',
        checkpointId: 'a2',
        taskId: 't',
        writes: [
          ['x', 2],
          ['__interrupt__', 'again'],
        ],
      });
      assert.deepEqual(
        (await s.getCheckpoint('a'))?.pendingWrites.map((w) => [w.idx, w.channel, w.value]),
        [
          [-3, '__interrupt__', 'again'],
          [0, 'x', 1],
        ],
      );
    });

    it('notifies subscribers until they unsubscribe', async () => {
      const s = await fresh();
      /** @type {import('edgemem').ChangeEvent[]} */
      const got = [];
      /** @type {import('edgemem').ChangeEvent[]} */
      const puts = [];
      const sub = await s.subscribe({ kinds: ['notify'], channels: ['room'] }, (e) => got.push(e));
      const subPuts = await s.subscribe({ kinds: ['put'], namespaces: [['watched']] }, (e) => puts.push(e));
      const seq = await s.notify('room', { hello: 'world' });
      await s.notify('elsewhere', 1);
      await s.put({ namespace: ['watched', 'x'], key: 'k', value: 1 });
      await s.put({ namespace: ['ignored'], key: 'k', value: 1 });
      await waitFor(() => got.length >= 1 && puts.length >= 1);
      assert.equal(got.length, 1);
      assert.deepEqual(got[0], { seq, ts: got[0]?.ts, kind: 'notify', channel: 'room', payload: { hello: 'world' } });
      assert.equal(puts.length, 1);
      assert.deepEqual(puts[0]?.namespace, ['watched', 'x']);
      assert.equal(puts[0]?.key, 'k');
      assert.equal(puts[0]?.version, 1);

      await sub.unsubscribe();
      await sub.unsubscribe();
      await s.notify('room', 'after unsubscribe');
      await s.put({ namespace: ['watched'], key: 'k2', value: 2 });
      await waitFor(() => puts.length >= 2);
      assert.equal(got.length, 1);
      await subPuts.unsubscribe();
    });

    it('replays changes after a seq', async () => {
      const s = await fresh();
      const a = await s.put({ namespace: ['c'], key: 'k', value: 1 });
      const d = await s.delete(['c'], 'k');
      const n = await s.notify('ch', 'p');
      const cp = await s.putCheckpoint({ threadId: 'th', checkpointId: 'cp', data: {} });
      const all = await s.changes(0);
      assert.deepEqual(
        all.map((e) => [e.seq, e.kind]),
        [
          [a.seq, 'put'],
          [d, 'delete'],
          [n, 'notify'],
          [cp, 'checkpoint'],
        ],
      );
      assert.deepEqual(
        (await s.changes(d)).map((e) => e.seq),
        [n, cp],
      );
      assert.deepEqual(
        (await s.changes(0, { limit: 1 })).map((e) => e.seq),
        [a.seq],
      );
      assert.deepEqual(
        (await s.changes(0, { filter: { kinds: ['notify'] } })).map((e) => e.payload),
        ['p'],
      );
      assert.deepEqual(await s.changes(cp), []);
    });

    it('sweeps expired memories', async () => {
      const s = await fresh();
      await s.put({ namespace: ['x'], key: 'short', value: 1, ttlMs: 1 });
      await s.put({ namespace: ['x'], key: 'long', value: 2 });
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(await s.get(['x'], 'short'), null);
      assert.equal(await s.sweep(), 1);
      assert.equal((await s.stats()).memories, 1);
      await s.maintain();
    });

    it('reports stats', async () => {
      const s = await fresh({ dims: 2 });
      await s.put({ namespace: ['s'], key: 'a', value: 'x', embedding: [1, 0], pinned: true });
      await s.put({ namespace: ['s'], key: 'b', value: 'y' });
      await s.putCheckpoint({ threadId: 't', checkpointId: 'c', data: 1 });
      const st = await s.stats();
      assert.equal(await s.seq(), st.seq);
      assert.equal(st.memories, 2);
      assert.equal(st.pinnedMemories, 1);
      assert.equal(st.checkpoints, 1);
      assert.equal(st.dims, 2);
      assert.equal(st.metric, 'cosine');
      assert.equal(st.scalar, 'f32');
      assert.equal(st.seq, 3);
      assert.ok(st.bytes > 0 && st.dbBytes > 0);
      assert.equal(Math.max(st.indexVectors, st.indexPending), 1);
    });

    it('round-trips export and import', async () => {
      const a = await fresh({ dims: 2 });
      await a.put({ namespace: ['e'], key: 'k', value: 'v1', text: 'first words', embedding: [1, 0] });
      await a.put({
        namespace: ['e'],
        key: 'k',
        value: 'v2',
        text: 'second words',
        embedding: [0, 1],
        metadata: { m: true },
      });
      await a.put({ namespace: ['e', 'sub'], key: 'j', value: [1, 2, 3], pinned: true });
      await a.putCheckpoint({ threadId: 't', checkpointId: 'c', data: Uint8Array.from([1, 2]) });
      const doc = await a.export();
      assert.equal(doc.format, 'edgemem-export/1');
      assert.equal(doc.seq, 4);

      const b = await fresh({ dims: 2 });
      await b.import(JSON.parse(JSON.stringify(doc)));
      assert.deepEqual(await b.export(), doc);
      assert.deepEqual(await b.get(['e'], 'k'), await a.get(['e'], 'k'));
      assert.deepEqual(await b.history(['e'], 'k'), await a.history(['e'], 'k'));
      assert.deepEqual(
        (await b.search({ text: 'second' })).map((h) => h.key),
        ['k'],
      );
      assert.deepEqual(
        (await b.search({ vector: [0, 1], k: 1 })).map((h) => h.key),
        ['k'],
      );
      assert.deepEqual((await b.getCheckpoint('t'))?.data, Uint8Array.from([1, 2]));
      const next = await b.put({ namespace: ['e'], key: 'new', value: 0 });
      assert.equal(next.seq, 5);
    });

    it('streams export and import as NDJSON, in chunks of whole lines', async () => {
      const a = await fresh({ dims: 2 });
      for (let i = 0; i < 30; i++) {
        await a.put({
          namespace: ['s', String(i % 3)],
          key: `k${i % 10}`,
          value: { i },
          text: `words ${i}`,
          embedding: [1, i + 1],
        });
      }
      await a.putCheckpoint({ threadId: 't', checkpointId: 'c', data: { step: 1 } });
      await a.putWrites({ threadId: 't', checkpointId: 'c', taskId: 'task', writes: [['ch', 'v']] });
      /** @type {string[]} */
      const chunks = [];
      for await (const chunk of a.exportStream({ chunkBytes: 256 })) chunks.push(chunk);
      const text = chunks.join('');
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(lines[0].kind, 'header');
      assert.equal(lines[0].format, 'edgemem-export/2');
      assert.equal(lines.at(-1).kind, 'end');
      assert.deepEqual(
        { versions: lines.at(-1).versions, checkpoints: lines.at(-1).checkpoints, writes: lines.at(-1).writes },
        { versions: 30, checkpoints: 1, writes: 1 },
      );
      const b = await fresh({ dims: 2 });
      // Bytes cut anywhere (inside lines and characters) are reassembled.
      const bytes = new TextEncoder().encode(text);
      const pieces = [];
      for (let i = 0; i < bytes.length; i += 97) pieces.push(bytes.slice(i, i + 97));
      const progress = await b.importStream(pieces);
      assert.deepEqual(progress, { done: true, versions: 30, commits: 31, checkpoints: 1, writes: 1 });
      assert.deepEqual(await b.export(), await a.export());
      assert.deepEqual((await b.put({ namespace: ['s'], key: 'after', value: 1 })).seq, (await a.seq()) + 1);
    });

    it('an NDJSON import cut short, or with a bad line, is INVALID_ARGUMENT and leaves the store empty and writable', async () => {
      const a = await fresh({ dims: 2 });
      for (let i = 0; i < 5; i++) await a.put({ namespace: ['c'], key: `k${i}`, value: i, embedding: [1, i] });
      let text = '';
      for await (const chunk of a.exportStream()) text += chunk;
      const lines = text.trim().split('\n');
      const b = await fresh({ dims: 2 });
      await rejectsWith(b.importStream(lines.slice(0, -1).join('\n')), 'INVALID_ARGUMENT');
      await rejectsWith(
        b.importStream([...lines.slice(0, 3), '{"kind":"version","memory":', ...lines.slice(3)].join('\n')),
        'INVALID_ARGUMENT',
      );
      const dup = [...lines.slice(0, 2), lines[1], ...lines.slice(2)];
      await rejectsWith(b.importStream(dup.join('\n')), 'INVALID_ARGUMENT');
      assert.equal((await b.stats()).memories, 0);
      await b.put({ namespace: ['c'], key: 'mine', value: 1 });
      await rejectsWith(b.importStream(text), 'CONFLICT');
    });

    it('an import is validated like live writes: duplicates, commit times, sizes', async () => {
      const a = await fresh({ dims: 2 });
      await a.put({ namespace: ['v'], key: 'k', value: 1, embedding: [1, 0] });
      await a.put({ namespace: ['v'], key: 'k', value: 2, embedding: [0, 1] });
      await a.putCheckpoint({ threadId: 't', checkpointId: 'c', data: { x: 1 } });
      const doc = await a.export();
      /** @type {((d: any) => void)[]} */
      const corruptions = [
        (d) => {
          d.versions.push(d.versions[0]);
        },
        (d) => {
          d.checkpoints.push(d.checkpoints[0]);
        },
        (d) => {
          d.commits.push(d.commits[0]);
        },
        (d) => {
          d.commits[1][1] = d.commits[0][1] - 1000;
        },
        (d) => {
          d.memories[0].embedding = [3e38, 3e38];
          d.versions[1].memory.embedding = [3e38, 3e38];
        },
      ];
      for (const corrupt of corruptions) {
        const bad = JSON.parse(JSON.stringify(doc));
        corrupt(bad);
        const b = await fresh({ dims: 2 });
        await rejectsWith(b.import(bad), 'INVALID_ARGUMENT');
        assert.equal((await b.stats()).seq, 0);
      }
    });

    it('vectors whose scores would overflow are INVALID_ARGUMENT; every score is finite', async () => {
      const s = await fresh({ dims: 2 });
      for (const embedding of [
        [3e38, 0],
        [3.4e38, 3.4e38],
        [1e-30, 0],
        [2e18, 1],
      ]) {
        await rejectsWith(s.put({ namespace: ['d'], key: 'k', value: 1, embedding }), 'INVALID_ARGUMENT');
        await rejectsWith(s.search({ vector: embedding }), 'INVALID_ARGUMENT');
      }
      await s.put({ namespace: ['d'], key: 'big', value: 1, text: 'x', embedding: [1e17, 1e17] });
      await s.put({ namespace: ['d'], key: 'small', value: 1, text: 'x', embedding: [1e-7, 0] });
      for (const hit of await s.search({ vector: [1e17, -1e17], text: 'x' }))
        assert.ok(Number.isFinite(hit.score), JSON.stringify(hit));
    });

    it('filters on metadata fields a JSON path cannot quote', async () => {
      const s = await fresh();
      const fields = ['a\\b', 'quote"d', '\\', 'a.b', '$[0]', 'sp ace', 'é😀'];
      for (const [i, f] of fields.entries())
        await s.put({ namespace: ['m'], key: `k${i}`, value: i, text: 'common', metadata: { [f]: i } });
      for (const [i, f] of fields.entries()) {
        const hits = await s.search({ text: 'common', k: 50, filter: [{ field: f, op: 'eq', value: i }] });
        assert.deepEqual(
          hits.map((h) => h.key),
          [`k${i}`],
          f,
        );
      }
    });

    it('pages of lists, history, the change feed and checkpoints end by size too, and say where to go on', async () => {
      const s = await fresh();
      const fill = 'x'.repeat(250_000);
      const key = (/** @type {number} */ i) => `k${String(i).padStart(2, '0')}`;
      for (let i = 0; i < 20; i++) await s.put({ namespace: ['big'], key: key(i), value: { i, fill } });
      const first = await s.list({ prefix: ['big'], limit: 1000 });
      assert.ok(first.items.length < 20 && first.nextCursor, `${first.items.length} items`);
      /** @type {string[]} */
      const keys = [];
      /** @type {string | null | undefined} */
      let cursor;
      do {
        const page = await s.list({ prefix: ['big'], limit: 1000, ...(cursor ? { cursor } : {}) });
        keys.push(...page.items.map((m) => m.key));
        cursor = page.nextCursor;
      } while (cursor);
      assert.deepEqual(
        keys,
        Array.from({ length: 20 }, (_, i) => key(i)),
      );

      for (let i = 0; i < 20; i++) await s.put({ namespace: ['h'], key: 'k', value: { i, fill } });
      const hp = await s.historyPage(['h'], 'k');
      assert.ok(
        hp.versions.length < 20 && hp.nextAfterSeq === hp.versions.at(-1)?.seq,
        `${hp.versions.length} versions`,
      );
      assert.deepEqual(
        (await s.history(['h'], 'k')).map((m) => m.version),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const byCount = await s.historyPage(['h'], 'k', { afterSeq: hp.versions[0]?.seq ?? 0, limit: 2 });
      assert.deepEqual(
        byCount.versions.map((m) => m.version),
        [2, 3],
      );

      const after = await s.seq();
      for (let i = 0; i < 80; i++) await s.notify('big', 'p'.repeat(60_000));
      const cp = await s.changesPage(after, { limit: 1000 });
      assert.ok(cp.more && cp.events.length < 80, `${cp.events.length} events`);
      assert.equal((await s.changes(after, { limit: 1000 })).length, 80);

      for (let i = 0; i < 10; i++)
        await s.putCheckpoint({ threadId: 'big', checkpointId: key(i), data: new Uint8Array(600_000).fill(i) });
      const lp = await s.listCheckpointsPage({ threadId: 'big', limit: 1000 });
      assert.ok(
        lp.checkpoints.length < 10 && lp.nextBefore === lp.checkpoints.at(-1)?.checkpointId,
        `${lp.checkpoints.length} checkpoints`,
      );
      const all = await s.listCheckpoints({ threadId: 'big', limit: 1000 });
      assert.deepEqual(
        all.map((c) => c.checkpointId),
        Array.from({ length: 10 }, (_, i) => key(9 - i)),
      );
    });

    fidelityCases(fresh);

    describe('errors are EdgememErrors with stable codes', () => {
      it('INVALID_ARGUMENT', async () => {
        const s = await fresh();
        await rejectsWith(s.put({ namespace: ['n'], key: '', value: 1 }), 'INVALID_ARGUMENT');
        await rejectsWith(s.search({ text: 'x', k: 0 }), 'INVALID_ARGUMENT');
        await rejectsWith(s.putCheckpoint({ threadId: '', checkpointId: 'c', data: 1 }), 'INVALID_ARGUMENT');
        // seqs are never rounded: beyond 2^53-1 is refused, not approximated
        await rejectsWith(s.changes(2 ** 53), 'INVALID_ARGUMENT');
        await rejectsWith(s.get(['n'], 'k', { asOf: { seq: 2 ** 60 } }), 'INVALID_ARGUMENT');
        await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 1, ifVersion: 1.5 }), 'INVALID_ARGUMENT');
        await rejectsWith(s.changes(-1), 'INVALID_ARGUMENT');
        // GET's namespace and key, with and without options (the local store passes them two ways)
        /** @type {[string[], string][]} */
        const badGets = [
          [[], 'k'],
          [[''], 'k'],
          [['a\u001fb'], 'k'],
          [['a\nb'], 'k'],
          [['n'], ''],
        ];
        for (const [ns, key] of badGets) {
          await rejectsWith(s.get(ns, key), 'INVALID_ARGUMENT');
          await rejectsWith(s.get(ns, key, {}), 'INVALID_ARGUMENT');
        }
      });
      it('NOT_FOUND', async () => {
        const s = await fresh();
        await rejectsWith(s.delete(['n'], 'missing'), 'NOT_FOUND');
      });
      it('CONFLICT', async () => {
        const s = await fresh();
        await s.put({ namespace: ['n'], key: 'k', value: 1 });
        await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 1, ifVersion: 5 }), 'CONFLICT');
      });
      it('DIMENSION_MISMATCH', async () => {
        const s = await fresh({ dims: 4 });
        await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 1, embedding: [1, 2, 3] }), 'DIMENSION_MISMATCH');
        await rejectsWith(s.search({ vector: [1, 2] }), 'DIMENSION_MISMATCH');
      });
      it('QUOTA_EXCEEDED', async () => {
        const s = await fresh({ maxBytes: 2000 });
        await rejectsWith(
          s.put({ namespace: ['n'], key: 'k', value: 'x'.repeat(5000), pinned: true }),
          'QUOTA_EXCEEDED',
        );
      });
      it('PAYLOAD_TOO_LARGE', async () => {
        const s = await fresh({ maxMemoryBytes: 1000 });
        await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 'x'.repeat(2000) }), 'PAYLOAD_TOO_LARGE');
      });
      it('RESUME_GAP, with the oldest retained seq', async () => {
        const s = await fresh({ retention: { eventsMax: 2 } });
        for (let i = 0; i < 10; i++) await s.notify('c', i);
        await s.sweep();
        const e = await rejectsWith(s.changes(0), 'RESUME_GAP');
        assert.ok(typeof e.oldestSeq === 'number' && e.oldestSeq > 1);
        const rest = await s.changes(e.oldestSeq - 1);
        assert.equal(rest[0]?.seq, e.oldestSeq);
      });
      it('HISTORY_PRUNED', async () => {
        const s = await fresh({ retention: { historyVersions: 1 } });
        const first = await s.put({ namespace: ['n'], key: 'k', value: 1 });
        for (let i = 2; i < 5; i++) await s.put({ namespace: ['n'], key: 'k', value: i });
        await s.sweep();
        await rejectsWith(s.get(['n'], 'k', { asOf: { seq: first.seq } }), 'HISTORY_PRUNED');
      });
      it('INVALID_ARGUMENT for an import whose seqs or versions pass 2^53-1 (never rounded later)', async () => {
        const a = await fresh();
        await a.put({ namespace: ['n'], key: 'k', value: 1 });
        const doc = await a.export();
        await rejectsCorruptImports(fresh, doc, [
          (d) => {
            d.seq = 2 ** 53;
          },
          (d) => {
            d.memories[0].version = 2 ** 60;
            d.versions[0].memory.version = 2 ** 60;
          },
          (d) => {
            d.memories[0].seq = 2 ** 53 + 2;
          },
          (d) => {
            d.commits[0][0] = 2 ** 64;
          },
        ]);
      });
      it('a closed store refuses calls', async () => {
        const s = await factory();
        await s.put({ namespace: ['n'], key: 'k', value: 1 });
        await s.close();
        await s.close();
        await rejectsWith(s.get(['n'], 'k'), 'INVALID_ARGUMENT');
      });
    });
  });
}
