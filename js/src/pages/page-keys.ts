/** The page-store key scheme of the engine's VFS (core/src/storage/vfs.rs), for stores that map keys onto files. */

/** The VFS's chunk size (core/src/storage/vfs.rs `CHUNK`): the length of every page the database file writes. */
export const CHUNK_BYTES = 8192;

/** `<file>/<part>` as `[file, part]`. */
export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  if (i < 0) throw new Error(`malformed page key ${JSON.stringify(key)}`);
  return [key.slice(0, i), key.slice(i + 1)];
}

/** The chunk number in a `<file>/<n>` key's part. */
export function chunkIndex(part: string): number {
  const n = Number(part);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`malformed chunk index ${JSON.stringify(part)}`);
  return n;
}

/**
 * Where chunk `part` lies in a file of `size` bytes, for a read of at most `len` bytes from byte `offset`
 * of the chunk: the file position and byte count (0 when `offset` is past the chunk's end), or undefined
 * when the file has no such chunk.
 */
export function chunkRead(
  part: string,
  offset: number,
  size: number,
  len: number,
): { at: number; n: number } | undefined {
  const start = chunkIndex(part) * CHUNK_BYTES;
  const end = Math.min(start + CHUNK_BYTES, size);
  if (end <= start) return undefined;
  return { at: start + offset, n: Math.max(0, Math.min(len, end - start - offset)) };
}

/**
 * Copies `bytes[offset..]` into `dst` from index `at` on, at most `max` bytes (all of `dst` after `at` by
 * default): the count, or -1 when `bytes` is undefined.
 */
export function copyInto(
  bytes: Uint8Array | undefined,
  offset: number,
  dst: Uint8Array,
  at = 0,
  max = dst.length - at,
): number {
  if (bytes === undefined) return -1;
  const n = Math.max(0, Math.min(max, bytes.length - offset));
  if (n > 0) dst.set(offset === 0 && n === bytes.length ? bytes : bytes.subarray(offset, offset + n), at);
  return n;
}
