/** `EdgememError`: the one error type of the package, with the engine's stable `code`. */

export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'CONFLICT',
  'DIMENSION_MISMATCH',
  'QUOTA_EXCEEDED',
  'PAYLOAD_TOO_LARGE',
  'RESUME_GAP',
  'HISTORY_PRUNED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

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

/** The object the wasm adapter throws for an engine error (wasm/src/errors.rs). */
interface AdapterError {
  edgemem: true;
  code: string;
  message: string;
  oldestSeq?: number;
}

function isAdapterError(e: unknown): e is AdapterError {
  return typeof e === 'object' && e !== null && (e as { edgemem?: unknown }).edgemem === true;
}

/** Converts whatever a binding call threw (other than a trap) into an EdgememError. */
export function toEdgememError(e: unknown): EdgememError {
  if (e instanceof EdgememError) return e;
  if (isAdapterError(e)) {
    const code = (ERROR_CODES as readonly string[]).includes(e.code) ? (e.code as ErrorCode) : 'INTERNAL';
    return new EdgememError(code, e.message, e.oldestSeq === undefined ? undefined : { oldestSeq: e.oldestSeq });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new EdgememError('INTERNAL', message, { cause: e });
}

export function invalid(message: string): EdgememError {
  return new EdgememError('INVALID_ARGUMENT', message);
}

/** Checks a seq/version/count argument: an integer in 0..=2^53-1, never silently rounded. */
export function checkSafe(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw invalid(`${what} must be an integer in 0..=2^53-1 (Number.MAX_SAFE_INTEGER), got ${String(n)}`);
  }
  return n;
}
