// @ts-check
// A small, real OpenAI-compatible `POST /v1/embeddings` server for tests (Node http): it embeds with the trigram
// embedder, honours `input_type` (queries get a `q:` salt, so a test can tell the kinds apart), checks a bearer key
// when given one, and records each request. `fail` makes it answer HTTP 500.
import { createServer } from 'node:http';
import { trigramVector } from './trigram-embedder.js';

/**
 * @param {{ dims?: number, key?: string }} [o]
 * @returns {Promise<{ url: string, port: number, requests: any[], fail: boolean, close(): Promise<void> }>}
 */
export async function startEmbeddingsServer(o = {}) {
  const dims = o.dims ?? 64;
  /** @type {any[]} */
  const requests = [];
  const state = { fail: false };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = (/** @type {number} */ status, /** @type {unknown} */ v) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return json(404, { error: { message: 'not found' } });
      if (o.key && req.headers.authorization !== `Bearer ${o.key}`) return json(401, { error: { message: 'bad key' } });
      /** @type {any} */
      let r;
      try {
        r = JSON.parse(body);
      } catch {
        return json(400, { error: { message: 'not JSON' } });
      }
      requests.push({ ...r, authorization: req.headers.authorization });
      if (state.fail) return json(500, { error: { message: 'the model is down' } });
      const inputs = Array.isArray(r.input) ? r.input : [r.input];
      const salt = r.input_type === 'query' ? 'q:' : '';
      json(200, {
        object: 'list',
        model: r.model,
        data: inputs.map((/** @type {string} */ t, /** @type {number} */ index) => ({
          object: 'embedding',
          index,
          embedding: Array.from(trigramVector(salt + t, dims)),
        })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get fail() {
      return state.fail;
    },
    set fail(v) {
      state.fail = v;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
