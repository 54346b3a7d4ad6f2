/** Conversions between the package's types and the API's JSON: embeddings as arrays, checkpoint bytes as base64. */
import type { Checkpoint, CheckpointData, Memory } from 'edgemem';
import { fromBase64, toBase64 } from 'edgemem/protocol';
import { ApiError } from './http-errors.js';

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
