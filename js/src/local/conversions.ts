/**
 * Conversions between the public types and the engine's JSON shapes (generated/engine.ts), with seq checks. The
 * engine speaks camelCase, so options pass through as they are; what is left: vectors (Float32Array), memories and
 * checkpoints (snake_case, as in the export format), write acks and events.
 */

import { checkSafe, invalid, safeOut } from '../api/errors.js';
import type {
  AsOf,
  ChangeEvent,
  ChannelBlob,
  Checkpoint,
  CheckpointData,
  JsonObject,
  JsonValue,
  Memory,
  MemoryInput,
  Namespace,
  PendingWrite,
  WriteAck,
} from '../api/types.js';

// biome-ignore lint/suspicious/noExplicitAny: engine JSON is checked by the engine's serde.
type Raw = any;

export function asOfArg(a: AsOf | undefined): Raw {
  if (a === undefined) return undefined;
  if ('seq' in a) return { seq: checkSafe(a.seq, 'asOf.seq') };
  if ('time' in a && Number.isSafeInteger(a.time)) return { time: a.time };
  throw invalid('asOf must be { seq } or { time } with an integer');
}

/** A read's `validAt`: a time (an integer, ms since the epoch) or `'any'`. */
export function validAtArg(v: unknown): Raw {
  if (v === undefined || v === 'any') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  throw invalid("validAt must be a time (an integer, ms since the epoch) or 'any'");
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
    ...m,
    embedding: undefined,
    pinned: m.pinned ?? false,
    ttlMs: optSafe(m.ttlMs, 'ttlMs'),
    ifVersion: optSafe(m.ifVersion, 'ifVersion'),
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
  if (m.valid_from != null) out.validFrom = m.valid_from;
  if (m.valid_to != null) out.validTo = m.valid_to;
  if (m.seen != null) out.seen = m.seen;
  if (m.last_seen != null) out.lastSeen = m.last_seen;
  if (m.replaces != null) out.replaces = m.replaces;
  if (m.replaced_by != null) out.replacedBy = m.replaced_by;
  if (Array.isArray(m.embedding)) out.embedding = Float32Array.from(m.embedding as number[]);
  return out;
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
