/** Shared pieces of the route definitions: the app type, JSON bodies and responses, body limits (size, JSON depth), AS OF. */
import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AsOf, Condition } from 'edgemem';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AuthVars } from '../auth.js';
import type { Env } from '../env.js';
import { ApiError, errorResponse } from '../http-errors.js';
import { checkJsonDepth } from '../json-depth.js';
import { ErrorBody, Filter } from '../schemas.js';
import { issuesMessage } from '../validation.js';

export type AppEnv = { Bindings: Env } & AuthVars;
export type App = OpenAPIHono<AppEnv>;

export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, description, content: { 'application/json': { schema } } } as const;
}

export function ok<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } } as const;
}

const err = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBody } } });

/** The error responses every agent route can give. */
export const ERRORS = {
  400: err('INVALID_ARGUMENT: invalid JSON, a failed validation or a limit'),
  401: err('UNAUTHORIZED: no token, or an invalid or expired one'),
  403: err('FORBIDDEN: a token for another agent or without the scope'),
  413: err('PAYLOAD_TOO_LARGE: the body or a value is too large'),
  500: err('INTERNAL'),
} as const;

export const NOT_FOUND = { 404: err('NOT_FOUND') } as const;
export const CONFLICT = { 409: err('CONFLICT: ifVersion did not match') } as const;
export const GONE = {
  410: err('HISTORY_PRUNED or RESUME_GAP (with oldestSeq): what was asked for is no longer retained'),
} as const;
/** Routes that embed text with the agent's embedder (its settings) when the body carries no vector. */
export const EMBEDDING_ERRORS = {
  502: err("EMBEDDING_FAILED: the agent's embedder failed or answered badly; nothing was written"),
} as const;
export const WRITE_ERRORS = {
  422: err("DIMENSION_MISMATCH: the embedding length is not the store's dims"),
  507: err("QUOTA_EXCEEDED: pinned data alone would exceed the agent's caps"),
} as const;

/**
 * The limits of a route's body, checked before it is parsed: its size (PAYLOAD_TOO_LARGE) and, for a JSON body,
 * its nesting depth (INVALID_ARGUMENT, json-depth.ts). Every route that takes a body uses it.
 */
export function limitBody(maxSize: number): MiddlewareHandler<AppEnv> {
  const size = bodyLimit({
    maxSize,
    onError: () =>
      errorResponse(new ApiError('PAYLOAD_TOO_LARGE', `request bodies are limited to ${maxSize} bytes here`)),
  });
  return (c, next) =>
    size(c, async () => {
      // The text is cached: the route's JSON validator parses it from there.
      if (/json/i.test(c.req.header('content-type') ?? '')) checkJsonDepth(await c.req.text(), 'the body');
      await next();
    });
}

/** `asOfSeq` / `asOfTime` query parameters as an AsOf (at most one). */
export function asOfQuery(q: { asOfSeq?: number | undefined; asOfTime?: number | undefined }): AsOf | undefined {
  if (q.asOfSeq !== undefined && q.asOfTime !== undefined)
    throw new ApiError('INVALID_ARGUMENT', 'give asOfSeq or asOfTime, not both');
  if (q.asOfSeq !== undefined) return { seq: q.asOfSeq };
  if (q.asOfTime !== undefined) return { time: q.asOfTime };
  return undefined;
}

/** Drops keys whose value is undefined (the engine's optional fields are absent, not undefined). */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** A query-string filter: a JSON array of conditions (`what` names it in errors). */
export function parseFilter(raw: string | undefined, what = 'filter'): Condition[] | undefined {
  if (raw === undefined) return undefined;
  checkJsonDepth(raw, what);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ApiError('INVALID_ARGUMENT', `${what} must be a JSON array of conditions`);
  }
  const r = Filter.safeParse(json);
  if (!r.success) throw new ApiError('INVALID_ARGUMENT', `${what}: ${issuesMessage(r.error)}`);
  return r.data as Condition[];
}
