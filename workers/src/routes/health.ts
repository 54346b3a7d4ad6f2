/** `GET /v1/health`: answers without a token and without touching any Durable Object (load balancers, and the latency floor of the benchmarks). */
import { createRoute, z } from '@hono/zod-openapi';
import { type App, ok } from './common.js';

const health = createRoute({
  method: 'get',
  path: '/v1/health',
  summary: 'Liveness of the Worker (no token; touches no Durable Object)',
  security: [],
  responses: { 200: ok(z.object({ ok: z.literal(true) }), 'the Worker is up') },
});

export function registerHealthRoute(app: App): void {
  app.openapi(health, (c) => c.json({ ok: true as const }, 200));
}
