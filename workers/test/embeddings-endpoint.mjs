// @ts-check
/**
 * Vitest global setup: a real OpenAI-compatible embeddings endpoint on a local port (Node http) for the Worker's
 * embedder tests (agent-embedder.test.ts), its URL and dims handed to them with `provide('embeddingsEndpoint')`.
 *
 * `POST /{tag}/{mode}/v1/embeddings` embeds each input with the trigram embedder (deterministic, content-dependent
 * unit vectors of `DIMS`) when `mode` is `ok`; the other modes fail as a broken server would: `http500` (HTTP 500),
 * `not-json` (200 with an HTML body), `short` (vectors one number short), `huge` (a number past float32's range).
 * `GET /{tag}/requests` gives the requests made under `tag` — body, Authorization header, and the vectors answered —
 * so a test can check what the Worker sent.
 */
import { createServer } from 'node:http';
import { trigramVector } from '../../js/test/embed/trigram-embedder.js';

const DIMS = 32;
const MODES = new Set(['ok', 'http500', 'not-json', 'short', 'huge']);

/** @param {import('vitest/node').TestProject} project */
export default async function setup(project) {
  /** @type {Map<string, unknown[]>} */
  const requests = new Map();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      /** @param {number} status @param {string} type @param {string} text */
      const send = (status, type, text) => {
        res.writeHead(status, { 'content-type': type });
        res.end(text);
      };
      /** @param {number} status @param {unknown} v */
      const json = (status, v) => send(status, 'application/json', JSON.stringify(v));
      const [, tag, mode, ...rest] = (req.url ?? '').split('/');
      if (req.method === 'GET' && mode === 'requests' && rest.length === 0) return json(200, requests.get(tag) ?? []);
      if (req.method !== 'POST' || !MODES.has(mode) || rest.join('/') !== 'v1/embeddings')
        return json(404, { error: { message: `no route ${req.method} ${req.url}` } });
      /** @type {any} */
      let r;
      try {
        r = JSON.parse(body);
      } catch {
        return json(400, { error: { message: 'the body is not JSON' } });
      }
      const inputs = Array.isArray(r?.input) ? r.input : [r?.input];
      if (!inputs.every((/** @type {unknown} */ t) => typeof t === 'string'))
        return json(400, { error: { message: 'input: strings' } });
      const dims = mode === 'short' ? DIMS - 1 : DIMS;
      const answered = inputs.map((/** @type {string} */ t) => Array.from(trigramVector(t, dims)));
      if (mode === 'huge') for (const v of answered) v[0] = 1e39;
      const log = requests.get(tag) ?? [];
      requests.set(tag, log);
      log.push({ body: r, authorization: req.headers.authorization ?? null, mode, answered });
      if (mode === 'http500') return json(500, { error: { message: 'the model is down' } });
      if (mode === 'not-json') return send(200, 'text/html', '<html>502 Bad Gateway</html>');
      json(200, {
        object: 'list',
        model: r.model,
        data: answered.map((/** @type {number[]} */ embedding, /** @type {number} */ index) => ({
          object: 'embedding',
          index,
          embedding,
        })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  project.provide('embeddingsEndpoint', { url: `http://127.0.0.1:${port}`, dims: DIMS });
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve(undefined));
    });
}
