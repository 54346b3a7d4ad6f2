/** A PageStore over ordinary files with synchronous fs: `db` is the database file itself, `journal` its `-journal`. */

import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { EdgememError } from './errors.js';
import { CHUNK_BYTES as CHUNK, chunkIndex, chunkRead, copyInto, splitKey as split } from './page-keys.js';
import type { PageStore } from './page-store.js';

/** Database files open in this process (resolved paths): a second open would corrupt the first's view. */
const openPaths = new Set<string>();

interface OpenFile {
  fd: number;
  /** The file's logical length: the last `<file>/size` put, or the length found on open. */
  size: number;
  /** Written (or truncated) since its last fsync: `sync` fsyncs only such files. */
  dirty: boolean;
}

/**
 * Maps `<file>/<n>` to bytes `n * 8192 ..` of one file and `<file>/size` to its length, so the database is
 * a normal SQLite file (page size 8192, rollback journal next to it) that the sqlite3 shell can open.
 * A missing file is a missing `size` key. One open store per file: a second open in this process is
 * CONFLICT; there is no cross-process locking (two processes must not open the same file).
 */
export class NodeFilePageStore implements PageStore {
  readonly path: string;
  readonly #files = new Map<string, OpenFile>();
  readonly #lockKey: string;
  #closed = false;

  /** Opens (creating if missing) the database file; a bad path fails here with its errno, not later as an I/O error. */
  constructor(path: string) {
    this.path = path;
    let key: string;
    try {
      key = nodePath.join(fs.realpathSync(nodePath.dirname(nodePath.resolve(path))), nodePath.basename(path));
    } catch (e) {
      throw new EdgememError('INVALID_ARGUMENT', `cannot open ${path}: ${(e as Error).message}`, { cause: e });
    }
    if (openPaths.has(key)) {
      throw new EdgememError('CONFLICT', `${path} is already open in this process; close that store first`);
    }
    try {
      this.#open('db', true);
    } catch (e) {
      throw new EdgememError('INVALID_ARGUMENT', `cannot open ${path}: ${(e as Error).message}`, { cause: e });
    }
    openPaths.add(key);
    this.#lockKey = key;
  }

  #pathOf(file: string): string {
    if (file === 'db') return this.path;
    if (file === 'journal' || file === 'wal') return `${this.path}-${file}`;
    throw new Error(`unknown page-store file ${JSON.stringify(file)}`);
  }

  /** The open file, opening it if it exists (or creating it when `create`). */
  #open(file: string, create: boolean): OpenFile | undefined {
    let f = this.#files.get(file);
    if (f) return f;
    const p = this.#pathOf(file);
    let fd: number;
    try {
      fd = fs.openSync(p, 'r+');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (!create) return undefined;
      fd = fs.openSync(p, 'w+');
    }
    f = { fd, size: fs.fstatSync(fd).size, dirty: false };
    this.#files.set(file, f);
    return f;
  }

  get(key: string): Uint8Array | undefined {
    const [file, part] = split(key);
    const f = this.#open(file, false);
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
    const n = fs.readSync(f.fd, buf, 0, buf.length, offset);
    return n === buf.length ? buf : buf.subarray(0, n);
  }

  /** Reads straight from the file into `dst` (no buffer of its own, unlike `get`). */
  readInto(key: string, offset: number, dst: Uint8Array): number {
    const [file, part] = split(key);
    if (part === 'size') return copyInto(this.get(key), offset, dst);
    const f = this.#open(file, false);
    if (!f) return -1;
    const span = chunkRead(part, offset, f.size, dst.length);
    if (!span) return -1;
    let done = 0;
    while (done < span.n) {
      const n = fs.readSync(f.fd, dst, done, span.n - done, span.at + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  put(key: string, bytes: Uint8Array): void {
    const [file, part] = split(key);
    const f = this.#open(file, true)!;
    if (part === 'size') {
      if (bytes.length !== 8) throw new Error(`${key}: expected 8 bytes, got ${bytes.length}`);
      const size = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
      if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${key}: size ${size} too large`);
      f.size = Number(size);
      fs.ftruncateSync(f.fd, f.size);
      f.dirty = true;
      return;
    }
    // A chunk may land beyond the logical size (the VFS writes chunks before it records a larger
    // size, and pads a partly written last chunk): `sync` and the next size put trim the file.
    const offset = chunkIndex(part) * CHUNK;
    f.dirty = true;
    let done = 0;
    while (done < bytes.length) done += fs.writeSync(f.fd, bytes, done, bytes.length - done, offset + done);
  }

  delete(key: string): void {
    const [file, part] = split(key);
    if (part !== 'size') return; // chunks past the end go with the truncation that precedes this
    const f = this.#files.get(file);
    if (f) {
      fs.closeSync(f.fd);
      this.#files.delete(file);
    }
    fs.rmSync(this.#pathOf(file), { force: true });
  }

  /**
   * Makes the files' writes durable. SQLite syncs one file at a time (the journal, then the database), and
   * this hook is not told which: a file not written since its last fsync has nothing to make durable, so
   * only written ones are fsynced (a rollback-journal commit: 2 fsyncs, not 4).
   */
  sync(): void {
    for (const f of this.#files.values()) {
      if (!f.dirty) continue;
      if (fs.fstatSync(f.fd).size !== f.size) fs.ftruncateSync(f.fd, f.size);
      fs.fsyncSync(f.fd);
      f.dirty = false;
    }
  }

  close(): void {
    for (const f of this.#files.values()) fs.closeSync(f.fd);
    this.#files.clear();
    if (!this.#closed) openPaths.delete(this.#lockKey);
    this.#closed = true;
  }
}
