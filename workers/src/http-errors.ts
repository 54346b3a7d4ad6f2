/**
 * The API's error bodies `{ error: { code, message } }` and the HTTP status of each engine code.
 * QUOTA_EXCEEDED is 507 Insufficient Storage (the agent's pinned data alone fills its caps — retrying the
 * same write will not help until something is deleted); DIMENSION_MISMATCH is 422 (well-formed JSON the
 * store cannot take); RESUME_GAP and HISTORY_PRUNED are 410 Gone (the data asked for was retained once);
 * EMBEDDING_FAILED is 502 Bad Gateway (the agent's embedder — an endpoint or Workers AI — failed; nothing written).
 */
import { ERROR_CODES } from 'edgemem';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The engine's codes (generated from core/src/error.rs): the same in Rust, in the package and over HTTP. */
export const API_ERROR_CODES = ERROR_CODES;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export const STATUS: Record<ApiErrorCode, ContentfulStatusCode> = {
  INVALID_ARGUMENT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  HISTORY_PRUNED: 410,
  RESUME_GAP: 410,
  PAYLOAD_TOO_LARGE: 413,
  DIMENSION_MISMATCH: 422,
  INTERNAL: 500,
  EMBEDDING_FAILED: 502,
  QUOTA_EXCEEDED: 507,
};

/** An error as it crosses the Worker ↔ Durable Object boundary and goes out in a response body. */
export interface WireError {
  code: ApiErrorCode;
  message: string;
  /** RESUME_GAP only: the oldest seq the change feed still holds. */
  oldestSeq?: number;
}

/** An error the API answers with; thrown anywhere in a handler and rendered by `errorResponse`. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly oldestSeq?: number;
  constructor(code: ApiErrorCode, message: string, oldestSeq?: number) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    if (oldestSeq !== undefined) this.oldestSeq = oldestSeq;
  }
  get wire(): WireError {
    return this.oldestSeq === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, oldestSeq: this.oldestSeq };
  }
}

/** Any thrown value (an ApiError, an EdgememError, Hono's HTTPException, a bug) as a WireError. */
export function toWire(e: unknown): WireError {
  if (e instanceof ApiError) return e.wire;
  if (e instanceof HTTPException) {
    const code: ApiErrorCode =
      e.status === 413 ? 'PAYLOAD_TOO_LARGE' : e.status < 500 ? 'INVALID_ARGUMENT' : 'INTERNAL';
    return { code, message: e.message || 'invalid request' };
  }
  if (typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string') {
    const { code, message, oldestSeq } = e as { code: string; message?: unknown; oldestSeq?: unknown };
    if ((API_ERROR_CODES as readonly string[]).includes(code)) {
      const w: WireError = { code: code as ApiErrorCode, message: String(message ?? code) };
      if (typeof oldestSeq === 'number') w.oldestSeq = oldestSeq;
      return w;
    }
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/** The response for an error: its status and `{ error: { code, message[, oldestSeq] } }`. */
export function errorResponse(e: unknown): Response {
  const w = toWire(e);
  if (w.code === 'INTERNAL') console.error('edgemem worker: internal error', e);
  return Response.json({ error: w }, { status: STATUS[w.code] });
}
