/**
 * The PUT fast path (src/fast-path.ts `fastMemoryPut`) answers exactly what the router answers (fast-path-harness.ts:
 * each request to three agents, through the router, the Worker and the fast path): the three answers — status,
 * type, body — and what the three agents then hold are equal. Taken: plain PUTs (new keys, updates, CAS, every
 * optional field, an embedding, a store error). Handed on: other content types, no Content-Length, bodies too
 * large, too deep, not JSON or failing the schema, bad path, query or token.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { fastMemoryPut } from '../src/fast-path';
import { type Case, threeAgents } from './fast-path-harness';

const json = (o: unknown) => JSON.stringify(o);
const vec = (n: number, x = 0.5) => Array.from({ length: n }, (_, i) => (i === 0 ? 1 : x));

describe('the PUT fast path', () => {
  const { setUp, read, expectAnsweredAsRouter } = threeAgents('put', 'PUT', fastMemoryPut);
  beforeAll(setUp);

  const m = (key: string, ns = 't') => `/memories/${key}?ns=${encodeURIComponent(ns)}`;
  const cases: Case[] = [
    { what: 'a new key', path: m('k1'), body: json({ value: { a: 1 } }), status: 200, taken: true },
    {
      what: 'every field, an embedding',
      path: m('k2', 'user/42'),
      body: json({
        value: [1, 'two', null],
        text: 'coffee at nine',
        embedding: vec(4),
        metadata: { topic: 'x' },
        pinned: true,
        ttlMs: 86_400_000,
      }),
      status: 200,
      taken: true,
    },
    { what: 'an update', path: m('k1'), body: json({ value: 'again', extra: 'dropped' }), status: 200, taken: true },
    { what: 'a CAS that holds', path: m('k1'), body: json({ value: 3, ifVersion: 2 }), status: 200, taken: true },
    {
      what: 'a CAS that fails (409 from the store)',
      path: m('k1'),
      body: json({ value: 4, ifVersion: 1 }),
      status: 409,
      taken: true,
    },
    {
      what: 'a wrong vector length (422 from the store)',
      path: m('k3'),
      body: json({ value: 1, embedding: vec(3) }),
      status: 422,
      taken: true,
    },
    {
      what: 'a charset',
      path: m('k4'),
      body: json({ value: 1 }),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      status: 200,
      taken: true,
    },
    {
      what: 'another JSON content type',
      path: m('k5'),
      body: json({ value: 1 }),
      headers: { 'content-type': 'application/merge-patch+json' },
      status: 200,
      taken: false,
    },
    {
      what: 'a text body',
      path: m('k6'),
      body: json({ value: 1 }),
      headers: { 'content-type': 'text/plain' },
      status: 400,
      taken: false,
    },
    {
      what: 'no Content-Length (a stream)',
      path: m('k7'),
      body: json({ value: 1 }),
      stream: true,
      status: 200,
      taken: false,
    },
    {
      what: 'a Content-Length that is not a number',
      path: m('k7b'),
      body: json({ value: 1 }),
      headers: { 'content-length': 'x' },
      status: 200,
      taken: false,
    },
    {
      what: 'a body past the limit',
      path: m('k8'),
      body: json({ value: 'x'.repeat(1 << 20) }),
      status: 413,
      taken: false,
    },
    {
      what: 'a body nested too deep',
      path: m('k9'),
      body: `{"value":${'['.repeat(200)}${']'.repeat(200)}}`,
      status: 400,
      taken: false,
    },
    { what: 'not JSON', path: m('k10'), body: '{"value":', status: 400, taken: false },
    { what: 'no value', path: m('k11'), body: json({ text: 'x' }), status: 400, taken: false },
    {
      what: 'an embedding of strings',
      path: m('k12'),
      body: json({ value: 1, embedding: ['a'] }),
      status: 400,
      taken: false,
    },
    {
      what: 'an embedding too long',
      path: m('k13'),
      body: json({ value: 1, embedding: vec(4097) }),
      status: 400,
      taken: false,
    },
    { what: 'a bad ttl', path: m('k14'), body: json({ value: 1, ttlMs: 0 }), status: 400, taken: false },
    { what: 'no body', path: m('k15'), status: 400, taken: false },
    { what: 'no ns', path: '/memories/k16', body: json({ value: 1 }), status: 400, taken: false },
    { what: 'an unknown parameter', path: `${m('k17')}&x=1`, body: json({ value: 1 }), status: 200, taken: false },
    { what: 'an empty namespace segment', path: m('k18', 't//u'), body: json({ value: 1 }), status: 400, taken: false },
    { what: 'an encoded key', path: m('k%2019'), body: json({ value: 1 }), status: 200, taken: false },
    { what: 'a key too long', path: m('k'.repeat(513)), body: json({ value: 1 }), status: 400, taken: false },
    {
      what: 'a malformed percent-encoding',
      path: '/memories/k20?ns=%E0%A4',
      body: json({ value: 1 }),
      status: 400,
      taken: false,
    },
    { what: 'no token', path: m('k21'), body: json({ value: 1 }), auth: 'none', status: 401, taken: false },
    { what: 'a garbage token', path: m('k22'), body: json({ value: 1 }), auth: 'garbage', status: 401, taken: false },
    {
      what: "another agent's token",
      path: m('k23'),
      body: json({ value: 1 }),
      auth: 'other',
      status: 403,
      taken: false,
    },
    {
      what: 'a token without write',
      path: m('k24'),
      body: json({ value: 1 }),
      auth: 'read',
      status: 403,
      taken: false,
    },
  ];

  it('takes plain PUTs and hands the rest on, answering every one as the router', async () => {
    await expectAnsweredAsRouter(cases);
  });

  it('leaves the three agents holding the same memories', async () => {
    const held = async (side: 'router' | 'worker' | 'fast') => {
      const out: unknown[] = [];
      for (const ns of ['t', 'user/42']) {
        const { items } = (await read(side, `/memories?prefix=${encodeURIComponent(ns)}&embeddings=true`)) as {
          items: Array<Record<string, unknown>>;
        };
        out.push(items.map(({ createdAt, updatedAt, expiresAt, ...rest }) => rest));
      }
      return out;
    };
    const router = await held('router');
    expect((router[0] as unknown[]).length).toBeGreaterThan(2);
    expect(await held('worker')).toEqual(router);
    expect(await held('fast')).toEqual(router);
  });
});
