/** Memory routes: PUT / GET / DELETE one memory, list, batch put, history. */
import { createRoute, z } from '@hono/zod-openapi';
import type { MemoryInput } from 'edgemem';
import { callAgent } from '../agent-client.js';
import { requires } from '../auth.js';
import type { Env } from '../env.js';
import { ApiError } from '../http-errors.js';
import { LIMITS } from '../limits.js';
import {
  AgentParams,
  AsOfQuery,
  BatchBody,
  KeyParams,
  Memory,
  MemoryPutBody,
  NamespaceQuery,
  splitNamespace,
  uint,
  uintQuery,
  ValidAtQuery,
  WriteAck,
} from '../schemas.js';
import { memoryOut, vectorIn } from '../wire.js';
import {
  type App,
  asOfQuery,
  CONFLICT,
  defined,
  EMBEDDING_ERRORS,
  ERRORS,
  GONE,
  jsonBody,
  limitBody,
  NOT_FOUND,
  ok,
  parseFilter,
  WRITE_ERRORS,
} from './common.js';

const NsQuery = z.object({ ns: NamespaceQuery });
const GetQuery = NsQuery.extend(AsOfQuery.shape)
  .extend(ValidAtQuery.shape)
  .extend({
    embedding: z
      .enum(['true', 'false'])
      .optional()
      .openapi({ description: 'also return the embedding (default false)' }),
  });

const putMemory = createRoute({
  method: 'put',
  path: '/v1/agents/{agent}/memories/{key}',
  summary: 'Create or replace a memory (an agent with an embedder embeds its text when it has no embedding)',
  middleware: [requires('write'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: KeyParams, query: NsQuery, body: jsonBody(MemoryPutBody) },
  responses: {
    200: ok(WriteAck, 'the write was committed'),
    ...ERRORS,
    ...CONFLICT,
    ...WRITE_ERRORS,
    ...EMBEDDING_ERRORS,
  },
});

const getMemory = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/memories/{key}',
  summary: 'Read a memory valid now (or at validAt; optionally as of a seq or time)',
  middleware: [requires('read')] as const,
  request: { params: KeyParams, query: GetQuery },
  responses: { 200: ok(Memory, 'the memory'), ...ERRORS, ...NOT_FOUND, ...GONE },
});

const deleteMemory = createRoute({
  method: 'delete',
  path: '/v1/agents/{agent}/memories/{key}',
  summary: 'Delete a memory',
  middleware: [requires('write')] as const,
  request: { params: KeyParams, query: NsQuery.extend({ ifVersion: uintQuery().optional() }) },
  responses: { 200: ok(z.object({ seq: uint() }), "the delete's seq"), ...ERRORS, ...NOT_FOUND, ...CONFLICT },
});

const listMemories = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/memories',
  summary: 'List the memories valid now (or at validAt) under a namespace prefix, in pages',
  middleware: [requires('read')] as const,
  request: {
    params: AgentParams,
    query: AsOfQuery.extend(ValidAtQuery.shape).extend({
      prefix: NamespaceQuery.optional(),
      limit: z.coerce.number().int().min(1).max(LIMITS.pageItems).optional(),
      cursor: z.string().max(4096).optional(),
      embeddings: z.enum(['true', 'false']).optional(),
      filter: z
        .string()
        .max(8192)
        .optional()
        .openapi({ description: 'metadata conditions as JSON: [{"field","op","value"}]' }),
      valueFilter: z
        .string()
        .max(8192)
        .optional()
        .openapi({ description: "conditions on the value's top-level fields, as JSON" }),
      offset: z.coerce
        .number()
        .int()
        .min(0)
        .max(Number.MAX_SAFE_INTEGER)
        .optional()
        .openapi({ description: 'matching memories to skip first (not with cursor)' }),
    }),
  },
  responses: {
    200: ok(z.object({ items: z.array(Memory), nextCursor: z.string().nullable() }), 'a page of memories'),
    ...ERRORS,
    ...GONE,
  },
});

const batchPut = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/memories/batch',
  summary: 'Put several memories, all or nothing',
  middleware: [requires('write'), limitBody(LIMITS.batchBodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(BatchBody) },
  responses: {
    200: ok(z.object({ acks: z.array(WriteAck) }), 'every write was committed'),
    ...ERRORS,
    ...CONFLICT,
    ...WRITE_ERRORS,
    ...EMBEDDING_ERRORS,
  },
});

const history = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/memories/{key}/history',
  summary: 'The retained versions of a memory, oldest first, in pages cut by count and by size (about 4 MiB)',
  middleware: [requires('read')] as const,
  request: {
    params: KeyParams,
    query: NsQuery.extend({
      afterSeq: uintQuery().optional().openapi({ description: 'versions that began after this seq (default 0)' }),
      limit: z.coerce.number().int().min(1).max(LIMITS.pageItems).optional(),
    }),
  },
  responses: {
    200: ok(
      z.object({ versions: z.array(Memory), nextAfterSeq: uint().nullable() }),
      'the versions; `nextAfterSeq`: pass it as `afterSeq` for the next page (null: this page ends the history)',
    ),
    ...ERRORS,
  },
});

/** PUT one memory: the route's answer to its validated parameters, query and body (fast-path.ts calls it too). */
export function putMemoryAnswer(
  env: Env,
  { agent, key }: z.output<typeof KeyParams>,
  { ns }: z.output<typeof NsQuery>,
  body: z.output<typeof MemoryPutBody>,
) {
  const memory = defined({
    ...body,
    embedding: vectorIn(body.embedding),
    namespace: splitNamespace(ns),
    key,
  }) as MemoryInput;
  return callAgent(env, agent, 'put', memory);
}

/** GET one memory: the route's answer to its validated parameters and query (fast-path.ts calls it too). */
export async function getMemoryAnswer(
  env: Env,
  { agent, key }: z.output<typeof KeyParams>,
  q: z.output<typeof GetQuery>,
) {
  const asOf = asOfQuery(q);
  const validAt = q.validAt;
  // No options unless some are given: the store then reads the live memory by its fast path (no JSON argument).
  const options =
    asOf || validAt !== undefined || q.embedding === 'true'
      ? defined({ asOf, validAt, includeEmbedding: q.embedding === 'true' })
      : undefined;
  const m = await callAgent(env, agent, 'get', splitNamespace(q.ns), key, options);
  if (!m) throw new ApiError('NOT_FOUND', `no memory ${JSON.stringify(key)} in namespace ${JSON.stringify(q.ns)}`);
  return memoryOut(m);
}

export function registerMemoryRoutes(app: App): void {
  app.openapi(putMemory, async (c) =>
    c.json(await putMemoryAnswer(c.env, c.req.valid('param'), c.req.valid('query'), c.req.valid('json')), 200),
  );

  app.openapi(getMemory, async (c) =>
    c.json(await getMemoryAnswer(c.env, c.req.valid('param'), c.req.valid('query')), 200),
  );

  app.openapi(deleteMemory, async (c) => {
    const { agent, key } = c.req.valid('param');
    const q = c.req.valid('query');
    const seq = await callAgent(c.env, agent, 'delete', splitNamespace(q.ns), key, defined({ ifVersion: q.ifVersion }));
    return c.json({ seq }, 200);
  });

  app.openapi(listMemories, async (c) => {
    const { agent } = c.req.valid('param');
    const q = c.req.valid('query');
    const page = await callAgent(
      c.env,
      agent,
      'list',
      defined({
        prefix: splitNamespace(q.prefix),
        limit: q.limit,
        cursor: q.cursor,
        asOf: asOfQuery(q),
        validAt: q.validAt,
        includeEmbeddings: q.embeddings === 'true',
        filter: parseFilter(q.filter),
        valueFilter: parseFilter(q.valueFilter, 'valueFilter'),
        offset: q.offset,
      }),
    );
    return c.json({ items: page.items.map(memoryOut), nextCursor: page.nextCursor }, 200);
  });

  app.openapi(batchPut, async (c) => {
    const { agent } = c.req.valid('param');
    const { memories } = c.req.valid('json');
    const acks = await callAgent(
      c.env,
      agent,
      'putBatch',
      memories.map((m) => defined({ ...m, embedding: vectorIn(m.embedding) }) as MemoryInput),
    );
    return c.json({ acks }, 200);
  });

  app.openapi(history, async (c) => {
    const { agent, key } = c.req.valid('param');
    const q = c.req.valid('query');
    const page = await callAgent(
      c.env,
      agent,
      'historyPage',
      splitNamespace(q.ns),
      key,
      defined({ afterSeq: q.afterSeq, limit: q.limit }),
    );
    return c.json({ versions: page.versions.map(memoryOut), nextAfterSeq: page.nextAfterSeq }, 200);
  });
}
