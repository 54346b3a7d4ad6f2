/**
 * What the Worker's fast paths share (memory-get-, memory-put-, checkpoint-put- and search-fast-path.ts: the API's
 * most frequent requests answered without Hono's router, its middleware chain and zod-openapi's validators): the plain
 * URL they take, the checks every request gets first (request-checks.ts) with the route's auth, a JSON body read
 * within the route's limits (size, JSON depth) and validated by the route's schema, the route's 200 JSON response
 * or its error response. A fast path takes only what it can answer exactly as the router would; anything else —
 * another method, parameter or content type, a percent-encoded path, no Content-Length or one past the limit, a
 * failed check, auth or validation — goes to the router, which answers it (errors included) exactly as before:
 * before its body is read, the request itself; after, a copy of it with the same bytes.
 */
import type { z } from '@hono/zod-openapi';
import { authenticate, authorize, bearer, type Scope } from './auth.js';
import type { Env } from './env.js';
import { errorResponse } from './http-errors.js';
import { nestedDeeperThan } from './json-depth.js';
import { LIMITS } from './limits.js';
import { checkHost, checkUrlEncoding } from './request-checks.js';

/** The router, for a request a fast path hands on. */
export type Router = (req: Request) => Response | Promise<Response>;

/** A fast path: the route's answer to `req`, or undefined when the router must answer `req` (its body unread). */
export type FastPath = (req: Request, env: Env, router: Router) => Promise<Response | undefined>;

/** A URL a fast path takes: its path's parameters and its query's. */
export interface PlainUrl {
  url: URL;
  params: string[];
  query: Record<string, string>;
}

/**
 * `req`'s URL when its path matches `path` (whose groups exclude `%`: no percent-decoding to mirror) and its query
 * holds exactly the parameters `query` names, each once; else undefined.
 */
export function plainUrl(req: Request, path: RegExp, query: readonly string[]): PlainUrl | undefined {
  const url = new URL(req.url);
  const m = path.exec(url.pathname);
  if (!m) return undefined;
  const found: Record<string, string> = {};
  let n = 0;
  for (const [name, value] of url.searchParams) {
    if (!query.includes(name) || Object.hasOwn(found, name)) return undefined;
    found[name] = value;
    n++;
  }
  return n === query.length ? { url, params: m.slice(1).map((p) => p ?? ''), query: found } : undefined;
}

/** Whether `req` passes the checks before routing and its token grants `scope` on `agent` (false: hand it on). */
export async function admitted(req: Request, env: Env, url: URL, agent: string, scope: Scope): Promise<boolean> {
  try {
    checkHost(env, req);
    checkUrlEncoding(url);
    authorize(await authenticate(env, bearer(req, false)), agent, scope);
    return true;
  } catch {
    return false;
  }
}

/** The content types taken (the routes' validators take more; those go to the router). */
const JSON_TYPE = /^application\/json(;\s*charset=utf-8)?$/i;
const DIGITS = /^\d+$/;

/** Whether `req` has a JSON body of known length within `maxBytes` (else the router must read it). */
export function plainJsonBody(req: Request, maxBytes: number): boolean {
  const type = req.headers.get('content-type');
  const length = req.headers.get('content-length');
  return (
    type !== null &&
    JSON_TYPE.test(type) &&
    !req.headers.has('transfer-encoding') &&
    req.body !== null &&
    length !== null &&
    DIGITS.test(length) &&
    Number(length) <= maxBytes
  );
}

/**
 * The route's answer to `req` (plainJsonBody) given its body as `schema` passes it on; a body the route would
 * refuse (nested too deep, not JSON, failing the schema) is the router's to answer, in a copy of `req` with the
 * same bytes.
 */
export async function withJsonBody<S extends z.ZodType>(
  req: Request,
  schema: S,
  router: Router,
  answer: (body: z.output<S>) => Promise<Response>,
): Promise<Response> {
  let bytes: ArrayBuffer;
  try {
    bytes = await req.arrayBuffer();
  } catch (e) {
    return errorResponse(e); // the body could not be read (the client went away): as the router's onError
  }
  const body = validBody(new TextDecoder().decode(bytes), schema);
  return body ? answer(body.data) : router(new Request(req, { body: bytes }));
}

/** `text` as `schema` passes it on, or undefined when the route would refuse it. */
function validBody<S extends z.ZodType>(text: string, schema: S): { data: z.output<S> } | undefined {
  if (nestedDeeperThan(text, LIMITS.jsonDepth)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = schema.safeParse(json);
  return r.success ? { data: r.data } : undefined;
}

/** The route's 200 response to what `call` returns, as JSON, or its error response to what `call` throws. */
export async function respond(call: () => Promise<unknown>): Promise<Response> {
  return respondJson(async () => JSON.stringify(await call()));
}

/** As `respond`, for a call that answers with its JSON text already. */
export async function respondJson(call: () => Promise<string>): Promise<Response> {
  try {
    return new Response(await call(), { headers: { 'content-type': 'application/json' } });
  } catch (e) {
    return errorResponse(e);
  }
}
