/**
 * Checks on every request before it is routed:
 * - its URL's percent-encoding: a `%XX` sequence that does not spell UTF-8 (a lone surrogate's `%ED%A0%80`, a
 *   stray `%`) is INVALID_ARGUMENT, not decoded "as far as it goes" into another key or namespace;
 * - its Host, in local development only (ALLOWED_HOSTS, env.ts): a request naming another host is FORBIDDEN,
 *   so a web page the developer visits cannot drive the local Worker through DNS rebinding (its requests
 *   carry the page's own host name). Deployed Workers leave ALLOWED_HOSTS unset and answer every host.
 */
import type { MiddlewareHandler } from 'hono';
import type { Env } from './env.js';
import { ApiError } from './http-errors.js';

/** INVALID_ARGUMENT unless every percent-encoded sequence in the path and query decodes as UTF-8. */
export function checkUrlEncoding(url: URL): void {
  if (!url.pathname.includes('%') && !url.search.includes('%')) return;
  try {
    decodeURIComponent(url.pathname);
    for (const part of url.search.slice(1).split('&')) decodeURIComponent(part);
  } catch {
    throw new ApiError(
      'INVALID_ARGUMENT',
      'the URL has a malformed percent-encoding: every %XX sequence must spell UTF-8 (encode a literal % as %25)',
    );
  }
}

/** The host names of ALLOWED_HOSTS (lower case), or undefined when it is unset (every host is allowed). */
function allowedHosts(env: Env): string[] | undefined {
  const raw = env.ALLOWED_HOSTS?.trim();
  if (!raw) return undefined;
  return raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

/** FORBIDDEN when ALLOWED_HOSTS is set and the request's Host header (else its URL's) names another host. */
export function checkHost(env: Env, req: Request): void {
  const allowed = allowedHosts(env);
  if (!allowed) return;
  const host = req.headers.get('host') ?? new URL(req.url).host;
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    name = '';
  }
  if (!allowed.includes(name)) {
    throw new ApiError(
      'FORBIDDEN',
      `this local Worker answers requests for ${allowed.join(', ')} only, not Host ${JSON.stringify(host)}`,
    );
  }
}

/** Both checks, as the app's first middleware. */
export function requestChecks(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    checkHost(c.env, c.req.raw);
    checkUrlEncoding(new URL(c.req.url));
    await next();
  };
}
