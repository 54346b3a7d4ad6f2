/**
 * The API's most frequent request — `GET /v1/agents/{agent}/memories/{key}?ns=…` with nothing else — answered
 * without the router: the same checks (request-checks.ts), the same auth, the same validation (schemas.ts) and the
 * same response as the route in routes/memories.ts, minus Hono's dispatch and zod-openapi's validators (measured
 * under Miniflare: ~13 % of a GET's time in the isolate; bench/peers/miniflare/request-path.mjs). Anything it does
 * not take as it is — another method or query parameter, a percent-encoded path, a failed check, auth or
 * validation — goes to the router, which answers it (errors included) exactly as before.
 */
import { callAgent } from './agent-client.js';
import { authenticate, authorize, bearer } from './auth.js';
import type { Env } from './env.js';
import { ApiError, errorResponse } from './http-errors.js';
import { checkHost, checkUrlEncoding } from './request-checks.js';
import { KeyParams, NamespaceQuery, splitNamespace } from './schemas.js';
import { memoryOut } from './wire.js';

const PATH = /^\/v1\/agents\/([^/%]+)\/memories\/([^/%]+)$/;

/** A URL `/v1/agents/{agent}/memories/{key}?ns=…` (no percent-encoding in the path, no other parameter). */
export interface MemoryUrl {
  url: URL;
  agent: string;
  key: string;
  ns: string;
}

/** `req`'s URL when it names one memory plainly (see MemoryUrl), else undefined. */
export function plainMemoryUrl(req: Request): MemoryUrl | undefined {
  const url = new URL(req.url);
  const m = PATH.exec(url.pathname);
  if (!m) return undefined;
  const [, agent = '', key = ''] = m;
  let ns: string | undefined;
  for (const [name, value] of url.searchParams) {
    if (name !== 'ns' || ns !== undefined) return undefined;
    ns = value;
  }
  return ns === undefined ? undefined : { url, agent, key, ns };
}

/** The route's answer to `req`, or undefined: the router must answer it. */
export async function fastMemoryGet(req: Request, env: Env): Promise<Response | undefined> {
  if (req.method !== 'GET') return undefined;
  const target = plainMemoryUrl(req);
  if (!target) return undefined;
  const { url, agent, key, ns } = target;
  let namespace: string[];
  try {
    checkHost(env, req);
    checkUrlEncoding(url);
    if (!KeyParams.safeParse({ agent, key }).success) return undefined;
    if (!NamespaceQuery.safeParse(ns).success) return undefined;
    namespace = splitNamespace(ns);
    authorize(await authenticate(env, bearer(req, false)), agent, 'read');
  } catch {
    return undefined;
  }
  try {
    const memory = await callAgent(env, agent, 'get', namespace, key, undefined);
    if (!memory) throw new ApiError('NOT_FOUND', `no memory ${JSON.stringify(key)} in namespace ${JSON.stringify(ns)}`);
    return new Response(JSON.stringify(memoryOut(memory)), { headers: { 'content-type': 'application/json' } });
  } catch (e) {
    return errorResponse(e);
  }
}
