/**
 * Authentication and authorisation. Two kinds of bearer token (header `Authorization: Bearer <token>`, or
 * `?token=` on the WebSocket route, where browsers cannot set headers):
 * - the admin token (secret `ADMIN_TOKEN`): every route, every agent, and the only one that mints tokens;
 * - scoped tokens from `POST /v1/tokens`: HS256 JWTs (jose) naming one agent (`sub`), scopes
 *   (`read` / `write` / `subscribe`) and an expiry; valid for that agent's routes of those scopes only.
 * No or a bad token → 401 UNAUTHORIZED; a good token for another agent or scope → 403 FORBIDDEN.
 */
import type { MiddlewareHandler } from 'hono';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Env } from './env.js';
import { ApiError } from './http-errors.js';
import { VerifiedTokens } from './verified-tokens.js';

export type Scope = 'read' | 'write' | 'subscribe';

export const ISSUER = 'edgemem';
const AUDIENCE = 'edgemem-agent';

/** Who is calling: the admin, or a scoped token's agent and scopes. */
/** Who a request acts for; a scoped token's `expiresAt` (ms) also bounds the WebSocket it opens. */
export type Principal = { admin: true } | { admin: false; agent: string; scopes: Scope[]; expiresAt: number };

export type AuthVars = { Variables: { principal: Principal } };

const encoder = new TextEncoder();

async function sha256(s: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', encoder.encode(s));
}

/** One value per secret, computed once per isolate (a Worker's env does not change while it runs). */
function memo<T>(make: (secret: string) => Promise<T>): (secret: string) => Promise<T> {
  let last: { secret: string; value: Promise<T> } | undefined;
  return (secret) => {
    if (last?.secret !== secret) {
      const value = make(secret);
      last = { secret, value };
      value.catch(() => {
        if (last?.value === value) last = undefined;
      });
    }
    return last.value;
  };
}

const adminDigest = memo(sha256);

/** Constant-time comparison of `token` with the admin token (of their SHA-256 digests, so lengths do not leak either). */
async function isAdminToken(token: string, admin: string): Promise<boolean> {
  const [x, y] = await Promise.all([sha256(token), adminDigest(admin)]);
  return crypto.subtle.timingSafeEqual(x, y);
}

const hmacKey = (raw: Uint8Array) =>
  crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
const keyFromSecret = memo((secret) => hmacKey(encoder.encode(secret)));
const keyFromAdmin = memo(async (admin) => {
  const derive = await crypto.subtle.importKey('raw', encoder.encode(admin), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return hmacKey(
    new Uint8Array(await crypto.subtle.sign('HMAC', derive, encoder.encode('edgemem scoped-token key v1'))),
  );
});

/**
 * The HMAC key of scoped tokens: TOKEN_SECRET, or one derived from ADMIN_TOKEN — imported once per isolate, not
 * per request.
 */
export async function signingKey(env: Env): Promise<CryptoKey> {
  if (env.TOKEN_SECRET) return keyFromSecret(env.TOKEN_SECRET);
  if (!env.ADMIN_TOKEN) throw new ApiError('UNAUTHORIZED', 'this worker has no ADMIN_TOKEN or TOKEN_SECRET configured');
  return keyFromAdmin(env.ADMIN_TOKEN);
}

/** Mints a token for `agent` with `scopes`, valid for `ttlSeconds`. */
export async function mintToken(
  env: Env,
  agent: string,
  scopes: Scope[],
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: number }> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + ttlSeconds;
  const token = await new SignJWT({ scopes: [...new Set(scopes)] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(agent)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(await signingKey(env));
  return { token, expiresAt: exp * 1000 };
}

/** The bearer token of a request, from the Authorization header or (`allowQuery`) `?token=`. */
export function bearer(req: Request, allowQuery: boolean): string | undefined {
  const h = req.headers.get('authorization');
  if (h) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (!m) throw new ApiError('UNAUTHORIZED', 'the Authorization header must be "Bearer <token>"');
    return m[1];
  }
  if (allowQuery) return new URL(req.url).searchParams.get('token') ?? undefined;
  return undefined;
}

/** Scoped tokens verified in this isolate (verified-tokens.ts): an agent's client sends the same one every request. */
export const verifiedTokens = new VerifiedTokens(1024);

/** Who `token` belongs to; UNAUTHORIZED when it is neither the admin token nor a valid scoped token. */
export async function authenticate(env: Env, token: string | undefined): Promise<Principal> {
  if (!token) throw new ApiError('UNAUTHORIZED', 'a bearer token is required (Authorization: Bearer <token>)');
  const known = verifiedTokens.get(env, token);
  if (known) return known;
  if (env.ADMIN_TOKEN && (await isAdminToken(token, env.ADMIN_TOKEN))) return { admin: true };
  if (token.split('.').length !== 3) throw new ApiError('UNAUTHORIZED', 'invalid token');
  try {
    const { payload } = await jwtVerify(token, await signingKey(env), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'sub'],
    });
    const scopes = payload.scopes;
    if (typeof payload.sub !== 'string' || !Array.isArray(scopes)) throw new ApiError('UNAUTHORIZED', 'invalid token');
    const principal: Principal = {
      admin: false,
      agent: payload.sub,
      scopes: scopes.filter((s): s is Scope => ['read', 'write', 'subscribe'].includes(s)),
      expiresAt: (payload.exp ?? 0) * 1000,
    };
    verifiedTokens.set(env, token, principal);
    return principal;
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof joseErrors.JWTExpired) throw new ApiError('UNAUTHORIZED', 'the token has expired');
    throw new ApiError('UNAUTHORIZED', 'invalid token');
  }
}

/** FORBIDDEN unless `p` may use `scope` on `agent` (undefined agent: admin-only routes). */
export function authorize(p: Principal, agent: string | undefined, scope: Scope | 'admin'): void {
  if (p.admin) return;
  if (scope === 'admin' || agent === undefined) throw new ApiError('FORBIDDEN', 'this route needs the admin token');
  if (p.agent !== agent)
    throw new ApiError('FORBIDDEN', `this token is for agent ${JSON.stringify(p.agent)}, not ${JSON.stringify(agent)}`);
  if (!p.scopes.includes(scope)) throw new ApiError('FORBIDDEN', `this token lacks the "${scope}" scope`);
}

/** Route middleware: authenticates the caller and checks `scope` on the `agent` path parameter. */
export function requires(
  scope: Scope | 'admin',
  options: { queryToken?: boolean } = {},
): MiddlewareHandler<{ Bindings: Env } & AuthVars> {
  return async (c, next) => {
    const principal = await authenticate(c.env, bearer(c.req.raw, options.queryToken ?? false));
    authorize(principal, c.req.param('agent'), scope);
    c.set('principal', principal);
    await next();
  };
}
