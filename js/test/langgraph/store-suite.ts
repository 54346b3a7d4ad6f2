/**
 * EdgememStore against LangGraph's InMemoryStore: the calls of LangGraph's own InMemoryStore tests (and
 * more: filters, batches, vector search over fields), made on both, with the same answers expected where
 * the semantics are LangGraph's. Listing without a query comes back in (namespace, key) order here and in
 * insertion order there, so the tests insert in that order.
 */
import { type BaseStore, InMemoryStore, InvalidNamespaceError, type Item } from '@langchain/langgraph-checkpoint';
import { EdgememError, type MemoryStore } from 'edgemem';
import { EdgememStore } from 'edgemem/langgraph';
import { WordEmbeddings } from './word-embeddings.js';

const DIMS = 32;

/** Items without their timestamps (each store stamps its own), after checking they are Dates. */
function plain<T extends Item | null>(x: T): unknown {
  if (x === null) return null;
  expect(x.createdAt).toBeInstanceOf(Date);
  expect(x.updatedAt).toBeInstanceOf(Date);
  const { createdAt: _c, updatedAt: _u, ...rest } = x as Item & { score?: number };
  if ('score' in rest && typeof rest.score === 'number') rest.score = Math.round(rest.score * 1e4) / 1e4;
  return rest;
}

export function storeSuite(name: string, open: (dims: number) => Promise<MemoryStore>): void {
  describe(`EdgememStore: ${name}`, () => {
    const stores: MemoryStore[] = [];
    afterAll(async () => {
      for (const s of stores) await s.close();
    });
    /** The two stores, plainly or both with the same index. */
    async function pair(indexed = false): Promise<[BaseStore, EdgememStore]> {
      const store = await open(indexed ? DIMS : 0);
      stores.push(store);
      if (!indexed) return [new InMemoryStore(), new EdgememStore(store)];
      const index = { dims: DIMS, embeddings: new WordEmbeddings(DIMS), fields: ['text'] };
      return [new InMemoryStore({ index }), new EdgememStore(store, { index, searchMode: 'vector' })];
    }
    /** Runs `calls` on both stores and expects the same answer. */
    async function same<T>(
      stores: [BaseStore, BaseStore],
      calls: (s: BaseStore) => Promise<T>,
      normalise: (t: T) => unknown = (t) => t,
    ): Promise<void> {
      const want = normalise(await calls(stores[0]));
      expect(normalise(await calls(stores[1]))).toEqual(want);
    }
    const items = (xs: (Item | null)[]) => xs.map(plain);

    it('get, put, delete (InMemoryStore tests)', async () => {
      const s = await pair();
      await same(s, async (st) => {
        await st.put(['test'], '123', { value: 1 });
        const got = plain(await st.get(['test'], '123')); // now: InMemoryStore's items change in place
        await st.put(['test'], '123', { value: 2 });
        const updated = plain(await st.get(['test'], '123'));
        await st.delete(['test'], '123');
        await st.delete(['test'], 'never-there');
        return [got, updated, await st.get(['test'], '123')];
      });
    });

    it('search without a query lists a prefix, with limit and offset', async () => {
      const s = await pair();
      await same(
        s,
        async (st) => {
          await st.put(['other'], '000', { value: 4 });
          await st.put(['test'], '123', { value: 1 });
          await st.put(['test'], '456', { value: 2 });
          await st.put(['test', 'deeper'], '789', { value: 3 });
          return [
            ...(await st.search(['test'])),
            ...(await st.search(['test'], { limit: 1, offset: 1 })),
            ...(await st.search([], { limit: 2 })),
          ];
        },
        items,
      );
    });

    it('filters on value fields with $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin', async () => {
      const s = await pair();
      for (const st of s) {
        for (const [k, v] of [
          ['a', { color: 'red', score: 4.5, n: 1 }],
          ['b', { color: 'blue', score: 3 }],
          ['c', { color: 'red', score: 2, n: 3 }],
        ] as const) {
          await st.put(['docs'], k, v);
        }
      }
      const filters: Record<string, unknown>[] = [
        { color: 'red' },
        { color: { $eq: 'blue' } },
        { color: { $ne: 'red' } },
        { score: { $gt: 3 } },
        { score: { $gte: 3 } },
        { score: { $lt: 3 } },
        { score: { $lte: 3, $gt: 2 } },
        { n: { $in: [1, 3] } },
        { n: { $nin: [1] } },
        { color: 'red', score: { $lt: 3 } },
      ];
      for (const filter of filters) await same(s, (st) => st.search(['docs'], { filter }), items);
    });

    it('listNamespaces: prefix, suffix, wildcards, maxDepth, limit and offset', async () => {
      const s = await pair();
      for (const st of s) {
        for (const ns of [
          ['a', 'b', 'c'],
          ['a', 'b', 'd'],
          ['a', 'c', 'e'],
          ['x', 'y', 'z'],
          ['users', '1', 'facts'],
        ])
          await st.put(ns, 'k', { v: 1 });
      }
      const options = [
        {},
        { prefix: ['a'] },
        { suffix: ['d'] },
        { maxDepth: 2 },
        { limit: 2, offset: 1 },
        { prefix: ['a'], suffix: ['c'], maxDepth: 2 },
        { prefix: ['a', '*', 'c'] },
        { suffix: ['*', 'z'] },
        { prefix: ['non', 'existent'] },
      ];
      for (const o of options) await same(s, (st) => st.listNamespaces(o));
    });

    it('blocks invalid namespaces in put, as InMemoryStore does', async () => {
      const s = await pair();
      const doc = { foo: 'bar' };
      for (const st of s) {
        await expect(st.put([], 'foo', doc)).rejects.toThrow(InvalidNamespaceError);
        await expect(st.put(['the', 'thing.about'], 'foo', doc)).rejects.toThrow(InvalidNamespaceError);
        await expect(st.put(['some', 'fun', ''], 'foo', doc)).rejects.toThrow(InvalidNamespaceError);
        await expect(st.put(['langgraph', 'foo'], 'bar', doc)).rejects.toThrow(InvalidNamespaceError);
      }
      await same(
        s,
        async (st) => {
          await st.put(['foo', 'langgraph', 'foo'], 'bar', doc);
          await st.batch([{ namespace: ['langgraph', 'foo'], key: 'bar', value: doc }]);
          return [await st.get(['foo', 'langgraph', 'foo'], 'bar'), ...(await st.search(['langgraph', 'foo']))];
        },
        items,
      );
    });

    // InMemoryStore returns its live items, which the batch's writes then change: no comparison here.
    it('a batch answers its reads before its writes, and the last write of a key wins', async () => {
      const [, st] = await pair();
      await st.put(['b'], 'k', { v: 'old' });
      const [put, got, , after] = await st.batch([
        { namespace: ['b'], key: 'k', value: { v: 'new' } },
        { namespace: ['b'], key: 'k' },
        { namespace: ['b'], key: 'k', value: { v: 'newest' } },
        { namespacePrefix: ['b'], limit: 10, offset: 0 },
      ]);
      expect(put).toBeUndefined();
      expect((got as Item).value).toEqual({ v: 'old' });
      expect((after as Item[]).map((i) => i.value)).toEqual([{ v: 'old' }]);
      expect((await st.get(['b'], 'k'))?.value).toEqual({ v: 'newest' });
    });

    it('vector search over the indexed fields ranks and scores as InMemoryStore does', async () => {
      const s = await pair(true);
      const docs = [
        ['d1', { text: 'the cat sat on the mat', kind: 'pet' }],
        ['d2', { text: 'dogs chase cats in the park', kind: 'pet' }],
        ['d3', { text: 'stock markets fell sharply today', kind: 'news' }],
        ['d4', { text: 'a recipe for apple pie', kind: 'food' }],
      ] as const;
      for (const st of s) for (const [k, v] of docs) await st.put(['docs'], k, v);
      for (const st of s) await st.put(['docs'], 'unindexed', { text: 'cat cat cat' }, false);
      const scored = (xs: Item[]) => xs.map(plain);
      await same(s, (st) => st.search(['docs'], { query: 'cat on a mat', limit: 3 }), scored);
      await same(s, (st) => st.search(['docs'], { query: 'cats', filter: { kind: 'pet' } }), scored);
      await same(s, (st) => st.search(['docs'], { query: 'markets today', limit: 2, offset: 1 }), scored);
    });

    it('beyond LangGraph: hybrid and lexical ranking, and search as of an earlier seq', async () => {
      const store = await open(DIMS);
      stores.push(store);
      const st = new EdgememStore(store, {
        index: { dims: DIMS, embeddings: new WordEmbeddings(DIMS), fields: ['text'] },
      });
      await st.put(['facts'], 'tea', { text: 'the user drinks green tea every morning' });
      const seq = await store.seq();
      await st.put(['facts'], 'tea', { text: 'the user switched to coffee' });
      const hybrid = await st.search(['facts'], { query: 'green tea' });
      expect(hybrid.map((h) => h.value.text)).toEqual(['the user switched to coffee']);
      const before = await st.search(['facts'], { query: 'green tea', asOf: { seq } });
      expect(before.map((h) => h.value.text)).toEqual(['the user drinks green tea every morning']);
      const lexical = await st.search(['facts'], { query: 'coffee', mode: 'lexical' });
      expect(lexical.map((h) => h.key)).toEqual(['tea']);
      // Without an index a query is matched lexically; a vector search needs an index.
      const plainStore = new EdgememStore(store);
      expect((await plainStore.search(['facts'], { query: 'coffee' })).map((h) => h.key)).toEqual(['tea']);
      await expect(plainStore.search(['facts'], { query: 'coffee', mode: 'vector' })).rejects.toThrow(EdgememError);
    });
  });
}
