/** The `MemoryStore` interface every edgemem store implements (in-process wasm today, the remote client later), and its data types. */

/** Any JSON value: what memories, metadata, notify payloads and JSON checkpoints hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A namespace path, outermost first, e.g. `["user", "42"]`. */
export type Namespace = string[];

/**
 * A point in the past for reads: the state right after change `seq`, or at a wall-clock time (ms since
 * the epoch). Seqs and versions are JavaScript numbers: every one that crosses the boundary is checked to
 * be an integer ≤ 2^53-1 (`Number.MAX_SAFE_INTEGER`) and is never rounded — a larger one is an
 * `EdgememError` (INVALID_ARGUMENT on input, INTERNAL from a store that reached it).
 */
export type AsOf = { seq: number } | { time: number };

export interface MemoryInput {
  namespace: Namespace;
  key: string;
  value: JsonValue;
  /** Text indexed for lexical search. */
  text?: string;
  /** Vector for vector search; its length must equal the store's `dims`. */
  embedding?: Float32Array | number[];
  metadata?: JsonObject;
  /** Pinned memories are never evicted by the caps. */
  pinned?: boolean;
  ttlMs?: number;
  /** Compare-and-set: the write fails with CONFLICT unless the current version is this (0: must not exist). */
  ifVersion?: number;
}

export interface Memory {
  namespace: Namespace;
  key: string;
  value: JsonValue;
  text: string | null;
  /** Only when asked for (get `includeEmbedding`, list `includeEmbeddings`); never in history. */
  embedding?: Float32Array;
  metadata: JsonObject;
  pinned: boolean;
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  version: number;
  seq: number;
  size: number;
}

export interface WriteAck {
  seq: number;
  version: number;
  /** Memories the caps evicted to make room for this write. */
  evicted: { namespace: Namespace; key: string }[];
}

export interface GetOptions {
  asOf?: AsOf;
  /** Also return the embedding (default false: it is the bulk of a memory and rarely needed on reads). */
  includeEmbedding?: boolean;
}

export interface DeleteOptions {
  ifVersion?: number;
}

export interface ListOptions {
  /** Namespace prefix (default: the whole store). */
  prefix?: Namespace;
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  asOf?: AsOf;
  includeEmbeddings?: boolean;
}

export interface ListPage {
  items: Memory[];
  nextCursor: string | null;
}

export type FilterOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in';

/** `metadata[field] <op> value`; for `in`, `value` is an array. */
export interface Condition {
  field: string;
  op: FilterOp;
  value: JsonValue;
}

export type SearchMode = 'vector' | 'lexical' | 'hybrid';

export interface FusionOptions {
  method?: 'rrf' | 'relative';
  vectorWeight?: number;
  rrfK?: number;
  pool?: number;
  /**
   * Pseudo-relevance feedback (hybrid search): the first ranking's top `feedbackDocs` memories
   * (0..=20, default 5; 0 turns feedback off) supply up to `feedbackTerms` expansion words
   * (0..=50, default 10), each adding `feedbackWeight` (0..=1, default 0.3) × its BM25 weight to
   * the first pass's candidates that hold it; then the lists are fused again.
   */
  feedbackDocs?: number;
  feedbackTerms?: number;
  feedbackWeight?: number;
}

export interface SearchQuery {
  /** Default: hybrid when both `text` and `vector` are given, else whichever is. */
  mode?: SearchMode;
  text?: string;
  vector?: Float32Array | number[];
  /** Hits wanted, 1..=1000 (default 10). */
  k?: number;
  /** Namespace prefix. */
  namespace?: Namespace;
  filter?: Condition[];
  asOf?: AsOf;
  fusion?: FusionOptions;
}

export interface SearchHit {
  namespace: Namespace;
  key: string;
  value: JsonValue;
  text: string | null;
  metadata: JsonObject;
  version: number;
  seq: number;
  /** The mode's score: similarity (vector), -bm25 (lexical), fused score (hybrid). */
  score: number;
  vectorRank: number | null;
  vectorScore: number | null;
  lexicalRank: number | null;
  lexicalScore: number | null;
}

/** Checkpoint payloads: JSON, or opaque bytes (e.g. a serializer's output). */
export type CheckpointData = JsonValue | Uint8Array;

export interface CheckpointInput {
  threadId: string;
  checkpointNs?: string;
  checkpointId: string;
  parentId?: string | null;
  data: CheckpointData;
  metadata?: JsonObject;
}

export interface PendingWrite {
  taskId: string;
  idx: number;
  channel: string;
  value: CheckpointData;
}

export interface Checkpoint {
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
  parentId: string | null;
  data: CheckpointData;
  metadata: JsonObject;
  createdAt: number;
  seq: number;
  pendingWrites: PendingWrite[];
}

export interface GetCheckpointOptions {
  checkpointNs?: string;
  /** Default: the thread's latest checkpoint. */
  checkpointId?: string;
}

export interface ListCheckpointsOptions {
  threadId: string;
  /** Default: every checkpoint namespace of the thread. */
  checkpointNs?: string;
  /** Only checkpoints older than this checkpoint id. */
  before?: string;
  limit?: number;
  filter?: Condition[];
}

export interface PutWritesInput {
  threadId: string;
  checkpointNs?: string;
  checkpointId: string;
  taskId: string;
  /** `[channel, value]` pairs, stored at their index. */
  writes: [string, CheckpointData][];
}

export type EventKind = 'put' | 'delete' | 'expire' | 'evict' | 'checkpoint' | 'notify';

/**
 * One change. Memory events carry namespace/key/version; checkpoint events carry the thread id in
 * `channel` and the checkpoint id in `key`; notify events carry channel and payload.
 */
export interface ChangeEvent {
  seq: number;
  ts: number;
  kind: EventKind;
  namespace?: Namespace;
  key?: string;
  version?: number;
  channel?: string;
  payload?: JsonValue;
}

/** Which events a consumer wants; absent or empty lists mean "all". */
export interface EventFilter {
  kinds?: EventKind[];
  /** Namespace prefixes (memory events only). */
  namespaces?: Namespace[];
  /** Notify channels (notify events only). */
  channels?: string[];
}

export interface ChangesOptions {
  filter?: EventFilter;
  /** At most this many events (default 1000, at most 10,000). */
  limit?: number;
}

export interface Subscription {
  unsubscribe(): Promise<void>;
}

export interface Stats {
  seq: number;
  memories: number;
  bytes: number;
  pinnedMemories: number;
  pinnedBytes: number;
  maxBytes: number;
  maxMemories: number;
  versions: number;
  events: number;
  oldestEventSeq: number | null;
  checkpoints: number;
  indexVectors: number;
  indexPending: number;
  indexBytes: number;
  dbBytes: number;
  historyFloor: number;
  /** The earliest expiry (ms since the epoch) of a live memory, or null: when to `sweep()` next. */
  nextExpiryAt: number | null;
  dims: number;
  metric: string;
  /** How the vector index stores vectors: 'f32', 'f16' or 'i8'. */
  scalar: string;
}

/**
 * A whole store (current state, history, checkpoints) as the engine's versioned JSON document
 * (`format: "edgemem-export/1"`); its inner field names are the engine's (snake_case) and stable.
 */
export interface ExportDoc {
  format: string;
  seq: number;
  [field: string]: unknown;
}

/** Everything an edgemem store does. All methods reject with `EdgememError`. */
export interface MemoryStore {
  put(memory: MemoryInput): Promise<WriteAck>;
  /** All or nothing: one failing item fails the batch and writes none. */
  putBatch(memories: MemoryInput[]): Promise<WriteAck[]>;
  get(namespace: Namespace, key: string, options?: GetOptions): Promise<Memory | null>;
  /** Returns the delete's seq; NOT_FOUND when there is no such memory. */
  delete(namespace: Namespace, key: string, options?: DeleteOptions): Promise<number>;
  list(options?: ListOptions): Promise<ListPage>;
  /** Every retained version of a memory, oldest first (deletions end a version). */
  /** Versions carry no embeddings. */
  history(namespace: Namespace, key: string): Promise<Memory[]>;
  search(query: SearchQuery): Promise<SearchHit[]>;

  putCheckpoint(checkpoint: CheckpointInput): Promise<number>;
  getCheckpoint(threadId: string, options?: GetCheckpointOptions): Promise<Checkpoint | null>;
  listCheckpoints(options: ListCheckpointsOptions): Promise<Checkpoint[]>;
  putWrites(input: PutWritesInput): Promise<void>;
  /** Returns how many checkpoints were deleted. */
  deleteThread(threadId: string): Promise<number>;

  /** Publishes an event on `channel`; returns its seq. */
  notify(channel: string, payload: JsonValue): Promise<number>;
  /** Calls `callback` with each matching event after the change is committed, until unsubscribed (a returned promise that rejects is logged). */
  subscribe(filter: EventFilter, callback: (event: ChangeEvent) => unknown): Promise<Subscription>;
  /** Events with seq > `after`, oldest first. RESUME_GAP (with `oldestSeq`) when they were pruned. */
  changes(after: number, options?: ChangesOptions): Promise<ChangeEvent[]>;

  stats(): Promise<Stats>;

  /** The latest committed seq: what `stats().seq` says, without counting anything (a local store reads a field). */
  seq(): Promise<number>;
  export(): Promise<ExportDoc>;
  /** Loads an export into an empty store. */
  import(doc: ExportDoc): Promise<void>;
  /** Removes expired memories and applies retention now (it also runs every few hundred writes); returns how many expired. */
  sweep(): Promise<number>;
  /** Idle-time work: inserts buffered vectors into the HNSW graph. */
  maintain(): Promise<void>;
  /** Flushes and closes; later calls reject with INVALID_ARGUMENT. Closing twice is fine. */
  close(): Promise<void>;
}
