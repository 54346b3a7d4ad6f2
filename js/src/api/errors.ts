/** `EdgememError`: the one error type of the package, with the engine's stable `code`. */

import { ERROR_CODES, type ErrorCode } from './generated/engine.js';

/**
 * Every code, generated from the engine's list (core/src/base/error.rs). UNAUTHORIZED and FORBIDDEN come from remote
 * stores only, EMBEDDING_FAILED from stores with an embedder; the engine never raises them.
 */
export { ERROR_CODES, type ErrorCode };

export class EdgememError extends Error {
  readonly code: ErrorCode;
  /** RESUME_GAP only: the oldest seq still in the change feed (resume from `oldestSeq - 1`). */
  readonly oldestSeq?: number;

  constructor(code: ErrorCode, message: string, options?: { oldestSeq?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EdgememError';
    this.code = code;
    if (options?.oldestSeq !== undefined) this.oldestSeq = options.oldestSeq;
  }
}

/** The object the wasm adapter throws for an engine error (js/wasm/src/errors.rs). */
interface AdapterError {
  edgemem: true;
  code: string;
  message: string;
  oldestSeq?: number;
}

function isAdapterError(e: unknown): e is AdapterError {
  return typeof e === 'object' && e !== null && (e as { edgemem?: unknown }).edgemem === true;
}

/** `code` when it is one of the engine's error codes, else INTERNAL: how every surface reads a code it was handed. */
export function codeOf(code: unknown): ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code)
    ? (code as ErrorCode)
    : 'INTERNAL';
}

/** Converts whatever a binding call threw (other than a trap) into an EdgememError. */
export function toEdgememError(e: unknown): EdgememError {
  if (e instanceof EdgememError) return e;
  if (isAdapterError(e)) {
    const code = codeOf(e.code);
    if (e.oldestSeq !== undefined && !Number.isSafeInteger(e.oldestSeq)) {
      return new EdgememError('INTERNAL', `${e.message} (its oldest seq is beyond 2^53-1)`);
    }
    return new EdgememError(code, e.message, e.oldestSeq === undefined ? undefined : { oldestSeq: e.oldestSeq });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new EdgememError('INTERNAL', message, { cause: e });
}

export function invalid(message: string): EdgememError {
  return new EdgememError('INVALID_ARGUMENT', message);
}

/**
 * Checks a seq/version the engine returned (after JSON.parse, which rounds anything past 2^53-1 to a
 * number that is no longer a safe integer): INTERNAL rather than a silently rounded value.
 */
export function safeOut(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw new EdgememError(
      'INTERNAL',
      `the store returned ${what} ${String(n)}, beyond 2^53-1: a JavaScript number cannot hold it exactly`,
    );
  }
  return n;
}

/** Checks a seq/version/count argument: an integer in 0..=2^53-1, never silently rounded. */
export function checkSafe(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw invalid(`${what} must be an integer in 0..=2^53-1 (Number.MAX_SAFE_INTEGER), got ${String(n)}`);
  }
  return n;
}

/**
 * Builds a call's arguments: anything `build` throws that is not already an EdgememError (a TypeError from
 * a null options object, JSON.stringify refusing a BigInt or a cycle, a value nested too deep) is the
 * caller's input, so it becomes INVALID_ARGUMENT naming `what`.
 */
export function argument<T>(what: string, build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (e instanceof EdgememError) throw e;
    throw new EdgememError('INVALID_ARGUMENT', `${what}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/** A lone UTF-16 surrogate (the `u` flag matches surrogate pairs as one code point, so only lone ones match). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const nativeWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** Whether `s` holds no lone UTF-16 surrogate (`String.prototype.isWellFormed`, where the runtime has it). */
export function isWellFormed(s: string): boolean {
  return nativeWellFormed ? nativeWellFormed.call(s) : !LONE_SURROGATE.test(s);
}

/**
 * A string argument that crosses into the engine or a URL as text: one holding a lone UTF-16 surrogate cannot
 * be stored faithfully (UTF-8, wasm-bindgen and URLs replace it with U+FFFD), so it is INVALID_ARGUMENT on every
 * surface. (Strings inside JSON arguments need no check here: the engine's JSON parser refuses `\ud800`.)
 */
export function wellFormed(s: string, what: string): string {
  if (!isWellFormed(s)) throw invalid(`${what} holds a lone UTF-16 surrogate, which cannot be stored as UTF-8`);
  return s;
}

/** An options argument: undefined is `{}`; anything but a plain object is INVALID_ARGUMENT. */
export function options<T extends object>(o: T | undefined, what: string): Partial<T> {
  if (o === undefined) return {};
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw invalid(`${what} must be an object`);
  return o;
}

/** A count such as a page size: an integer in 1..=2^53-1. */
export function checkPositive(n: unknown, what: string): number {
  const v = checkSafe(n, what);
  if (v < 1) throw invalid(`${what} must be at least 1, got ${v}`);
  return v;
}
