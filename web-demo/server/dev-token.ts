/**
 * The demo's dev-only token endpoint, a Vite plugin: `POST /demo-api/token` `{ agent }` mints a token scoped to
 * that one agent (read, write, subscribe; 1 hour) from the edgemem Worker with the admin token, which is read
 * here, server-side — from EDGEMEM_ADMIN_TOKEN or workers/.dev.vars — and never reaches the browser bundle.
 * It exists only in `vite` / `vite preview` (a static build has no such route: paste a token instead).
 * Only same-origin JSON POSTs are answered, so another site open in the browser cannot mint tokens.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Connect, Plugin } from 'vite';

export const TOKEN_PATH = '/demo-api/token';
const DEV_VARS = fileURLToPath(new URL('../../workers/.dev.vars', import.meta.url));
const AGENT = /^[A-Za-z0-9._:-]{1,128}$/;

export function workerUrl(): string {
  return (process.env.EDGEMEM_WORKER_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
}

/** The admin token: EDGEMEM_ADMIN_TOKEN, else ADMIN_TOKEN of workers/.dev.vars (read on each request). */
function adminToken(): string | undefined {
  if (process.env.EDGEMEM_ADMIN_TOKEN) return process.env.EDGEMEM_ADMIN_TOKEN;
  try {
    return /^ADMIN_TOKEN=(.+)$/m.exec(readFileSync(DEV_VARS, 'utf8'))?.[1]?.trim();
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  reply(res, status, { error: { code, message } });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 4096) throw new Error('body too large');
  }
  return JSON.parse(text);
}

/** Same origin: the Origin header (browsers send it on POST) names this server's own host. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

const handle: Connect.NextHandleFunction = (req, res, next) => {
  if (req.url?.split('?')[0] !== TOKEN_PATH) return next();
  void (async () => {
    if (req.method !== 'POST' || !/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      return fail(res, 400, 'INVALID_ARGUMENT', 'POST a JSON body { "agent": "<id>" }');
    }
    if (!sameOrigin(req))
      return fail(res, 403, 'FORBIDDEN', 'the dev token endpoint answers same-origin requests only');
    let agent: unknown;
    try {
      agent = ((await readJson(req)) as { agent?: unknown })?.agent;
    } catch {
      return fail(res, 400, 'INVALID_ARGUMENT', 'the body must be JSON { "agent": "<id>" }');
    }
    if (typeof agent !== 'string' || !AGENT.test(agent)) {
      return fail(res, 400, 'INVALID_ARGUMENT', 'agent ids are 1–128 characters of A-Z a-z 0-9 . _ : -');
    }
    const admin = adminToken();
    if (!admin)
      return fail(
        res,
        503,
        'UNAUTHORIZED',
        'no admin token: set EDGEMEM_ADMIN_TOKEN or create workers/.dev.vars (npm start does)',
      );
    try {
      const minted = await fetch(`${workerUrl()}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent, scopes: ['read', 'write', 'subscribe'], ttlSeconds: 3600 }),
      });
      reply(res, minted.status, await minted.json());
    } catch (e) {
      fail(
        res,
        502,
        'INTERNAL',
        `the edgemem Worker at ${workerUrl()} did not answer (${e instanceof Error ? e.message : String(e)}); is it running?`,
      );
    }
  })();
};

export function devToken(): Plugin {
  return {
    name: 'edgemem-dev-token',
    configureServer: (server) => void server.middlewares.use(handle),
    configurePreviewServer: (server) => void server.middlewares.use(handle),
  };
}
