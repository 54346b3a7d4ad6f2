/** Checkpoint routes (LangGraph-shaped): put, get latest or by id, list, pending writes, delete a thread. */
import { createRoute, z } from '@hono/zod-openapi';
import type { CheckpointInput } from 'edgemem';
import { callAgent } from '../agent-client.js';
import { requires } from '../auth.js';
import type { Env } from '../env.js';
import { ApiError } from '../http-errors.js';
import { LIMITS } from '../limits.js';
import { AgentParams, Checkpoint, CheckpointPutBody, uint, WritesBody } from '../schemas.js';
import { checkpointOut, dataIn } from '../wire.js';
import { type App, defined, ERRORS, jsonBody, limitBody, NOT_FOUND, ok, parseFilter } from './common.js';

const ThreadParams = AgentParams.extend({
  threadId: z
    .string()
    .min(1)
    .max(LIMITS.idChars)
    .openapi({ param: { name: 'threadId', in: 'path' } }),
});

/** A checkpoint put's body limit: a checkpoint's bytes, as base64 or JSON text. */
export const CHECKPOINT_BODY_BYTES = LIMITS.checkpointBytes * 2;

/** A checkpoint put's body (validated) as the store's input; INVALID_ARGUMENT for a payload given twice or not at all. */
export function checkpointInput(body: z.output<typeof CheckpointPutBody>): CheckpointInput {
  const { data, dataBase64, blobs, ...b } = body;
  const input = {
    ...b,
    data: dataIn({ data, dataBase64 }, 'checkpoint'),
    blobs: blobs?.map(({ data: d, dataBase64: b64, ...blob }, i) => ({
      ...blob,
      data: dataIn({ data: d, dataBase64: b64 }, `blobs.${i}`),
    })),
  };
  return defined(input) as CheckpointInput;
}

const putCheckpoint = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/checkpoints',
  summary: 'Store a checkpoint',
  middleware: [requires('write'), limitBody(CHECKPOINT_BODY_BYTES)] as const,
  request: { params: AgentParams, body: jsonBody(CheckpointPutBody) },
  responses: { 200: ok(z.object({ seq: uint() }), 'its seq'), ...ERRORS },
});

const getCheckpoint = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/checkpoints/{threadId}',
  summary: "A thread's latest checkpoint, or the one with checkpointId",
  middleware: [requires('read')] as const,
  request: {
    params: ThreadParams,
    query: z.object({
      checkpointNs: z.string().max(LIMITS.idChars).optional(),
      checkpointId: z.string().min(1).max(LIMITS.idChars).optional(),
    }),
  },
  responses: { 200: ok(Checkpoint, 'the checkpoint with its pending writes'), ...ERRORS, ...NOT_FOUND },
});

const listCheckpoints = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/checkpoints',
  summary:
    'Checkpoints of a thread (or of every thread), newest first, in pages cut by count and by size (about 4 MiB)',
  middleware: [requires('read')] as const,
  request: {
    params: AgentParams,
    query: z.object({
      threadId: z.string().min(1).max(LIMITS.idChars).optional().openapi({ description: 'default: every thread' }),
      checkpointNs: z.string().max(LIMITS.idChars).optional(),
      before: z
        .string()
        .min(1)
        .max(LIMITS.idChars)
        .optional()
        .openapi({ description: 'only checkpoints committed before this one (of the thread, else of any thread)' }),
      limit: z.coerce.number().int().min(1).max(LIMITS.pageItems).optional(),
      filter: z
        .string()
        .max(8192)
        .optional()
        .openapi({ description: 'metadata conditions as JSON: [{"field","op","value"}]' }),
    }),
  },
  responses: {
    200: ok(
      z.object({ checkpoints: z.array(Checkpoint), nextBefore: z.string().nullable() }),
      'newest first; `nextBefore`: pass it as `before` for the next page (null: this page ends the list)',
    ),
    ...ERRORS,
  },
});

const putWrites = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/checkpoints/{threadId}/writes',
  summary: 'Store pending writes of a checkpoint',
  middleware: [requires('write'), limitBody(LIMITS.checkpointBytes * 2)] as const,
  request: { params: ThreadParams, body: jsonBody(WritesBody) },
  responses: { 200: ok(z.object({ ok: z.literal(true) }), 'stored'), ...ERRORS, ...NOT_FOUND },
});

const deleteThread = createRoute({
  method: 'delete',
  path: '/v1/agents/{agent}/checkpoints/{threadId}',
  summary: "Delete a thread's checkpoints and writes",
  middleware: [requires('write')] as const,
  request: { params: ThreadParams },
  responses: { 200: ok(z.object({ deleted: uint() }), 'how many checkpoints were deleted'), ...ERRORS },
});

/** POST a checkpoint: the route's answer to its validated parameters and body (fast-path.ts calls it too). */
export async function putCheckpointAnswer(
  env: Env,
  { agent }: z.output<typeof AgentParams>,
  body: z.output<typeof CheckpointPutBody>,
) {
  return { seq: await callAgent(env, agent, 'putCheckpoint', checkpointInput(body)) };
}

export function registerCheckpointRoutes(app: App): void {
  app.openapi(putCheckpoint, async (c) =>
    c.json(await putCheckpointAnswer(c.env, c.req.valid('param'), c.req.valid('json')), 200),
  );

  app.openapi(getCheckpoint, async (c) => {
    const { agent, threadId } = c.req.valid('param');
    const cp = await callAgent(c.env, agent, 'getCheckpoint', threadId, defined(c.req.valid('query')));
    if (!cp) throw new ApiError('NOT_FOUND', `no checkpoint for thread ${JSON.stringify(threadId)}`);
    return c.json(checkpointOut(cp), 200);
  });

  app.openapi(listCheckpoints, async (c) => {
    const { agent } = c.req.valid('param');
    const { filter, ...q } = c.req.valid('query');
    const page = await callAgent(c.env, agent, 'listCheckpointsPage', defined({ ...q, filter: parseFilter(filter) }));
    return c.json({ checkpoints: page.checkpoints.map(checkpointOut), nextBefore: page.nextBefore }, 200);
  });

  app.openapi(putWrites, async (c) => {
    const { agent, threadId } = c.req.valid('param');
    const { writes, ...b } = c.req.valid('json');
    const pairs = writes.map((w, i): [string, ReturnType<typeof dataIn>] => [w.channel, dataIn(w, `writes.${i}`)]);
    await callAgent(c.env, agent, 'putWrites', defined({ ...b, threadId, writes: pairs }));
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(deleteThread, async (c) => {
    const { agent, threadId } = c.req.valid('param');
    return c.json({ deleted: await callAgent(c.env, agent, 'deleteThread', threadId) }, 200);
  });
}
