/** What every entry of the package exports besides `openStore`. */

export type { Embedder, EmbedderOption, EmbedFunction, EmbedKind } from './embedder.js';
export type { ReembedOptions, ReembedProgress, TextMemoryStore } from './embedding-store.js';
export { EdgememError, ERROR_CODES, type ErrorCode } from './errors.js';
export {
  EVENT_KINDS,
  FILTER_OPS,
  FUSION_DEFAULTS,
  FUSION_METHODS,
  METRICS,
  RETENTION_DEFAULTS,
  SCALAR_KINDS,
  SEARCH_MODES,
} from './generated/engine.js';
export type { StoreSettings } from './local-store.js';
export { documentFromLines, documentLines, lineChunks, ndjsonLines } from './ndjson.js';
export type { OpenOptions, OpenTextOptions, StorageOption } from './open-store.js';
export { type OpenAIEmbeddingsOptions, openaiEmbeddings } from './openai-embeddings.js';
export { MemoryPageStore, type PageStore } from './page-store.js';
export { allChanges, allHistory, someCheckpoints } from './paging.js';
export type { AdminOptions, AgentEmbedder, AgentInfo, AgentSettings, MintedToken, Scope } from './remote-admin.js';
export { agentSettings, createAgent, mintToken } from './remote-admin.js';
export type { ReconnectOptions, WebSocketConstructor, WebSocketLike } from './remote-feed.js';
export type { FetchLike, TokenSource } from './remote-http.js';
export type { ConnectOptions, ConnectTextOptions } from './remote-store.js';
export type * from './types.js';
