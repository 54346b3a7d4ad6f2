/** The Node entry of `edgemem`: `openStore` with memory, host page-store or file storage (synchronous fs). */

import { readFileSync } from 'node:fs';
import { NodeFilePageStore } from './node-file-page-store.js';
import { openWith, type OpenOptions } from './open-store.js';
import type { MemoryStore } from './types.js';

export * from './public-api.js';
export { NodeFilePageStore };

async function readWasm(): Promise<WebAssembly.Module> {
  return new WebAssembly.Module(readFileSync(new URL('../dist-wasm/edgemem_wasm_bg.wasm', import.meta.url)));
}

/** Opens an in-process store; `storage: { file }` keeps it in a SQLite database file (created if missing). */
export function openStore(options: OpenOptions = {}): Promise<MemoryStore> {
  return openWith(options, readWasm, (path) => new NodeFilePageStore(path));
}
