/** Conversions between the public (camelCase) types and the engine's JSON shapes (snake_case), with seq checks. */

import { checkSafe, invalid, safeOut } from './errors.js';
import type {
  AsOf,
  ChangeEvent,
  ChannelBlob,
  Checkpoint,
  CheckpointData,
  FusionOptions,
  JsonObject,
  JsonValue,
  Memory,
  MemoryInput,
  Namespace,
  PendingWrite,
  SearchHit,
  Stats,
  WriteAck,
} from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: engine JSON is checked by the engine's serde.
type Raw = any;

export function asOfArg(a: AsOf | undefined): Raw {
  if (a === undefined) return undefined;
  if ('seq' in a) return { seq: checkSafe(a.seq, 'asOf.seq') };
  if ('time' in a && Number.isSafeInteger(a.time)) return { time: a.time };
  throw invalid('asOf must be { seq } or { time } with an integer');
}

export function optSafe(n: number | undefined, what: string): number | undefined {
  return n === undefined ? undefined : checkSafe(n, what);
}

/** A vector argument as a Float32Array (what the adapter takes). */
export function f32(v: Float32Array | number[] | undefined, what: string): Float32Array | undefined {
  if (v === undefined) return undefined;
  if (v instanceof Float32Array) return v;
  if (Array.isArray(v)) return Float32Array.from(v);
  throw invalid(`${what} must be a Float32Array or an array of numbers`);
}

/** A memory without its embedding (the embedding crosses separately, as a Float32Array). */
export function putArg(m: MemoryInput): Raw {
  if (typeof m !== 'object' || m === null) throw invalid('a memory must be an object');
  return {
    namespace: m.namespace,
    key: m.key,
    value: m.value,
    text: m.text,
    metadata: m.metadata,
    pinned: m.pinned ?? false,
    ttl_ms: optSafe(m.ttlMs, 'ttlMs'),
    if_version: optSafe(m.ifVersion, 'ifVersion'),
  };
}

export function toAck(a: Raw): WriteAck {
  return {
    seq: safeOut(a.seq, 'seq'),
    version: safeOut(a.version, 'version'),
    evicted: (a.evicted as [Namespace, string][]).map(([namespace, key]) => ({ namespace, key })),
  };
}

export function toMemory(m: Raw): Memory {
  const out: Memory = {
    namespace: m.namespace,
    key: m.key,
    value: m.value,
    text: m.text,
    metadata: m.metadata,
    pinned: m.pinned,
    expiresAt: m.expires_at,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
    version: safeOut(m.version, 'version'),
    seq: safeOut(m.seq, 'seq'),
    size: m.size,
  };
  if (Array.isArray(m.embedding)) out.embedding = Float32Array.from(m.embedding as number[]);
  return out;
}

export function toHit(h: Raw): SearchHit {
  return {
    namespace: h.namespace,
    key: h.key,
    value: h.value,
    text: h.text,
    metadata: h.metadata,
    version: safeOut(h.version, 'version'),
    seq: safeOut(h.seq, 'seq'),
    createdAt: h.created_at,
    updatedAt: h.updated_at,
    score: h.score,
    vectorRank: h.vector_rank,
    vectorScore: h.vector_score,
    lexicalRank: h.lexical_rank,
    lexicalScore: h.lexical_score,
  };
}

export function fusionArg(f: FusionOptions | undefined): Raw {
  if (f === undefined) return undefined;
  return {
    method: f.method ?? 'relative',
    vector_weight: f.vectorWeight ?? 0.5,
    rrf_k: f.rrfK ?? 60,
    pool: checkSafe(f.pool ?? 100, 'fusion.pool'),
    // Absent: the engine's defaults.
    feedback_docs: inRange(f.feedbackDocs, 0, 20, true, 'fusion.feedbackDocs'),
    feedback_terms: inRange(f.feedbackTerms, 0, 50, true, 'fusion.feedbackTerms'),
    feedback_weight: inRange(f.feedbackWeight, 0, 1, false, 'fusion.feedbackWeight'),
  };
}

/** An optional number in lo..=hi (an integer when `int`), else INVALID_ARGUMENT. */
function inRange(v: number | undefined, lo: number, hi: number, int: boolean, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !(v >= lo && v <= hi) || (int && !Number.isInteger(v))) {
    throw invalid(`${what} must be ${int ? 'an integer' : 'a number'} in ${lo}..=${hi}, got ${String(v)}`);
  }
  return v;
}

export function dataArg(d: CheckpointData): Raw {
  if (d instanceof Uint8Array) return { bytes: Array.from(d) };
  if (d === undefined) throw invalid('checkpoint data is required');
  return { json: d };
}

function toData(d: Raw): CheckpointData {
  if ('bytes' in d) return Uint8Array.from(d.bytes as number[]);
  return d.json as JsonValue;
}

export function toCheckpoint(c: Raw): Checkpoint {
  return {
    threadId: c.thread_id,
    checkpointNs: c.checkpoint_ns,
    checkpointId: c.checkpoint_id,
    parentId: c.parent_id,
    data: toData(c.data),
    metadata: c.metadata as JsonObject,
    createdAt: c.created_at,
    seq: safeOut(c.seq, 'seq'),
    pendingWrites: (c.pending_writes as Raw[]).map(
      (w): PendingWrite => ({ taskId: w.task_id, idx: w.idx, channel: w.channel, value: toData(w.value) }),
    ),
    channelVersions: (c.channel_versions ?? {}) as Record<string, string>,
    blobs: ((c.blobs ?? []) as Raw[]).map(
      (b): ChannelBlob => ({ channel: b.channel, version: b.version, data: toData(b.data) }),
    ),
  };
}

export function toEvent(e: Raw): ChangeEvent {
  const out: ChangeEvent = { seq: safeOut(e.seq, 'seq'), ts: e.ts, kind: e.kind };
  if (e.namespace != null) out.namespace = e.namespace;
  if (e.key != null) out.key = e.key;
  if (e.version != null) out.version = safeOut(e.version, 'version');
  if (e.channel != null) out.channel = e.channel;
  if (e.payload !== undefined && e.payload !== null) out.payload = e.payload;
  return out;
}

/**
 * Checks every seq and version of an export document before import: beyond 2^53-1 the store would hand
 * back rounded numbers later, so it is INVALID_ARGUMENT now. (Shapes are left to the engine's checks.)
 */
export function checkExportSeqs(doc: Raw): void {
  const list = (v: unknown): Raw[] => (Array.isArray(v) ? v : []);
  const num = (n: unknown, what: string) => {
    if (n !== undefined && n !== null) checkSafe(n, what);
  };
  num(doc.seq, 'doc.seq');
  num(doc.history_floor, 'doc.history_floor');
  const memory = (m: Raw, what: string) => {
    if (typeof m !== 'object' || m === null) return;
    num(m.seq, `${what}.seq`);
    num(m.version, `${what}.version`);
  };
  for (const [i, m] of list(doc.memories).entries()) memory(m, `doc.memories[${i}]`);
  for (const [i, v] of list(doc.versions).entries()) {
    if (typeof v !== 'object' || v === null) continue;
    memory(v.memory, `doc.versions[${i}].memory`);
    num(v.seq_to, `doc.versions[${i}].seq_to`);
  }
  for (const [i, c] of list(doc.commits).entries()) num(list(c)[0], `doc.commits[${i}][0]`);
  for (const [i, c] of list(doc.checkpoints).entries()) num(c?.seq, `doc.checkpoints[${i}].seq`);
}

export function toStats(s: Raw): Stats {
  return {
    seq: safeOut(s.seq, 'seq'),
    memories: s.memories,
    bytes: s.bytes,
    pinnedMemories: s.pinned_memories,
    pinnedBytes: s.pinned_bytes,
    maxBytes: s.max_bytes,
    maxMemories: s.max_memories,
    versions: s.versions,
    events: s.events,
    oldestEventSeq: s.oldest_event_seq,
    checkpoints: s.checkpoints,
    indexVectors: s.index_vectors,
    indexPending: s.index_pending,
    indexBytes: s.index_bytes,
    heapBytes: s.heap_bytes,
    memoryBudget: s.memory_budget,
    projectedPeakBytes: s.projected_peak_bytes,
    dbBytes: s.db_bytes,
    historyFloor: s.history_floor,
    nextExpiryAt: s.next_expiry_ms ?? null,
    dims: s.dims,
    metric: s.metric,
    scalar: s.scalar,
  };
}
