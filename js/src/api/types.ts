/**
 * The `MemoryStore` interface every edgemem store implements (in-process wasm, the remote client), and its data
 * types. The engine's own shapes, enums and defaults come from `generated/engine.ts` (generated from the Rust
 * types); the interfaces here are the ones whose TypeScript form differs (Float32Array vectors, camelCase memories),
 * checked against the engine's in `engine-shapes.ts`.
 */

import type * as engine from './generated/engine.js';
import type { EventKind, ImportProgress, SearchHit, SearchMode, Stats } from './generated/engine.js';

export type {
  EventKind,
  FilterOp,
  FusionMethod,
  ImportProgress,
  Metric,
  ScalarKind,
  SearchHit,
  SearchMode,
  Stats,
} from './generated/engine.js';

/** Any JSON value: what memories, metadata, notify payloads and JSON checkpoints hold. */
export type JsonValue = engine.JsonValue;
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

/**
 * Every string a store takes (namespace segments, keys, text, ids, channels, and strings inside JSON values) must
 * be well-formed UTF-16: one with a lone surrogate cannot be stored as UTF-8 and is INVALID_ARGUMENT. JSON values
 * nested deeper than about 120 levels of arrays and objects are INVALID_ARGUMENT too (the engine's JSON parser
 * stops at 128 levels, counting the few its own argument document wraps around the value).
 */
export interface MemoryInput {
  namespace: Namespace;
  /** 1–512 bytes of UTF-8 without control characters, and not `.` or `..` (a URL cannot carry those). */
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
  /** Valid time (ms since the epoch): when the fact became true in the world (absent: always was). */
  validFrom?: number;
  /** When it stopped being true (absent: still is). Reads answer with what is valid now unless they say `validAt`. */
  validTo?: number;
}

/**
 * Valid time for a read: the memories valid at this time (ms since the epoch), or `'any'` for every memory however
 * valid. A read without it answers with what is valid at the read's time (now, or its `asOf` time).
 */
export type ValidAt = number | 'any';

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
  /** Valid time (ms since the epoch): absent when open. */
  validFrom?: number;
  validTo?: number;
  /** How many times `remember` was told this fact (absent: once, or a plain put), and when last. */
  seen?: number;
  lastSeen?: number;
  /** The key (same namespace) of the memory this one superseded, and of the one that superseded it. */
  replaces?: string;
  replacedBy?: string;
}

export interface WriteAck {
  seq: number;
  version: number;
  /** Memories the caps evicted to make room for this write. */
  evicted: { namespace: Namespace; key: string }[];
}

export interface GetOptions {
  asOf?: AsOf;
  validAt?: ValidAt;
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
  validAt?: ValidAt;
  includeEmbeddings?: boolean;
  /** Metadata conditions. */
  filter?: Condition[];
  /** Conditions on top-level fields of the value (a value that is not an object has none). */
  valueFilter?: Condition[];
  /** Matching memories to skip first (not with `cursor`). */
  offset?: number;
}

/** Which namespaces `listNamespaces` returns: those holding a live memory, in segment order. */
export interface ListNamespacesOptions {
  /** Namespaces starting with these segments; a `*` segment matches any one. */
  prefix?: Namespace;
  /** Namespaces ending with these segments; a `*` segment matches any one. */
  suffix?: Namespace;
  /** Cut deeper namespaces to their first `maxDepth` segments (then deduplicated). */
  maxDepth?: number;
  /** At most this many (1..=1000, default 100). */
  limit?: number;
  offset?: number;
}

export interface ListPage {
  items: Memory[];
  nextCursor: string | null;
}

/** `metadata[field] <op> value` (`value[field]` in a value filter); for `in` and `nin` (not in; a missing field matches), `value` is an array. */
export type Condition = engine.Condition;

/**
 * Hybrid fusion settings; absent ones take the engine's (`FUSION_DEFAULTS`). `method`: `relative` (default),
 * `rrf` (weighted reciprocal rank) or `z_score` (as relative, each signal standardised). Pseudo-relevance
 * feedback: the first ranking's top `feedbackDocs` memories (0..=20; 0 turns feedback off) supply up to
 * `feedbackTerms` expansion words (0..=50), each adding `feedbackWeight` (0..=1) × its BM25 weight to the first
 * pass's candidates that hold it; then the lists are fused again.
 */
export type FusionOptions = Partial<engine.FusionParams>;

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
  /** Conditions on top-level fields of the value (a value that is not an object has none). */
  valueFilter?: Condition[];
  /** Hits to skip first: the ranking's `offset .. offset + k` (`offset + k` at most 1000). */
  offset?: number;
  asOf?: AsOf;
  validAt?: ValidAt;
  fusion?: FusionOptions;
}

/** `remember`'s rules' settings (absent ones: the engine's, `COHERENCE_DEFAULTS`). */
export type CoherenceSettings = Partial<engine.CoherenceSettings>;

/** A chat message an extractor turns into facts. */
export interface ChatMessage {
  role: string;
  content: string;
}

/** A fact to remember into a namespace: `text`, or `messages` for the store's `extractor` to turn into facts. */
export interface RememberInput {
  namespace: Namespace;
  /** The fact, in words. */
  text?: string;
  /** Conversation messages (with an `extractor`): each fact extracted is remembered in turn. */
  messages?: ChatMessage[];
  /** The key: one names an attribute (the same key's other content supersedes it). Default: a generated `m-…`. */
  key?: string;
  /** Default: the text. */
  value?: JsonValue;
  metadata?: JsonObject;
  /** The fact's vector (default: the store's embedder's, if any). */
  embedding?: Float32Array | number[];
  pinned?: boolean;
  /** When the fact became true (ms since the epoch). Default: open for a new fact, now for a supersede. */
  validFrom?: number;
  settings?: CoherenceSettings;
  /**
   * A decision made outside the rules (your own judge's, after `assess`), applied as it is: CONFLICT when its
   * target changed since. Not with `messages`.
   */
  decided?: Decided;
}

/** A decision to apply: for a duplicate or a supersede, the `target` as `assess` named it (its key and version). */
export interface Decided {
  decision: Decision;
  target?: Pick<DecisionTarget, 'key' | 'version'> | null;
  /** Recorded as the result's `reason` (default `judge`). */
  reason?: string;
}

/** One fact as a store's transport hands it to the engine: its text, its vector, perhaps a decision. */
export type RememberFact = Omit<RememberInput, 'messages' | 'text'> & { text: string };

/** What `assess` finds: the rules' decision, and the memories they could not tell apart from the fact. */
export type Assessment = engine.Assessment;

/** What `remember` decided: `new`, `duplicate` (folded into `target`) or `supersede` (replaced `target`). */
export type Decision = engine.Decision;

/** The memory a decision folded into or replaced, as it was. */
export type DecisionTarget = engine.Target;

/** What `remember` did with one fact. */
export interface Remembered {
  decision: Decision;
  namespace: Namespace;
  /** The memory that holds the fact now: the one folded into (duplicate), else the one written. */
  key: string;
  version: number;
  seq: number;
  target: DecisionTarget | null;
  /** The rule (or judge) that decided: e.g. `same fact`, `change cue`, `guard: numbers`, `judge`. */
  reason: string;
  /** Whether the store's judge made the decision. */
  judged: boolean;
}

/** A consolidation run over a namespace (and those under it): resumable with `cursor`. */
export interface ConsolidateOptions {
  namespace: Namespace;
  cursor?: string;
  /** Memories examined at most (1..=1000, default 100). */
  limit?: number;
  settings?: CoherenceSettings;
}

export interface ConsolidateReport {
  /** The duplicates and supersedes applied. */
  decisions: Remembered[];
  examined: number;
  /** Pass back as `cursor` to go on; null when the namespace is done. */
  nextCursor: string | null;
}

/** What `context` assembles: a prompt-ready block within a token budget. */
export interface ContextOptions {
  /** What the prompt is about. */
  query?: string;
  /** The query's vector (default: the store's embedder's, if any). */
  vector?: Float32Array | number[];
  /** Namespace prefixes to draw from (default: the whole store). */
  namespaces?: Namespace[];
  /** Tokens at most (estimated as bytes / 4; default 1000). */
  budget?: number;
  validAt?: ValidAt;
  /** Latest supersedes listed at most (default 5; 0: none). */
  recent?: number;
}

export type ContextItem = engine.ContextItem;

export interface ContextBlock {
  /** Markdown: `## Pinned`, `## Relevant facts`, `## Recent changes`, a line per memory. */
  text: string;
  tokens: number;
  items: ContextItem[];
}

/** Checkpoint payloads: JSON, or opaque bytes (e.g. a serializer's output). */
export type CheckpointData = JsonValue | Uint8Array;

/** One channel's value at one version: stored once per (thread, checkpointNs, channel, version). */
export interface ChannelBlob {
  channel: string;
  version: string;
  data: CheckpointData;
}

export interface CheckpointInput {
  threadId: string;
  checkpointNs?: string;
  checkpointId: string;
  parentId?: string | null;
  data: CheckpointData;
  metadata?: JsonObject;
  /** The version of each channel the checkpoint holds (channel -> version); reads resolve them to `blobs`. */
  channelVersions?: Record<string, string>;
  /** Blobs of the versions this checkpoint made; a (channel, version) already stored is kept as it is. */
  blobs?: ChannelBlob[];
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
  channelVersions: Record<string, string>;
  /** The stored blobs its `channelVersions` name (a version without a blob is left out). */
  blobs: ChannelBlob[];
}

export interface GetCheckpointOptions {
  checkpointNs?: string;
  /** Default: the thread's latest checkpoint. */
  checkpointId?: string;
}

export interface ListCheckpointsOptions {
  /** Default: every thread. */
  threadId?: string;
  /** Default: every checkpoint namespace of the thread. */
  checkpointNs?: string;
  /** Only checkpoints committed before the one with this id (of the thread, else of any thread). */
  before?: string;
  limit?: number;
  filter?: Condition[];
}

/** A page of a thread's checkpoints, newest first: at most `limit` and about 4 MiB (with pending writes). */
export interface CheckpointPage {
  checkpoints: Checkpoint[];
  /** Pass as `before` for the next page; null when this page ends the list. */
  nextBefore: string | null;
}

export interface HistoryOptions {
  /** Versions that began after this seq (default 0: from the oldest retained). */
  afterSeq?: number;
  /** At most this many versions (default and maximum 1000). */
  limit?: number;
}

/** A page of a memory's history, oldest first: at most `limit` versions and about 4 MiB. */
export interface HistoryPage {
  versions: Memory[];
  /** Pass as `afterSeq` for the next page; null when this page ends the history. */
  nextAfterSeq: number | null;
}

export interface PutWritesInput {
  threadId: string;
  checkpointNs?: string;
  checkpointId: string;
  taskId: string;
  /**
   * `[channel, value]` pairs, stored at their index; a task's write already at that index is kept, except on
   * LangGraph's special channels (`__error__`, `__scheduled__`, `__interrupt__`, `__resume__`), which take a
   * fixed negative index and replace.
   */
  writes: [string, CheckpointData][];
}

/**
 * One change. Memory events carry namespace/key/version; checkpoint events carry the thread id in
 * `channel` and the checkpoint id in `key` (a checkpoint put, or pending writes added to it; without a `key`, the
 * thread was deleted), and `payload: { checkpointNs }` outside the root checkpoint namespace; notify events carry channel and payload.
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
export type EventFilter = Partial<engine.EventFilter>;

export interface ChangesOptions {
  filter?: EventFilter;
  /** At most this many events (default 1000, at most 10,000). */
  limit?: number;
}

/** A page of the change feed: at most `limit` events and about 4 MiB. */
export interface ChangesPage {
  events: ChangeEvent[];
  /** The page ended at its limit or its size: ask again after its last event's seq. */
  more: boolean;
}

export interface Subscription {
  unsubscribe(): Promise<void>;
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

/**
 * Where a streamed import reads its NDJSON from: text or bytes, whole or in pieces of any size (a
 * `ReadableStream` such as a fetch body or a file stream, an async iterable such as Node's
 * `fs.createReadStream`, or an array of strings).
 */
export type NdjsonSource =
  | string
  | Uint8Array
  | ReadableStream<Uint8Array | string>
  | AsyncIterable<string | Uint8Array>
  | Iterable<string | Uint8Array>;

export interface ExportStreamOptions {
  /** About how much NDJSON text each yielded chunk holds (default 4 MiB; whole lines). */
  chunkBytes?: number;
}

/** Where an import chunk sits in its stream (`placedChunks` tells). */
export interface ChunkPlace {
  /** The stream's first chunk: it starts with the `header` line. */
  first: boolean;
  /** The stream's last chunk: it ends with the `end` line. */
  last: boolean;
}

/**
 * A local store's streamed export and import one chunk at a time: what `exportStream` / `importStream`
 * are made of, for hosts that carry the stream across a boundary themselves (the Worker's Durable Object).
 */
export interface ChunkedTransfer {
  /** The next chunk of NDJSON lines of the export and the cursor of the one after (null: that was the last). */
  exportChunk(cursor: string | null, maxBytes?: number): Promise<{ ndjson: string; cursor: string | null }>;
  /** Imports whole NDJSON lines; the first chunk starts with the header line, the last ends with the end line. */
  importChunk(ndjson: string, at: ChunkPlace): Promise<ImportProgress>;
  /** Abandons an unfinished import (the store is emptied again); false when none was in progress. */
  importAbort(): Promise<boolean>;
}

/**
 * Whether a local store's search would write pages now: a lexical or hybrid search first applies the writes
 * buffered for the full-text index. For hosts that run reads outside their write transaction (the Worker's
 * Durable Object): a search may run as a read when this is false. Synchronous, and it touches no page.
 */
export interface SearchWrites {
  searchWrites(): boolean;
}

/**
 * A local store's search answered as the engine's JSON text of its hits (what `search` parses): for hosts that
 * send the hits on as JSON (the Worker's Durable Object to its HTTP route), which then neither parse nor re-serialise
 * them. `JSON.parse` of the text gives what `search` returns.
 */
export interface SearchJson {
  searchJson(query: SearchQuery): Promise<string>;
}

/** Engine settings of a store (everything optional: the engine's defaults, e.g. `RETENTION_DEFAULTS`). */
export interface StoreSettings extends Partial<Omit<engine.StoreOptions, 'retention'>> {
  retention?: Partial<engine.Retention>;
  /**
   * Once writes pause for this many ms, the store indexes what they buffered (new text into the full-text
   * index, new vectors into the HNSW graph), so neither the write that would fill the buffer nor a search
   * pays for it. Default 100; 0 turns it off (then the 256th buffered vector is inserted by its write,
   * with the 255 before it, and `maintain()` indexes on demand).
   */
  idleFlushMs?: number;
}

/**
 * The agent's side of its replicas' pushes (the Worker's Durable Object): a write applied as op `op` of replica
 * `replica` is recorded with it in its own transaction, so a retried op is answered from the record
 * (`appliedOp`: the seq of the write that applied it), never applied twice. A failed write records nothing.
 */
export interface AppliedOps {
  putOnce(replica: string, op: number, memory: MemoryInput): Promise<WriteAck>;
  deleteOnce(replica: string, op: number, namespace: Namespace, key: string, options?: DeleteOptions): Promise<number>;
  appliedOp(replica: string, op: number): number | null;
}

/**
 * What `openStore` gives: a `MemoryStore` in this process, with the hooks a host that carries its calls across a
 * boundary uses (the Worker's Durable Object): chunked export and import, `searchWrites`, `searchJson`, and the
 * record of replicas' pushed ops.
 */
export interface LocalMemoryStore extends MemoryStore, ChunkedTransfer, SearchWrites, SearchJson, AppliedOps {}

/** Everything an edgemem store does. All methods reject with `EdgememError`. */
export interface MemoryStore {
  put(memory: MemoryInput): Promise<WriteAck>;
  /** All or nothing: one failing item fails the batch and writes none. */
  putBatch(memories: MemoryInput[]): Promise<WriteAck[]>;
  get(namespace: Namespace, key: string, options?: GetOptions): Promise<Memory | null>;
  /** Returns the delete's seq; NOT_FOUND when there is no such memory. */
  delete(namespace: Namespace, key: string, options?: DeleteOptions): Promise<number>;
  list(options?: ListOptions): Promise<ListPage>;
  /** Namespaces that hold a live memory, filtered by prefix / suffix, cut to a depth, in segment order. */
  listNamespaces(options?: ListNamespacesOptions): Promise<Namespace[]>;
  /** Every retained version of a memory, oldest first (deletions end a version). */
  /** Versions carry no embeddings. */
  history(namespace: Namespace, key: string): Promise<Memory[]>;
  /** One page of `history`, cut by count and by size (about 4 MiB), with where to go on. */
  historyPage(namespace: Namespace, key: string, options?: HistoryOptions): Promise<HistoryPage>;
  search(query: SearchQuery): Promise<SearchHit[]>;

  /**
   * Remembers a fact (or the facts an extractor finds in `messages`): folds it into the memory it duplicates,
   * supersedes the memory it updates (closed in valid time, linked, kept in history), or writes it as new. One
   * result per fact.
   */
  remember(input: RememberInput): Promise<Remembered[]>;
  /** What `remember` would decide for one fact by the rules alone, writing nothing (with the uncertain memories). */
  assess(input: RememberInput): Promise<Assessment>;
  /** Applies `remember`'s rules to memories already stored, a page at a time; never deletes. */
  consolidate(options: ConsolidateOptions): Promise<ConsolidateReport>;
  /** A prompt-ready block: pinned memories, the current facts relevant to `query`, the latest changes. */
  context(options?: ContextOptions): Promise<ContextBlock>;

  putCheckpoint(checkpoint: CheckpointInput): Promise<number>;
  getCheckpoint(threadId: string, options?: GetCheckpointOptions): Promise<Checkpoint | null>;
  /** Up to `limit` checkpoints, newest first (however many pages that takes). */
  listCheckpoints(options?: ListCheckpointsOptions): Promise<Checkpoint[]>;
  /** One page of `listCheckpoints`, cut by count and by size (about 4 MiB), with where to go on. */
  listCheckpointsPage(options?: ListCheckpointsOptions): Promise<CheckpointPage>;
  putWrites(input: PutWritesInput): Promise<void>;
  /** Returns how many checkpoints were deleted. */
  deleteThread(threadId: string): Promise<number>;

  /** Publishes an event on `channel`; returns its seq. */
  notify(channel: string, payload: JsonValue): Promise<number>;
  /** Calls `callback` with each matching event after the change is committed, until unsubscribed (a returned promise that rejects is logged). */
  subscribe(filter: EventFilter, callback: (event: ChangeEvent) => unknown): Promise<Subscription>;
  /** Events with seq > `after`, oldest first. RESUME_GAP (with `oldestSeq`) when they were pruned. */
  changes(after: number, options?: ChangesOptions): Promise<ChangeEvent[]>;
  /** One page of `changes`, cut by count and by size (about 4 MiB); `more` says to ask again. */
  changesPage(after: number, options?: ChangesOptions): Promise<ChangesPage>;

  stats(): Promise<Stats>;

  /** The latest committed seq: what `stats().seq` says, without counting anything (a local store reads a field). */
  seq(): Promise<number>;
  export(): Promise<ExportDoc>;
  /** Loads an export into an empty store. */
  import(doc: ExportDoc): Promise<void>;
  /**
   * The whole store as NDJSON (`edgemem-export/2`), in chunks of whole lines: any size, in bounded
   * memory, consistent as of the seq when it began (later writes do not tear it). Write the chunks to
   * a file or a response as they come.
   */
  exportStream(options?: ExportStreamOptions): AsyncIterable<string>;
  /**
   * Loads an NDJSON export into an empty store as it streams in. Validated like live writes; a stream
   * that is cut short or fails a check leaves the store empty. Writes are refused (CONFLICT) until it ends.
   */
  importStream(source: NdjsonSource): Promise<ImportProgress>;
  /** Removes expired memories and applies retention now (it also runs every few hundred writes); returns how many expired. */
  sweep(): Promise<number>;
  /** Idle-time work: inserts buffered vectors into the HNSW graph. */
  maintain(): Promise<void>;
  /** Flushes and closes; later calls reject with INVALID_ARGUMENT. Closing twice is fine. */
  close(): Promise<void>;
}
