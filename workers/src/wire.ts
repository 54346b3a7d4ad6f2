/** Conversions between the package's types and the API's JSON: embeddings as arrays, checkpoint bytes as base64. */
import type { Checkpoint, CheckpointData, Memory } from 'edgemem';
import { fromBase64, toBase64 } from 'edgemem/protocol';
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

/** `{ data }` or `{ dataBase64 }` (exactly one) as checkpoint data. */
export function dataIn(x: { data?: unknown; dataBase64?: string | undefined }, what: string): CheckpointData {
  const bytes = x.dataBase64;
  if ((x.data !== undefined) === (bytes !== undefined))
    throw new ApiError('INVALID_ARGUMENT', `${what}: give exactly one of data (JSON) and dataBase64 (bytes)`);
  return bytes !== undefined ? fromBase64(bytes) : (x.data as CheckpointData);
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
