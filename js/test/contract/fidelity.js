// @ts-check
/**
 * The MemoryStore contract, input fidelity: the same input gives the same stored data on every store, or the
 * same coded error. Object keys such as `__proto__` survive; strings with a lone UTF-16 surrogate (which UTF-8,
 * wasm-bindgen and URLs would turn into U+FFFD) are INVALID_ARGUMENT; keys and thread ids `.` / `..` (which a
 * URL cannot carry) are INVALID_ARGUMENT, and every other key and namespace segment is addressable; JSON nested
 * too deep is INVALID_ARGUMENT, never a RangeError. Registered by ../contract-suite.js inside each store's suite.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rejectsCorruptImports, rejectsWith } from './assertions.js';

/** @typedef {import('edgemem').MemoryStore} MemoryStore */

/** `depth` arrays inside one another around 0. @param {number} depth */
function nested(depth) {
  /** @type {any} */
  let v = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const LONE = 'a\ud800b';

/** @param {(settings?: import('edgemem').StoreSettings) => Promise<MemoryStore>} fresh */
export function fidelityCases(fresh) {
  describe('input fidelity', () => {
    it('keeps __proto__ and constructor keys in values, metadata, checkpoints, payloads and filters', async () => {
      const s = await fresh();
      const value = JSON.parse('{"__proto__":{"x":[1]},"constructor":"c","inner":{"__proto__":null,"toString":2}}');
      const metadata = JSON.parse('{"__proto__":"p","constructor":{"__proto__":1},"kind":"k"}');
      await s.put({ namespace: ['p'], key: 'k', value, metadata, text: 'prototype words' });
      for (const m of [
        await s.get(['p'], 'k'),
        await s.get(['p'], 'k', {}),
        (await s.list()).items[0],
        (await s.history(['p'], 'k'))[0],
      ]) {
        assert.ok(m);
        assert.deepStrictEqual(m.value, value);
        assert.deepStrictEqual(m.metadata, metadata);
        assert.ok(
          Object.hasOwn(m.metadata, '__proto__') && Object.hasOwn(/** @type {any} */ (m.value).inner, '__proto__'),
        );
      }
      const hits = await s.search({ text: 'prototype', filter: [{ field: '__proto__', op: 'eq', value: 'p' }] });
      assert.deepStrictEqual(
        hits.map((h) => [h.key, h.metadata]),
        [['k', metadata]],
      );

      await s.putCheckpoint({ threadId: 't', checkpointId: 'c1', data: value, metadata });
      await s.putWrites({ threadId: 't', checkpointId: 'c1', taskId: 'task', writes: [['ch', value]] });
      const cp = await s.getCheckpoint('t');
      assert.ok(cp);
      assert.deepStrictEqual(cp.data, value);
      assert.deepStrictEqual(cp.metadata, metadata);
      assert.deepStrictEqual(cp.pendingWrites[0]?.value, value);
      const listed = await s.listCheckpoints({ threadId: 't', filter: [{ field: '__proto__', op: 'eq', value: 'p' }] });
      assert.deepStrictEqual(
        listed.map((c) => c.checkpointId),
        ['c1'],
      );

      const seq = await s.notify('chan', value);
      const [event] = await s.changes(seq - 1);
      assert.deepStrictEqual(event?.payload, value);
    });

    it('refuses strings with a lone surrogate everywhere (INVALID_ARGUMENT), and stores nothing altered', async () => {
      const s = await fresh();
      const attempts = [
        () => s.put({ namespace: ['n'], key: LONE, value: 1 }),
        () => s.put({ namespace: [LONE], key: 'k', value: 1 }),
        () => s.put({ namespace: ['n'], key: 'k', value: LONE }),
        () => s.put({ namespace: ['n'], key: 'k', value: 1, text: LONE }),
        () => s.put({ namespace: ['n'], key: 'k', value: { [LONE]: 1 } }),
        () => s.put({ namespace: ['n'], key: 'k', value: 1, metadata: { [LONE]: 1 } }),
        () => s.putBatch([{ namespace: ['n'], key: LONE, value: 1 }]),
        () => s.get(['n'], LONE),
        () => s.get([LONE], 'k'),
        () => s.get(['n'], LONE, {}),
        () => s.delete(['n'], LONE),
        () => s.history([LONE], 'k'),
        () => s.list({ prefix: [LONE] }),
        () => s.search({ text: LONE }),
        () => s.notify(LONE, 1),
        () => s.notify('c', LONE),
        () => s.changes(0, { filter: { channels: [LONE] } }),
        () => s.subscribe({ channels: [LONE] }, () => {}),
        () => s.subscribe({ namespaces: [[LONE]] }, () => {}),
        () => s.putCheckpoint({ threadId: LONE, checkpointId: 'c', data: 1 }),
        () => s.putCheckpoint({ threadId: 't', checkpointId: LONE, data: 1 }),
        () => s.getCheckpoint(LONE),
        () => s.listCheckpoints({ threadId: LONE }),
        () => s.deleteThread(LONE),
      ];
      for (const [i, attempt] of attempts.entries()) {
        const e = await rejectsWith(attempt(), 'INVALID_ARGUMENT');
        assert.ok(e.message.length > 0, `attempt ${i}`);
      }
      const stats = await s.stats();
      assert.equal(stats.memories, 0);
      assert.equal(stats.seq, 0, 'nothing was written');
      // NDJSON text holding a raw lone surrogate (not a \u escape, which the engine's parser refuses itself).
      const source = await fresh();
      await source.put({ namespace: ['n'], key: 'k', value: 'v' });
      let text = '';
      for await (const piece of source.exportStream()) text += piece;
      await rejectsWith(s.importStream(text.replace('"v"', `"${LONE}"`)), 'INVALID_ARGUMENT');
      assert.equal((await s.stats()).seq, 0);
      // A surrogate pair is well-formed: stored and read back as given.
      await s.put({ namespace: ['😀'], key: '😀', value: '😀', metadata: { '😀': 1 } });
      assert.deepStrictEqual((await s.get(['😀'], '😀'))?.metadata, { '😀': 1 });
      assert.equal((await s.changes(0))[0]?.key, '😀');
    });

    it("refuses keys and thread ids '.' and '..' everywhere (a URL cannot carry them)", async () => {
      const s = await fresh();
      for (const key of ['.', '..']) {
        await rejectsWith(s.put({ namespace: ['n'], key, value: 1 }), 'INVALID_ARGUMENT');
        await rejectsWith(s.putBatch([{ namespace: ['n'], key, value: 1 }]), 'INVALID_ARGUMENT');
        await rejectsWith(s.get(['n'], key), 'INVALID_ARGUMENT');
        await rejectsWith(s.get(['n'], key, {}), 'INVALID_ARGUMENT');
        await rejectsWith(s.delete(['n'], key), 'INVALID_ARGUMENT');
        await rejectsWith(s.history(['n'], key), 'INVALID_ARGUMENT');
        await rejectsWith(s.putCheckpoint({ threadId: key, checkpointId: 'c', data: 1 }), 'INVALID_ARGUMENT');
        await rejectsWith(s.getCheckpoint(key), 'INVALID_ARGUMENT');
        await rejectsWith(s.listCheckpoints({ threadId: key }), 'INVALID_ARGUMENT');
        await rejectsWith(
          s.putWrites({ threadId: key, checkpointId: 'c', taskId: 't', writes: [['ch', 1]] }),
          'INVALID_ARGUMENT',
        );
        await rejectsWith(s.deleteThread(key), 'INVALID_ARGUMENT');
      }
      // Nor through import.
      await s.put({ namespace: ['n'], key: 'x', value: 1 });
      await s.putCheckpoint({ threadId: 'x', checkpointId: 'c', data: 1 });
      const doc = await s.export();
      await rejectsCorruptImports(fresh, doc, [
        (d) => {
          d.memories[0].key = '.';
          d.versions.forEach((/** @type {any} */ v) => {
            v.memory.key = '.';
          });
        },
        (d) => {
          d.checkpoints[0].thread_id = '..';
        },
      ]);
    });

    it('addresses every other key and namespace segment: put, get, history, list, delete', async () => {
      const s = await fresh();
      const keys = [
        'a/b',
        '100%',
        '%',
        '%2E',
        '%2e%2E',
        '.%2E',
        '%2F',
        '%25',
        'a?b#c',
        '?',
        '#',
        'a+b c',
        ' ',
        '+',
        'a&b=c',
        'ünï',
        '😀',
        'a.',
        '...',
        '.a',
        '..a',
        '\\',
        "it's",
        'history',
        'batch',
        '%ZZ',
      ];
      const namespaces = [
        ['.'],
        ['..'],
        ['.', '..'],
        ['%'],
        ['%2E'],
        ['+'],
        [' '],
        ['a?b'],
        ['#'],
        ['&'],
        ['='],
        ['ü'],
        ['%2F'],
      ];
      for (const key of keys) await s.put({ namespace: ['k'], key, value: key });
      for (const ns of namespaces) await s.put({ namespace: ns, key: 'k', value: ns.join('|') });
      for (const key of keys) {
        assert.equal((await s.get(['k'], key))?.value, key, key);
        assert.equal((await s.get(['k'], key, { includeEmbedding: false }))?.key, key, key);
        assert.deepStrictEqual(
          (await s.history(['k'], key)).map((m) => m.key),
          [key],
        );
      }
      for (const ns of namespaces) {
        assert.equal((await s.get(ns, 'k'))?.value, ns.join('|'), ns.join('|'));
        assert.deepStrictEqual(
          (await s.list({ prefix: ns })).items.map((m) => [m.namespace, m.key]).filter(([n]) => n.length === ns.length),
          [[ns, 'k']],
        );
      }
      const listed = (await s.list({ prefix: ['k'], limit: 1000 })).items.map((m) => m.key);
      assert.deepStrictEqual([...listed].sort(), [...keys].sort());
      for (const key of keys) await s.delete(['k'], key);
      for (const ns of namespaces) await s.delete(ns, 'k');
      assert.equal((await s.stats()).memories, 0);
      for (const threadId of ['a/b', '%2E', '...', 'a?b#c', '😀']) {
        await s.putCheckpoint({ threadId, checkpointId: 'c', data: threadId });
        assert.equal((await s.getCheckpoint(threadId))?.data, threadId);
        assert.equal(await s.deleteThread(threadId), 1);
      }
    });

    it('refuses JSON nested too deep with INVALID_ARGUMENT (never a RangeError) and keeps what nests less', async () => {
      const s = await fresh();
      for (const depth of [200, 100_000]) {
        const deep = nested(depth);
        await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: deep }), 'INVALID_ARGUMENT');
        await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 1, metadata: { d: deep } }), 'INVALID_ARGUMENT');
        await rejectsWith(s.putBatch([{ namespace: ['n'], key: 'k', value: deep }]), 'INVALID_ARGUMENT');
        await rejectsWith(s.putCheckpoint({ threadId: 't', checkpointId: 'c', data: deep }), 'INVALID_ARGUMENT');
        await rejectsWith(
          s.putCheckpoint({ threadId: 't', checkpointId: 'c', data: 1, metadata: { d: deep } }),
          'INVALID_ARGUMENT',
        );
        await rejectsWith(s.notify('c', deep), 'INVALID_ARGUMENT');
        await rejectsWith(s.search({ text: 'x', filter: [{ field: 'f', op: 'eq', value: deep }] }), 'INVALID_ARGUMENT');
        await rejectsWith(
          s.listCheckpoints({ threadId: 't', filter: [{ field: 'f', op: 'eq', value: deep }] }),
          'INVALID_ARGUMENT',
        );
      }
      assert.equal((await s.stats()).seq, 0, 'nothing was written');
      const ok = nested(100);
      await s.put({ namespace: ['n'], key: 'k', value: ok, metadata: { d: ok } });
      const m = await s.get(['n'], 'k');
      assert.deepStrictEqual(m?.value, ok);
      assert.deepStrictEqual(m?.metadata, { d: ok });
    });
  });
}
