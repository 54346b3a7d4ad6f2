/** Conversions between the package's types and the API's JSON: embeddings as arrays, checkpoint bytes as base64. */
import type { Checkpoint, CheckpointData, Memory } from 'edgemem';
import { ApiError } from './http-errors.js';

/**
 * A request's embedding or query vector as the Float32Array the store converts it to anyway, made before the RPC to
 * the agent's object: it crosses as one buffer (1.5 KB at 384-d) rather than an array of 384 numbers cloned one by
 * one — measured under Miniflare (bench/peers/miniflare/do-breakdown.mjs), the RPC with a PUT's arguments 0.17 →
 * 0.09 ms, with a search's 0.20 → 0.06 ms.
 */
export function vectorIn(v: number[] | undefined): Float32Array | undefined {
  return v === undefined ? undefined : Float32Array.from(v);
}

export function memoryOut(m: Memory): Omit<Memory, 'embedding'> & { embedding?: number[] } {
  const { embedding, ...rest } = m;
  return embedding ? { ...rest, embedding: Array.from(embedding) } : rest;
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(b64: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    throw new ApiError('INVALID_ARGUMENT', 'dataBase64 is not valid base64');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** `{ data }` or `{ dataBase64 }` (exactly one) as checkpoint data. */
export function dataIn(x: { data?: unknown; dataBase64?: string | undefined }, what: string): CheckpointData {
  const hasData = x.data !== undefined;
  const hasBytes = x.dataBase64 !== undefined;
  if (hasData === hasBytes)
    throw new ApiError('INVALID_ARGUMENT', `${what}: give exactly one of data (JSON) and dataBase64 (bytes)`);
  return hasBytes ? fromBase64(x.dataBase64!) : (x.data as CheckpointData);
}

export function dataOut(d: CheckpointData): { data: unknown } | { dataBase64: string } {
  return d instanceof Uint8Array ? { dataBase64: toBase64(d) } : { data: d };
}

export function checkpointOut(c: Checkpoint) {
  const { data, pendingWrites, blobs, ...rest } = c;
  return {
    ...rest,
    ...dataOut(data),
    pendingWrites: pendingWrites.map(({ value, ...w }) => ({ ...w, ...dataOut(value) })),
    blobs: blobs.map(({ data: d, ...b }) => ({ ...b, ...dataOut(d) })),
  };
}
