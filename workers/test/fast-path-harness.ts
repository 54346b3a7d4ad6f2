/**
 * Equivalence tests of a fast path with a body (src/fast-path.ts): each request goes to three agents in the same
 * state — to one through the router alone, to one through the Worker, to one through the fast path itself (which
 * tells whether it took the request or handed it on) — and the three answers (status, type, body, agent ids
 * replaced) are compared by the test, with what the three agents then hold. A fast path whose requests change nothing
 * a later answer shows (search) may send the three to one agent (`oneAgent`), whose answers then match to the byte.
 */

import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { createApp } from '../src/app';
import type { FastPath } from '../src/fast-path';
import { ADMIN, agentId, BASE, token } from './helpers';

const router = createApp();

export interface Answer {
  status: number;
  type: string | null;
  body: string;
}

/** One request, for any agent: its path and query after the agent, its headers and body. */
export interface Case {
  what: string;
  /** After `/v1/agents/{agent}`. */
  path: string;
  /** Another method than the fast path's. */
  method?: string;
  /** A literal agent id instead of the side's agent. */
  agent?: string;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** A stream body: no Content-Length. */
  stream?: boolean;
  /** The token: the agent's write or read token (default: `threeAgents`'s), another agent's, none, the admin token, or
   * a literal. */
  auth?: 'write' | 'read' | 'other' | 'none' | 'admin' | string;
  /** The router's answer's status. */
  status: number;
  taken: boolean;
}

export const SIDES = ['router', 'worker', 'fast'] as const;
export type Side = (typeof SIDES)[number];

export interface Options {
  /** The three sides share one agent: for requests that change nothing a later answer shows (a search). */
  oneAgent?: boolean;
  /** The token a case without `auth` sends (default: write). */
  auth?: 'write' | 'read';
}

/** Three agents (`name`-router, -worker, -fast) with write and read tokens, and `fast` tried on requests of `method`. */
export function threeAgents(name: string, method: string, fast: FastPath, options: Options = {}) {
  const one = agentId(name);
  const agents = Object.fromEntries(SIDES.map((s) => [s, options.oneAgent ? one : agentId(`${name}-${s}`)])) as Record<
    Side,
    string
  >;
  const tokens = {} as Record<Side, { write: string; read: string }>;
  let other = '';

  async function setUp() {
    for (const s of SIDES)
      tokens[s] = { write: await token(agents[s], ['write']), read: await token(agents[s], ['read']) };
    other = await token(agentId(`${name}-other`), ['write']);
  }

  function request(c: Case, side: Side): Request {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...c.headers };
    const auth = c.auth ?? options.auth ?? 'write';
    const named: Record<string, string | null> = { other, none: null, admin: ADMIN };
    const t = auth === 'write' || auth === 'read' ? tokens[side][auth] : auth in named ? named[auth] : auth;
    if (t) headers.authorization = `Bearer ${t}`;
    let body: BodyInit | undefined = c.body;
    // What an HTTP client sends with a body of known length (a Request made here has none of its own).
    if (typeof c.body === 'string' && !c.stream)
      headers['content-length'] ??= String(new TextEncoder().encode(c.body).length);
    if (c.stream && typeof c.body === 'string') {
      const bytes = new TextEncoder().encode(c.body);
      body = new ReadableStream({
        start(ctl) {
          ctl.enqueue(bytes);
          ctl.close();
        },
      });
    }
    return new Request(`${BASE}/v1/agents/${c.agent ?? agents[side]}${c.path}`, {
      method: c.method ?? method,
      headers,
      body,
    });
  }

  const answer = async (res: Response, side: Side): Promise<Answer> => ({
    status: res.status,
    type: res.headers.get('content-type'),
    body: (await res.text()).replaceAll(agents[side], '{agent}'),
  });

  /** The three answers and whether the fast path took the request. */
  async function run(c: Case) {
    const viaRouter = await answer(await router.fetch(request(c, 'router'), env, createExecutionContext()), 'router');
    const viaWorker = await answer(await exports.default.fetch(request(c, 'worker')), 'worker');
    let handedOn = false;
    const taken = await fast(request(c, 'fast'), env, (r) => {
      handedOn = true;
      return router.fetch(r, env, createExecutionContext());
    });
    const viaFast = await answer(
      taken ?? (await router.fetch(request(c, 'fast'), env, createExecutionContext())),
      'fast',
    );
    return { viaRouter, viaWorker, viaFast, took: taken !== undefined && !handedOn };
  }

  /** Sends every case to the three agents: each answer is the router's, and the fast path took what the case says. */
  async function expectAnsweredAsRouter(cases: Case[]): Promise<void> {
    for (const c of cases) {
      const r = await run(c);
      expect(r.viaRouter.status, c.what).toBe(c.status);
      expect(r.took, c.what).toBe(c.taken);
      expect(r.viaWorker, c.what).toEqual(r.viaRouter);
      expect(r.viaFast, c.what).toEqual(r.viaRouter);
    }
  }

  /** A GET of `path` (after the agent) on `side`'s agent with its read token, through the Worker: its JSON. */
  async function read(side: Side, path: string): Promise<unknown> {
    const res = await exports.default.fetch(
      new Request(`${BASE}/v1/agents/${agents[side]}${path}`, {
        headers: { authorization: `Bearer ${tokens[side].read}` },
      }),
    );
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return JSON.parse((await res.text()).replaceAll(agents[side], '{agent}'));
  }

  return { agents, setUp, run, read, expectAnsweredAsRouter };
}
