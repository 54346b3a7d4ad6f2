/**
 * The API's error bodies `{ error: { code, message } }` and the HTTP status of each engine code.
 * QUOTA_EXCEEDED is 507 Insufficient Storage (the agent's pinned data alone fills its caps — retrying the
 * same write will not help until something is deleted); DIMENSION_MISMATCH is 422 (well-formed JSON the
 * store cannot take); RESUME_GAP and HISTORY_PRUNED are 410 Gone (the data asked for was retained once);
 * EMBEDDING_FAILED is 502 Bad Gateway (the agent's embedder — an endpoint or Workers AI — failed; nothing written).
 */
import { ERROR_CODES } from 'edgemem';
import { outcome, type Outcome as RpcOutcome, type WireError as RpcWireError, toWireError } from 'edgemem/rpc';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The engine's codes (generated from core/src/base/error.rs): the same in Rust, in the package and over HTTP. */
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
  MODEL_FAILED: 502,
  QUOTA_EXCEEDED: 507,
};

/**
 * An error as it crosses the Worker ↔ Durable Object boundary and goes out in a response body (edgemem/rpc's):
 * its code, message and, for RESUME_GAP only, the oldest seq the change feed still holds.
 */
export type WireError = RpcWireError<ApiErrorCode>;

/** What the Durable Object answers each RPC with (edgemem/rpc): the value, or the error with its code. */
export type Outcome<T> = RpcOutcome<T, WireError>;

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

/**
 * Any thrown value as a WireError: Hono's HTTPException by its status, anything else by edgemem/rpc's `toWireError`
 * (an ApiError's or EdgememError's code kept, any other value — a bug — INTERNAL).
 */
export function toWire(e: unknown): WireError {
  if (e instanceof HTTPException) {
    const code: ApiErrorCode =
      e.status === 413 ? 'PAYLOAD_TOO_LARGE' : e.status < 500 ? 'INVALID_ARGUMENT' : 'INTERNAL';
    return { code, message: e.message || 'invalid request' };
  }
  return toWireError(e);
}

/** Runs `fn`: its value, or what it threw as a WireError (`toWire`). Never rejects: how the object answers an RPC. */
export function wireOutcome<T>(fn: () => T | Promise<T>): Promise<Outcome<T>> {
  return outcome<T, WireError>(fn, toWire);
}

/** The response for an error: its status and `{ error: { code, message[, oldestSeq] } }`. */
export function errorResponse(e: unknown): Response {
  const w = toWire(e);
  if (w.code === 'INTERNAL') console.error('edgemem worker: internal error', e);
  return Response.json({ error: w }, { status: STATUS[w.code] });
}
