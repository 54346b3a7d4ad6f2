/** `GET /namespaces`: the namespaces holding live memories, by prefix / suffix (`*` matches one segment), depth, page. */
import { createRoute, z } from '@hono/zod-openapi';
import { callAgent } from '../agent-client.js';
import { requires } from '../auth.js';
import { LIMITS } from '../limits.js';
import { AgentParams, NamespaceQuery, splitNamespace } from '../schemas.js';
import { type App, defined, ERRORS, ok } from './common.js';

const listNamespaces = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/namespaces',
  summary: 'Namespaces holding a live memory, in segment order',
  middleware: [requires('read')] as const,
  request: {
    params: AgentParams,
    query: z.object({
      prefix: NamespaceQuery.optional().openapi({
        description: 'namespaces starting with these segments ("*" matches any one)',
      }),
      suffix: NamespaceQuery.optional().openapi({
        description: 'namespaces ending with these segments ("*" matches any one)',
      }),
      maxDepth: z.coerce
        .number()
        .int()
        .min(1)
        .max(LIMITS.namespaceDepth)
        .optional()
        .openapi({ description: 'cut deeper namespaces to this many segments' }),
      limit: z.coerce.number().int().min(1).max(LIMITS.pageItems).optional(),
      offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    }),
  },
  responses: {
    200: ok(z.object({ namespaces: z.array(z.array(z.string())) }), 'namespaces as arrays of segments'),
    ...ERRORS,
  },
});

export function registerNamespaceRoutes(app: App): void {
  app.openapi(listNamespaces, async (c) => {
    const { agent } = c.req.valid('param');
    const q = c.req.valid('query');
    const options = defined({
      prefix: q.prefix === undefined ? undefined : splitNamespace(q.prefix),
      suffix: q.suffix === undefined ? undefined : splitNamespace(q.suffix),
      maxDepth: q.maxDepth,
      limit: q.limit,
      offset: q.offset,
    });
    return c.json({ namespaces: await callAgent(c.env, agent, 'listNamespaces', options) }, 200);
  });
}
