// @ts-check
/**
 * The MemoryStore contract, errors: every code the store raises is an EdgememError with that stable `code`
 * (RESUME_GAP carrying the oldest retained seq), and a closed store refuses calls.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rejectsCorruptImports, rejectsWith } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/**
 * @param {FreshStore} fresh
 * @param {FreshStore} factory the suite's factory: a store the suite does not close for the test
 */
export function errorCases(fresh, factory) {
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
      await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 'x'.repeat(5000), pinned: true }), 'QUOTA_EXCEEDED');
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
}
