/** The edgemem Worker: the HTTP API (app.ts) and the per-agent Durable Object class (agent-memory.ts). */
import { createApp } from './app.js';
import type { Env } from './env.js';
import { fastMemoryGet } from './memory-get-fast-path.js';
import { fastMemoryPut } from './memory-put-fast-path.js';
import { registerDocsRoutes } from './routes/docs.js';

export { AgentMemory } from './agent-memory.js';

const app = createApp();
// The document's viewer, outside createApp(): the OpenAPI document lists the API's own routes only.
registerDocsRoutes(app);

export default {
  fetch: async (request, env, ctx) =>
    (await fastMemoryGet(request, env)) ??
    (await fastMemoryPut(request, env, (handedOn) => app.fetch(handedOn, env, ctx))) ??
    app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
