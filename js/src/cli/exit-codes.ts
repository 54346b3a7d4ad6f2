/**
 * How the command line reports failures: `edgemem: CODE: message` on stderr and an exit code per engine error
 * code, so a script can tell NOT_FOUND from CONFLICT without parsing text. Usage errors (an unknown option, a
 * missing or malformed argument) are INVALID_ARGUMENT, 2; a failure that is no `EdgememError` exits with 1.
 */

import { EdgememError, type ErrorCode } from '../api/errors.js';

/** The exit code of each engine error code (stable: scripts depend on them). */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 2,
  NOT_FOUND: 3,
  CONFLICT: 4,
  DIMENSION_MISMATCH: 5,
  QUOTA_EXCEEDED: 6,
  PAYLOAD_TOO_LARGE: 7,
  RESUME_GAP: 8,
  HISTORY_PRUNED: 9,
  UNAUTHORIZED: 10,
  FORBIDDEN: 11,
  INTERNAL: 12,
  EMBEDDING_FAILED: 13,
  MODEL_FAILED: 14,
};

/** Anything that failed without an engine code (an I/O error writing the output, a bug). */
export const EXIT_OTHER = 1;

/** The exit-code table for `--help`. */
export function exitCodesHelp(): string {
  const rows = Object.entries(EXIT_CODES).map(([code, n]) => `  ${String(n).padStart(2)}  ${code}`);
  return [
    'Exit codes (errors print "edgemem: CODE: message" on stderr):',
    '   0  success',
    `   ${EXIT_OTHER}  an error without an engine code`,
    ...rows,
    '  130  interrupted (consolidate prints the --cursor to resume from)',
    '  (usage errors are INVALID_ARGUMENT, 2)',
  ].join('\n');
}

/** Prints `e` as `edgemem: CODE: message` and returns the exit code to end with. */
export function report(e: unknown): number {
  if (e instanceof EdgememError) {
    const gap = e.oldestSeq === undefined ? '' : ` (oldest retained seq: ${e.oldestSeq})`;
    process.stderr.write(`edgemem: ${e.code}: ${e.message}${gap}\n`);
    return EXIT_CODES[e.code];
  }
  process.stderr.write(`edgemem: ${e instanceof Error ? e.message : String(e)}\n`);
  return EXIT_OTHER;
}
