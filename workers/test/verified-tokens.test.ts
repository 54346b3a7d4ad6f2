/**
 * The isolate's cache of verified scoped tokens (src/verified-tokens.ts): a hit only before the token's expiry and
 * under the secrets it was checked with, bounded; through the Worker, a cached token still expires on time and a
 * forged or other-agent token is still refused.
 */

import { env } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifiedTokens } from '../src/auth';
import { type ScopedPrincipal, VerifiedTokens } from '../src/verified-tokens';
import { agentId, api, expectError, mint, pastExpiry, token } from './helpers';

const principal = (agent: string, expiresAt: number): ScopedPrincipal => ({
  admin: false,
  agent,
  scopes: ['read'],
  expiresAt,
});
const secrets = { ADMIN_TOKEN: 'admin-1' };

describe('VerifiedTokens', () => {
  it('answers a kept token until its expiry, then forgets it', () => {
    const cache = new VerifiedTokens(8);
    cache.set(secrets, 't1', principal('a', 2_000));
    expect(cache.get(secrets, 't1', 1_999)).toEqual(principal('a', 2_000));
    expect(cache.get(secrets, 'other', 1_000)).toBeUndefined();
    expect(cache.get(secrets, 't1', 2_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets every token when the secrets change (a rotated key revokes them)', () => {
    const cache = new VerifiedTokens(8);
    cache.set(secrets, 't1', principal('a', 2_000));
    expect(cache.get({ ADMIN_TOKEN: 'admin-2' }, 't1', 1_000)).toBeUndefined();
    expect(cache.get({ ...secrets, TOKEN_SECRET: 's' }, 't1', 1_000)).toBeUndefined();
    cache.set({ ADMIN_TOKEN: 'admin-2' }, 't2', principal('b', 2_000));
    expect(cache.get(secrets, 't1', 1_000)).toBeUndefined();
    expect(cache.get({ ADMIN_TOKEN: 'admin-2' }, 't1', 1_000)).toBeUndefined();
    expect(cache.get({ ADMIN_TOKEN: 'admin-2' }, 't2', 1_000)?.agent).toBe('b');
  });

  it('holds at most its capacity, dropping the oldest', () => {
    const cache = new VerifiedTokens(3);
    for (let i = 0; i < 5; i++) cache.set(secrets, `t${i}`, principal(`a${i}`, 10_000));
    expect(cache.size).toBe(3);
    expect(cache.get(secrets, 't0', 0)).toBeUndefined();
    expect(cache.get(secrets, 't1', 0)).toBeUndefined();
    expect(cache.get(secrets, 't4', 0)?.agent).toBe('a4');
  });

  it('hands out principals that cannot be changed', () => {
    const cache = new VerifiedTokens(2);
    cache.set(secrets, 't1', principal('a', 2_000));
    const p = cache.get(secrets, 't1', 0);
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p?.scopes)).toBe(true);
  });
});

describe('the Worker with cached tokens', () => {
  it('caches a verified token and still refuses it once it has expired', async () => {
    const a = agentId('cache');
    // The agent opened first (admin token): the short-lived token's time goes to the calls under test.
    expect((await api('GET', `/v1/agents/${a}/stats`)).status).toBe(200);
    const { token: t, expiresAt } = await mint(a, ['read', 'write'], 3);
    expect((await api('GET', `/v1/agents/${a}/stats`, { token: t })).status).toBe(200);
    expect(verifiedTokens.get(env, t)?.agent).toBe(a);
    expect((await api('GET', `/v1/agents/${a}/stats`, { token: t })).status).toBe(200);
    await pastExpiry(expiresAt);
    const late = await api('GET', `/v1/agents/${a}/stats`, { token: t });
    expectError(late, 401, 'UNAUTHORIZED');
    expect(late.body.error.message).toContain('expired');
    expect(verifiedTokens.get(env, t)).toBeUndefined();
  });

  it('keeps a cached token to its own agent and scopes', async () => {
    const a = agentId('cache-own');
    const t = await token(a, ['read']);
    expect((await api('GET', `/v1/agents/${a}/stats`, { token: t })).status).toBe(200);
    expectError(await api('GET', `/v1/agents/${agentId('cache-other')}/stats`, { token: t }), 403, 'FORBIDDEN');
    expectError(
      await api('PUT', `/v1/agents/${a}/memories/k?ns=x`, { token: t, body: { value: 1 } }),
      403,
      'FORBIDDEN',
    );
  });

  it('does not cache a token that fails verification', async () => {
    const forged = await new SignJWT({ scopes: ['read'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('edgemem')
      .setAudience('edgemem-agent')
      .setSubject(agentId('forged'))
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not the key'));
    expectError(await api('GET', `/v1/agents/x/stats`, { token: forged }), 401, 'UNAUTHORIZED');
    expect(verifiedTokens.get(env, forged)).toBeUndefined();
  });
});
