/**
 * `PUT /v1/agents/{agent}` (admin): create or reconfigure an agent's store — dims, metric, scalar while it holds
 * no data; caps, retention, size limits, `coherence` and `consolidate` at any time (agent-settings.ts).
 * `GET /v1/agents/{agent}` (read): its effective settings and latest seq.
 */
import { createRoute } from '@hono/zod-openapi';
import { agentStub, unwrap } from '../agent-client.js';
import type { AgentSettings as AgentSettingsT } from '../agent-settings.js';
import { requires } from '../auth.js';
import { LIMITS } from '../limits.js';
import { AgentInfo, AgentParams, AgentSettings } from '../schemas.js';
import { type App, CONFLICT, defined, ERRORS, jsonBody, limitBody, ok } from './common.js';

const put = createRoute({
  method: 'put',
  path: '/v1/agents/{agent}',
  summary: "Create or reconfigure an agent's store (dims/metric/scalar only while it holds no data)",
  middleware: [requires('admin'), limitBody(LIMITS.bodyBytes)] as const,
  request: {
    params: AgentParams,
    body: jsonBody(AgentSettings, 'the whole settings document: absent fields take the Worker defaults'),
  },
  responses: { 200: ok(AgentInfo, 'the effective settings'), ...ERRORS, ...CONFLICT },
});

const get = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}',
  summary: "An agent's effective settings and latest seq",
  middleware: [requires('read')] as const,
  request: { params: AgentParams },
  responses: { 200: ok(AgentInfo, 'the effective settings'), ...ERRORS },
});

export function registerAgentRoutes(app: App): void {
  app.openapi(put, async (c) => {
    const { agent } = c.req.valid('param');
    const own = defined(c.req.valid('json')) as AgentSettingsT;
    if (own.retention) own.retention = defined(own.retention);
    if (own.coherence) own.coherence = defined(own.coherence);
    const state = unwrap(await agentStub(c.env, agent).configure(own));
    return c.json({ agent, ...state }, 200);
  });

  app.openapi(get, async (c) => {
    const { agent } = c.req.valid('param');
    return c.json({ agent, ...unwrap(await agentStub(c.env, agent).settings()) }, 200);
  });
}
