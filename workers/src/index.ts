/** The edgemem Worker: the HTTP API (app.ts) and the per-agent Durable Object class (agent-memory.ts). */
import { createApp } from './app.js';
import type { Env } from './env.js';

export { AgentMemory } from './agent-memory.js';

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
