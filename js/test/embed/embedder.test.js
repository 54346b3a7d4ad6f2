// @ts-check
// Stores with an embedder: text-only puts and searches, batches embedded 32 at a time, embedder failures as
// EMBEDDING_FAILED with nothing written, the bare-function form, and unchanged behaviour without one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect, openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';
import { trigramEmbedder, trigramVector } from './trigram-embedder.js';

/** @param {ArrayLike<number>} a @param {ArrayLike<number>} b */
function assertClose(a, b) {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-6, `component ${i}: ${a[i]} vs ${b[i]}`);
}

describe('a store with an embedder', () => {
  it('embeds the text of a put as a passage and a search text as a query: hybrid search by text alone', async () => {
    const embedder = trigramEmbedder();
    const s = await openStore({ embedder });
    assert.equal(s.embedder, embedder);
    assert.equal((await s.stats()).dims, 64, "the store takes the embedder's dims");
    await s.put({ namespace: ['u'], key: 'coffee', value: { pref: 'oat' }, text: 'Prefers oat milk flat whites' });
    await s.put({ namespace: ['u'], key: 'city', value: 'Lives in Lisbon near the river' }); // text from the string value
    await s.put({ namespace: ['u'], key: 'dog', value: {}, text: 'Has a dog called Biscuit' });
    assert.deepEqual(
      embedder.calls.map((c) => c.kind),
      ['passage', 'passage', 'passage'],
    );
    const stored = await s.get(['u'], 'city', { includeEmbedding: true });
    assertClose(/** @type {Float32Array} */ (stored?.embedding), trigramVector('Lives in Lisbon near the river', 64));

    // "flatwhite" shares no word with the memory (no lexical hit) but most of its trigrams (the vector finds it).
    const hits = await s.search({ text: 'flatwhite', k: 3 });
    assert.equal(embedder.calls.at(-1)?.kind, 'query');
    assert.deepEqual(embedder.calls.at(-1)?.texts, ['flatwhite']);
    assert.equal(hits[0].key, 'coffee');
    assert.equal(hits[0].vectorRank, 1);
    assert.deepEqual(await s.search({ text: 'flatwhite', mode: 'lexical' }), [], 'no word matches');
    // A word that matches gets both rankings.
    const both = await s.search({ text: 'Biscuit', k: 3 });
    assert.equal(both[0].key, 'dog');
    assert.equal(both[0].vectorRank, 1);
    assert.equal(both[0].lexicalRank, 1);
    // Lexical mode never calls the embedder; a given vector or embedding is used as it is.
    const calls = embedder.calls.length;
    assert.deepEqual(
      (await s.search({ text: 'Lisbon', mode: 'lexical' })).map((h) => h.key),
      ['city'],
    );
    const own = trigramVector('something else entirely', 64);
    await s.put({ namespace: ['u'], key: 'own', value: 1, text: 'a text', embedding: own });
    assertClose(/** @type {Float32Array} */ ((await s.get(['u'], 'own', { includeEmbedding: true }))?.embedding), own);
    assert.equal((await s.search({ text: 'x', vector: own, k: 1, mode: 'vector' }))[0].key, 'own');
    // No text: nothing to embed.
    await s.put({ namespace: ['u'], key: 'bare', value: { n: 1 } });
    assert.equal(embedder.calls.length, calls);
    await s.close();
  });

  it("answers searchJson with the JSON text of search's hits, the text embedded as for search", async () => {
    const embedder = trigramEmbedder();
    const s = await openStore({ embedder });
    await s.put({ namespace: ['u'], key: 'coffee', value: { pref: 'oat' }, text: 'Prefers oat milk flat whites' });
    await s.put({ namespace: ['u'], key: 'dog', value: {}, text: 'Has a dog called Biscuit' });
    const json = /** @type {{ searchJson(q: object): Promise<string> }} */ (/** @type {unknown} */ (s));
    /** @type {import('edgemem').SearchQuery[]} */
    const queries = [
      { text: 'flatwhite', k: 2 },
      { text: 'Biscuit', mode: 'lexical' },
      { vector: trigramVector('a dog', 64), k: 1 },
    ];
    for (const q of queries) {
      const calls = embedder.calls.length;
      const text = await json.searchJson(q);
      assert.equal(embedder.calls.length - calls, q.text && !q.mode ? 1 : 0, 'embedded only when search would');
      assert.deepEqual(JSON.parse(text), await s.search(q));
    }
    await s.close();
  });

  it("answers searchJson over a store without one (a remote store) with search's hits as JSON", async () => {
    const hit = {
      namespace: ['u'],
      key: 'dog',
      value: { n: 1 },
      text: 'Has a dog called Biscuit',
      metadata: {},
      version: 1,
      seq: 1,
      createdAt: 1,
      updatedAt: 1,
      score: 1,
      vectorRank: 1,
      vectorScore: 0.5,
      lexicalRank: null,
      lexicalScore: null,
    };
    /** @type {unknown[]} */
    const sent = [];
    /** @type {any} */
    const fetch = async (/** @type {Request | string} */ input, /** @type {RequestInit | undefined} */ init) => {
      const req = new Request(input, init);
      sent.push({ path: new URL(req.url).pathname, body: JSON.parse(await req.text()) });
      return new Response(JSON.stringify({ hits: [hit] }), { headers: { 'content-type': 'application/json' } });
    };
    const embedder = trigramEmbedder();
    const s = await connect({ url: 'http://edgemem.test', agent: 'a', token: 't', fetch, embedder });
    const json = /** @type {{ searchJson(q: object): Promise<string> }} */ (/** @type {unknown} */ (s));
    const text = await json.searchJson({ text: 'a dog', k: 1 });
    assert.deepEqual(JSON.parse(text), [hit]);
    assert.deepEqual(JSON.parse(text), await s.search({ text: 'a dog', k: 1 }));
    const first = /** @type {{ path: string, body: { text: string, vector: number[] } }} */ (sent[0]);
    assert.equal(first.path, '/v1/agents/a/search');
    assert.equal(first.body.text, 'a dog');
    assertClose(first.body.vector, trigramVector('a dog', 64));
    await s.close();
  });

  it('embeds a batch put 32 texts at a time, all before writing', async () => {
    const embedder = trigramEmbedder();
    const s = await openStore({ embedder });
    /** @type {import('edgemem').MemoryInput[]} */
    const items = Array.from({ length: 70 }, (_, i) => ({
      namespace: ['b'],
      key: `k${i}`,
      value: i,
      text: `memory number ${i}`,
    }));
    items[5] = { ...items[5], embedding: trigramVector('given', 64) };
    const acks = await s.putBatch(items);
    assert.equal(acks.length, 70);
    assert.deepEqual(
      embedder.calls.map((c) => c.texts.length),
      [32, 32, 5],
    );
    assert.ok(!embedder.calls.flatMap((c) => c.texts).includes('memory number 5'));
    assertClose(
      /** @type {Float32Array} */ ((await s.get(['b'], 'k69', { includeEmbedding: true }))?.embedding),
      trigramVector('memory number 69', 64),
    );
    await s.close();
  });

  it('an embedder that fails or answers badly is EMBEDDING_FAILED, and nothing is written', async () => {
    let mode = 'ok';
    const inner = trigramEmbedder();
    const embedder = {
      id: 'test/flaky',
      dims: 64,
      normalized: true,
      /** @param {string[]} texts @param {'query' | 'passage'} kind */
      async embed(texts, kind) {
        if (mode === 'throw') throw new Error('model exploded');
        if (mode === 'short') return texts.slice(1).map((t) => trigramVector(t, 64));
        if (mode === 'dims') return texts.map((t) => trigramVector(t, 32));
        if (mode === 'nan') return texts.map(() => new Float32Array(64).fill(NaN));
        if (mode === 'second-batch' && inner.calls.length > 0) throw new Error('second batch failed');
        return inner.embed(texts, kind);
      },
    };
    const s = await openStore({ embedder });
    await s.put({ namespace: ['f'], key: 'a', value: 'first text' });
    const before = await s.seq();
    for (const m of ['throw', 'short', 'dims', 'nan']) {
      mode = m;
      const e = await rejectsWith(s.put({ namespace: ['f'], key: 'b', value: 'second text' }), 'EMBEDDING_FAILED');
      assert.match(e.message, /test\/flaky/);
      await rejectsWith(s.search({ text: 'text' }), 'EMBEDDING_FAILED');
    }
    mode = 'second-batch';
    inner.calls.length = 0;
    const batch = Array.from({ length: 40 }, (_, i) => ({ namespace: ['f'], key: `k${i}`, value: `batch text ${i}` }));
    await rejectsWith(s.putBatch(batch), 'EMBEDDING_FAILED');
    assert.equal(await s.seq(), before, 'nothing was written');
    assert.equal((await s.stats()).memories, 1);
    assert.equal(await s.get(['f'], 'b'), null);
    await s.close();
  });

  it('takes a bare async function (dims from one probe call, or from the dims option)', async () => {
    /** @type {string[][]} */
    const seen = [];
    /** @param {string[]} texts */
    const fn = async (texts) => {
      seen.push(texts);
      return texts.map((t) => Array.from(trigramVector(t, 16)));
    };
    const s = await openStore({ embedder: fn });
    assert.equal(s.embedder.dims, 16);
    assert.equal(s.embedder.id, 'function');
    assert.equal(seen.length, 1, 'one probe');
    await s.put({ namespace: ['f'], key: 'k', value: 'hello world' });
    assert.equal((await s.search({ text: 'helloworld', k: 1 }))[0].key, 'k');
    await s.close();
    const t = await openStore({ embedder: fn, dims: 16 });
    assert.equal(seen.length, 3, 'no probe when dims is given');
    await t.close();
    await rejectsWith(openStore({ embedder: trigramEmbedder(), dims: 8 }), 'INVALID_ARGUMENT');
    await rejectsWith(
      openStore({ embedder: /** @type {any} */ ({ id: 'x', dims: 0, normalized: true, embed: fn }) }),
      'INVALID_ARGUMENT',
    );
    await rejectsWith(openStore({ embedder: /** @type {any} */ ('e5') }), 'INVALID_ARGUMENT');
    await rejectsWith(openStore({ reembed: true }), 'INVALID_ARGUMENT');
  });

  it('without an embedder nothing changes: a text search is lexical, a put without embedding has none', async () => {
    const s = await openStore({ dims: 4 });
    await s.put({ namespace: ['n'], key: 'k', value: 'plain words here' });
    const hits = await s.search({ text: 'words' });
    assert.equal(hits[0].key, 'k');
    assert.equal(hits[0].vectorRank, null);
    assert.equal((await s.get(['n'], 'k', { includeEmbedding: true }))?.embedding, undefined);
    assert.equal(/** @type {any} */ (s).embedder, undefined);
    await s.close();
  });
});
