/**
 * The SEARCH fast path (src/fast-path.ts `fastSearch`) answers exactly what the router answers: each request goes
 * to one agent through the router alone, through the Worker and through the fast path itself (which tells whether it
 * took the request or handed it on), and the three answers — status, type, body — are equal (a search writes nothing
 * that changes the next one's answer). Taken: plain searches (vector, lexical, hybrid, filters, fusion settings, AS OF, a
 * charset) and the route's own errors after validation (a vector of the wrong length). Handed on: other content
 * types, no Content-Length, bodies too large, too deep, not JSON or failing the schema, a query, a bad agent id,
 * bad tokens, another method.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { fastSearch } from '../src/fast-path';
import { LIMITS } from '../src/limits';
import { type Case, threeAgents } from './fast-path-harness';
import { api } from './helpers';

const json = (o: unknown) => JSON.stringify(o);

describe('the SEARCH fast path', () => {
  const { agents, setUp, expectAnsweredAsRouter } = threeAgents('search-fast', 'POST', fastSearch, {
    oneAgent: true,
    auth: 'read',
  });

  beforeAll(async () => {
    await setUp();
    const memories = [
      {
        namespace: ['u', '1'],
        key: 'tea',
        value: { d: 'tea' },
        text: 'green tea in the morning',
        embedding: [1, 0, 0, 0],
      },
      { namespace: ['u', '1'], key: 'coffee', value: 2.5, text: 'oat milk coffee', embedding: [0, 1, 0, 0] },
      {
        namespace: ['u', '2'],
        key: 'juice',
        value: 'juice',
        text: 'orange juice',
        embedding: [0, 0, 1, 0],
        metadata: { n: 3 },
      },
    ];
    const put = await api('POST', `/v1/agents/${agents.router}/memories/batch`, { body: { memories } });
    expect(put.status).toBe(200);
  });

  const vector = [1, 0, 0.5, 0];
  const cases: (Omit<Case, 'path'> & { suffix?: string })[] = [
    { what: 'a hybrid search', body: json({ text: 'green tea juice', vector, k: 3 }), status: 200, taken: true },
    { what: 'a vector search', body: json({ vector: [0, 1, 0, 0], k: 2 }), status: 200, taken: true },
    { what: 'a lexical search', body: json({ text: 'orange', mode: 'lexical' }), status: 200, taken: true },
    {
      what: 'filters, an offset and fusion settings',
      body: json({
        text: 'tea coffee',
        vector,
        k: 2,
        offset: 1,
        namespace: ['u'],
        filter: [{ field: 'n', op: 'lte', value: 5 }],
        fusion: { method: 'rrf', rrfK: 10, feedbackDocs: 0 },
      }),
      status: 200,
      taken: true,
    },
    { what: 'as of a seq', body: json({ vector, asOf: { seq: 1 } }), status: 200, taken: true },
    { what: 'the admin token', body: json({ vector }), auth: 'admin', status: 200, taken: true },
    {
      what: 'a charset',
      body: json({ vector }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
      status: 200,
      taken: true,
    },
    {
      what: 'a vector of the wrong length (the store refuses it)',
      body: json({ vector: [1, 0] }),
      status: 422,
      taken: true,
    },
    { what: 'neither text nor vector (the store refuses it)', body: json({ k: 3 }), status: 400, taken: true },
    {
      what: 'another JSON content type',
      body: json({ vector }),
      headers: { 'content-type': 'application/merge-patch+json' },
      status: 200,
      taken: false,
    },
    {
      what: 'a text body',
      body: json({ vector }),
      headers: { 'content-type': 'text/plain' },
      status: 400,
      taken: false,
    },
    { what: 'no Content-Length (a stream)', body: json({ vector }), stream: true, status: 200, taken: false },
    {
      what: 'a body past the limit',
      body: json({ vector, text: 'x'.repeat(LIMITS.bodyBytes) }),
      status: 413,
      taken: false,
    },
    {
      what: 'a body nested too deep',
      body: `{"vector":${'['.repeat(200)}${']'.repeat(200)}}`,
      status: 400,
      taken: false,
    },
    { what: 'not JSON', body: '{"vector":', status: 400, taken: false },
    { what: 'k out of range', body: json({ vector, k: 0 }), status: 400, taken: false },
    { what: 'an unknown mode', body: json({ vector, mode: 'fuzzy' }), status: 400, taken: false },
    { what: 'no body', status: 400, taken: false },
    { what: 'a query', suffix: '?x=1', body: json({ vector }), status: 200, taken: false },
    { what: 'a trailing slash', suffix: '/', body: json({ vector }), status: 404, taken: false },
    { what: 'a bad agent id', agent: '.bad', body: json({ vector }), status: 403, taken: false },
    { what: 'GET', method: 'GET', status: 404, taken: false },
    { what: 'no token', body: json({ vector }), auth: 'none', status: 401, taken: false },
    { what: 'a garbage token', body: json({ vector }), auth: 'garbage', status: 401, taken: false },
    { what: "another agent's token", body: json({ vector }), auth: 'other', status: 403, taken: false },
    { what: 'a token without read', body: json({ vector }), auth: 'write', status: 403, taken: false },
  ];

  it('takes plain searches and answers every request as the router', async () => {
    await expectAnsweredAsRouter(cases.map(({ suffix, ...c }) => ({ ...c, path: `/search${suffix ?? ''}` })));
  });
});
