/** `POST /v1/tokens` (admin token only): mints a short-lived token scoped to one agent. */
import { createRoute } from '@hono/zod-openapi';
import { mintToken, requires } from '../auth.js';
import { LIMITS } from '../limits.js';
import { TokenBody, TokenResponse } from '../schemas.js';
import { type App, ERRORS, jsonBody, limitBody, ok } from './common.js';

const mint = createRoute({
  method: 'post',
  path: '/v1/tokens',
  summary: 'Mint a scoped token (agent, scopes read / write / subscribe, expiry)',
  middleware: [requires('admin'), limitBody(LIMITS.bodyBytes)] as const,
  request: { body: jsonBody(TokenBody) },
  responses: { 200: ok(TokenResponse, 'the token (HS256 JWT) and when it expires (ms)'), ...ERRORS },
});

export function registerTokenRoutes(app: App): void {
  app.openapi(mint, async (c) => {
    const { agent, scopes, ttlSeconds } = c.req.valid('json');
    const { token, expiresAt } = await mintToken(c.env, agent, scopes, ttlSeconds ?? LIMITS.tokenDefaultTtlSeconds);
    return c.json({ token, agent, scopes: [...new Set(scopes)], expiresAt }, 200);
  });
}
