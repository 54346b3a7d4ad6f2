/**
 * `POST /v1/agents/{agent}/mcp`: the agent's memory as an MCP server over Streamable HTTP — the same tools as
 * `npx edgemem mcp` (edgemem/mcp), over the agent's Durable Object (mcp/agent-store.ts).
 *
 * - Auth: the existing tokens. A token with `read` only is offered (and may call) only the read tools; `write`
 *   adds the others. A token for another agent never gets here (403).
 * - Stateless: each request builds the server, answers, and is done; the server holds no session in memory,
 *   so any Worker instance answers any request, and nothing is lost when the agent's object hibernates or
 *   is evicted between two requests. Hence no server-to-client stream (GET) and no resource subscriptions
 *   here: the WebSocket feed (`/ws`) pushes changes.
 * - Sessions: `initialize` answers with an `Mcp-Session-Id`, a signed id (mcp/sessions.ts) that later requests
 *   carry and that any instance can check — it survives hibernation, eviction and restarts; a forged, expired
 *   or other agent's id is 404, so the client initializes again. Requests without one are served too.
 * - Answers are JSON (not SSE). Requests the transport would refuse with a JSON-RPC error and an HTTP error
 *   (no JSON, not JSON-RPC) get the API's coded 400 first, like every other route.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from 'edgemem/mcp';
import { requires } from '../auth.js';
import { ApiError } from '../http-errors.js';
import { LIMITS } from '../limits.js';
import { agentStore } from '../mcp/agent-store.js';
import { checkSession, mintSession } from '../mcp/sessions.js';
import { AgentParams, ErrorBody } from '../schemas.js';
import { type App, ERRORS, jsonBody, limitBody, NOT_FOUND } from './common.js';

/** A JSON-RPC message as the route documents it; the SDK's own schema checks it exactly (`checkMessages`). */
const JsonRpcMessage = z.object({ jsonrpc: z.literal('2.0') }).passthrough();

/**
 * INVALID_ARGUMENT unless every message is one the transport takes (the SDK's JSON-RPC schema: a request, a
 * notification, a result or an error, nothing more): otherwise it would answer with a JSON-RPC error body and
 * an HTTP error, not the API's coded one.
 */
function checkMessages(body: unknown): void {
  const messages = Array.isArray(body) ? body : [body];
  for (const [i, m] of messages.entries()) {
    const parsed = JSONRPCMessageSchema.safeParse(m);
    if (!parsed.success) {
      const where = Array.isArray(body) ? `message ${i}: ` : '';
      throw new ApiError(
        'INVALID_ARGUMENT',
        `${where}not a JSON-RPC 2.0 request, notification or response: ${parsed.error.issues[0]?.message ?? 'malformed'}`,
      );
    }
  }
}

const McpBody = z.union([JsonRpcMessage, z.array(JsonRpcMessage).min(1).max(100)]).openapi('McpMessage', {
  description: 'a JSON-RPC 2.0 message of the Model Context Protocol (or a batch of them)',
});

const mcp = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/mcp',
  summary: "The agent's memory as an MCP server (Streamable HTTP, stateless, JSON answers)",
  description:
    'Tools: the knowledge-graph tools of @modelcontextprotocol/server-memory (create_entities, create_relations, ' +
    'add_observations, delete_entities, delete_observations, delete_relations, read_graph, search_nodes, ' +
    "open_nodes) and edgemem's own (remember, recall, context, forget, history, changes); a read-only token sees the " +
    'read tools only. Resource: edgemem://stats.',
  middleware: [requires('read'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(McpBody) },
  responses: {
    200: { description: 'the JSON-RPC answer', content: { 'application/json': { schema: z.unknown() } } },
    202: { description: 'a notification or answer was accepted (no body)' },
    ...NOT_FOUND,
    ...ERRORS,
  },
});

/** GET (a server-to-client stream) and DELETE (ending a session): a stateless server has neither, and says so as the transport spec asks. */
const NO_STREAM =
  'this MCP endpoint is stateless: POST only (no server-to-client stream and no sessions; the WebSocket feed at /v1/agents/{agent}/ws pushes changes)';

const noStream = (method: 'get' | 'delete') =>
  createRoute({
    method,
    path: '/v1/agents/{agent}/mcp',
    summary: method === 'get' ? 'No server-to-client stream: 405' : 'No sessions to end: 405',
    description: NO_STREAM,
    middleware: [requires('read')] as const,
    request: { params: AgentParams },
    responses: { 405: { description: NO_STREAM, content: { 'application/json': { schema: ErrorBody } } }, ...ERRORS },
  });

export function registerMcpRoute(app: App): void {
  for (const method of ['get', 'delete'] as const) {
    app.openapi(
      noStream(method),
      () =>
        Response.json(
          { error: { code: 'INVALID_ARGUMENT', message: NO_STREAM } },
          { status: 405, headers: { allow: 'POST' } },
        ) as never,
    );
  }
  app.openapi(mcp, async (c) => {
    const { agent } = c.req.valid('param');
    const body = c.req.valid('json');
    checkMessages(body);
    const initializing = (Array.isArray(body) ? body : [body]).some((m) => m.method === 'initialize');
    const session = c.req.header('mcp-session-id');
    if (session !== undefined && !initializing) await checkSession(c.env, agent, session);
    const principal = c.get('principal');
    const readOnly = !principal.admin && !principal.scopes.includes('write');
    const server = createMcpServer(agentStore(c.env, agent), { readOnly, subscriptions: false });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    // The transport insists on both media types in Accept even when it answers JSON: any client of this route
    // takes JSON (the route says so), so ask for both on its behalf.
    const headers = new Headers(c.req.raw.headers);
    headers.set('accept', 'application/json, text/event-stream');
    // The body was parsed as JSON already (any JSON media type the route took): say so in the transport's terms.
    headers.set('content-type', 'application/json');
    const request = new Request(c.req.raw.url, { method: 'POST', headers });
    let response: Response;
    try {
      response = await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await server.close();
    }
    if (initializing && response.ok) {
      const headers = new Headers(response.headers);
      headers.set('mcp-session-id', await mintSession(c.env, agent));
      response = new Response(response.body, { status: response.status, headers });
    }
    return response as never;
  });
}
