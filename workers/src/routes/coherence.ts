/**
 * A memory, not a log: `POST /remember` (one fact folded into the memory it duplicates, superseding the one it
 * updates — closed in valid time, linked, kept in history — or written as new), `POST /remember/assess` (the same
 * decision, nothing written, with the memories the rules could not place: a judge's questions), `POST /consolidate`
 * (the rules over what a namespace holds, a page at a time) and `POST /context` (a prompt-ready block within a token
 * budget). A fact or query without a vector is embedded with the agent's embedder (a passage, a query) before the
 * write's transaction, as PUT and search are; the extractor and the judge are the client's (`connect()`).
 */
import { createRoute, type z } from '@hono/zod-openapi';
import type { ContextOptions, RememberInput } from 'edgemem';
import { callAgent } from '../agent-client.js';
import { requires } from '../auth.js';
import { ApiError } from '../http-errors.js';
import { LIMITS } from '../limits.js';
import {
  AgentParams,
  Assessment,
  ConsolidateBody,
  ConsolidateReport,
  ContextBlock,
  ContextBody,
  RememberBody,
  Remembered,
} from '../schemas.js';
import { vectorIn } from '../wire.js';
import {
  type App,
  CONFLICT,
  defined,
  EMBEDDING_ERRORS,
  ERRORS,
  GONE,
  jsonBody,
  limitBody,
  NOT_FOUND,
  ok,
  WRITE_ERRORS,
} from './common.js';

const DIMENSION = { 422: WRITE_ERRORS[422] } as const;

const remember = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/remember',
  summary:
    'Remember a fact: fold it into the memory it duplicates, supersede the memory it updates (closed in valid time, linked, kept in history), or write it as new',
  middleware: [requires('write'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(RememberBody) },
  responses: {
    200: ok(Remembered, 'what was decided, and the memory that holds the fact now'),
    ...ERRORS,
    ...NOT_FOUND,
    409: {
      description: "CONFLICT: a decided target changed since it was assessed (assess again), or the key's memory did",
      content: CONFLICT[409].content,
    },
    ...WRITE_ERRORS,
    ...EMBEDDING_ERRORS,
  },
});

const assess = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/remember/assess',
  summary:
    'What remember would decide for a fact by the rules alone, writing nothing (with the memories it could not place)',
  middleware: [requires('read'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(RememberBody) },
  responses: {
    200: ok(Assessment, "the rules' decision and the uncertain memories, most similar first"),
    ...ERRORS,
    ...DIMENSION,
    ...EMBEDDING_ERRORS,
  },
});

const consolidate = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/consolidate',
  summary:
    "Apply remember's rules to the memories a namespace (and those under it) already holds, a page at a time; never deletes",
  middleware: [requires('write'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(ConsolidateBody) },
  responses: {
    200: ok(ConsolidateReport, 'the decisions applied; nextCursor to go on'),
    ...ERRORS,
    ...CONFLICT,
    507: WRITE_ERRORS[507],
  },
});

const context = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/context',
  summary:
    'A prompt-ready block within a token budget: pinned memories, the current facts relevant to the query with their validity, recent changes',
  middleware: [requires('read'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(ContextBody) },
  responses: {
    200: ok(ContextBlock, 'the block (Markdown) and what it holds'),
    ...ERRORS,
    ...GONE,
    ...DIMENSION,
    ...EMBEDDING_ERRORS,
  },
});

/** A validated fact body as the store's input: its vector as a Float32Array (wire.ts `vectorIn`). */
function factIn(body: z.output<typeof RememberBody>): RememberInput {
  return defined({ ...body, embedding: vectorIn(body.embedding) }) as RememberInput;
}

export function registerCoherenceRoutes(app: App): void {
  app.openapi(remember, async (c) => {
    const { agent } = c.req.valid('param');
    const [r] = await callAgent(c.env, agent, 'remember', factIn(c.req.valid('json')));
    if (!r) throw new ApiError('INTERNAL', 'remember answered no decision for the fact');
    return c.json(r, 200);
  });

  app.openapi(assess, async (c) => {
    const { agent } = c.req.valid('param');
    return c.json(await callAgent(c.env, agent, 'assess', factIn(c.req.valid('json'))), 200);
  });

  app.openapi(consolidate, async (c) => {
    const { agent } = c.req.valid('param');
    return c.json(await callAgent(c.env, agent, 'consolidate', defined(c.req.valid('json'))), 200);
  });

  app.openapi(context, async (c) => {
    const { agent } = c.req.valid('param');
    const body = c.req.valid('json');
    const options = defined({ ...body, vector: vectorIn(body.vector) }) as ContextOptions;
    return c.json(await callAgent(c.env, agent, 'context', options), 200);
  });
}
