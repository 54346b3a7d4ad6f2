/** Test helpers: requests to the Worker through its real fetch handler, tokens, unique agent ids. */
import { exports } from 'cloudflare:workers';

export const ADMIN = 'test-admin-token';
export const BASE = 'http://edgemem.test';

let n = 0;
/** A fresh agent id per call (tests share the Durable Object namespace). */
export function agentId(prefix = 'a'): string {
  return `${prefix}-${Date.now().toString(36)}-${n++}`;
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** The body as sent. */
  text: string;
}

/** Calls the Worker; `body` objects are sent as JSON. */
export async function api<T = any>(
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; raw?: BodyInit; headers?: Record<string, string> } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? ADMIN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: BodyInit | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await exports.default.fetch(new Request(BASE + path, { method, headers, body }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

/** Mints a scoped token with the admin token. */
export async function token(agent: string, scopes: string[], ttlSeconds?: number): Promise<string> {
  return (await mint(agent, scopes, ttlSeconds)).token;
}

/**
 * Mints a token and says when it expires (`expiresAt`, ms): the expiry is whole seconds from the second it was
 * minted in, so a token of `ttlSeconds` lasts between `ttlSeconds - 1` and `ttlSeconds`.
 */
export async function mint(
  agent: string,
  scopes: string[],
  ttlSeconds?: number,
): Promise<{ token: string; expiresAt: number }> {
  const r = await api('POST', '/v1/tokens', { body: { agent, scopes, ttlSeconds } });
  if (r.status !== 200) throw new Error(`mint failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { token: r.body.token, expiresAt: r.body.expiresAt };
}

/** Waits until just past `expiresAt` (ms since the epoch). */
export function pastExpiry(expiresAt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 100));
}

/** Asserts an error response's status and code. */
export function expectError(r: Pick<Res, 'status' | 'body'>, status: number, code: string): void {
  if (r.status !== status || r.body?.error?.code !== code || typeof r.body?.error?.message !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  }
}
