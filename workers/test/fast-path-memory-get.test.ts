/**
 * The GET fast path (src/fast-path.ts `fastMemoryGet`) answers exactly what the router answers: for every request it
 * takes (a plain GET of one memory, found or not) and every one it hands on (other parameters, encodings, bad
 * input, bad or foreign tokens), the Worker's response equals the router's alone, status, type and body.
 */

import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import { fastMemoryGet } from '../src/fast-path';
import { ADMIN, agentId, api, BASE, token } from './helpers';

const router = createApp();

interface Answer {
  status: number;
  type: string | null;
  body: string;
}
const answer = async (res: Response): Promise<Answer> => ({
  status: res.status,
  type: res.headers.get('content-type'),
  body: await res.text(),
});

describe('the GET fast path', () => {
  const a = agentId('fast');
  let read = '';
  let writeOnly = '';
  let other = '';

  beforeAll(async () => {
    for (const [ns, key] of [
      ['t', 'k1'],
      ['user/42', 'k2'],
      ['t', 'k x'],
    ]) {
      const path = `/v1/agents/${a}/memories/${encodeURIComponent(key)}?ns=${encodeURIComponent(ns)}`;
      const r = await api('PUT', path, {
        body: { value: { key, n: [1, 2] }, text: `memory ${key}`, embedding: [1, 0, 0, 0] },
      });
      expect(r.status).toBe(200);
    }
    read = await token(a, ['read']);
    writeOnly = await token(a, ['write']);
    other = await token(agentId('fast-other'), ['read']);
  });

  /** The Worker's answer and the router's to the same request, and whether the fast path took it. */
  async function compare(path: string, bearerToken: string | null, method = 'GET') {
    const headers: Record<string, string> = bearerToken === null ? {} : { authorization: `Bearer ${bearerToken}` };
    const req = () => new Request(BASE + path, { method, headers });
    const viaRouter = await answer(await router.fetch(req(), env, createExecutionContext()));
    const viaWorker = await answer(await exports.default.fetch(req()));
    const fast = await fastMemoryGet(req(), env, (r) => router.fetch(r, env, createExecutionContext()));
    return { viaRouter, viaWorker, took: fast !== undefined };
  }

  const m = (key: string, query: string) => `/v1/agents/${a}/memories/${key}${query}`;
  const taken: Array<[string, string, () => string]> = [
    ['found', m('k1', '?ns=t'), () => read],
    ['found, an encoded namespace', m('k2', '?ns=user%2F42'), () => read],
    ['found with the admin token', m('k1', '?ns=t'), () => ADMIN],
    ['not found', m('nope', '?ns=t'), () => read],
    ['not found in another namespace', m('k1', '?ns=u'), () => read],
  ];
  for (const [what, path, tok] of taken) {
    it(`takes and answers as the router: ${what}`, async () => {
      const r = await compare(path, tok());
      expect(r.took).toBe(true);
      expect(r.viaWorker).toEqual(r.viaRouter);
      expect([200, 404]).toContain(r.viaRouter.status);
    });
  }

  const handedOn: Array<[string, string, () => string | null, string?]> = [
    ['an encoded key', m('k%20x', '?ns=t'), () => read],
    ['as of a seq', m('k1', '?ns=t&asOfSeq=1'), () => read],
    ['with its embedding', m('k1', '?ns=t&embedding=true'), () => read],
    ['an unknown parameter', m('k1', '?ns=t&x=1'), () => read],
    ['ns twice', m('k1', '?ns=t&ns=u'), () => read],
    ['no ns', m('k1', ''), () => read],
    ['an empty namespace segment', m('k1', '?ns=t%2F%2Fu'), () => read],
    ['a namespace too deep', m('k1', `?ns=${Array(17).fill('s').join('%2F')}`), () => read],
    ['a key too long', m('k'.repeat(513), '?ns=t'), () => read],
    ['a bad agent id', '/v1/agents/.bad/memories/k1?ns=t', () => read],
    ['a malformed percent-encoding', m('k1', '?ns=%E0%A4'), () => read],
    ['no token', m('k1', '?ns=t'), () => null],
    ['a garbage token', m('k1', '?ns=t'), () => 'garbage'],
    ["another agent's token", m('k1', '?ns=t'), () => other],
    ['a token without read', m('k1', '?ns=t'), () => writeOnly],
    ['HEAD', m('k1', '?ns=t'), () => read, 'HEAD'],
    ['a deeper path', m('k1', '/history?ns=t'), () => read],
  ];
  for (const [what, path, tok, method] of handedOn) {
    it(`hands on to the router: ${what}`, async () => {
      const r = await compare(path, tok(), method);
      expect(r.took).toBe(false);
      expect(r.viaWorker).toEqual(r.viaRouter);
    });
  }
});
