/**
 * What the MCP tools return: JSON text content (pretty-printed, as `@modelcontextprotocol/server-memory` does)
 * with the same object as `structuredContent`, and store errors as tool errors. An `EdgememError` becomes an
 * `isError` result whose text starts with its code (`NOT_FOUND: …`), so a model can tell what went wrong; any
 * other error is left to the SDK, which turns it into an `isError` result holding its message (what the
 * reference server's errors look like).
 */

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool result: `value` as pretty JSON text, and `structured` (default: `value` itself) as structured content. */
export function jsonResult(value: unknown, structured?: Record<string, unknown>): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
  const content = structured ?? (isRecord(value) ? value : undefined);
  if (content !== undefined) result.structuredContent = content;
  return result;
}

/** A result that is a sentence, with `{ success: true, message }` as structured content (the reference's deletes). */
export function messageResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], structuredContent: { success: true, message } };
}

interface CodedError {
  code: string;
  message: string;
  oldestSeq?: number;
}

/**
 * An `EdgememError`, recognised by shape rather than class: a store from another copy of the package (or the
 * remote client of another version) throws its own class.
 */
function codedError(e: unknown): CodedError | null {
  if (!(e instanceof Error) || e.name !== 'EdgememError') return null;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? (e as Error & CodedError) : null;
}

/** `CODE: message` (with `oldestSeq` for RESUME_GAP) as an error result. */
export function storeErrorResult(e: CodedError): CallToolResult {
  const where = e.oldestSeq === undefined ? '' : ` (oldestSeq ${e.oldestSeq}: the change feed starts there)`;
  return { content: [{ type: 'text', text: `${e.code}: ${e.message}${where}` }], isError: true };
}

/** Wraps a tool handler: a store error becomes an error result; anything else is rethrown to the SDK. */
export function guarded<A extends unknown[]>(
  handler: (...args: A) => Promise<CallToolResult>,
): (...args: A) => Promise<CallToolResult> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (e) {
      const coded = codedError(e);
      if (coded) return storeErrorResult(coded);
      throw e;
    }
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
