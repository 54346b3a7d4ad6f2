/**
 * Limits on every input of the HTTP and WebSocket API. Requests past them get a coded 4xx
 * (PAYLOAD_TOO_LARGE 413 for sizes, INVALID_ARGUMENT 400 for counts and lengths) before the engine runs.
 * The engine enforces its own limits too (namespace depth 16, segment 256 bytes, key 512 bytes, k ≤ 1000,
 * notify payload 64 KiB, batch 1000): the HTTP limits are equal or tighter.
 */
export const LIMITS = {
  /** Request body of ordinary routes, bytes. */
  bodyBytes: 1 << 20,
  /** Request body of `POST /memories/batch`, bytes. */
  batchBodyBytes: 8 << 20,
  /** One line of a `POST /import` NDJSON body, characters (the body itself has no limit: it streams). */
  importLineChars: 16 << 20,
  /** NDJSON text the Worker hands its Durable Object per import call (whole lines; a longer line goes alone). */
  importChunkChars: 1 << 20,
  /** NDJSON text per Durable Object call of a `GET /export` stream: well inside a call's 32 MiB. */
  exportChunkBytes: 4 << 20,
  /** One memory (value + text + metadata as the engine counts it), bytes. */
  memoryBytes: 256 << 10,
  /** One checkpoint (data + metadata), bytes. */
  checkpointBytes: 1 << 20,
  /** Lexical query text, characters. */
  searchTextChars: 4096,
  /** Embedding / query vector length. */
  dims: 4096,
  /** Search hits. */
  k: 100,
  /** Memories per batch. */
  batchItems: 100,
  /** Namespace segments. */
  namespaceDepth: 16,
  /** One namespace segment, characters (the engine also caps it at 256 bytes). */
  segmentChars: 256,
  /** Key, characters (the engine also caps it at 512 bytes). */
  keyChars: 512,
  /** Agent ids, thread ids, checkpoint ids, task ids, channels: characters. */
  idChars: 256,
  /** Items per page of list / events / checkpoints. */
  pageItems: 1000,
  /** Metadata filter conditions per query. */
  filterConditions: 16,
  /** Pending writes per putWrites call. */
  writesPerCall: 100,
  /** Scoped token lifetime, seconds (default 1 hour, at most 24 hours). */
  tokenDefaultTtlSeconds: 3600,
  tokenMaxTtlSeconds: 24 * 3600,
  /** One WebSocket message from a client, bytes. */
  wsMessageBytes: 16 << 10,
  /** Memories the maintenance alarm's consolidation examines per run (agents with `consolidate: true`). */
  consolidatePerAlarm: 200,
  /** Namespace prefixes / kinds / channels in one event filter. */
  filterItems: 32,
  /**
   * JSON nesting (arrays and objects inside one another) of a body, a WebSocket message or a JSON query
   * parameter, checked before parsing (json-depth.ts). The engine's JSON parser (serde_json) refuses documents
   * nested 128 levels or more, and a body wraps a value in at most one level more than the engine's document
   * for it does (a batch's `memories`), so no body the engine would take is refused here.
   */
  jsonDepth: 128,
} as const;
