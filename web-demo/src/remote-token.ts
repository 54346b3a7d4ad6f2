/**
 * Tokens for the remote panel. With `npm start` (Vite's server) `POST /demo-api/token` mints a token scoped to
 * one agent server-side (server/dev-token.ts): the admin token stays on the server. Elsewhere the user pastes
 * a scoped token (from `POST /v1/tokens` with the admin token).
 */

export interface DevToken {
  token: string;
  agent: string;
  scopes: string[];
  expiresAt: number;
}

export async function devToken(agent: string): Promise<DevToken> {
  let res: Response;
  try {
    res = await fetch('/demo-api/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent }),
    });
  } catch (e) {
    throw new Error(`the demo server did not answer: ${e instanceof Error ? e.message : String(e)}`);
  }
  const body = (await res.json().catch(() => null)) as
    | (DevToken & { error?: { code: string; message: string } })
    | null;
  if (res.status === 404 || body === null)
    throw new Error('this server has no dev token endpoint (it comes with npm start): paste a scoped token instead');
  if (!res.ok || body.error)
    throw Object.assign(new Error(body.error?.message ?? `HTTP ${res.status}`), { code: body.error?.code });
  return body;
}
