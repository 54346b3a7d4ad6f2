/**
 * What an agent's replicas (`openStore({ replicaOf })` in the npm package) use: `GET …/replica` (who the token is:
 * its scopes, and the agent's settings and seq), `GET …/replica/snapshot` (the export one chunk at a time, each
 * answer naming the cursor of the next, so an interrupted first sync goes on where it stopped), `GET
 * …/replica/changes` (the memories and checkpoints changed after a seq, as they are now, vectors included) and
 * `POST …/replica/push` (a replica's queued writes, idempotent by replica and op id). docs/concepts/replicas.md.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { PushedOp } from '../agent/replica.js';
import { agentStub, unwrap } from '../agent-client.js';
import { agentEmbedder } from '../agent-embedder.js';
import type { AgentMemory } from '../agent-memory.js';
import { requires } from '../auth.js';
import { LIMITS } from '../limits.js';
import {
  AgentInfo,
  AgentParams,
  DataFields,
  Id,
  Json,
  JsonObject,
  Key,
  NamespaceBody,
  Scope,
  uint,
  uintQuery,
  ValidTime,
  Vector,
} from '../schemas.js';
import { type App, ERRORS, GONE, jsonBody, limitBody, ok, WRITE_ERRORS } from './common.js';

const NDJSON = 'application/x-ndjson';
/** The response header naming the cursor of a snapshot's next chunk (absent after the last). */
export const NEXT_CURSOR_HEADER = 'Edgemem-Next-Cursor';

const ReplicaId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/)
  .openapi({ description: "the replica's id: 1-128 of A-Z a-z 0-9 . _ : -" });

const Overwrote = z
  .object({ from: uint(), to: uint(), by: z.string().optional() })
  .openapi({ description: 'versions this write replaced without its writer having seen them (it won over them)' });

/** What `remember` keeps of a memory (the engine's snake_case), carried by pulls and pushes. */
const CoherenceFields = z
  .object({
    seen: uint().optional(),
    last_seen: ValidTime().optional(),
    replaces: Key.optional(),
    replaced_by: Key.optional(),
  })
  .strict()
  .openapi({ description: 'what remember keeps: seen count, last seen, the keys it replaced / was replaced by' });

const PulledItem = z
  .union([
    z.object({
      kind: z.literal('memory'),
      namespace: z.array(z.string()),
      key: z.string(),
      version: uint(),
      deleted: z.boolean().optional(),
      value: Json.optional(),
      text: z.string().nullable().optional(),
      metadata: JsonObject.optional(),
      pinned: z.boolean().optional(),
      expires_at: z.number().nullable().optional(),
      embedding: z.array(z.number()).nullable().optional(),
      valid_from: z.number().nullable().optional().openapi({ description: 'valid time (null: open)' }),
      valid_to: z.number().nullable().optional(),
      coherence: CoherenceFields.nullable().optional(),
      overwrote: Overwrote.optional(),
    }),
    z.object({ kind: z.literal('checkpoint'), checkpoint: z.record(z.string(), z.unknown()) }),
    z.object({ kind: z.literal('thread_deleted'), threadId: z.string() }),
  ])
  .openapi('PulledItem');

const OpId = uint().openapi({
  description: "the op's id, ascending per replica: a retried id is answered, not applied again",
});

const PushOp = z
  .discriminatedUnion('op', [
    z.object({
      id: OpId,
      op: z.literal('put'),
      namespace: NamespaceBody.min(1),
      key: Key,
      value: Json,
      text: z.string().max(LIMITS.memoryBytes).nullable().optional(),
      metadata: JsonObject.nullable().optional(),
      pinned: z.boolean().optional(),
      ttl_ms: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
      if_version: uint().nullable().optional(),
      embedding: Vector.nullable().optional(),
      valid_from: ValidTime().nullable().optional(),
      valid_to: ValidTime().nullable().optional(),
      coherence: CoherenceFields.nullable().optional().openapi({
        description: "a remember's links and seen count, as the replica's engine wrote them",
      }),
      base: uint().openapi({ description: 'the version the replica wrote over (0: none)' }),
      version: uint().optional().openapi({ description: 'the version it made on the replica' }),
    }),
    z.object({
      id: OpId,
      op: z.literal('delete'),
      namespace: NamespaceBody.min(1),
      key: Key,
      if_version: uint().nullable().optional(),
      base: uint(),
    }),
    z.object({
      id: OpId,
      op: z.literal('checkpoint'),
      checkpoint: z
        .object({
          threadId: Id,
          checkpointNs: z.string().max(LIMITS.idChars),
          checkpointId: Id,
          parentId: Id.nullable().optional(),
          metadata: JsonObject.optional(),
          ...DataFields,
          channelVersions: z.record(Id, Id).optional(),
          blobs: z
            .array(z.object({ channel: Id, version: Id, ...DataFields }))
            .max(LIMITS.writesPerCall)
            .optional(),
          pendingWrites: z
            .array(z.object({ taskId: Id, idx: z.number().int(), channel: Id, ...DataFields }))
            .max(LIMITS.writesPerCall)
            .optional(),
        })
        .passthrough()
        .openapi({ description: 'the checkpoint as GET …/checkpoints answers it, pending writes included' }),
    }),
    z.object({ id: OpId, op: z.literal('delete_thread'), thread_id: Id }),
  ])
  .openapi('ReplicaOp');

const PushResult = z
  .union([
    z.object({
      id: uint(),
      seq: uint().nullable(),
      version: uint().optional(),
      duplicate: z.literal(true).optional(),
      overwrote: Overwrote.optional(),
    }),
    z.object({ id: uint(), error: z.object({ code: z.string(), message: z.string() }) }),
  ])
  .openapi('ReplicaPushResult');

const info = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/replica',
  summary: "What a replica needs first: the token's scopes, the agent's settings and latest seq",
  middleware: [requires('read')] as const,
  request: { params: AgentParams },
  responses: {
    200: ok(
      AgentInfo.extend({
        scopes: z.array(Scope),
        embedder: z
          .object({ id: z.string(), dims: uint() })
          .nullable()
          .openapi({ description: 'the embedder the agent records: a replica embeds with this one only' }),
      }),
      'the scopes and the agent',
    ),
    ...ERRORS,
  },
});

const snapshot = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/replica/snapshot',
  summary: "One chunk of the agent's NDJSON export; the next chunk's cursor in the Edgemem-Next-Cursor header",
  description:
    'The chunks of one export (from no cursor to the answer without the header) are GET /export cut where the ' +
    "header says, consistent as of the first chunk's seq, each at most about 4 MiB. An interrupted first sync asks " +
    'again with the last cursor it kept.',
  middleware: [requires('read')] as const,
  request: {
    params: AgentParams,
    query: z.object({
      cursor: z.string().max(4096).optional(),
      bytes: z.coerce
        .number()
        .int()
        .min(64 << 10)
        .max(LIMITS.exportChunkBytes)
        .optional()
        .openapi({ description: 'about how long a chunk is (default and most: 4 MiB)' }),
    }),
  },
  responses: { 200: { description: 'the chunk', content: { [NDJSON]: { schema: z.string() } } }, ...ERRORS },
});

const changes = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/replica/changes',
  summary: 'The memories and checkpoints changed after a seq, each as it is now (vectors included), in change order',
  middleware: [requires('read')] as const,
  request: {
    params: AgentParams,
    query: z.object({
      after: uintQuery().default(0),
      limit: z.coerce.number().int().min(1).max(LIMITS.pageItems).optional(),
    }),
  },
  responses: {
    200: ok(
      z.object({ items: z.array(PulledItem), cursor: uint(), more: z.boolean(), head: uint() }),
      '`cursor`: pass as `after` next time; `more`: ask again at once',
    ),
    ...ERRORS,
    ...GONE,
  },
});

const push = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/replica/push',
  summary:
    "A replica's queued writes, applied in order, each answered on its own; a retried op id is not applied again",
  middleware: [requires('write'), limitBody(LIMITS.bodyBytes)] as const,
  request: {
    params: AgentParams,
    body: jsonBody(z.object({ replica: ReplicaId, ops: z.array(PushOp).min(1).max(LIMITS.batchItems) })),
  },
  responses: { 200: ok(z.object({ results: z.array(PushResult) }), 'one result per op'), ...ERRORS, ...WRITE_ERRORS },
});

export function registerReplicaRoutes(app: App): void {
  app.openapi(info, async (c) => {
    const { agent } = c.req.valid('param');
    const p = c.get('principal');
    const scopes = p.admin ? (['read', 'write', 'subscribe'] as const) : p.scopes;
    const state = unwrap(await agentStub(c.env, agent).settings());
    const e = state.settings.embedder ? agentEmbedder(c.env, state.settings.embedder) : undefined;
    const embedder = e ? { id: e.id, dims: e.dims } : null;
    return c.json({ agent, ...state, scopes: [...scopes], embedder }, 200);
  });

  app.openapi(snapshot, async (c) => {
    const { agent } = c.req.valid('param');
    const { cursor, bytes } = c.req.valid('query');
    const chunk = unwrap(await agentStub(c.env, agent).exportChunk(cursor ?? null, bytes));
    const headers: Record<string, string> = { 'content-type': NDJSON };
    if (chunk.cursor !== null) headers[NEXT_CURSOR_HEADER] = chunk.cursor;
    return new Response(chunk.ndjson, { status: 200, headers }) as never;
  });

  app.openapi(changes, async (c) => {
    const { agent } = c.req.valid('param');
    const { after, limit } = c.req.valid('query');
    // Cast: tsc gives up (TS2589) mapping the items' JSON values for the stub's type (Rpc.Stubify of JsonValue).
    const stub = agentStub(c.env, agent) as unknown as Pick<AgentMemory, 'replicaPull'>;
    return c.json(unwrap(await stub.replicaPull(after, limit ?? 1000)) as never, 200);
  });

  app.openapi(push, async (c) => {
    const { agent } = c.req.valid('param');
    const { replica, ops } = c.req.valid('json');
    const results = unwrap(await agentStub(c.env, agent).replicaPush(replica, ops as PushedOp[]));
    return c.json({ results }, 200);
  });
}
