// @ts-check
// A tiny static file server for the browser tests: serves chosen folders of the package over HTTP on 127.0.0.1.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

/** @type {Record<string, string>} */
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** Forwards a request to `to` (same path and query), streaming the answer back: the Worker, same-origin to the page. */
async function forward(
  /** @type {import('node:http').IncomingMessage} */ req,
  /** @type {import('node:http').ServerResponse} */ res,
  /** @type {string} */ to,
) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = /** @type {Record<string, string>} */ ({});
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
  try {
    const answer = await fetch(new URL(req.url ?? '/', to), {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const out = /** @type {Record<string, string>} */ ({});
    answer.headers.forEach((v, k) => {
      if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding') out[k] = v;
    });
    res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  } catch {
    res.writeHead(502).end();
  }
}

/**
 * Serves the files under `root/<folder>/` for each of `folders` (anything else is 404) on an ephemeral
 * port, and with `proxy` every request under `/v1/` to the Worker at `proxy` (HTTP only). Resolves to the base URL
 * (ending in `/`) and a `close` function.
 * @param {string} root
 * @param {string[]} folders
 * @param {string} [proxy]
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function serveStatic(root, folders, proxy) {
  const server = createServer(async (req, res) => {
    if (proxy && (req.url ?? '').startsWith('/v1/')) return forward(req, res, proxy);
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^[/\\]+/, '');
    const type = TYPES[extname(path)];
    const allowed = folders.some((f) => path.startsWith(f + sep) || path.startsWith(`${f}/`));
    if (req.method !== 'GET' || !type || !allowed || path.split(/[/\\]/).includes('..')) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
