// @ts-check
/**
 * Agents with an embedder (the `embedder` setting of `PUT /v1/agents/{agent}`) under Miniflare, against a real
 * OpenAI-compatible server on a local port: text-only PUT, batch and search are embedded at the edge (the key
 * read from a Worker secret, never stored in the agent); the endpoint failing or down is 502 EMBEDDING_FAILED
 * with nothing written; settings naming a missing secret or binding, or another embedder for an agent holding
 * data, are refused. And `connect({ embedder })`: the client embeds before sending. And a replica of such an agent:
 * its text-only writes get the agent's vectors back, and it embeds with the agent's embedder or none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, openaiEmbeddings, openStore } from 'edgemem';
import { startEmbeddingsServer } from '../../js/test/embed/embeddings-server.js';
import { trigramEmbedder, trigramVector } from '../../js/test/embed/trigram-embedder.js';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

const ADMIN = 'embedder-admin';
const KEY = 'sk-embed-test';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-embedder-'));
/** @type {{ mf: import('miniflare').Miniflare, url: string }} */
let worker;
/** @type {Awaited<ReturnType<typeof startEmbeddingsServer>>} */
let embeddings;

before(async () => {
  embeddings = await startEmbeddingsServer({ key: KEY });
  bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
  worker = await startWorker({
    bundle: join(dir, 'bundle'),
    bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '4', EMBEDDINGS_KEY: KEY },
  });
});
after(async () => {
  await worker?.mf.dispose();
  await embeddings?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** @param {string} method @param {string} path @param {unknown} [body] @returns {Promise<{ status: number, body: any }>} */
async function call(method, path, body) {
  const res = await fetch(new URL(path, worker.url), {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** @param {string} [url] */
const endpoint = (url) => ({
  kind: 'openai',
  url: url ?? embeddings.url,
  model: 'tri',
  dims: 64,
  apiKeySecret: 'EMBEDDINGS_KEY',
  inputType: true,
});

/** @param {ArrayLike<number>} a @param {ArrayLike<number>} b */
function assertNear(a, b) {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-6, `component ${i}: ${a[i]} vs ${b[i]}`);
}

describe('an agent with an endpoint embedder', () => {
  it('embeds text-only puts, batches and searches at the edge, with the key from a Worker secret', async () => {
    const set = await call('PUT', '/v1/agents/emb-a', { embedder: endpoint() });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.settings.dims, 64, 'the embedder sets the dims');
    assert.deepEqual(set.body.settings.embedder, endpoint());
    assert.ok(
      !JSON.stringify((await call('GET', '/v1/agents/emb-a')).body).includes(KEY),
      'the key is not in the agent',
    );

    const put = await call('PUT', '/v1/agents/emb-a/memories/coffee?ns=user/42', {
      value: { pref: 'oat' },
      text: 'Prefers oat milk flat whites',
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const req = embeddings.requests.at(-1);
    assert.equal(req.authorization, `Bearer ${KEY}`);
    assert.equal(req.input_type, 'passage');
    assert.deepEqual(req.input, ['Prefers oat milk flat whites']);
    const got = await call('GET', '/v1/agents/emb-a/memories/coffee?ns=user/42&embedding=true');
    assertNear(got.body.embedding, trigramVector('Prefers oat milk flat whites', 64));

    const batch = Array.from({ length: 40 }, (_, i) => ({
      namespace: ['b'],
      key: `k${i}`,
      value: `note number ${i} about tea`,
    }));
    const before = embeddings.requests.length;
    assert.equal((await call('POST', '/v1/agents/emb-a/memories/batch', { memories: batch })).status, 200);
    assert.deepEqual(
      embeddings.requests.slice(before).map((r) => r.input.length),
      [32, 8],
    );

    const hits = await call('POST', '/v1/agents/emb-a/search', { text: 'flatwhite', k: 3 });
    assert.equal(hits.status, 200, JSON.stringify(hits.body));
    assert.equal(embeddings.requests.at(-1).input_type, 'query');
    assert.equal(hits.body.hits[0].key, 'coffee');
    assert.equal(hits.body.hits[0].vectorRank, 1);
    // A body with its own vector is not embedded.
    const n = embeddings.requests.length;
    const own = Array.from(trigramVector('own vector', 64));
    assert.equal(
      (await call('PUT', '/v1/agents/emb-a/memories/own?ns=o', { value: 1, text: 'x', embedding: own })).status,
      200,
    );
    assert.equal((await call('POST', '/v1/agents/emb-a/search', { vector: own, k: 1 })).body.hits[0].key, 'own');
    assert.equal(embeddings.requests.length, n);
  });

  it('an endpoint that fails or is down is 502 EMBEDDING_FAILED, and nothing is written', async () => {
    assert.equal((await call('PUT', '/v1/agents/emb-b', { embedder: endpoint() })).status, 200);
    assert.equal((await call('PUT', '/v1/agents/emb-b/memories/first?ns=n', { value: 'first memory' })).status, 200);
    const seq = (await call('GET', '/v1/agents/emb-b/stats')).body.seq;
    embeddings.fail = true;
    try {
      const put = await call('PUT', '/v1/agents/emb-b/memories/k?ns=n', { value: 'will not be written' });
      assert.equal(put.status, 502);
      assert.equal(put.body.error.code, 'EMBEDDING_FAILED');
      assert.match(put.body.error.message, /HTTP 500/);
      const batch = await call('POST', '/v1/agents/emb-b/memories/batch', {
        memories: [
          { namespace: ['n'], key: 'a', value: 'one' },
          { namespace: ['n'], key: 'b', value: 'two' },
        ],
      });
      assert.equal(batch.status, 502);
      const search = await call('POST', '/v1/agents/emb-b/search', { text: 'memory' });
      assert.equal(search.status, 502);
      assert.equal(search.body.error.code, 'EMBEDDING_FAILED');
    } finally {
      embeddings.fail = false;
    }
    // Down: a port nothing listens on.
    const down = await startEmbeddingsServer();
    await down.close();
    assert.equal((await call('PUT', '/v1/agents/emb-c', { embedder: endpoint(down.url) })).status, 200);
    const unreachable = await call('PUT', '/v1/agents/emb-c/memories/k?ns=n', { value: 'nothing listens' });
    assert.equal(unreachable.status, 502);
    assert.equal(unreachable.body.error.code, 'EMBEDDING_FAILED');
    assert.equal((await call('GET', '/v1/agents/emb-c/stats')).body.seq, 0);

    assert.equal((await call('GET', '/v1/agents/emb-b/stats')).body.seq, seq, 'nothing was written');
    assert.equal((await call('GET', '/v1/agents/emb-b/memories/k?ns=n')).status, 404);
    // Lexical search needs no embedding and still answers.
    assert.equal(
      (await call('POST', '/v1/agents/emb-b/search', { text: 'first', mode: 'lexical' })).body.hits[0].key,
      'first',
    );
  });

  it("refuses settings naming a missing secret, the Worker's own credentials, a missing AI binding, or another embedder for its data", async () => {
    for (const [embedder, pattern] of /** @type {[unknown, RegExp][]} */ ([
      [{ ...endpoint(), apiKeySecret: 'NO_SUCH_SECRET' }, /no secret NO_SUCH_SECRET/],
      [{ ...endpoint(), apiKeySecret: 'ADMIN_TOKEN' }, /own credentials/],
      [{ kind: 'workers-ai', model: '@cf/baai/bge-small-en-v1.5', dims: 384 }, /AI binding/],
      [{ ...endpoint(), url: 'file:///etc/passwd' }, /http/],
    ])) {
      const r = await call('PUT', '/v1/agents/emb-d', { embedder });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'INVALID_ARGUMENT');
      assert.match(r.body.error.message, pattern);
    }
    assert.equal((await call('PUT', '/v1/agents/emb-d', { embedder: endpoint(), dims: 8 })).status, 400);

    // emb-a holds data made by openai:tri: another model of the same dims is refused, naming both; nothing changes.
    const other = await call('PUT', '/v1/agents/emb-a', { embedder: { ...endpoint(), model: 'tri-2' } });
    assert.equal(other.status, 400, JSON.stringify(other.body));
    assert.match(other.body.error.message, /"openai:tri".*"openai:tri-2"/);
    assert.equal((await call('GET', '/v1/agents/emb-a')).body.settings.embedder.model, 'tri');
    assert.equal(
      (await call('POST', '/v1/agents/emb-a/search', { text: 'flatwhite', k: 1 })).body.hits[0].key,
      'coffee',
    );
  });
});

describe('connect({ embedder })', () => {
  it('embeds on the client: text-only put and search against an agent without an embedder', async () => {
    assert.equal((await call('PUT', '/v1/agents/emb-client', { dims: 64 })).status, 200);
    const embedder = trigramEmbedder();
    const store = await connect({ url: worker.url, agent: 'emb-client', token: ADMIN, embedder });
    const n = embeddings.requests.length;
    await store.put({ namespace: ['c'], key: 'k', value: 'Prefers oat milk flat whites' });
    const hits = await store.search({ text: 'flatwhite', k: 1 });
    assert.equal(hits[0].key, 'k');
    assert.equal(hits[0].vectorRank, 1);
    assert.deepEqual(
      embedder.calls.map((c) => c.kind),
      ['passage', 'query'],
    );
    assert.equal(embeddings.requests.length, n, 'the agent itself embedded nothing');
    await store.close();
  });
});

describe('a replica of an agent with an embedder', () => {
  it("gets the agent's vectors for text it wrote without one; embeds with the agent's embedder only", async () => {
    assert.equal((await call('PUT', '/v1/agents/emb-r', { embedder: endpoint() })).status, 200);
    const replicaOf = { url: worker.url, agent: 'emb-r', token: ADMIN, live: false };
    const plain = await openStore({ storage: 'memory', replicaOf });
    await plain.put({ namespace: ['n'], key: 'tea', value: 'Drinks green tea', text: 'Drinks green tea' });
    assert.equal((await plain.get(['n'], 'tea', { includeEmbedding: true }))?.embedding, undefined, 'none here yet');
    await plain.sync();
    const back = await plain.get(['n'], 'tea', { includeEmbedding: true });
    assertNear(back?.embedding ?? [], trigramVector('Drinks green tea', 64));
    const hits = await plain.search({ vector: Array.from(trigramVector('green tea', 64)), k: 1 });
    assert.equal(hits[0]?.key, 'tea', 'searchable by vector on the replica');
    await plain.close();

    // Another embedder than the agent's is refused; the agent's own (the same endpoint) embeds here.
    await assert.rejects(openStore({ storage: 'memory', replicaOf, embedder: trigramEmbedder({ dims: 64 }) }), {
      code: 'INVALID_ARGUMENT',
    });
    const same = openaiEmbeddings({ url: embeddings.url, model: 'tri', dims: 64, apiKey: KEY, inputType: true });
    const local = await openStore({ storage: 'memory', replicaOf, embedder: same });
    await local.put({ namespace: ['n'], key: 'city', value: 'Lives in Lisbon', text: 'Lives in Lisbon' });
    assertNear(
      (await local.get(['n'], 'city', { includeEmbedding: true }))?.embedding ?? [],
      trigramVector('Lives in Lisbon', 64),
    );
    const requests = embeddings.requests.length;
    await local.sync();
    assert.equal(embeddings.requests.length, requests, 'the agent did not embed it again');
    const there = await call('GET', '/v1/agents/emb-r/memories/city?ns=n&embedding=true');
    assertNear(there.body.embedding, trigramVector('Lives in Lisbon', 64));
    await local.close();
  });
});
