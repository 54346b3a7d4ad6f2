// @ts-check
/**
 * A small OpenAI-compatible embeddings endpoint for the demo's test (`POST /v1/embeddings` `{ model, input }` →
 * `{ data: [{ index, embedding }] }`), with CORS for any origin, as a hosted endpoint has. Its vectors are
 * hashed bags of words (32 dimensions, L2-normalised): texts sharing words are close, which is enough to see
 * vector and hybrid search run in the browser without a network or a model.
 */
import { createServer } from 'node:http';

export const DIMS = 32;

/** The text's words hashed (FNV-1a) into DIMS buckets, normalised. */
export function hashEmbedding(/** @type {string} */ text) {
  const v = new Array(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    v[h % DIMS] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-allow-methods': 'POST, OPTIONS',
};

/** Starts the endpoint on a free port; `requests` counts embedding calls. */
export async function startEmbedder() {
  const stats = { requests: 0 };
  const server = createServer(async (req, res) => {
    if (req.method === 'OPTIONS') return void res.writeHead(204, CORS).end();
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404, CORS).end();
    let body = '';
    for await (const chunk of req) body += chunk;
    const { input } = JSON.parse(body);
    const texts = Array.isArray(input) ? input : [input];
    stats.requests++;
    const data = texts.map((t, index) => ({ object: 'embedding', index, embedding: hashEmbedding(String(t)) }));
    res
      .writeHead(200, { ...CORS, 'content-type': 'application/json' })
      .end(JSON.stringify({ object: 'list', data, model: 'hash-32' }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/v1/embeddings`,
    stats,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}
