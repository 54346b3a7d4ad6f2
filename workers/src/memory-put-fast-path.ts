/**
 * The API's most frequent write — `PUT /v1/agents/{agent}/memories/{key}?ns=…` with a JSON body of known length —
 * answered without the router, as memory-get-fast-path.ts does for GET: the same checks (request-checks.ts), the
 * same auth, the same body limits (size, JSON depth), the same validation (schemas.ts), the same store call and the
 * same response as the route in routes/memories.ts, minus Hono's dispatch, its middleware chain and zod-openapi's
 * validators. Anything it does not take as it is — another method, parameter or content type, a percent-encoded
 * path, no Content-Length or one past the limit, a failed check, auth or validation — goes to the router, which
 * answers it (errors included) exactly as before: before its body is read, the request itself; after, a copy of it
 * with the same bytes.
 */
import type { MemoryInput } from 'edgemem';
import { callAgent } from './agent-client.js';
import { authenticate, authorize, bearer } from './auth.js';
import type { Env } from './env.js';
import { errorResponse } from './http-errors.js';
import { nestedDeeperThan } from './json-depth.js';
import { LIMITS } from './limits.js';
import { plainMemoryUrl } from './memory-get-fast-path.js';
import { checkHost, checkUrlEncoding } from './request-checks.js';
import { defined } from './routes/common.js';
import { KeyParams, MemoryPutBody, NamespaceQuery, splitNamespace } from './schemas.js';
import { vectorIn } from './wire.js';

/** The content types taken (the route's validator takes more; those go to the router). */
const JSON_TYPE = /^application\/json(;\s*charset=utf-8)?$/i;
const DIGITS = /^\d+$/;

/**
 * The route's answer to `req`, or undefined: the router must answer `req` (its body unread). `route` answers a
 * request the fast path read the body of and then handed on.
 */
export async function fastMemoryPut(
  req: Request,
  env: Env,
  route: (req: Request) => Response | Promise<Response>,
): Promise<Response | undefined> {
  if (req.method !== 'PUT') return undefined;
  const target = plainMemoryUrl(req);
  if (!target) return undefined;
  const { url, agent, key, ns } = target;
  const type = req.headers.get('content-type');
  const length = req.headers.get('content-length');
  if (type === null || !JSON_TYPE.test(type) || req.headers.has('transfer-encoding') || req.body === null)
    return undefined;
  if (length === null || !DIGITS.test(length) || Number(length) > LIMITS.bodyBytes) return undefined;
  let namespace: string[];
  try {
    checkHost(env, req);
    checkUrlEncoding(url);
    if (!KeyParams.safeParse({ agent, key }).success) return undefined;
    if (!NamespaceQuery.safeParse(ns).success) return undefined;
    namespace = splitNamespace(ns);
    authorize(await authenticate(env, bearer(req, false)), agent, 'write');
  } catch {
    return undefined;
  }
  const bytes = await req.arrayBuffer();
  const body = validBody(new TextDecoder().decode(bytes));
  if (!body) return route(new Request(req, { body: bytes }));
  try {
    const memory = defined({ ...body, embedding: vectorIn(body.embedding), namespace, key }) as MemoryInput;
    const ack = await callAgent(env, agent, 'put', memory);
    return new Response(JSON.stringify(ack), { headers: { 'content-type': 'application/json' } });
  } catch (e) {
    return errorResponse(e);
  }
}

/** The body as the route's validator passes it on, or undefined when the route would refuse it. */
function validBody(text: string) {
  if (nestedDeeperThan(text, LIMITS.jsonDepth)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = MemoryPutBody.safeParse(json);
  return r.success ? r.data : undefined;
}
