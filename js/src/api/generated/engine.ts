// Generated from the engine's Rust types by core/src/ts_bindings.rs; do not edit. Regenerate with
// `EDGEMEM_WRITE_TS=1 cargo test -p edgemem-core --lib ts_bindings` (the test fails while it is stale).

/** Every error code (core/src/base/error.rs). */
export const ERROR_CODES = ['INVALID_ARGUMENT', 'NOT_FOUND', 'CONFLICT', 'DIMENSION_MISMATCH', 'QUOTA_EXCEEDED', 'PAYLOAD_TOO_LARGE', 'RESUME_GAP', 'HISTORY_PRUNED', 'UNAUTHORIZED', 'FORBIDDEN', 'EMBEDDING_FAILED', 'MODEL_FAILED', 'INTERNAL'] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Every kind of change-feed event (core/src/state/feed.rs). */
export const EVENT_KINDS = ['put', 'delete', 'expire', 'evict', 'checkpoint', 'notify', 'supersede'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Vector metrics. */
export const METRICS = ['cosine', 'ip', 'l2'] as const;
export type Metric = (typeof METRICS)[number];

/** How the vector index stores vectors. */
export const SCALAR_KINDS = ['f32', 'f16', 'i8', 'i4'] as const;
export type ScalarKind = (typeof SCALAR_KINDS)[number];

/** Search modes. */
export const SEARCH_MODES = ['vector', 'lexical', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** Hybrid fusion methods. */
export const FUSION_METHODS = ['rrf', 'relative', 'z_score'] as const;
export type FusionMethod = (typeof FUSION_METHODS)[number];

/** Filter operators. */
export const FILTER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** The engine's fusion settings when a search names none. */
export const FUSION_DEFAULTS: FusionParams = {"method":"relative","vectorWeight":0.5,"rrfK":60.0,"pool":100,"feedbackDocs":5,"feedbackTerms":10,"feedbackWeight":0.3,"neighbourReach":2};

/** The engine's retention when a store names none. */
export const RETENTION_DEFAULTS: Retention = {"historyVersions":0,"historyMaxAgeMs":0,"eventsMax":100000,"eventsMaxAgeMs":604800000,"checkpointsPerThread":0,"checkpointsMaxBytes":0};

/**
 * The engine's limits on its inputs: past them a call is refused (INVALID_ARGUMENT; sizes PAYLOAD_TOO_LARGE) on
 * every surface. Ranges are inclusive `[lowest, highest]`. The Worker's limits (workers/src/limits.ts) are these
 * or tighter.
 */
export const ENGINE_LIMITS = {
  appMetaNameBytes: 64,
  appMetaValueBytes: 65536,
  batchItems: 1000,
  channelBytes: 256,
  dims: 4096,
  filterConditions: 16,
  filterFieldBytes: 128,
  fusion: {"feedbackDocs":[0,20],"feedbackTerms":[0,50],"feedbackWeight":[0.0,1.0],"neighbourReach":[1,4],"neighbourWeight":[0.0,1.0],"pool":[1,4000],"rrfK":[1.0,1000.0],"vectorWeight":[0.0,1.0]},
  historyPageItems: 1000,
  k: 1000,
  keyBytes: 512,
  namespaceDepth: 16,
  notifyPayloadBytes: 65536,
  segmentBytes: 256,
  ttlMs: 3153600000000,
} as const;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** `remember`'s settings when a store names none. */
export const COHERENCE_DEFAULTS: CoherenceSettings = {"duplicateSimilarity":0.91,"duplicateOverlap":1.0,"supersedeSimilarity":0.75,"supersedeOverlap":0.5,"slotUpdates":false,"judgeSimilarity":0.85,"candidates":8};

/**
 * A point in the store's past: a commit sequence number, or a wall-clock time (ms since epoch),
 * which maps to the last seq committed at or before it.
 */
export type AsOf = { "seq": number } | { "time": number };

/** Valid time for a read: a time (ms since the epoch), or "any" for every memory however valid. */
export type ValidAt = number | "any";

/**
 * `metadata[field] <op> value` (or `value[field]` for a value filter). For `In` / `Nin`, `value` is an array.
 */
export type Condition = { field: string, op: FilterOp, value: JsonValue, };

/**
 * A write of one memory.
 */
export type MemoryPut = { namespace: Array<string>, key: string, value: JsonValue, text?: string, embedding?: Array<number>, metadata?: { [key in string]: JsonValue }, pinned: boolean, 
/**
 * Time to live in ms from now.
 */
ttlMs?: number, 
/**
 * Compare-and-set: the write applies only if the live version equals this
 * (0 = the key must not exist), else CONFLICT.
 */
ifVersion?: number, 
/**
 * Valid time (ms since epoch): when the fact became true, and stopped being true.
 */
validFrom?: number, validTo?: number, 
/**
 * A memory's coherence fields as `remember` keeps them (`seen`, `last_seen`, `replaces`, `replaced_by`):
 * what replication carries; a caller's put leaves it out.
 */
coherence?: { [key in string]: JsonValue }, };

/**
 * One memory as stored: identified by (namespace, key). Its fields are snake_case: it is also a line of
 * the export format, which stays as it is.
 */
export type Memory = { namespace: Array<string>, key: string, value: JsonValue, 
/**
 * What lexical search indexes (derived from a string `value` when not given).
 */
text: string | null, embedding: Array<number> | null, metadata: { [key in string]: JsonValue }, pinned: boolean, 
/**
 * Expiry, ms since epoch.
 */
expires_at: number | null, created_at: number, updated_at: number, 
/**
 * Per-key version, 1 for the first put; continues across delete + re-put.
 */
version: number, 
/**
 * Global commit sequence number of this version.
 */
seq: number, 
/**
 * Accounted bytes (what caps count).
 */
size: number, 
/**
 * Valid time (ms since epoch): when the fact became true in the world; None: always was.
 */
valid_from?: number | null, 
/**
 * When the fact stopped being true (a supersede sets it); None: still is.
 */
valid_to?: number | null, 
/**
 * How many times `remember` was told this fact (None: once, or a plain put).
 */
seen?: number | null, 
/**
 * When `remember` was last told it (ms since epoch).
 */
last_seen?: number | null, 
/**
 * The key (same namespace) of the memory this one superseded.
 */
replaces?: string | null, 
/**
 * The key (same namespace) of the memory that superseded this one.
 */
replaced_by?: string | null, };

/**
 * What a successful write tells the caller.
 */
export type WriteAck = { seq: number, version: number, 
/**
 * Memories evicted to make room, as (namespace, key).
 */
evicted: Array<[Array<string>, string]>, };

/**
 * Listing memories under a namespace prefix, in (namespace, key) order.
 */
export type ListQuery = { prefix: Array<string>, 
/**
 * Metadata conditions.
 */
filter: Array<Condition>, 
/**
 * Conditions on top-level fields of the value.
 */
valueFilter: Array<Condition>, 
/**
 * Matching memories to skip first (with no cursor).
 */
offset: number, 
/**
 * Page size (default 100, at most 1000).
 */
limit?: number, 
/**
 * The `next_cursor` of the previous page.
 */
cursor?: string, asOf?: AsOf, 
/**
 * Valid time (default: now).
 */
validAt?: ValidAt, includeEmbeddings: boolean, };

export type ListPage = { items: Array<Memory>, nextCursor: string | null, };

/**
 * A page of a key's history (see `Store::history_page`).
 */
export type HistoryPage = { versions: Array<Memory>, 
/**
 * Pass as `after_seq` for the next page; None when this page ends the history.
 */
nextAfterSeq: number | null, };

export type NamespaceQuery = { 
/**
 * Namespaces that start with these segments (`*` matches any one).
 */
prefix: Array<string>, 
/**
 * Namespaces that end with these segments (`*` matches any one).
 */
suffix: Array<string>, 
/**
 * Namespaces deeper than this are cut to their first `max_depth` segments (then deduplicated).
 */
maxDepth?: number, 
/**
 * At most this many (1..=1000, default 100).
 */
limit?: number, 
/**
 * Namespaces to skip first.
 */
offset: number, };

/**
 * Hybrid fusion settings (absent fields: the defaults below).
 */
export type FusionParams = { method: FusionMethod, 
/**
 * Weight of the vector list; the lexical list gets `1 - vector_weight`.
 */
vectorWeight: number, 
/**
 * RRF's rank offset.
 */
rrfK: number, 
/**
 * Candidates taken from each list before fusing (at least k).
 */
pool: number, 
/**
 * Pseudo-relevance feedback (search/feedback.rs): the first pass's top this many memories
 * (at most 20: `FUSION_RANGES`) supply expansion words that re-score its candidates (0: off).
 */
feedbackDocs: number, 
/**
 * At most this many expansion words (at most 50).
 */
feedbackTerms: number, 
/**
 * Each expansion word adds this weight (at most 1) × its one-occurrence BM25 score.
 */
feedbackWeight: number, 
/**
 * Neighbour scoring (search/neighbours.rs), in every mode: each candidate's score, min-max normalised, plus
 * this weight (at most 1) × its best neighbour's in its sequence (the memories of its namespace in the order
 * they were first written); the best candidates' neighbours join the candidates. Absent: the store's
 * default (`sequence: "namespace"` turns it on), 0: off.
 */
neighbourWeight?: number, 
/**
 * Neighbour scoring's reach: the memories up to this many places before and after a memory in its
 * sequence (at most 4) are its neighbours.
 */
neighbourReach: number, };

export type SearchQuery = { 
/**
 * Default: hybrid when both `text` and `vector` are given, else whichever is.
 */
mode?: SearchMode, text?: string, vector?: Array<number>, 
/**
 * Hits wanted (1..=1000, default 10).
 */
k?: number, 
/**
 * Namespace prefix (empty: the whole store).
 */
namespace: Array<string>, filter: Array<Condition>, 
/**
 * Conditions on top-level fields of the memory's value (a value that is not an object has none).
 */
valueFilter: Array<Condition>, 
/**
 * Hits to skip first (the ranking's `offset..offset + k`; `offset + k` at most 1000).
 */
offset: number, asOf?: AsOf, 
/**
 * Valid time (default: now): only memories valid then are hits.
 */
validAt?: ValidAt, fusion?: FusionParams, };

export type SearchHit = { namespace: Array<string>, key: string, value: JsonValue, text: string | null, metadata: { [key in string]: JsonValue }, version: number, seq: number, 
/**
 * When the memory was first written and last changed (ms since the epoch), as of the search.
 */
createdAt: number, updatedAt: number, 
/**
 * The mode's score: similarity (vector), -bm25 (lexical), fused score (hybrid); with neighbour scoring
 * (`fusion.neighbourWeight`), the normalised score plus what the best neighbour lends.
 */
score: number, 
/**
 * Each list's rank (from 1) and score of the hit, null when it is not in that list. In hybrid mode with
 * feedback, the lexical score includes the expansion words' share, so a memory can have a lexical rank
 * without holding any word of the question.
 */
vectorRank: number | null, vectorScore: number | null, lexicalRank: number | null, lexicalScore: number | null, 
/**
 * The memory's valid time (absent when open).
 */
validFrom?: number | null, validTo?: number | null, };

/**
 * One change. Memory events carry namespace/key/version; checkpoint events carry the thread
 * id in `channel` and the checkpoint id in `key` (a checkpoint put, or pending writes added to it; without a
 * `key`, the thread was deleted), and in `payload` `{"checkpointNs": …}` when the checkpoint namespace is not
 * the root (""); notify carries channel and payload.
 */
export type Event = { seq: number, ts: number, kind: EventKind, namespace: Array<string> | null, key: string | null, version: number | null, channel: string | null, payload: JsonValue | null, };

/**
 * Which events a consumer wants. `kinds` applies to every event; `namespaces` (prefixes) only
 * to memory events (put / delete / expire / evict); `channels` only to notify events. An
 * empty list means "all".
 */
export type EventFilter = { kinds: EventKind[], 
/**
 * Namespace prefixes (memory events only).
 */
namespaces: Array<Array<string>>, 
/**
 * Notify channels (notify events only).
 */
channels: Array<string>, };

/**
 * A page of the change feed (see `Store::changes_page`).
 */
export type ChangesPage = { events: Array<Event>, 
/**
 * The page ended at its limit or its size: more events may follow its last one.
 */
more: boolean, };

export type Stats = { seq: number, memories: number, 
/**
 * Accounted bytes of live memories (what `max_bytes` caps).
 */
bytes: number, pinnedMemories: number, pinnedBytes: number, maxBytes: number, maxMemories: number, versions: number, events: number, oldestEventSeq: number | null, checkpoints: number, indexVectors: number, 
/**
 * Vectors written but not yet inserted into the HNSW graph (searched exactly meanwhile).
 */
indexPending: number, indexBytes: number, 
/**
 * The engine's heap now: on wasm its linear memory; natively SQLite's allocations plus the index.
 */
heapBytes: number, 
/**
 * The store's memory budget (0 = none) and the peak heap the budget check projects for it now.
 */
memoryBudget: number, projectedPeakBytes: number, 
/**
 * SQLite database size (pages × page size).
 */
dbBytes: number, historyFloor: number, 
/**
 * The earliest `expires_at` (ms) of a live memory, expired or not: when a host should next `sweep()`.
 */
nextExpiryAt: number | null, dims: number, metric: string, 
/**
 * How the vector index stores vectors: f32, f16, i8 or i4.
 */
scalar: string, };

/**
 * What an import chunk achieved.
 */
export type ImportProgress = { 
/**
 * The `end` line came: the store now holds the whole export.
 */
done: boolean, versions: number, commits: number, checkpoints: number, writes: number, };

/**
 * What history and the change feed keep; 0 means keep everything. Absent fields take the defaults.
 */
export type Retention = { 
/**
 * Past versions kept per key (the live version is not counted).
 */
historyVersions: number, 
/**
 * Past versions older than this (ms since they stopped being current) are dropped.
 */
historyMaxAgeMs: number, 
/**
 * Events kept in the change feed, newest first.
 */
eventsMax: number, 
/**
 * Events older than this are dropped.
 */
eventsMaxAgeMs: number, 
/**
 * Checkpoints kept per (thread, checkpoint_ns), newest first.
 */
checkpointsPerThread: number, 
/**
 * Total checkpoint bytes kept; oldest go first (the newest of each thread always stays).
 */
checkpointsMaxBytes: number, };

/**
 * The rules' settings (store option `coherence`, or per call). Defaults chosen by cross-validation on the
 * labelled set in bench/coherence (see docs/benchmarks/coherence.md).
 */
export type CoherenceSettings = { 
/**
 * Cosine similarity at or above which two facts in different languages whose guards agree are the same fact.
 */
duplicateSimilarity: number, 
/**
 * Content-word overlap (Jaccard) at or above which two facts in one language whose guards agree are the same
 * fact (1: the same content words).
 */
duplicateOverlap: number, 
/**
 * Cosine similarity at or above which a fact with a change cue ("now", "moved", "no longer") about the same
 * entity supersedes the memory it is closest to.
 */
supersedeSimilarity: number, 
/**
 * Content-word overlap at or above which the same holds without vectors.
 */
supersedeOverlap: number, 
/**
 * A fact that differs from its closest memory in one slot only (a number, a date, a name), with no cue,
 * supersedes it when true; when false (the default: "two meetings" and "the meeting moved" look alike) it is
 * new, and uncertain.
 */
slotUpdates: boolean, 
/**
 * Cosine similarity at or above which a fact the rules call new is uncertain (what a judge is asked).
 */
judgeSimilarity: number, 
/**
 * Memories of the namespace compared with the fact (the closest by vector and by words).
 */
candidates: number, };

/**
 * What the rules decide of a fact against one memory.
 */
export type Decision = "new" | "duplicate" | "supersede";

/**
 * The memory a decision folds into or replaces.
 */
export type Target = { key: string, version: number, text: string | null, 
/**
 * Its similarity to the fact (cosine; word overlap without vectors).
 */
similarity: number | null, };

/**
 * A fact to remember into a namespace.
 */
export type RememberInput = { namespace: Array<string>, 
/**
 * The fact, in words: what is compared, and the memory's text.
 */
text: string, 
/**
 * The key of the memory: one names an attribute (the same key's other content supersedes it). Default: a
 * generated `m-…` key.
 */
key?: string, 
/**
 * Default: the text.
 */
value?: JsonValue, metadata?: { [key in string]: JsonValue }, embedding?: Array<number>, pinned: boolean, 
/**
 * When the fact became true (ms since epoch). Default: open for a new fact, now for a supersede.
 */
validFrom?: number, settings?: CoherenceSettings, 
/**
 * A decision made outside the rules (a judge's), applied as it is: for a duplicate or a supersede, of the
 * memory at `target` if it is still at `target_version` (else CONFLICT). Flat fields, not a nested object:
 * each nested type's JSON reader costs the wasm module kilobytes.
 */
decided?: Decision, target?: string, targetVersion?: number, 
/**
 * The rule or judge that made it.
 */
reason?: string, };

/**
 * What `remember` did.
 */
export type Remembered = { decision: Decision, namespace: Array<string>, 
/**
 * The memory that holds the fact now: the folded one for a duplicate, else the one written.
 */
key: string, version: number, seq: number, 
/**
 * The memory folded into (duplicate) or replaced (supersede), as it was.
 */
target: Target | null, reason: string, 
/**
 * Whether a judge made the decision.
 */
judged: boolean, };

/**
 * What `assess` finds: the rules' decision, and the memories they could not tell apart from the fact.
 */
export type Assessment = { decision: Decision, target: Target | null, reason: string, 
/**
 * Close memories the rules kept apart or could not place, most similar first (a judge's questions).
 */
uncertain: Array<Target>, };

/**
 * A consolidation run over a namespace (and the namespaces under it, each on its own).
 */
export type ConsolidateQuery = { namespace: Array<string>, 
/**
 * The `next_cursor` of the previous run.
 */
cursor?: string, 
/**
 * Memories examined at most (1..=1000, default 100).
 */
limit?: number, settings?: CoherenceSettings, };

/**
 * What a consolidation run did.
 */
export type ConsolidateReport = { 
/**
 * The duplicates and supersedes applied (a memory found new is not listed).
 */
decisions: Array<Remembered>, examined: number, 
/**
 * Pass back to go on; None when the namespace is done.
 */
nextCursor: string | null, };

/**
 * What `context` assembles.
 */
export type ContextQuery = { 
/**
 * What the prompt is about (lexical side of the relevance search).
 */
query?: string, 
/**
 * The query's vector (vector side).
 */
vector?: Array<number>, 
/**
 * Namespace prefixes to draw from (none: the whole store).
 */
namespaces: Array<Array<string>>, 
/**
 * Tokens at most (default 1000, at most 100,000).
 */
budget?: number, 
/**
 * Valid time (default now).
 */
validAt?: ValidAt, 
/**
 * Latest changes listed at most (default 5; 0: none).
 */
recent?: number, };

/**
 * One memory in the block.
 */
export type ContextItem = { 
/**
 * `pinned`, `relevant` or `recent`.
 */
section: string, namespace: Array<string>, key: string, text: string, validFrom: number | null, validTo: number | null, updatedAt: number, score: number | null, 
/**
 * For a recent supersede: the text it replaced.
 */
replaced: string | null, };

/**
 * The block and what it holds.
 */
export type ContextBlock = { text: string, 
/**
 * Estimated tokens of `text` (bytes / 4, rounded up).
 */
tokens: number, items: Array<ContextItem>, };

/**
 * The settings a host passes as JSON to open a store (the npm package's `openStore` options): the
 * serialisable part of `StoreConfig`, absent fields taking its defaults. The host applies them.
 */
export type StoreOptions = { 
/**
 * Embedding dimensions (0: no vectors). An existing store keeps its own; a different one is DIMENSION_MISMATCH.
 */
dims: number, metric?: Metric, 
/**
 * How the vector index stores vectors (SQLite always keeps the f32 originals).
 */
scalar?: ScalarKind, 
/**
 * Caps on live unpinned memories (0: none); least recently used ones are evicted.
 */
maxBytes: number, maxMemories: number, 
/**
 * The engine's heap budget in bytes (0: none): a write that would index vectors past it is refused with
 * QUOTA_EXCEEDED before the host runs out of memory (`stats()` shows `heapBytes` and `projectedPeakBytes`).
 */
memoryBudget: number, retention?: Retention, 
/**
 * SQLite synchronous=FULL instead of NORMAL.
 */
syncFull: boolean, 
/**
 * The vector index is snapshotted after this many vector changes (default 5,000).
 */
indexSnapshotEvery?: number, 
/**
 * Largest memory (value + text + metadata) in bytes (default 1 MiB); larger is PAYLOAD_TOO_LARGE.
 */
maxMemoryBytes?: number, 
/**
 * Largest checkpoint payload in bytes (default 8 MiB).
 */
maxCheckpointBytes?: number, 
/**
 * `"namespace"`: the memories of one namespace form a sequence in the order they were first written (a
 * conversation's turns), and searches score each memory with its neighbours by default
 * (`fusion.neighbourWeight`). Absent or `"none"`: memories are unordered facts.
 */
sequence?: "namespace" | "none", 
/**
 * `remember`'s settings (absent fields: the defaults).
 */
coherence?: CoherenceSettings, };
