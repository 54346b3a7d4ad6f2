/** What every entry of the package exports besides `openStore`. */

export { EdgememError, ERROR_CODES, type ErrorCode } from '../api/errors.js';
export {
  ENGINE_LIMITS,
  EVENT_KINDS,
  FILTER_OPS,
  FUSION_DEFAULTS,
  FUSION_METHODS,
  METRICS,
  RETENTION_DEFAULTS,
  SCALAR_KINDS,
  SEARCH_MODES,
} from '../api/generated/engine.js';
export {
  documentFromLines,
  documentLines,
  lineChunks,
  ndjsonLines,
  type PlacedChunk,
  placedChunks,
} from '../api/ndjson.js';
export { allChanges, allHistory, someCheckpoints } from '../api/paging.js';
export type * from '../api/types.js';
export {
  type ChatEndpoint,
  EXTRACT_PROMPT,
  type Extractor,
  type ExtractorOption,
  JUDGE_PROMPT,
  type Judge,
  type JudgeOption,
  type JudgeQuestion,
  type ModelOptions,
} from '../coherence/index.js';
export type { Embedder, EmbedderOption, EmbedFunction, EmbedKind } from '../embed/embedder.js';
export { type OpenAIEmbeddingsOptions, openaiEmbeddings } from '../embed/openai-embeddings.js';
export type { ReembedOptions, ReembedProgress, TextMemoryStore } from '../embed/text-embedding.js';
export type { OpenOptions, OpenTextOptions, StorageOption } from '../local/open-store.js';
export { MemoryPageStore, type PageStore } from '../pages/page-store.js';
export type { AdminOptions, AgentEmbedder, AgentInfo, AgentSettings, MintedToken, Scope } from '../remote/admin.js';
export { agentSettings, createAgent, mintToken } from '../remote/admin.js';
export type { ReconnectOptions, WebSocketConstructor, WebSocketLike } from '../remote/feed.js';
export type { FetchLike, TokenSource } from '../remote/http.js';
export type { ConnectOptions, ConnectTextOptions } from '../remote/store.js';
export type { OpenReplicaOptions, ReplicaOf } from '../replica/open-replica.js';
export type { ReplicaControls, ReplicaMemoryStore } from '../replica/replica-store.js';
export type { SharedReplicaStore } from '../replica/shared.js';
export type {
  ConflictEvent,
  RejectedEvent,
  ReplicaEventName,
  ReplicaEvents,
  ReplicaPhase,
  ReplicaStatus,
  SyncEvent,
} from '../replica/status.js';
