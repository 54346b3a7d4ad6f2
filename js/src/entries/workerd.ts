/**
 * The workerd entry of `edgemem` (Cloudflare Workers; chosen by the `workerd` export condition, which
 * wrangler and Miniflare use): the .wasm is imported as a compiled module — workerd forbids compiling
 * wasm from bytes — and instantiated by the first `openStore`, never at import time.
 */

import wasmModule from '../../dist-wasm/edgemem_wasm_bg.wasm';
import type { LocalMemoryStore } from '../api/types.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import { type OpenOptions, type OpenTextOptions, openWithEmbedder } from '../local/open-store.js';
import { isReplicaOptions, type OpenReplicaOptions, openReplicaStore } from '../replica/open-replica.js';
import type { ReplicaMemoryStore } from '../replica/replica-store.js';

/** The remote store (edgemem Worker over HTTP + WebSocket), with the global `WebSocket`. */
export { connect } from '../remote/store.js';
export * from './public-api.js';

/** Opens an in-process store: `'memory'` or a host page store (e.g. a Durable Object's synchronous KV). */
export function openStore(options: OpenReplicaOptions): Promise<ReplicaMemoryStore>;
export function openStore(options: OpenTextOptions): Promise<LocalMemoryStore & TextMemoryStore>;
export function openStore(options?: OpenOptions): Promise<LocalMemoryStore>;
export function openStore(
  options: OpenOptions | OpenReplicaOptions = {},
): Promise<LocalMemoryStore | ReplicaMemoryStore> {
  if (isReplicaOptions(options)) return openReplicaStore(options, (o) => openStore(o), undefined, undefined);
  return openWithEmbedder(options, async () => wasmModule, undefined);
}
