/** `FilePageStore`: the page-key scheme over real files, shared by the Node file store and the OPFS store. */

import { CHUNK_BYTES as CHUNK, chunkIndex, chunkRead, copyInto, splitKey as split } from './page-keys.js';
import type { PageStore } from './page-store.js';

/** Chunks a file keeps pending before it writes them out unasked (4 MiB). */
const MAX_PENDING_CHUNKS = 512;

/** Positional access to one file: a Node file descriptor or an OPFS synchronous access handle. */
export interface FileIo {
  /** Reads into `dst` from file position `at`: the count (0 at the end of the file). */
  read(dst: Uint8Array, at: number): number;
  /** Writes `src` at file position `at`: the count written. */
  write(src: Uint8Array, at: number): number;
  truncate(size: number): void;
  /** Makes the file's writes durable (fdatasync, or the access handle's flush). */
  flush(): void;
  close(): void;
}

/** One VFS file (`db`, `journal`, `wal`) as a store holds it open. */
export interface OpenFile {
  io: FileIo;
  /** The file's logical length: the last `<file>/size` put, or the length found on open. */
  size: number;
  /** Whether `<file>/size` exists (a store whose files always exist once open keeps this true). */
  exists: boolean;
  /** Written (or truncated) since its last flush: `sync` flushes only such files. */
  dirty: boolean;
  /**
   * Chunks put since the last write-out (index to a private CHUNK-byte copy), written to the file at the
   * next sync, shrink or close: SQLite writes a journal record as three pieces (page number, page,
   * checksum) that would otherwise each rewrite their chunk, read it back and resize the file.
   */
  pending: Map<number, Uint8Array>;
  /** The file's length on disk (what the store wrote or truncated it to; never past `size`). */
  onDisk: number;
}

/** An open file's state as a store finds it on open (`size` bytes on disk, nothing pending). */
export function openFile(io: FileIo, size: number, exists: boolean): OpenFile {
  return { io, size, exists, dirty: false, pending: new Map(), onDisk: size };
}

/**
 * Maps `<file>/<n>` to bytes `n * 8192 ..` of one file and `<file>/size` to its length, so the database is an
 * ordinary SQLite file (page size 8192, journal next to it) that the sqlite3 shell can open. Subclasses say
 * how a file is found, created and removed, and how the store closes.
 */
export abstract class FilePageStore implements PageStore {
  /** The open file `name`, or undefined when it does not exist and `create` is false. */
  protected abstract file(name: string, create: boolean): OpenFile | undefined;
  /** Removes file `name` (its `<file>/size` is deleted). */
  protected abstract remove(name: string): void;
  abstract close(): void;

  get(key: string): Uint8Array | undefined {
    const [name, part] = split(key);
    const f = this.file(name, false);
    if (!f) return undefined;
    if (part === 'size') {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, BigInt(f.size), true);
      return b;
    }
    const ci = chunkIndex(part);
    const offset = ci * CHUNK;
    const end = Math.min(offset + CHUNK, f.size);
    if (end <= offset) return undefined;
    const pending = f.pending.get(ci);
    if (pending) return pending.slice(0, end - offset);
    const buf = new Uint8Array(end - offset);
    const n = f.io.read(buf, offset);
    return n === buf.length ? buf : buf.subarray(0, n);
  }

  /** Reads straight from the file into `dst` (no buffer of its own, unlike `get`). */
  readInto(key: string, offset: number, dst: Uint8Array): number {
    const [name, part] = split(key);
    if (part === 'size') return copyInto(this.get(key), offset, dst);
    const f = this.file(name, false);
    if (!f) return -1;
    const span = chunkRead(part, offset, f.size, dst.length);
    if (!span) return -1;
    const pending = f.pending.get(chunkIndex(part));
    if (pending) {
      dst.set(pending.subarray(offset, offset + span.n));
      return span.n;
    }
    let done = 0;
    while (done < span.n) {
      const n = f.io.read(dst.subarray(done, span.n), span.at + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  put(key: string, bytes: Uint8Array): void {
    const [name, part] = split(key);
    const f = this.file(name, true);
    if (!f) throw new Error(`cannot create page-store file ${JSON.stringify(name)}`);
    f.dirty = true;
    if (part === 'size') {
      if (bytes.length !== 8) throw new Error(`${key}: expected 8 bytes, got ${bytes.length}`);
      const size = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
      if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${key}: size ${size} too large`);
      const n = Number(size);
      f.exists = true;
      if (n < f.size) shrink(f, n);
      else f.size = n; // a larger size reaches the file with the chunks, at the next write-out
      return;
    }
    // Kept until the next write-out; a chunk may reach past the logical size (the VFS pads a partly written
    // last chunk, and writes chunks before it records a larger size): only bytes below `size` are written.
    const ci = chunkIndex(part);
    let chunk = f.pending.get(ci);
    if (!chunk) {
      chunk = new Uint8Array(CHUNK);
      if (bytes.length < CHUNK) this.readInto(key, 0, chunk); // a short put keeps the rest of the chunk
      f.pending.set(ci, chunk);
    }
    chunk.set(bytes.length > CHUNK ? bytes.subarray(0, CHUNK) : bytes);
    // A large transaction spills pages before its commit: write them out as they come, past a bound.
    if (f.pending.size >= MAX_PENDING_CHUNKS) spill(f);
  }

  delete(key: string): void {
    const [name, part] = split(key);
    if (part !== 'size') return; // chunks past the end go with the truncation that precedes this
    this.remove(name);
  }

  /**
   * Makes the files' writes durable. SQLite syncs one file at a time (the journal, then the database), and this
   * hook is not told which: a file not written since its last flush has nothing to make durable, so only written
   * ones get their pending chunks written and are flushed (a rollback-journal commit: 2 fsyncs, not 4).
   */
  sync(): void {
    for (const f of this.openFiles()) flushFile(f);
  }

  /** The files open now. */
  protected abstract openFiles(): Iterable<OpenFile>;
}

/** Writes the pending chunks, then flushes, if written since the last flush. */
export function flushFile(f: OpenFile): void {
  if (!f.dirty) return;
  writeOut(f);
  f.io.flush();
  f.dirty = false;
}

/**
 * Writes the pending chunks to the file, consecutive ones in one write, each cut at the logical size, and
 * gives the file its logical length. Nothing is made durable here (that is `flushFile`); after it the file
 * holds what it would hold had every put been written when made. Called between the VFS's calls only (a
 * sync, a shrink, a close): then what a chunk holds past the logical size is padding.
 */
export function writeOut(f: OpenFile): void {
  writeChunks(f, [...f.pending]);
  f.pending.clear();
  if (f.onDisk !== f.size) {
    f.io.truncate(f.size);
    f.onDisk = f.size;
  }
}

/**
 * Writes the pending chunks that lie wholly below the logical size, keeping the rest: in the middle of a VFS
 * write, a chunk past the size holds bytes that the size put to come makes part of the file.
 */
function spill(f: OpenFile): void {
  const below = [...f.pending].filter(([ci]) => (ci + 1) * CHUNK <= f.size);
  writeChunks(f, below);
  for (const [ci] of below) f.pending.delete(ci);
}

/** Writes `chunks` (index, bytes), runs of consecutive ones in one write each. */
function writeChunks(f: OpenFile, chunks: [number, Uint8Array][]): void {
  chunks.sort((x, y) => x[0] - y[0]);
  let run: Uint8Array[] = [];
  let first = 0;
  for (const [ci, chunk] of chunks) {
    if (run.length > 0 && ci !== first + run.length) {
      writeRun(f, run, first);
      run = [];
    }
    if (run.length === 0) first = ci;
    run.push(chunk);
  }
  if (run.length > 0) writeRun(f, run, first);
}

/** Writes the consecutive chunks `run`, the first of them chunk `first`, cut at the logical size. */
function writeRun(f: OpenFile, run: Uint8Array[], first: number): void {
  const at = first * CHUNK;
  const end = Math.min((first + run.length) * CHUNK, f.size);
  if (end <= at) return;
  let src: Uint8Array;
  if (run.length === 1 && run[0]) {
    src = run[0].subarray(0, end - at);
  } else {
    src = new Uint8Array(end - at);
    run.forEach((chunk, k) => {
      if (k * CHUNK < src.length) src.set(chunk.subarray(0, Math.min(CHUNK, src.length - k * CHUNK)), k * CHUNK);
    });
  }
  let done = 0;
  while (done < src.length) done += f.io.write(src.subarray(done), at + done);
  if (end > f.onDisk) f.onDisk = end;
}

/**
 * Shrinks the file to `size` at once, its pending chunks written first: in journal_mode=TRUNCATE the
 * journal's truncation is a commit's last step (SQLite does not sync after it), so it must reach the file
 * before the call returns, as must every write before it.
 */
function shrink(f: OpenFile, size: number): void {
  for (const ci of f.pending.keys()) if (ci * CHUNK >= size) f.pending.delete(ci);
  f.size = size;
  writeOut(f);
}
