/**
 * Local dev DNS-rebinding guard: with ALLOWED_HOSTS set (as `npm start` sets it), a request whose Host names
 * another host is 403 FORBIDDEN on every route, before auth; without it (deployed) every host is answered. Also:
 * the Worker sends no CORS headers, so other origins cannot read its answers.
 */

import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import type { Env } from '../src/env';
import { ADMIN, agentId, expectError } from './helpers';

const app = createApp();

async function call(path: string, host: string | undefined, allowed: string | undefined) {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}`, origin: 'http://rebind.example' };
  if (host !== undefined) headers.host = host;
  const res = await app.fetch(
    new Request(`http://127.0.0.1:8787${path}`, { headers }),
    { ...(env as Env), ALLOWED_HOSTS: allowed },
    createExecutionContext(),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

describe('ALLOWED_HOSTS (local dev)', () => {
  const allowed = '127.0.0.1,localhost';

  it('refuses another Host with 403 FORBIDDEN on every route, before auth', async () => {
    const a = agentId('host');
    for (const host of [
      'rebind.example',
      'rebind.example:8787',
      '127.0.0.1.rebind.example',
      'localhost.rebind.example:8787',
    ]) {
      for (const path of ['/v1/health', `/v1/agents/${a}/stats`, '/v1/openapi.json', '/v1/nowhere']) {
        const r = await call(path, host, allowed);
        expectError(r, 403, 'FORBIDDEN');
      }
    }
  });

  it('answers 127.0.0.1 and localhost, with or without a port', async () => {
    for (const host of ['127.0.0.1:8787', '127.0.0.1', 'localhost:8787', 'LOCALHOST']) {
      expect((await call('/v1/health', host, allowed)).status, host).toBe(200);
    }
    expect((await call(`/v1/agents/${agentId('host')}/stats`, 'localhost:8787', allowed)).status).toBe(200);
  });

  it('is off when ALLOWED_HOSTS is unset (deployed Workers answer their own hosts)', async () => {
    expect((await call('/v1/health', 'memory.example.com', undefined)).status).toBe(200);
    expect((await call('/v1/health', 'memory.example.com', '')).status).toBe(200);
  });

  it('sends no CORS headers', async () => {
    const r = await call('/v1/health', 'localhost', allowed);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
