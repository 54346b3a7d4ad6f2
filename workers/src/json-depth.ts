/**
 * The nesting depth of JSON text, checked before anything parses it: one linear scan of the brackets outside
 * strings, no recursion, so JSON nested thousands of levels deep is refused with INVALID_ARGUMENT instead of
 * exhausting the stack in JSON.parse, a schema, the RPC to the agent's object or a response (LIMITS.jsonDepth).
 * Used for every request body (routes/common.ts `limitBody`), WebSocket client messages (ws-messages.ts) and
 * JSON in query strings (the checkpoint list's `filter`). Malformed text is left for JSON.parse to report.
 */
import { ApiError } from './http-errors.js';
import { LIMITS } from './limits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** How many `[` and `{` characters `text` holds, counting no further than `limit` (indexOf: native and fast). */
function openersUpTo(text: string, limit: number): number {
  let n = 0;
  for (const c of ['[', '{']) {
    for (let i = text.indexOf(c); i !== -1 && n <= limit; i = text.indexOf(c, i + 1)) n++;
  }
  return n;
}

/** Whether `text` opens more than `max` arrays/objects inside one another (strings are skipped). */
export function nestedDeeperThan(text: string, max: number): boolean {
  // Text with at most `max` brackets cannot nest deeper (most bodies: a few objects and an embedding array).
  if (openersUpTo(text, max) <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** INVALID_ARGUMENT when `text` (what: e.g. "the body") is JSON nested deeper than LIMITS.jsonDepth. */
export function checkJsonDepth(text: string, what: string): void {
  if (nestedDeeperThan(text, LIMITS.jsonDepth)) {
    throw new ApiError(
      'INVALID_ARGUMENT',
      `${what} is JSON nested deeper than ${LIMITS.jsonDepth} levels of arrays and objects`,
    );
  }
}
