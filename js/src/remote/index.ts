/**
 * `edgemem/remote`: the remote client alone — `connect()` to an agent of the edgemem Worker, the admin helpers, the
 * types and errors — with none of the local engine (no wasm, no page stores), for apps that only talk to agents.
 */
import type { MemoryStore } from '../api/types.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import { type ConnectOptions, type ConnectTextOptions, remoteWithEmbedder } from './store.js';
import { globalOrWsWebSocket } from './websocket.js';

export { EdgememError, ERROR_CODES, type ErrorCode } from '../api/errors.js';
export { ENGINE_LIMITS, EVENT_KINDS, FILTER_OPS, FUSION_METHODS, SEARCH_MODES } from '../api/generated/engine.js';
export { documentFromLines, documentLines, lineChunks, ndjsonLines } from '../api/ndjson.js';
export { allChanges, allHistory, someCheckpoints } from '../api/paging.js';
export type * from '../api/types.js';
export type { Embedder, EmbedderOption, EmbedFunction, EmbedKind } from '../embed/embedder.js';
export { type OpenAIEmbeddingsOptions, openaiEmbeddings } from '../embed/openai-embeddings.js';
export type { TextMemoryStore } from '../embed/text-embedding.js';
export type { AdminOptions, AgentEmbedder, AgentInfo, AgentSettings, MintedToken, Scope } from './admin.js';
export { agentSettings, createAgent, mintToken } from './admin.js';
export type { ReconnectOptions, WebSocketConstructor, WebSocketLike } from './feed.js';
export type { FetchLike, TokenSource } from './http.js';
export type { ConnectOptions, ConnectTextOptions } from './store.js';

/**
 * A remote store of `agent` on the edgemem Worker at `url` (no request until the first call). `subscribe` uses
 * `options.WebSocket`, else the global one, else the `ws` package (Node 20).
 */
export async function connect(options: ConnectTextOptions): Promise<TextMemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore | TextMemoryStore> {
  return remoteWithEmbedder(options, globalOrWsWebSocket);
}
