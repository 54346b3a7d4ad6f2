/**
 * The Worker's HTTP API v1 (Hono + @hono/zod-openapi): checks on every request first (its URL's encoding, its
 * Host in local dev: request-checks.ts), authentication per route, validation from the
 * schemas, every error as `{ error: { code, message } }` with the code's status (http-errors.ts), and the
 * OpenAPI document — generated from the same route definitions — at `/v1/openapi.json`.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import { ZodError } from 'zod';
import { ApiError, errorResponse } from './http-errors.js';
import { requestChecks } from './request-checks.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerAgentRoutes } from './routes/agents.js';
import { registerCheckpointRoutes } from './routes/checkpoints.js';
import { registerCoherenceRoutes } from './routes/coherence.js';
import type { AppEnv } from './routes/common.js';
import { registerFeedRoutes } from './routes/feed.js';
import { registerHealthRoute } from './routes/health.js';
import { registerMcpRoute } from './routes/mcp.js';
import { registerMemoryRoutes } from './routes/memories.js';
import { registerNamespaceRoutes } from './routes/namespaces.js';
import { registerReplicaRoutes } from './routes/replica.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerTokenRoutes } from './routes/tokens.js';
import { registerWebSocketRoute } from './routes/ws.js';
import { issuesMessage } from './validation.js';

export const OPENAPI_PATH = '/v1/openapi.json';

const DOC_INFO = {
  openapi: '3.1.0',
  info: {
    title: 'edgemem',
    version: '1.0.0',
    description:
      'Agent memory at the edge: one Durable Object per agent. Auth: `Authorization: Bearer <admin token | scoped token>`. ' +
      'Errors: `{ error: { code, message } }`.',
  },
  security: [{ bearer: [] }],
};

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new ApiError('INVALID_ARGUMENT', issuesMessage(result.error));
    },
  });

  app.onError((e) => {
    if (e instanceof ZodError) return errorResponse(new ApiError('INVALID_ARGUMENT', issuesMessage(e)));
    if (e instanceof HTTPException && e.status === 415) {
      return errorResponse(
        new ApiError('INVALID_ARGUMENT', 'send the body as JSON with Content-Type: application/json'),
      );
    }
    if (e instanceof HTTPException && e.status === 400) {
      return errorResponse(new ApiError('INVALID_ARGUMENT', `invalid request: ${e.message || 'malformed body'}`));
    }
    return errorResponse(e);
  });
  app.use(requestChecks());
  app.notFound((c) =>
    errorResponse(new ApiError('NOT_FOUND', `no route ${c.req.method} ${new URL(c.req.url).pathname}`)),
  );

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  registerHealthRoute(app);
  registerTokenRoutes(app);
  registerAgentRoutes(app);
  registerMemoryRoutes(app);
  registerSearchRoutes(app);
  registerCoherenceRoutes(app);
  registerNamespaceRoutes(app);
  registerCheckpointRoutes(app);
  registerFeedRoutes(app);
  registerReplicaRoutes(app);
  registerAdminRoutes(app);
  registerWebSocketRoute(app);
  registerMcpRoute(app);

  app.doc31(OPENAPI_PATH, DOC_INFO);
  return app;
}
