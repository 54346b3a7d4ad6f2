/** `GET /v1/agents/{agent}/ws`: the WebSocket upgrade (scope `subscribe`), forwarded to the agent's Durable Object. */
import { createRoute, z } from '@hono/zod-openapi';
import { agentStub } from '../agent-client.js';
import { requires } from '../auth.js';
import { ApiError } from '../http-errors.js';
import { AgentParams } from '../schemas.js';
import { ERRORS, type App } from './common.js';

const ws = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/ws',
  summary: 'WebSocket (hibernatable): subscribe with filters and since; messages in workers/src/protocol.ts',
  middleware: [requires('subscribe', { queryToken: true })] as const,
  request: {
    params: AgentParams,
    query: z.object({ token: z.string().optional().openapi({ description: 'the token, for clients that cannot set headers' }) }),
  },
  responses: { 101: { description: 'switching protocols' }, ...ERRORS },
});

export function registerWebSocketRoute(app: App): void {
  app.openapi(ws, async (c) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      throw new ApiError('INVALID_ARGUMENT', 'this route needs a WebSocket upgrade (Upgrade: websocket)');
    }
    const { agent } = c.req.valid('param');
    return agentStub(c.env, agent).fetch(c.req.raw) as unknown as Response;
  });
}
