/**
 * The CHECKPOINT PUT fast path (src/fast-path.ts `fastCheckpointPut`) answers exactly what the router answers
 * (fast-path-harness.ts: each request to three agents, through the router, the Worker and the fast path): the three
 * answers — status, type, body — and the checkpoints the three agents then hold are equal. Taken: plain puts (JSON
 * and base64 payloads, every optional field, blobs, a namespace, a replaced id, a payload given twice — the route's
 * own 400). Handed on: other content types, no Content-Length, bodies too large, too deep, not JSON or failing the
 * schema, a query, bad tokens.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { fastCheckpointPut } from '../src/fast-path';
import { LIMITS } from '../src/limits';
import { type Case, threeAgents } from './fast-path-harness';

const json = (o: unknown) => JSON.stringify(o);
const cp = (id: string, extra: Record<string, unknown> = {}) =>
  json({ threadId: 't1', checkpointId: id, data: { step: id }, ...extra });

describe('the CHECKPOINT PUT fast path', () => {
  const { setUp, read, expectAnsweredAsRouter } = threeAgents('cp', 'POST', fastCheckpointPut);
  beforeAll(setUp);

  const path = '/checkpoints';
  const cases: Case[] = [
    { what: 'a JSON payload', path, body: cp('c1'), status: 200, taken: true },
    {
      what: 'every field, blobs',
      path,
      body: cp('c2', {
        parentId: 'c1',
        metadata: { step: 2, source: 'loop' },
        channelVersions: { messages: 'v2', note: 'v1' },
        blobs: [
          { channel: 'messages', version: 'v2', data: ['hi', { role: 'ai' }] },
          { channel: 'note', version: 'v1', dataBase64: 'AAEC' },
        ],
        unknownField: 'dropped',
      }),
      status: 200,
      taken: true,
    },
    {
      what: 'a base64 payload in a namespace',
      path,
      body: json({ threadId: 't2', checkpointNs: 'sub', checkpointId: 'c3', parentId: null, dataBase64: 'aGVsbG8=' }),
      status: 200,
      taken: true,
    },
    { what: 'a replaced id', path, body: cp('c1', { metadata: { again: true } }), status: 200, taken: true },
    {
      what: 'a charset',
      path,
      body: cp('c4'),
      headers: { 'content-type': 'application/json; charset=utf-8' },
      status: 200,
      taken: true,
    },
    {
      what: 'a payload given twice (the route refuses it)',
      path,
      body: cp('c5', { dataBase64: 'AAEC' }),
      status: 400,
      taken: true,
    },
    {
      what: 'no payload (the route refuses it)',
      path,
      body: json({ threadId: 't1', checkpointId: 'c6' }),
      status: 400,
      taken: true,
    },
    {
      what: 'another JSON content type',
      path,
      body: cp('c7'),
      headers: { 'content-type': 'application/merge-patch+json' },
      status: 200,
      taken: false,
    },
    {
      what: 'a text body',
      path,
      body: cp('c8'),
      headers: { 'content-type': 'text/plain' },
      status: 400,
      taken: false,
    },
    { what: 'no Content-Length (a stream)', path, body: cp('c9'), stream: true, status: 200, taken: false },
    {
      what: 'a Content-Length that is not a number',
      path,
      body: cp('c10'),
      headers: { 'content-length': 'x' },
      status: 200,
      taken: false,
    },
    {
      what: 'a body past the limit',
      path,
      body: cp('c11', { metadata: { pad: 'x'.repeat(LIMITS.checkpointBytes * 2) } }),
      status: 413,
      taken: false,
    },
    {
      what: 'a body nested too deep',
      path,
      body: `{"threadId":"t1","checkpointId":"c12","data":${'['.repeat(200)}${']'.repeat(200)}}`,
      status: 400,
      taken: false,
    },
    { what: 'not JSON', path, body: '{"threadId":', status: 400, taken: false },
    { what: 'no thread', path, body: json({ checkpointId: 'c13', data: 1 }), status: 400, taken: false },
    { what: 'an empty checkpoint id', path, body: cp(''), status: 400, taken: false },
    {
      what: 'a blob with an unknown field',
      path,
      body: cp('c14', { blobs: [{ channel: 'a', version: '1', data: 1, x: 1 }] }),
      status: 400,
      taken: false,
    },
    { what: 'metadata that is not an object', path, body: cp('c15', { metadata: [1] }), status: 400, taken: false },
    { what: 'no body', path, status: 400, taken: false },
    { what: 'a query', path: `${path}?x=1`, body: cp('c16'), status: 200, taken: false },
    { what: 'a malformed percent-encoding', path: `${path}?x=%E0%A4`, body: cp('c17'), status: 400, taken: false },
    { what: 'a trailing slash', path: `${path}/`, body: cp('c18'), status: 404, taken: false },
    { what: 'no token', path, body: cp('c19'), auth: 'none', status: 401, taken: false },
    { what: 'a garbage token', path, body: cp('c20'), auth: 'garbage', status: 401, taken: false },
    { what: "another agent's token", path, body: cp('c21'), auth: 'other', status: 403, taken: false },
    { what: 'a token without write', path, body: cp('c22'), auth: 'read', status: 403, taken: false },
  ];

  it('takes plain puts and hands the rest on, answering every one as the router', async () => {
    await expectAnsweredAsRouter(cases);
  });

  it('leaves the three agents holding the same checkpoints', async () => {
    const held = async (side: 'router' | 'worker' | 'fast') => {
      const { checkpoints } = (await read(side, '/checkpoints?limit=100')) as {
        checkpoints: Array<Record<string, unknown>>;
      };
      return checkpoints.map(({ createdAt, ...rest }) => rest);
    };
    const router = await held('router');
    expect(router.length).toBeGreaterThan(5);
    expect(await held('worker')).toEqual(router);
    expect(await held('fast')).toEqual(router);
  });
});
