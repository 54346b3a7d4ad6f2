// @ts-check
// openaiEmbeddings() against a real OpenAI-compatible server on a local port: the request it sends (model, input,
// key, input_type, prefixes), vectors back in order, and every failure (HTTP error, unreachable, malformed
// answer) as EMBEDDING_FAILED with nothing written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openaiEmbeddings, openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';
import { startEmbeddingsServer } from './embeddings-server.js';
import { trigramVector } from './trigram-embedder.js';

/** @type {Awaited<ReturnType<typeof startEmbeddingsServer>>} */
let server;
before(async () => {
  server = await startEmbeddingsServer({ key: 'sk-test' });
});
after(() => server.close());

describe('openaiEmbeddings', () => {
  it('posts { model, input } with the key and returns one vector per text, in order', async () => {
    const e = openaiEmbeddings({ url: server.url, model: 'tri', dims: 64, apiKey: 'sk-test' });
    assert.equal(e.id, 'openai:tri');
    assert.equal(e.dims, 64);
    assert.equal(e.normalized, true);
    const out = await e.embed(['alpha', 'beta'], 'passage');
    assert.deepEqual(
      out.map((v) => Array.from(v)),
      [trigramVector('alpha', 64), trigramVector('beta', 64)].map((v) => Array.from(v)),
    );
    const r = server.requests.at(-1);
    assert.equal(r.model, 'tri');
    assert.deepEqual(r.input, ['alpha', 'beta']);
    assert.equal(r.authorization, 'Bearer sk-test');
    assert.equal(r.input_type, undefined, 'not sent unless asked');
  });

  it('sends input_type and prefixes when asked; takes the endpoint URL itself', async () => {
    const e = openaiEmbeddings({
      url: `${server.url}/embeddings`,
      model: 'tri',
      dims: 64,
      apiKey: 'sk-test',
      inputType: true,
      prefixes: { query: 'query: ' },
      id: 'my/tri',
    });
    assert.equal(e.id, 'my/tri');
    const [q] = await e.embed(['where'], 'query');
    assert.deepEqual(Array.from(q), Array.from(trigramVector('q:query: where', 64)));
    assert.equal(server.requests.at(-1).input_type, 'query');
    assert.deepEqual(server.requests.at(-1).input, ['query: where']);
  });

  it('a store with it: text-only put and search go through the endpoint', async () => {
    const s = await openStore({
      embedder: openaiEmbeddings({ url: server.url, model: 'tri', dims: 64, apiKey: 'sk-test' }),
    });
    await s.put({ namespace: ['o'], key: 'k', value: 'Prefers oat milk flat whites' });
    assert.equal((await s.search({ text: 'flatwhite', k: 1 }))[0].key, 'k');
    await s.close();
  });

  it('HTTP errors, a wrong key, an unreachable server and malformed answers are EMBEDDING_FAILED; nothing is written', async () => {
    const s = await openStore({
      embedder: openaiEmbeddings({ url: server.url, model: 'tri', dims: 64, apiKey: 'sk-test' }),
    });
    server.fail = true;
    const e = await rejectsWith(s.put({ namespace: ['o'], key: 'k', value: 'text' }), 'EMBEDDING_FAILED');
    assert.match(e.message, /HTTP 500/);
    await rejectsWith(s.search({ text: 'text' }), 'EMBEDDING_FAILED');
    server.fail = false;
    assert.equal((await s.stats()).memories, 0);
    await s.close();

    await rejectsWith(
      openaiEmbeddings({ url: server.url, model: 'tri', dims: 64, apiKey: 'wrong' }).embed(['a'], 'query'),
      'EMBEDDING_FAILED',
    );
    await rejectsWith(
      openaiEmbeddings({ url: server.url, model: 'tri', dims: 32, apiKey: 'sk-test' }).embed(['a'], 'query'),
      'EMBEDDING_FAILED',
    );
    await rejectsWith(
      openaiEmbeddings({ url: `${server.url.replace('/v1', '')}/nowhere`, model: 'tri', dims: 64 }).embed(
        ['a'],
        'query',
      ),
      'EMBEDDING_FAILED',
    );
    const down = await startEmbeddingsServer();
    await down.close();
    const unreachable = await rejectsWith(
      openaiEmbeddings({ url: down.url, model: 'tri', dims: 64 }).embed(['a'], 'query'),
      'EMBEDDING_FAILED',
    );
    assert.match(unreachable.message, /could not be reached/);
    const garbage = openaiEmbeddings({
      url: 'http://x.invalid/v1',
      model: 'm',
      dims: 2,
      fetch: async () => new Response('{"data":[{"embedding":[1,"a"]}]}'),
    });
    await rejectsWith(garbage.embed(['a'], 'query'), 'EMBEDDING_FAILED');
    const notJson = openaiEmbeddings({
      url: 'http://x.invalid/v1',
      model: 'm',
      dims: 2,
      fetch: async () => new Response('<html>'),
    });
    await rejectsWith(notJson.embed(['a'], 'query'), 'EMBEDDING_FAILED');
  });

  it('bad options are INVALID_ARGUMENT', () => {
    for (const o of [
      { url: 'not a url', model: 'm', dims: 2 },
      { url: 'ftp://h/v1', model: 'm', dims: 2 },
      { url: 'http://h/v1', model: '', dims: 2 },
      { url: 'http://h/v1', model: 'm', dims: 0 },
    ]) {
      assert.throws(
        () => openaiEmbeddings(/** @type {any} */ (o)),
        (e) => /** @type {any} */ (e).code === 'INVALID_ARGUMENT',
      );
    }
  });
});
