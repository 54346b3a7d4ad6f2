/**
 * `GET /v1/agents/{agent}/ws`: the WebSocket upgrade (scope `subscribe`), forwarded to the agent's Durable Object
 * with the token's expiry: the object closes the socket when the token expires (live-feed.ts).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { agentStub } from '../agent-client.js';
import { requires } from '../auth.js';
import { ApiError } from '../http-errors.js';
import { TOKEN_EXPIRY_HEADER } from '../live-feed.js';
import { AgentParams } from '../schemas.js';
import { type App, ERRORS } from './common.js';

const ws = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/ws',
  summary: 'WebSocket (hibernatable): subscribe with filters and since; messages in edgemem/protocol',
  middleware: [requires('subscribe', { queryToken: true })] as const,
  request: {
    params: AgentParams,
    query: z.object({
      token: z.string().optional().openapi({ description: 'the token, for clients that cannot set headers' }),
    }),
  },
  responses: { 101: { description: 'switching protocols' }, ...ERRORS },
});

export function registerWebSocketRoute(app: App): void {
  app.openapi(ws, async (c) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      throw new ApiError('INVALID_ARGUMENT', 'this route needs a WebSocket upgrade (Upgrade: websocket)');
    }
    // The handshake's own headers (RFC 6455 §4.2.1), checked here so a bad one gets a coded error, not the
    // runtime's plain-text 400.
    if (c.req.header('sec-websocket-version')?.trim() !== '13') {
      throw new ApiError('INVALID_ARGUMENT', 'a WebSocket upgrade needs Sec-WebSocket-Version: 13');
    }
    if (!/^[A-Za-z0-9+/]{22}==$/.test(c.req.header('sec-websocket-key')?.trim() ?? '')) {
      throw new ApiError('INVALID_ARGUMENT', 'a WebSocket upgrade needs a Sec-WebSocket-Key (16 random bytes, base64)');
    }
    const { agent } = c.req.valid('param');
    // The object learns when the token expires from the Worker only (a client's own header is replaced).
    const principal = c.get('principal');
    const headers = new Headers(c.req.raw.headers);
    headers.set(TOKEN_EXPIRY_HEADER, principal.admin ? '' : String(principal.expiresAt));
    return agentStub(c.env, agent).fetch(new Request(c.req.raw, { headers }));
  });
}
