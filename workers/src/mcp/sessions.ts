/**
 * MCP session ids of the Worker's stateless MCP endpoint (routes/mcp.ts): signed and self-contained — an HS256
 * JWT naming the agent, with its own audience (so it is never a bearer token) and a day's lifetime — so any
 * Worker instance can check one, and a session outlives the agent's object hibernating, being evicted, or the
 * whole runtime restarting. An id that is forged, expired or for another agent is NOT_FOUND (404), which tells an
 * MCP client to initialize again, as the Streamable HTTP transport spec asks.
 */
import { jwtVerify, SignJWT } from 'jose';
import { ISSUER, signingKey } from '../auth.js';
import type { Env } from '../env.js';
import { ApiError } from '../http-errors.js';

const SESSION_AUDIENCE = 'edgemem-mcp-session';
/** How long a session id is good for (then the client initializes again). */
const SESSION_TTL_SECONDS = 24 * 3600;

/** A new session id for `agent`. */
export async function mintSession(env: Env, agent: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(SESSION_AUDIENCE)
    .setSubject(agent)
    .setJti(crypto.randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + SESSION_TTL_SECONDS)
    .sign(await signingKey(env));
}

/** NOT_FOUND unless `id` is a session id this Worker issued for `agent` and it has not expired. */
export async function checkSession(env: Env, agent: string, id: string): Promise<void> {
  const unknown = () => new ApiError('NOT_FOUND', 'unknown or expired MCP session: initialize again');
  if (id.length > 2048 || id.split('.').length !== 3) throw unknown();
  try {
    const { payload } = await jwtVerify(id, await signingKey(env), {
      issuer: ISSUER,
      audience: SESSION_AUDIENCE,
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'sub'],
    });
    if (payload.sub !== agent) throw unknown();
  } catch {
    throw unknown();
  }
}
