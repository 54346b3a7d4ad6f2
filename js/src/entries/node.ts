/**
 * The Node entry of `edgemem`: `openStore` with memory, host page-store or file storage (synchronous fs), and
 * `connect` (the remote store), whose WebSocket is the global one (Node ≥ 22) or else the `ws` package.
 */

import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import type { LocalMemoryStore, MemoryStore } from '../api/types.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import { type OpenOptions, type OpenTextOptions, openWithEmbedder } from '../local/open-store.js';
import { NodeFilePageStore } from '../pages/node-file-page-store.js';
import { type ConnectOptions, type ConnectTextOptions, remoteWithEmbedder } from '../remote/store.js';
import { globalOrWsWebSocket } from '../remote/websocket.js';
import { isReplicaOptions, type OpenReplicaOptions, openReplicaStore } from '../replica/open-replica.js';
import type { ReplicaMemoryStore } from '../replica/replica-store.js';
import type { ReplicaFiles } from '../replica/storage.js';

export { type EmbeddingsServer, type ServeEmbeddingsOptions, serveEmbeddings } from '../embed/embeddings-server.js';
export * from './public-api.js';
export { NodeFilePageStore };

async function readWasm(): Promise<WebAssembly.Module> {
  return new WebAssembly.Module(readFileSync(new URL('../../dist-wasm/edgemem_wasm_bg.wasm', import.meta.url)));
}

/** A file replica's reload (replica/storage.ts) with synchronous fs. */
const files: ReplicaFiles = {
  exists: existsSync,
  remove: (path) => rmSync(path, { force: true }),
  rename: renameSync,
};

function openLocal(options: OpenOptions): Promise<LocalMemoryStore> {
  return openWithEmbedder(options, readWasm, (path) => new NodeFilePageStore(path));
}

/**
 * Opens an in-process store; `storage: { file }` keeps it in a SQLite database file (created if missing). With
 * `replicaOf`, the store is a live replica of an edge agent (docs: concepts/replicas).
 */
export function openStore(options: OpenReplicaOptions): Promise<ReplicaMemoryStore>;
export function openStore(options: OpenTextOptions): Promise<LocalMemoryStore & TextMemoryStore>;
export function openStore(options?: OpenOptions): Promise<LocalMemoryStore>;
export function openStore(
  options: OpenOptions | OpenReplicaOptions = {},
): Promise<LocalMemoryStore | ReplicaMemoryStore> {
  if (isReplicaOptions(options)) return openReplicaStore(options, openLocal, files, globalOrWsWebSocket);
  return openLocal(options);
}

/** A remote store of `agent` on the edgemem Worker at `url` (no request until the first call). */
export async function connect(options: ConnectTextOptions): Promise<TextMemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore | TextMemoryStore> {
  return remoteWithEmbedder(options, globalOrWsWebSocket);
}
