/** The default entry of `edgemem` (bundlers, Deno, the browser main thread): `openStore` with memory or host page-store storage, the .wasm fetched next to the package. */

import type { LocalMemoryStore } from '../api/types.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import { type OpenOptions, type OpenTextOptions, openWithEmbedder } from '../local/open-store.js';
import type { WasmSource } from '../local/runtime.js';
import { isReplicaOptions, type OpenReplicaOptions, openReplicaStore } from '../replica/open-replica.js';
import type { ReplicaMemoryStore } from '../replica/replica-store.js';

/** The remote store (edgemem Worker over HTTP + WebSocket), with the global `WebSocket`. */
export { connect } from '../remote/store.js';
export * from './public-api.js';

async function fetchWasm(): Promise<WasmSource> {
  const res = await fetch(new URL('../../dist-wasm/edgemem_wasm_bg.wasm', import.meta.url));
  if (!res.ok) throw new Error(`cannot fetch edgemem's wasm: HTTP ${res.status}`);
  return WebAssembly.compile(await res.arrayBuffer());
}

/** Opens an in-process store. Where fetching the .wasm next to this file is not possible, pass `options.wasm`. */
export function openStore(options: OpenReplicaOptions): Promise<ReplicaMemoryStore>;
export function openStore(options: OpenTextOptions): Promise<LocalMemoryStore & TextMemoryStore>;
export function openStore(options?: OpenOptions): Promise<LocalMemoryStore>;
export function openStore(
  options: OpenOptions | OpenReplicaOptions = {},
): Promise<LocalMemoryStore | ReplicaMemoryStore> {
  if (isReplicaOptions(options)) return openReplicaStore(options, (o) => openStore(o), undefined, undefined);
  return openWithEmbedder(options, fetchWasm, undefined);
}
