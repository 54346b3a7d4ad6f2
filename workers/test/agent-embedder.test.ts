/**
 * Agents with an embedder (the `embedder` setting, src/agent-embedder.ts) through the Worker's real routes and fast
 * paths, against a real OpenAI-compatible endpoint on a local port (embeddings-endpoint.mjs): a text-only PUT stores
 * the vector the endpoint answered for its passage, a text-only SEARCH is hybrid over the embedded query (the fast
 * paths answer as the router), a failing endpoint is 502 EMBEDDING_FAILED with nothing written while the agent's other
 * calls keep working, and the key comes from the Worker secret the setting names, read at each call (a missing one
 * is refused when the setting is saved, EMBEDDING_FAILED if it goes later).
 */

import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { fastMemoryPut, fastSearch } from '../src/fast-path';
import { threeAgents } from './fast-path-harness';
import { agentId, api, expectError } from './helpers';

declare module 'vitest' {
  interface ProvidedContext {
    embeddingsEndpoint: { url: string; dims: number };
  }
}

const endpoint = inject('embeddingsEndpoint');
const DIMS = endpoint.dims;
const KEY = 'sk-edgemem-test'; // EMBEDDINGS_TEST_KEY in wrangler.test.jsonc
const json = (o: unknown) => JSON.stringify(o);

type Mode = 'ok' | 'http500' | 'not-json' | 'short' | 'huge';

interface Logged {
  body: { model: string; input: string[]; input_type?: string; encoding_format?: string };
  authorization: string | null;
  mode: Mode;
  answered: number[][];
}

/** An `openai` embedder setting for the endpoint under `tag` (its request log) answering as `mode`. */
function embedder(tag: string, mode: Mode = 'ok', extra: Record<string, unknown> = {}) {
  return {
    kind: 'openai',
    url: `${endpoint.url}/${tag}/${mode}/v1`,
    model: 'trigram-test',
    dims: DIMS,
    apiKeySecret: 'EMBEDDINGS_TEST_KEY',
    inputType: true,
    prefixes: { query: 'query: ', passage: 'passage: ' },
    ...extra,
  };
}

/** What the endpoint received under `tag`, oldest first. */
async function logged(tag: string): Promise<Logged[]> {
  const res = await fetch(`${endpoint.url}/${tag}/requests`);
  expect(res.status).toBe(200);
  return (await res.json()) as Logged[];
}

/** The vector the endpoint answers for `input` (asked directly, under a tag of its own). */
async function endpointVector(input: string): Promise<number[]> {
  const res = await fetch(`${endpoint.url}/direct/ok/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: json({ model: 'trigram-test', input: [input] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { embedding: number[] }[] }).data[0]!.embedding;
}

function expectNear(got: ArrayLike<number>, want: ArrayLike<number>): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i]!, 5);
}

/** An agent (f32 vectors: exact scores) with the embedder for `tag`/`mode`. */
async function agentWithEmbedder(tag: string, mode: Mode = 'ok', agent = agentId('emb')): Promise<string> {
  const r = await api('PUT', `/v1/agents/${agent}`, { body: { scalar: 'f32', embedder: embedder(tag, mode) } });
  expect(r.status, r.text).toBe(200);
  return agent;
}

const mem = (a: string, key: string, ns = 'notes') => `/v1/agents/${a}/memories/${key}?ns=${ns}`;

describe('an agent with an openai embedder', () => {
  it('a text-only PUT stores the vector the endpoint answered for the passage, the key sent as bearer', async () => {
    const tag = agentId('put');
    const a = agentId('emb');
    const set = await api('PUT', `/v1/agents/${a}`, { body: { scalar: 'f32', embedder: embedder(tag) } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.settings).toMatchObject({ dims: DIMS, scalar: 'f32', embedder: embedder(tag) });
    expect(set.text).not.toContain(KEY);
    expect(await logged(tag)).toEqual([]); // saving the setting embeds nothing

    const text = 'Prefers oat milk flat whites';
    const put = await api('PUT', mem(a, 'coffee'), { body: { value: { pref: 'oat' }, text } });
    expect(put.status, put.text).toBe(200);
    const [req, ...more] = await logged(tag);
    expect(more).toEqual([]);
    expect(req!.authorization).toBe(`Bearer ${KEY}`);
    expect(req!.body).toEqual({
      model: 'trigram-test',
      input: [`passage: ${text}`],
      input_type: 'passage',
      encoding_format: 'float',
    });
    // The stored vector is the endpoint's answer for the prefixed passage (and not the unprefixed text's).
    const got = await api('GET', `${mem(a, 'coffee')}&embedding=true`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ value: { pref: 'oat' }, text });
    expectNear(got.body.embedding, req!.answered[0]!);
    expectNear(got.body.embedding, await endpointVector(`passage: ${text}`));
    expect(await endpointVector(text)).not.toEqual(req!.answered[0]);

    // A vector-only search with that vector finds it first with a score of 1, and embeds nothing.
    const hits = await api('POST', `/v1/agents/${a}/search`, { body: { vector: req!.answered[0], k: 1 } });
    expect(hits.status, hits.text).toBe(200);
    expect(hits.body.hits[0]).toMatchObject({ key: 'coffee', vectorRank: 1 });
    expect(hits.body.hits[0].score).toBeCloseTo(1, 5);
    // A body with its own embedding is not embedded either.
    expect(
      (await api('PUT', mem(a, 'own'), { body: { value: 1, text: 'own', embedding: got.body.embedding } })).status,
    ).toBe(200);
    expect(await logged(tag)).toHaveLength(1);
  });

  it('a text-only PUT through the fast path embeds as the router does', async () => {
    const tag = agentId('put-fast');
    const { agents, setUp, read, expectAnsweredAsRouter } = threeAgents('emb-put', 'PUT', fastMemoryPut);
    await setUp();
    for (const agent of Object.values(agents)) await agentWithEmbedder(tag, 'ok', agent);
    await expectAnsweredAsRouter([
      {
        what: 'text only',
        path: '/memories/k?ns=t',
        body: json({ value: 1, text: 'green tea at noon' }),
        status: 200,
        taken: true,
      },
    ]);
    const log = await logged(tag);
    expect(log.map((r) => r.body.input)).toEqual(Array(3).fill(['passage: green tea at noon']));
    const want = await endpointVector('passage: green tea at noon');
    for (const side of ['router', 'worker', 'fast'] as const) {
      expectNear(((await read(side, '/memories/k?ns=t&embedding=true')) as { embedding: number[] }).embedding, want);
    }
  });

  describe('a text-only SEARCH', () => {
    const tag = agentId('search');
    const { agents, setUp, expectAnsweredAsRouter } = threeAgents('emb-search', 'POST', fastSearch, {
      oneAgent: true,
      auth: 'read',
    });
    const question = 'flat white';
    let queryVector: number[];

    beforeAll(async () => {
      await setUp();
      await agentWithEmbedder(tag, 'ok', agents.router);
      queryVector = await endpointVector(`query: ${question}`);
      // `twin` shares no word with the question but holds its query vector; `words` holds its words, another vector.
      const memories = [
        { namespace: ['s'], key: 'twin', value: 1, text: 'zebra umbrella', embedding: queryVector },
        {
          namespace: ['s'],
          key: 'words',
          value: 2,
          text: 'a flat white please',
          embedding: await endpointVector('passage: unrelated'),
        },
      ];
      const put = await api('POST', `/v1/agents/${agents.router}/memories/batch`, { body: { memories } });
      expect(put.status, put.text).toBe(200);
    });

    it('is hybrid: the embedded query finds the memory holding its vector, BM25 the one holding its words', async () => {
      const before = (await logged(tag)).length;
      const r = await api('POST', `/v1/agents/${agents.router}/search`, { body: { text: question, k: 5 } });
      expect(r.status, r.text).toBe(200);
      const log = (await logged(tag)).slice(before);
      expect(log.map((q) => q.body)).toEqual([
        { model: 'trigram-test', input: [`query: ${question}`], input_type: 'query', encoding_format: 'float' },
      ]);
      const byKey = Object.fromEntries(r.body.hits.map((h: any) => [h.key, h]));
      expect(byKey.twin).toMatchObject({ vectorRank: 1 });
      expect(byKey.twin.vectorScore).toBeCloseTo(1, 5);
      expect(byKey.words).toMatchObject({ lexicalRank: 1 });
      // Lexical mode and a body with a vector are not embedded; lexical mode does not find `twin`.
      const lexical = await api('POST', `/v1/agents/${agents.router}/search`, {
        body: { text: question, mode: 'lexical' },
      });
      expect(lexical.body.hits.map((h: any) => h.key)).toEqual(['words']);
      const own = await api('POST', `/v1/agents/${agents.router}/search`, {
        body: { text: question, vector: queryVector, k: 5 },
      });
      expect(own.body).toEqual(r.body);
      expect(await logged(tag)).toHaveLength(before + 1);
    });

    it('the fast path answers as the router (the engine hits JSON passed through), embedding the query', async () => {
      const before = (await logged(tag)).length;
      await expectAnsweredAsRouter([
        { what: 'text only', path: '/search', body: json({ text: question, k: 5 }), status: 200, taken: true },
        {
          what: 'text only, filtered, no feedback',
          path: '/search',
          body: json({ text: question, k: 1, namespace: ['s'], fusion: { feedbackDocs: 0 } }),
          status: 200,
          taken: true,
        },
      ]);
      // Each of the three sides embedded each question once.
      expect((await logged(tag)).slice(before).map((q) => q.body.input)).toEqual(Array(6).fill([`query: ${question}`]));
    });
  });

  describe('an endpoint that fails', () => {
    const failures: [Mode, RegExp][] = [
      ['http500', /HTTP 500.*the model is down/],
      ['not-json', /something other than JSON/],
      ['short', /malformed embedding/],
      ['huge', /non-finite number/],
    ];

    for (const [mode, message] of failures) {
      it(`${mode}: text-only PUT and SEARCH are 502 EMBEDDING_FAILED, nothing is written, the rest works`, async () => {
        const tag = agentId(mode);
        const a = await agentWithEmbedder(tag, mode);
        const vector = await endpointVector('passage: kept');
        expect((await api('PUT', mem(a, 'kept'), { body: { value: 'kept', embedding: vector } })).status).toBe(200);

        const put = await api('PUT', mem(a, 'lost'), { body: { value: 'lost', text: 'never stored' } });
        expectError(put, 502, 'EMBEDDING_FAILED');
        expect(put.body.error.message).toMatch(message);
        const batch = await api('POST', `/v1/agents/${a}/memories/batch`, {
          body: { memories: [{ namespace: ['notes'], key: 'b', value: 'batch' }] },
        });
        expectError(batch, 502, 'EMBEDDING_FAILED');
        const search = await api('POST', `/v1/agents/${a}/search`, { body: { text: 'kept' } });
        expectError(search, 502, 'EMBEDDING_FAILED');
        expect(search.body.error.message).toMatch(message);
        expect((await logged(tag)).map((r) => r.body.input)).toEqual([
          ['passage: never stored'],
          ['passage: batch'],
          ['query: kept'],
        ]);

        // Nothing was written, and the object still answers everything that needs no embedding.
        expect((await api('GET', `/v1/agents/${a}/stats`)).body.seq).toBe(1);
        expectError(await api('GET', mem(a, 'lost')), 404, 'NOT_FOUND');
        expect((await api('GET', mem(a, 'kept'))).body.value).toBe('kept');
        expect((await api('PUT', mem(a, 'more'), { body: { value: 'more', embedding: vector } })).status).toBe(200);
        const byVector = await api('POST', `/v1/agents/${a}/search`, { body: { vector, k: 2 } });
        expect(byVector.body.hits.map((h: any) => h.key).sort()).toEqual(['kept', 'more']);
        const lexical = await api('POST', `/v1/agents/${a}/search`, { body: { text: 'more', mode: 'lexical' } });
        expect(lexical.body.hits.map((h: any) => h.key)).toEqual(['more']);
        // It fails the same way again (nothing stuck), then embeds once its endpoint works.
        expectError(
          await api('PUT', mem(a, 'lost'), { body: { value: 'lost', text: 'never stored' } }),
          502,
          'EMBEDDING_FAILED',
        );
        expect((await api('PUT', `/v1/agents/${a}`, { body: { scalar: 'f32', embedder: embedder(tag) } })).status).toBe(
          200,
        );
        expect((await api('PUT', mem(a, 'lost'), { body: { value: 'found', text: 'stored now' } })).status).toBe(200);
        const found = await api('POST', `/v1/agents/${a}/search`, { body: { text: 'stored now', k: 1 } });
        expect(found.body.hits[0]).toMatchObject({ key: 'lost', value: 'found' });
      });
    }

    it('the SEARCH fast path answers its 502 as the router', async () => {
      const tag = agentId('fail-fast');
      const { agents, setUp, expectAnsweredAsRouter } = threeAgents('emb-fail', 'POST', fastSearch, {
        oneAgent: true,
        auth: 'read',
      });
      await setUp();
      await agentWithEmbedder(tag, 'http500', agents.router);
      await expectAnsweredAsRouter([
        { what: 'text only', path: '/search', body: json({ text: 'anything' }), status: 502, taken: true },
      ]);
      expect(await logged(tag)).toHaveLength(3);
    });
  });

  describe('the key secret', () => {
    it('a setting naming a secret the Worker lacks is INVALID_ARGUMENT and changes nothing', async () => {
      const tag = agentId('secret');
      const a = await agentWithEmbedder(tag);
      const r = await api('PUT', `/v1/agents/${a}`, {
        body: { embedder: embedder(tag, 'ok', { apiKeySecret: 'NO_SUCH_SECRET' }) },
      });
      expectError(r, 400, 'INVALID_ARGUMENT');
      expect(r.body.error.message).toMatch(/no secret NO_SUCH_SECRET/);
      expect((await api('GET', `/v1/agents/${a}`)).body.settings.embedder).toEqual(embedder(tag));
      const fresh = agentId('emb');
      expectError(
        await api('PUT', `/v1/agents/${fresh}`, {
          body: { embedder: embedder(tag, 'ok', { apiKeySecret: 'NO_SUCH_SECRET' }) },
        }),
        400,
        'INVALID_ARGUMENT',
      );
      expect((await api('GET', `/v1/agents/${fresh}`)).body.settings.embedder).toBeUndefined();
      expect(await logged(tag)).toEqual([]);
    });

    it('is read at each call: a rotated key is sent at once, a removed one is EMBEDDING_FAILED until it is back', async () => {
      const tag = agentId('rotate');
      const a = await agentWithEmbedder(tag);
      // The agent's object reads the secret from its env when it embeds: change it there as a deploy would.
      const setKey = (key: string) =>
        runInDurableObject(env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a)), (o) => {
          (o as unknown as { env: Record<string, unknown> }).env.EMBEDDINGS_TEST_KEY = key;
        });
      expect((await api('PUT', mem(a, 'k1'), { body: { value: 'first key' } })).status).toBe(200);
      try {
        await setKey('sk-rotated');
        expect((await api('PUT', mem(a, 'k2'), { body: { value: 'rotated key' } })).status).toBe(200);
        await setKey('');
        const gone = await api('PUT', mem(a, 'k3'), { body: { value: 'no key' } });
        expectError(gone, 502, 'EMBEDDING_FAILED');
        expect(gone.body.error.message).toMatch(/secret EMBEDDINGS_TEST_KEY .* not set/);
        expect((await api('GET', `${mem(a, 'k1')}`)).body.value).toBe('first key');
      } finally {
        // The env may be shared with other objects of the isolate: the key goes back even when a check fails.
        await setKey(KEY);
      }
      expect((await api('PUT', mem(a, 'k3'), { body: { value: 'key back' } })).status).toBe(200);
      expect((await logged(tag)).map((r) => r.authorization)).toEqual([
        `Bearer ${KEY}`,
        'Bearer sk-rotated',
        `Bearer ${KEY}`,
      ]);
    });

    it('without apiKeySecret no Authorization header is sent; without inputType or prefixes the text goes as it is', async () => {
      const tag = agentId('nokey');
      const a = agentId('emb');
      const plain = { kind: 'openai', url: `${endpoint.url}/${tag}/ok/v1/embeddings`, model: 'plain', dims: DIMS };
      expect((await api('PUT', `/v1/agents/${a}`, { body: { embedder: plain } })).status).toBe(200);
      expect((await api('PUT', mem(a, 'k'), { body: { value: 'just the text' } })).status).toBe(200);
      expect(await logged(tag)).toMatchObject([
        { authorization: null, body: { model: 'plain', input: ['just the text'], encoding_format: 'float' } },
      ]);
      expect((await logged(tag))[0]!.body).not.toHaveProperty('input_type');
    });
  });
});
