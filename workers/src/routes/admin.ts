/**
 * Per-agent administration: stats, export and import of the whole store as NDJSON streams (any size: the
 * Durable Object is called chunk by chunk, each call well inside its per-call limit), sweep and maintain on demand.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { type ImportProgress as ImportProgressT, lineChunks, ndjsonLines, placedChunks } from 'edgemem';
import { agentStub, callAgent, unwrap } from '../agent-client.js';
import { requires } from '../auth.js';
import { ApiError } from '../http-errors.js';
import { LIMITS } from '../limits.js';
import { AgentParams, ImportProgress, Stats, uint } from '../schemas.js';
import { type App, CONFLICT, ERRORS, ok, WRITE_ERRORS } from './common.js';

const stats = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/stats',
  summary: 'Counts, bytes, caps, the latest seq, index state',
  middleware: [requires('read')] as const,
  request: { params: AgentParams },
  responses: { 200: ok(Stats, 'the stats'), ...ERRORS },
});

const NDJSON = 'application/x-ndjson';

const exportRoute = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/export',
  summary: 'The whole store (current state, history, checkpoints) as an NDJSON stream (edgemem-export/2)',
  description:
    'One JSON object per line: `header` (format, dims, metric, seq), then `version` lines (every retained version; ' +
    'live ones have `seq_to: null` and their memory `id`), `commits` (seq/time pairs), `checkpoint` and `write` lines, and last `end` with ' +
    "the count of each kind. Consistent as of the header's seq. A response without its `end` line was cut short.",
  middleware: [requires('read')] as const,
  request: { params: AgentParams },
  responses: { 200: { description: 'the export, streamed', content: { [NDJSON]: { schema: z.string() } } }, ...ERRORS },
});

const importRoute = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/import',
  summary: 'Load an NDJSON export (as GET /export gives) into an empty store, streamed',
  description:
    'The body streams in (no size limit; a line may hold up to 16 Mi characters). Every line is validated like the ' +
    'live API. A body that fails a check or ends before its `end` line leaves the store empty. Writes get CONFLICT ' +
    'while an import runs.',
  middleware: [requires('write')] as const,
  request: { params: AgentParams, body: { required: true, content: { [NDJSON]: { schema: z.string() } } } },
  responses: { 200: ok(ImportProgress, 'imported'), ...ERRORS, ...CONFLICT, ...WRITE_ERRORS },
});

const sweep = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/sweep',
  summary: 'Remove expired memories and apply retention now (the alarm also does it after writes)',
  middleware: [requires('write')] as const,
  request: { params: AgentParams },
  responses: { 200: ok(z.object({ expired: uint() }), 'how many memories expired'), ...ERRORS },
});

const maintain = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/maintain',
  summary: 'Insert buffered vectors into the index and snapshot it now (the alarm also does it after writes)',
  middleware: [requires('write')] as const,
  request: { params: AgentParams },
  responses: { 200: ok(z.object({ ok: z.literal(true) }), 'done'), ...ERRORS },
});

/** Reads and drops a request's body; PAYLOAD_TOO_LARGE past `max` bytes. */
async function drain(request: Request, max: number): Promise<void> {
  if (!request.body) return;
  const reader = request.body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel();
      throw new ApiError('PAYLOAD_TOO_LARGE', `request bodies are limited to ${max} bytes here`);
    }
  }
}

export function registerAdminRoutes(app: App): void {
  app.openapi(sweep, async (c) => {
    return c.json({ expired: await callAgent(c.env, c.req.valid('param').agent, 'sweep') }, 200);
  });

  app.openapi(maintain, async (c) => {
    await callAgent(c.env, c.req.valid('param').agent, 'maintain');
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(stats, async (c) => {
    const s = await callAgent(c.env, c.req.valid('param').agent, 'stats');
    return c.json({ ...s }, 200);
  });

  app.openapi(exportRoute, async (c) => {
    // A GET's body means nothing here, but one left unread while the answer streams makes the runtime reset the
    // connection: read it first (up to the usual body limit).
    await drain(c.req.raw, LIMITS.bodyBytes);
    const stub = agentStub(c.env, c.req.valid('param').agent);
    // The first chunk before the response starts, so its errors still get their status.
    const first = unwrap(await stub.exportChunk(null));
    let cursor = first.cursor;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(first.ndjson));
        if (cursor === null) controller.close();
      },
      async pull(controller) {
        if (cursor === null) return;
        const r = await stub.exportChunk(cursor);
        if (!r.ok) {
          // Cut short: the missing `end` line tells the reader.
          controller.error(new Error(`${r.error.code}: ${r.error.message}`));
          return;
        }
        controller.enqueue(encoder.encode(r.value.ndjson));
        cursor = r.value.cursor;
        if (cursor === null) controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': NDJSON } }) as never;
  });

  app.openapi(importRoute, async (c) => {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/(x-ndjson|jsonl|x-jsonlines)\b/i.test(type)) {
      throw new ApiError(
        'INVALID_ARGUMENT',
        `POST /import takes NDJSON (Content-Type: ${NDJSON}), as GET /export gives; got ${JSON.stringify(type)}`,
      );
    }
    const body = c.req.raw.body;
    if (!body) throw new ApiError('INVALID_ARGUMENT', 'POST /import needs a body: the NDJSON export');
    const stub = agentStub(c.env, c.req.valid('param').agent);
    let progress: ImportProgressT | undefined;
    try {
      const lines = ndjsonLines(body, LIMITS.importLineChars);
      for await (const { ndjson, first, last } of placedChunks(lineChunks(lines, LIMITS.importChunkChars))) {
        progress = unwrap(await stub.importChunk(ndjson, { first, last }));
      }
    } catch (e) {
      // A failed chunk has already emptied the store; a failed body (a line too long, cut, not UTF-8) has not.
      await stub.importAbort().catch(() => undefined);
      throw e;
    }
    if (!progress?.done) {
      await stub.importAbort().catch(() => undefined);
      throw new ApiError('INVALID_ARGUMENT', 'the NDJSON body ended before its `end` line: nothing was imported');
    }
    return c.json(progress, 200);
  });
}
