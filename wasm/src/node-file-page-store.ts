/** A PageStore over ordinary files with synchronous fs: `db` is the database file itself, `journal` its `-journal`. */

import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { EdgememError } from './errors.js';
import { type FileIo, FilePageStore, type OpenFile, openFile, writeOut } from './file-page-store.js';

/** Database files open in this process (resolved paths): a second open would corrupt the first's view. */
const openPaths = new Set<string>();

/** A file descriptor's positional reads and writes with synchronous fs calls. */
function fdIo(fd: number): FileIo {
  return {
    read: (dst, at) => fs.readSync(fd, dst, 0, dst.length, at),
    write: (src, at) => fs.writeSync(fd, src, 0, src.length, at),
    truncate: (size) => fs.ftruncateSync(fd, size),
    // fdatasync: the data and the length that reads need, without the timestamps fsync would also write.
    flush: () => fs.fdatasyncSync(fd),
    close: () => fs.closeSync(fd),
  };
}

/**
 * The database at `path` (page size 8192), its rollback journal at `<path>-journal` (FilePageStore's layout).
 * A missing file is a missing `size` key. One open store per file: a second open in this process is
 * CONFLICT; there is no cross-process locking (two processes must not open the same file).
 */
export class NodeFilePageStore extends FilePageStore {
  readonly path: string;
  readonly #files = new Map<string, OpenFile>();
  readonly #lockKey: string;
  #closed = false;

  /** Opens (creating if missing) the database file; a bad path fails here with its errno, not later as an I/O error. */
  constructor(path: string) {
    super();
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
      this.file('db', true);
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
  protected override file(name: string, create: boolean): OpenFile | undefined {
    let f = this.#files.get(name);
    if (f) return f;
    const p = this.#pathOf(name);
    let fd: number;
    try {
      fd = fs.openSync(p, 'r+');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (!create) return undefined;
      fd = fs.openSync(p, 'w+');
    }
    f = openFile(fdIo(fd), fs.fstatSync(fd).size, true);
    this.#files.set(name, f);
    return f;
  }

  protected override remove(name: string): void {
    const f = this.#files.get(name);
    if (f) {
      f.io.close();
      this.#files.delete(name);
    }
    fs.rmSync(this.#pathOf(name), { force: true });
  }

  protected override openFiles(): Iterable<OpenFile> {
    return this.#files.values();
  }

  /** Writes what is pending (as every put was written when made before; durable only at a sync) and closes. */
  close(): void {
    let error: unknown;
    for (const f of this.#files.values()) {
      try {
        writeOut(f);
      } catch (e) {
        error ??= e;
      }
      f.io.close();
    }
    this.#files.clear();
    if (!this.#closed) openPaths.delete(this.#lockKey);
    this.#closed = true;
    if (error !== undefined) throw error;
  }
}
