/**
 * Auth on every route: no / malformed / forged / expired token → 401 UNAUTHORIZED; a token for another agent,
 * or without the route's scope → 403 FORBIDDEN; the right token passes. Minting needs the admin token.
 */

import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentId, api, expectError, token } from './helpers';
import { ROUTES } from './routes-table';

const ALL = ['read', 'write', 'subscribe'];

describe('auth', () => {
  const a = agentId('owner');
  const b = agentId('other');
  let forB = '';
  let expired = '';
  let forged = '';
  const only: Record<string, string> = {};

  beforeAll(async () => {
    forB = await token(b, ALL);
    for (const s of ALL)
      only[s] = await token(
        a,
        ALL.filter((x) => x !== s),
      );
    expired = await token(a, ALL, 1);
    forged = await new SignJWT({ scopes: ALL })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('edgemem')
      .setAudience('edgemem-agent')
      .setSubject(a)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not the key'));
    await new Promise((r) => setTimeout(r, 2100));
  });

  it('public routes answer without a token', async () => {
    for (const r of ROUTES.filter((x) => x.scope === 'public'))
      expect((await api(r.method, r.url(a), { token: null })).status).toBe(200);
  });

  for (const r of ROUTES.filter((x) => x.scope !== 'public')) {
    it(`${r.method} ${r.path} (${r.scope})`, async () => {
      const call = (tok: string | null) =>
        api(r.method, r.url(a), { token: tok, body: r.body, raw: r.raw, headers: r.headers });
      expectError(await call(null), 401, 'UNAUTHORIZED');
      expectError(await call('garbage'), 401, 'UNAUTHORIZED');
      expectError(await call(forged), 401, 'UNAUTHORIZED');
      expectError(await call(expired), 401, 'UNAUTHORIZED');
      expectError(
        await api(r.method, r.url(a), {
          token: null,
          body: r.body,
          raw: r.raw,
          headers: { ...r.headers, authorization: 'Basic abc' },
        }),
        401,
        'UNAUTHORIZED',
      );
      if (r.scope === 'admin') {
        expectError(await call(await token(a, ALL)), 403, 'FORBIDDEN');
        return;
      }
      // A token for agent B never reaches agent A, whatever its scopes.
      expectError(await call(forB), 403, 'FORBIDDEN');
      expectError(await call(only[r.scope]!), 403, 'FORBIDDEN');
      const good = await call(await token(a, [r.scope]));
      expect([401, 403]).not.toContain(good.status);
      expect(good.status, JSON.stringify(good.body)).toBeLessThan(r.scope === 'subscribe' ? 102 : 500);
    });
  }

  it('the socket takes ?token= (browsers cannot set headers) with the same checks', async () => {
    const ws = ROUTES.find((r) => r.scope === 'subscribe')!;
    const q = (t: string) => api('GET', `${ws.url(a)}?token=${t}`, { token: null, headers: ws.headers });
    expectError(await q(forB), 403, 'FORBIDDEN');
    expectError(await q(only.subscribe!), 403, 'FORBIDDEN');
    expect((await q(await token(a, ['subscribe']))).status).toBe(101);
    // Query tokens are only for the socket.
    expectError(
      await api('GET', `/v1/agents/${a}/stats?token=${await token(a, ['read'])}`, { token: null }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('mints tokens with a bounded lifetime and validated fields', async () => {
    const r = await api('POST', '/v1/tokens', { body: { agent: a, scopes: ['read', 'read'], ttlSeconds: 60 } });
    expect(r.status).toBe(200);
    expect(r.body.scopes).toEqual(['read']);
    expect(r.body.expiresAt).toBeGreaterThan(Date.now());
    expect(r.body.expiresAt).toBeLessThanOrEqual(Date.now() + 61_000);
    expectError(
      await api('POST', '/v1/tokens', { body: { agent: a, scopes: ['read'], ttlSeconds: 999_999 } }),
      400,
      'INVALID_ARGUMENT',
    );
    expectError(await api('POST', '/v1/tokens', { body: { agent: a, scopes: ['admin'] } }), 400, 'INVALID_ARGUMENT');
    expectError(
      await api('POST', '/v1/tokens', { body: { agent: '../x', scopes: ['read'] } }),
      400,
      'INVALID_ARGUMENT',
    );
  });
});
