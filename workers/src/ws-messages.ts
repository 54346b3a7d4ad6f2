/** Validation of client WebSocket messages (edgemem/protocol) with the same schemas and limits as the HTTP API. */
import { z } from '@hono/zod-openapi';
import type { ClientMessage } from 'edgemem/protocol';
import { ApiError, type Outcome } from './http-errors.js';
import { checkJsonDepth } from './json-depth.js';
import { EventFilter, uint } from './schemas.js';
import { issuesMessage } from './validation.js';

const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), filter: EventFilter.optional(), since: uint().optional() }).strict(),
  z.object({ type: z.literal('unsubscribe') }).strict(),
  z.object({ type: z.literal('ping') }).strict(),
]);

/** A client's message, or the INVALID_ARGUMENT error its socket is sent (not JSON, too deep, not a known message). */
export function parseClientMessage(raw: string | ArrayBuffer): Outcome<ClientMessage> {
  const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
  let json: unknown;
  try {
    checkJsonDepth(text, 'the message');
    json = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      error: e instanceof ApiError ? e.wire : { code: 'INVALID_ARGUMENT', message: 'messages must be JSON' },
    };
  }
  const r = ClientMessageSchema.safeParse(json);
  if (!r.success) return { ok: false, error: { code: 'INVALID_ARGUMENT', message: issuesMessage(r.error) } };
  return { ok: true, value: r.data as ClientMessage };
}
