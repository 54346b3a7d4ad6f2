/**
 * The remote client's conversions between the package's types and the Worker's JSON: namespaces in query
 * strings, embeddings as arrays, checkpoint bytes as base64, and every seq/version checked on the way in.
 */

import { fromBase64, toBase64 } from '../api/base64.js';
import { checkSafe, invalid, safeOut, wellFormed } from '../api/errors.js';
import type {
  AsOf,
  ChangeEvent,
  Checkpoint,
  CheckpointData,
  Memory,
  Namespace,
  Remembered,
  SearchHit,
  ValidAt,
  WriteAck,
} from '../api/types.js';

// biome-ignore lint/suspicious/noExplicitAny: response JSON has the Worker's documented shapes.
type Raw = any;

/** `ns=a/b`: the HTTP API joins segments with `/`, so a segment must not hold one (INVALID_ARGUMENT). */
export function nsQuery(ns: Namespace | undefined, what = 'namespace'): string {
  if (ns === undefined) return '';
  if (!Array.isArray(ns)) throw invalid(`${what} must be an array of strings`);
  for (const seg of ns) {
    if (typeof seg !== 'string') throw invalid(`${what} segments must be strings`);
    if (seg.includes('/'))
      throw invalid(`${what} segment ${JSON.stringify(seg)}: the HTTP API does not take '/' inside a segment`);
  }
  return ns.join('/');
}

/**
 * A non-empty string that goes into a URL path (an empty one would name another route). `.` and `..` cannot
 * be path segments (URLs resolve them away), and the engine refuses them as keys and thread ids too.
 */
export function pathPart(s: unknown, what: string): string {
  if (typeof s !== 'string' || s === '') throw invalid(`${what} must be a non-empty string`);
  if (s === '.' || s === '..') throw invalid(`${what} must not be '.' or '..'`);
  return encodeURIComponent(wellFormed(s, what));
}

export function asOfQuery(a: AsOf | undefined): { asOfSeq?: number; asOfTime?: number } {
  if (a === undefined) return {};
  if (typeof a === 'object' && a !== null && 'seq' in a) return { asOfSeq: checkSafe(a.seq, 'asOf.seq') };
  if (typeof a === 'object' && a !== null && 'time' in a && Number.isSafeInteger(a.time)) return { asOfTime: a.time };
  throw invalid('asOf must be { seq } or { time } with an integer');
}

/** A vector as a JSON array (Float32 values are exact as JSON numbers). */
export function vectorOut(v: Float32Array | number[] | undefined, what: string): number[] | undefined {
  if (v === undefined) return undefined;
  if (v instanceof Float32Array) return Array.from(v);
  if (Array.isArray(v)) return v;
  throw invalid(`${what} must be a Float32Array or an array of numbers`);
}

/** Checkpoint data as `{ data }` (JSON) or `{ dataBase64 }` (bytes). */
export function dataOut(d: CheckpointData): { data: unknown } | { dataBase64: string } {
  if (d === undefined) throw invalid('checkpoint data is required');
  return d instanceof Uint8Array ? { dataBase64: toBase64(d) } : { data: d };
}

function dataIn(x: Raw): CheckpointData {
  return typeof x.dataBase64 === 'string' ? fromBase64(x.dataBase64) : (x.data as CheckpointData);
}

export function toAck(a: Raw): WriteAck {
  return {
    seq: safeOut(a.seq, 'seq'),
    version: safeOut(a.version, 'version'),
    evicted: (a.evicted as Raw[]).map((e) => ({ namespace: e.namespace, key: e.key })),
  };
}

export function toMemory(m: Raw): Memory {
  const { embedding, ...rest } = m;
  const out: Memory = { ...rest, version: safeOut(m.version, 'version'), seq: safeOut(m.seq, 'seq') };
  if (Array.isArray(embedding)) out.embedding = Float32Array.from(embedding as number[]);
  return out;
}

/** A read's `validAt` as a query parameter (a time or `any`). */
export function validAtQuery(v: ValidAt | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (v === 'any' || (typeof v === 'number' && Number.isSafeInteger(v))) return String(v);
  throw invalid("validAt must be a time (an integer, ms since the epoch) or 'any'");
}

export function toRemembered(r: Raw): Remembered {
  return { ...r, version: safeOut(r.version, 'version'), seq: safeOut(r.seq, 'seq') };
}

export function toHit(h: Raw): SearchHit {
  return { ...h, version: safeOut(h.version, 'version'), seq: safeOut(h.seq, 'seq') };
}

export function toCheckpoint(c: Raw): Checkpoint {
  const { data: _d, dataBase64: _b, pendingWrites, blobs, ...rest } = c;
  return {
    ...rest,
    data: dataIn(c),
    seq: safeOut(c.seq, 'seq'),
    pendingWrites: (pendingWrites as Raw[]).map((w) => ({
      taskId: w.taskId,
      idx: w.idx,
      channel: w.channel,
      value: dataIn(w),
    })),
    channelVersions: c.channelVersions ?? {},
    blobs: ((blobs ?? []) as Raw[]).map((b) => ({ channel: b.channel, version: b.version, data: dataIn(b) })),
  };
}

export function toEvent(e: Raw): ChangeEvent {
  const out: ChangeEvent = { ...e, seq: safeOut(e.seq, 'seq') };
  if (e.version !== undefined) out.version = safeOut(e.version, 'version');
  return out;
}
