/** The edgemem Worker: the HTTP API (app.ts) and the per-agent Durable Object class (agent-memory.ts). */
import { createApp } from './app.js';
import type { Env } from './env.js';
import { FAST_PATHS } from './fast-path.js';
import { registerDocsRoutes } from './routes/docs.js';

export { AgentMemory } from './agent-memory.js';

const app = createApp();
// The document's viewer, outside createApp(): the OpenAPI document lists the API's own routes only.
registerDocsRoutes(app);

export default {
  fetch: async (request, env, ctx) => {
    const router = (req: Request) => app.fetch(req, env, ctx);
    // The most frequent requests, answered by their routes' handlers without the router when they are plain.
    for (const fast of FAST_PATHS) {
      const res = await fast(request, env, router);
      if (res) return res;
    }
    return router(request);
  },
} satisfies ExportedHandler<Env>;
