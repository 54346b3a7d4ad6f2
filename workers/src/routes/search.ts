/** `POST /search`: vector, lexical or hybrid search, with namespace and metadata filters and AS OF. */
import { createRoute, z } from '@hono/zod-openapi';
import type { SearchHit as Hit, SearchQuery } from 'edgemem';
import { searchAgentJson } from '../agent-client.js';
import { requires } from '../auth.js';
import type { Env } from '../env.js';
import { LIMITS } from '../limits.js';
import { AgentParams, SearchBody, SearchHit } from '../schemas.js';
import { vectorIn } from '../wire.js';
import { type App, defined, EMBEDDING_ERRORS, ERRORS, GONE, jsonBody, limitBody, ok, WRITE_ERRORS } from './common.js';

const search = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/search',
  summary:
    'Search memories (hybrid when both text and vector are given; an agent with an embedder embeds a text without a vector)',
  middleware: [requires('read'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(SearchBody) },
  responses: {
    200: ok(z.object({ hits: z.array(SearchHit) }), 'best first'),
    ...ERRORS,
    ...GONE,
    422: WRITE_ERRORS[422],
    ...EMBEDDING_ERRORS,
  },
});

/**
 * POST a search: the route's 200 body for its validated parameters and body, `{"hits":[…]}` around the engine's JSON
 * text of the hits, neither parsed nor re-serialised here (fast-path.ts answers with it too). It parses to what
 * `c.json` would send; the engine's own numbers are spelt as serde_json spells them (a whole score keeps its `.0`:
 * `1.0` where `JSON.stringify` writes `1`).
 */
export async function searchAnswer(
  env: Env,
  { agent }: z.output<typeof AgentParams>,
  body: z.output<typeof SearchBody>,
): Promise<string> {
  const query = defined({ ...body, vector: vectorIn(body.vector) }) as SearchQuery;
  return `{"hits":${await searchAgentJson(env, agent, query)}}`;
}

export function registerSearchRoutes(app: App): void {
  app.openapi(search, async (c) => {
    const res = c.body(await searchAnswer(c.env, c.req.valid('param'), c.req.valid('json')), 200, {
      'Content-Type': 'application/json',
    });
    // The body is the documented `{ hits }`; OpenAPIHono's typed-response check only knows `c.json`'s type for it.
    return res as unknown as ReturnType<typeof c.json<{ hits: Hit[] }, 200>>;
  });
}
