/**
 * EdgememStore with `index: { fields }` and no `embeddings`, over stores that embed: a local store opened with an
 * embedder (the trigram test embedder, then the built-in e5), a remote agent whose Worker embeds (under Miniflare,
 * against a real OpenAI-compatible server), and a store that does not (refused).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createAgent, EdgememError, mintToken, openStore } from 'edgemem';
import { EdgememStore, storeEmbedder } from 'edgemem/langgraph';
import { e5 } from 'edgemem-e5';
// @ts-expect-error: a JavaScript helper without types
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
// @ts-expect-error: a JavaScript helper without types
import { startEmbeddingsServer } from '../embed/embeddings-server.js';
// @ts-expect-error: a JavaScript helper without types
import { trigramEmbedder, trigramVector } from '../embed/trigram-embedder.js';

const FACTS = {
  coffee: { text: 'Prefers oat milk flat whites', tag: 'drink' },
  dog: { text: 'Has a golden retriever named Biscuit', tag: 'pet' },
  city: { text: 'Moved to Lisbon in 2021 for a new job', tag: 'home' },
  sport: { text: 'Plays tennis every Saturday morning', tag: 'hobby' },
};

async function putFacts(store: EdgememStore): Promise<void> {
  await store.batch(Object.entries(FACTS).map(([key, value]) => ({ namespace: ['user', '42'], key, value })));
}

function near(a: ArrayLike<number>, b: ArrayLike<number>): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThan(1e-6);
}

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(EdgememError);
  expect((e as EdgememError).code).toBe(code);
}

describe('EdgememStore: an index without embeddings, over a store that embeds', () => {
  it("a local store with an embedder: puts store the fields' text and its vector, searches send the query text", async () => {
    const embedder = trigramEmbedder({ dims: 64 });
    const inner = await openStore({ embedder });
    expect(await storeEmbedder(inner)).toEqual({ where: 'client', id: embedder.id, dims: 64 });
    const store = new EdgememStore(inner, { index: { fields: ['text'] } });
    await putFacts(store);
    expect(embedder.calls.map((c: { kind: string }) => c.kind)).toEqual(['passage']);
    const m = await inner.get(['user', '42'], 'dog', { includeEmbedding: true });
    expect(m?.text).toBe(FACTS.dog.text); // the indexed field's text, not the whole value
    near(m!.embedding!, trigramVector(FACTS.dog.text, 64));

    const hybrid = await store.search(['user'], { query: 'golden retriever', limit: 2 });
    expect(hybrid[0]?.key).toBe('dog');
    expect(embedder.calls.at(-1)).toEqual({ texts: ['golden retriever'], kind: 'query' });
    // Vector mode: a misspelling BM25 cannot match, the trigrams can.
    const vector = await store.search(['user'], { query: 'flatwhites oatmilk', limit: 1, mode: 'vector' });
    expect(vector[0]?.key).toBe('coffee');
    expect(vector[0]?.score).toBeGreaterThan(0);
    expect(await store.search(['user'], { query: 'flatwhites oatmilk', limit: 1, mode: 'lexical' })).toEqual([]);
    // `index: false` per put: stored, not indexed.
    await store.put(['user', '42'], 'secret', { text: 'golden retriever owner secret' }, false);
    expect((await inner.get(['user', '42'], 'secret'))?.text ?? null).toBeNull();
    await inner.close();
  });

  it('a store without an embedder is refused (INVALID_ARGUMENT), a dims mismatch is DIMENSION_MISMATCH', async () => {
    const plain = await openStore({ dims: 64 });
    expect(await storeEmbedder(plain)).toBeNull();
    const store = new EdgememStore(plain, { index: { fields: ['text'] } });
    await expectCode(putFacts(store), 'INVALID_ARGUMENT');
    await expectCode(store.search(['user'], { query: 'dog' }), 'INVALID_ARGUMENT');
    expect(await plain.stats()).toMatchObject({ memories: 0 });
    // Without an index, a query still searches lexically.
    await new EdgememStore(plain).put(['n'], 'k', { text: 'a lexical dog' });
    expect((await new EdgememStore(plain).search(['n'], { query: 'dog' }))[0]?.key).toBe('k');
    await plain.close();

    const inner = await openStore({ embedder: trigramEmbedder({ dims: 64 }) });
    await expectCode(
      new EdgememStore(inner, { index: { dims: 32, fields: ['text'] } }).search(['user'], { query: 'dog' }),
      'DIMENSION_MISMATCH',
    );
    await inner.close();
  });

  it('the built-in e5: a question sharing no content word with its fact finds it', async () => {
    const embedder = await e5();
    const inner = await openStore({ embedder });
    const store = new EdgememStore(inner, { index: { fields: ['text'] } });
    await putFacts(store);
    const hits = await store.search(['user', '42'], { query: 'what pet do they own?', limit: 1, mode: 'vector' });
    expect(hits[0]?.key).toBe('dog');
    await inner.close();
  });

  describe('a remote agent whose Worker embeds (Miniflare, an OpenAI-compatible server)', () => {
    const ADMIN = 'langgraph-embedder-admin';
    const dir = mkdtempSync(join(tmpdir(), 'edgemem-langgraph-embedder-'));
    let worker: { mf: { dispose(): Promise<void> }; url: string } | undefined;
    let embeddings:
      | { url: string; requests: { input: string[]; input_type: string }[]; close(): Promise<void> }
      | undefined;

    beforeAll(async () => {
      embeddings = await startEmbeddingsServer();
      bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
      worker = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
    }, 120_000);
    afterAll(async () => {
      await worker?.mf.dispose();
      await embeddings?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function agent(name: string, withEmbedder: boolean) {
      const url = worker!.url;
      const settings = withEmbedder
        ? { embedder: { kind: 'openai', url: embeddings!.url, model: 'tri', dims: 64, inputType: true } }
        : { dims: 64 };
      await createAgent({ url, adminToken: ADMIN, agent: name, settings: settings as never });
      const { token } = await mintToken({ url, adminToken: ADMIN, agent: name, scopes: ['read', 'write'] });
      return connect({ url, agent: name, token });
    }

    it('puts and searches are embedded in the Worker', async () => {
      const remote = await agent('emb-yes', true);
      expect(await storeEmbedder(remote)).toEqual({ where: 'worker', id: 'openai:tri', dims: 64 });
      const store = new EdgememStore(remote, { index: { fields: ['text'] } });
      const before = embeddings!.requests.length;
      await putFacts(store);
      expect(embeddings!.requests.slice(before).map((r) => [r.input_type, r.input.length])).toEqual([['passage', 4]]);
      const m = await remote.get(['user', '42'], 'city', { includeEmbedding: true });
      near(m!.embedding!, trigramVector(FACTS.city.text, 64));
      const hits = await store.search(['user'], { query: 'Lisbon job', limit: 1 });
      expect(hits[0]?.key).toBe('city');
      expect(embeddings!.requests.at(-1)?.input_type).toBe('query');
      await remote.close();
    });

    it('an agent without an embedder is refused (INVALID_ARGUMENT)', async () => {
      const remote = await agent('emb-no', false);
      expect(await storeEmbedder(remote)).toBeNull();
      await expectCode(putFacts(new EdgememStore(remote, { index: { fields: ['text'] } })), 'INVALID_ARGUMENT');
      await remote.close();
    });
  });
});
