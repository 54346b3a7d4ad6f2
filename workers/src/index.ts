/** The edgemem Worker: the HTTP API (app.ts) and the per-agent Durable Object class (agent-memory.ts). */
import { createApp } from './app.js';
import { fastCheckpointPut } from './checkpoint-put-fast-path.js';
import type { Env } from './env.js';
import type { FastPath } from './fast-path.js';
import { fastMemoryGet } from './memory-get-fast-path.js';
import { fastMemoryPut } from './memory-put-fast-path.js';
import { registerDocsRoutes } from './routes/docs.js';
import { fastSearch } from './search-fast-path.js';

export { AgentMemory } from './agent-memory.js';

const app = createApp();
// The document's viewer, outside createApp(): the OpenAPI document lists the API's own routes only.
registerDocsRoutes(app);

/** The most frequent requests, answered without the router when they are plain (fast-path.ts). */
const FAST_PATHS: FastPath[] = [fastMemoryGet, fastMemoryPut, fastCheckpointPut, fastSearch];

export default {
  fetch: async (request, env, ctx) => {
    const router = (req: Request) => app.fetch(req, env, ctx);
    for (const fast of FAST_PATHS) {
      const res = await fast(request, env, router);
      if (res) return res;
    }
    return router(request);
  },
} satisfies ExportedHandler<Env>;
