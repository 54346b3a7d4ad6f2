/** `FilePageStore`: the page-key scheme over real files, shared by the Node file store and the OPFS store. */

import { CHUNK_BYTES as CHUNK, chunkIndex, chunkRead, copyInto, splitKey as split } from './page-keys.js';
import type { PageStore } from './page-store.js';

/** Positional access to one file: a Node file descriptor or an OPFS synchronous access handle. */
export interface FileIo {
  /** Reads into `dst` from file position `at`: the count (0 at the end of the file). */
  read(dst: Uint8Array, at: number): number;
  /** Writes `src` at file position `at`: the count written. */
  write(src: Uint8Array, at: number): number;
  truncate(size: number): void;
  /** The file's length on disk (chunks written past the logical size included). */
  length(): number;
  /** Makes the file's writes durable (fsync, or the access handle's flush). */
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
    const offset = chunkIndex(part) * CHUNK;
    const end = Math.min(offset + CHUNK, f.size);
    if (end <= offset) return undefined;
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
      f.size = Number(size);
      f.exists = true;
      f.io.truncate(f.size);
      return;
    }
    // A chunk may land beyond the logical size (the VFS writes chunks before it records a larger size, and
    // pads a partly written last chunk): the next size put and `sync` trim the file.
    const offset = chunkIndex(part) * CHUNK;
    let done = 0;
    while (done < bytes.length) done += f.io.write(bytes.subarray(done), offset + done);
  }

  delete(key: string): void {
    const [name, part] = split(key);
    if (part !== 'size') return; // chunks past the end go with the truncation that precedes this
    this.remove(name);
  }

  /**
   * Makes the files' writes durable. SQLite syncs one file at a time (the journal, then the database), and this
   * hook is not told which: a file not written since its last flush has nothing to make durable, so only written
   * ones are trimmed to their logical size and flushed (a rollback-journal commit: 2 fsyncs, not 4).
   */
  sync(): void {
    for (const f of this.openFiles()) flushFile(f);
  }

  /** The files open now. */
  protected abstract openFiles(): Iterable<OpenFile>;
}

/** Cuts what lies past the logical size (padding of a partly written last chunk), then flushes, if written. */
export function flushFile(f: OpenFile): void {
  if (!f.dirty) return;
  if (f.io.length() !== f.size) f.io.truncate(f.size);
  f.io.flush();
  f.dirty = false;
}
