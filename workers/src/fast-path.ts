/**
 * The Worker's fast paths: the API's most frequent requests — GET and PUT of one memory, a checkpoint's POST, a
 * search — answered without Hono's router, its middleware chain and zod-openapi's validators, by the route's own
 * handler (routes/: `getMemoryAnswer`, `putMemoryAnswer`, `putCheckpointAnswer`, `searchAnswer`), so a route's
 * logic is written once. What a fast path adds is only which requests it takes: the plain URL, the checks every
 * request gets first (request-checks.ts) with the route's auth, a JSON body read within the route's limits (size,
 * JSON depth) and validated by the route's schema. Anything else — another method, parameter or content type, a
 * percent-encoded path, no Content-Length or one past the limit, a failed check, auth or validation — goes to the
 * router, which answers it (errors included) exactly as before: before its body is read, the request itself; after,
 * a copy of it with the same bytes. What they save, measured under Miniflare at 10k memories: the Worker's own part
 * of a request (bench/peers/miniflare/request-path.mjs, medians of 3 runs) GET 0.026 ms against 0.046 through the
 * router, PUT 0.11 against 0.14–0.18, a checkpoint's POST 0.042 against 0.063–0.091, SEARCH 0.119 against 0.131;
 * over HTTP (paired.mjs, 5 alternated runs each) a GET's p50 3–4 % lower, the others' within the runs' spread.
 */
import type { z } from '@hono/zod-openapi';
import { authenticate, authorize, bearer, type Scope } from './auth.js';
import type { Env } from './env.js';
import { errorResponse } from './http-errors.js';
import { nestedDeeperThan } from './json-depth.js';
import { LIMITS } from './limits.js';
import { checkHost, checkUrlEncoding } from './request-checks.js';
import { CHECKPOINT_BODY_BYTES, putCheckpointAnswer } from './routes/checkpoints.js';
import { getMemoryAnswer, putMemoryAnswer } from './routes/memories.js';
import { searchAnswer } from './routes/search.js';
import {
  AgentParams,
  CheckpointPutBody,
  KeyParams,
  MemoryPutBody,
  NamespaceQuery,
  SearchBody,
  splitNamespace,
} from './schemas.js';

/** The router, for a request a fast path hands on. */
export type Router = (req: Request) => Response | Promise<Response>;

/** A fast path: the route's answer to `req`, or undefined when the router must answer `req` (its body unread). */
export type FastPath = (req: Request, env: Env, router: Router) => Promise<Response | undefined>;

const MEMORY_PATH = /^\/v1\/agents\/([^/%]+)\/memories\/([^/%]+)$/;
const CHECKPOINTS_PATH = /^\/v1\/agents\/([^/%]+)\/checkpoints$/;
const SEARCH_PATH = /^\/v1\/agents\/([^/%]+)\/search$/;

/**
 * `GET /v1/agents/{agent}/memories/{key}?ns=…` with nothing else (measured under Miniflare: the router, its
 * middleware and validation took ~13 % of a GET's time in the isolate; bench/peers/miniflare/request-path.mjs).
 */
export const fastMemoryGet: FastPath = async (req, env) => {
  if (req.method !== 'GET') return undefined;
  const target = plainMemoryUrl(req);
  if (!target || !(await admitted(req, env, target.url, target.agent, 'read'))) return undefined;
  return respond(() => getMemoryAnswer(env, target, { ns: target.ns }));
};

/** `PUT /v1/agents/{agent}/memories/{key}?ns=…` with a JSON body of known length. */
export const fastMemoryPut: FastPath = async (req, env, router) => {
  if (req.method !== 'PUT' || !plainJsonBody(req, LIMITS.bodyBytes)) return undefined;
  const target = plainMemoryUrl(req);
  if (!target || !(await admitted(req, env, target.url, target.agent, 'write'))) return undefined;
  return withJsonBody(req, MemoryPutBody, router, (body) =>
    respond(() => putMemoryAnswer(env, target, { ns: target.ns }, body)),
  );
};

/** A LangGraph step's write: `POST /v1/agents/{agent}/checkpoints` with a JSON body of known length, no query. */
export const fastCheckpointPut: FastPath = async (req, env, router) => {
  if (req.method !== 'POST' || !plainJsonBody(req, CHECKPOINT_BODY_BYTES)) return undefined;
  const target = plainAgentUrl(req, CHECKPOINTS_PATH);
  if (!target || !(await admitted(req, env, target.url, target.agent, 'write'))) return undefined;
  return withJsonBody(req, CheckpointPutBody, router, (body) => respond(() => putCheckpointAnswer(env, target, body)));
};

/** `POST /v1/agents/{agent}/search` with a JSON body of known length, no query. */
export const fastSearch: FastPath = async (req, env, router) => {
  if (req.method !== 'POST' || !plainJsonBody(req, LIMITS.bodyBytes)) return undefined;
  const target = plainAgentUrl(req, SEARCH_PATH);
  if (!target || !(await admitted(req, env, target.url, target.agent, 'read'))) return undefined;
  return withJsonBody(req, SearchBody, router, (body) => respondJson(() => searchAnswer(env, target, body)));
};

/** The fast paths the Worker tries, in order, before its router (index.ts). */
export const FAST_PATHS: readonly FastPath[] = [fastMemoryGet, fastMemoryPut, fastCheckpointPut, fastSearch];

/** A URL a fast path takes: its path's parameters and its query's. */
interface PlainUrl {
  url: URL;
  params: string[];
  query: Record<string, string>;
}

/**
 * `req`'s URL when its path matches `path` (whose groups exclude `%`: no percent-decoding to mirror) and its query
 * holds exactly the parameters `query` names, each once; else undefined.
 */
function plainUrl(req: Request, path: RegExp, query: readonly string[]): PlainUrl | undefined {
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

/** `req`'s URL when it is `path` (one group: the agent) with no query and a valid agent id, else undefined. */
function plainAgentUrl(req: Request, path: RegExp): { url: URL; agent: string } | undefined {
  const plain = plainUrl(req, path, []);
  const agent = plain?.params[0] ?? '';
  if (!plain || !AgentParams.safeParse({ agent }).success) return undefined;
  return { url: plain.url, agent };
}

/** `req`'s URL when it names one memory plainly — `/v1/agents/{agent}/memories/{key}?ns=…` — and validly. */
function plainMemoryUrl(req: Request): { url: URL; agent: string; key: string; ns: string } | undefined {
  const plain = plainUrl(req, MEMORY_PATH, ['ns']);
  if (!plain) return undefined;
  const [agent = '', key = ''] = plain.params;
  const ns = plain.query.ns ?? '';
  if (!KeyParams.safeParse({ agent, key }).success || !NamespaceQuery.safeParse(ns).success) return undefined;
  try {
    splitNamespace(ns);
  } catch {
    return undefined; // a namespace the route refuses
  }
  return { url: plain.url, agent, key, ns };
}

/** Whether `req` passes the checks before routing and its token grants `scope` on `agent` (false: hand it on). */
async function admitted(req: Request, env: Env, url: URL, agent: string, scope: Scope): Promise<boolean> {
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
function plainJsonBody(req: Request, maxBytes: number): boolean {
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
async function withJsonBody<S extends z.ZodType>(
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
function respond(call: () => Promise<unknown>): Promise<Response> {
  return respondJson(async () => JSON.stringify(await call()));
}

/** As `respond`, for a call that answers with its JSON text already. */
async function respondJson(call: () => Promise<string>): Promise<Response> {
  try {
    return new Response(await call(), { headers: { 'content-type': 'application/json' } });
  } catch (e) {
    return errorResponse(e);
  }
}
