/** Per-agent administration: stats, export and import of the whole store, sweep and maintain on demand. */
import { createRoute, z } from '@hono/zod-openapi';
import type { ExportDoc as ExportDocT } from 'edgemem';
import { callAgent } from '../agent-client.js';
import { requires } from '../auth.js';
import { LIMITS } from '../limits.js';
import { AgentParams, ExportDoc, Stats, uint } from '../schemas.js';
import { CONFLICT, ERRORS, WRITE_ERRORS, jsonBody, limitBody, ok, type App } from './common.js';

const stats = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/stats',
  summary: 'Counts, bytes, caps, the latest seq, index state',
  middleware: [requires('read')] as const,
  request: { params: AgentParams },
  responses: { 200: ok(Stats, 'the stats'), ...ERRORS },
});

const exportRoute = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/export',
  summary: 'The whole store (current state, history, checkpoints) as one JSON document',
  middleware: [requires('read')] as const,
  request: { params: AgentParams },
  responses: { 200: ok(ExportDoc, 'the export document'), ...ERRORS },
});

const importRoute = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/import',
  summary: 'Load an export document into an empty store',
  middleware: [requires('write'), limitBody(LIMITS.importBodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(ExportDoc) },
  responses: { 200: ok(z.object({ ok: z.literal(true) }), 'imported'), ...ERRORS, ...CONFLICT, ...WRITE_ERRORS },
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
    return c.json(await callAgent(c.env, c.req.valid('param').agent, 'export'), 200);
  });

  app.openapi(importRoute, async (c) => {
    await callAgent(c.env, c.req.valid('param').agent, 'import', c.req.valid('json') as ExportDocT);
    return c.json({ ok: true as const }, 200);
  });
}
