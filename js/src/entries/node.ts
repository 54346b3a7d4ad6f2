/**
 * The Node entry of `edgemem`: `openStore` with memory, host page-store or file storage (synchronous fs), and
 * `connect` (the remote store), whose WebSocket is the global one (Node ≥ 22) or else the `ws` package.
 */

import { readFileSync } from 'node:fs';
import type { LocalMemoryStore, MemoryStore } from '../api/types.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import { type OpenOptions, type OpenTextOptions, openWithEmbedder } from '../local/open-store.js';
import { NodeFilePageStore } from '../pages/node-file-page-store.js';
import { type ConnectOptions, type ConnectTextOptions, remoteWithEmbedder } from '../remote/store.js';
import { globalOrWsWebSocket } from '../remote/websocket.js';

export { type EmbeddingsServer, type ServeEmbeddingsOptions, serveEmbeddings } from '../embed/embeddings-server.js';
export * from './public-api.js';
export { NodeFilePageStore };

async function readWasm(): Promise<WebAssembly.Module> {
  return new WebAssembly.Module(readFileSync(new URL('../../dist-wasm/edgemem_wasm_bg.wasm', import.meta.url)));
}

/** Opens an in-process store; `storage: { file }` keeps it in a SQLite database file (created if missing). */
export function openStore(options: OpenTextOptions): Promise<LocalMemoryStore & TextMemoryStore>;
export function openStore(options?: OpenOptions): Promise<LocalMemoryStore>;
export function openStore(options: OpenOptions = {}): Promise<LocalMemoryStore> {
  return openWithEmbedder(options, readWasm, (path) => new NodeFilePageStore(path));
}

/** A remote store of `agent` on the edgemem Worker at `url` (no request until the first call). */
export async function connect(options: ConnectTextOptions): Promise<TextMemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore | TextMemoryStore> {
  return remoteWithEmbedder(options, globalOrWsWebSocket);
}
