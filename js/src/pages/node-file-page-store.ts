/** A PageStore over ordinary files with synchronous fs: `db` is the database file itself, its redo log `-redo` beside it. */

import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { EdgememError } from '../api/errors.js';
import { FILES, type FileIo, FilePageStore, type OpenFile, openFile } from './file-page-store.js';

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
 * The database at `path` (page size 8192), its redo log at `<path>-redo` (FilePageStore's commits). A store
 * written by an earlier version may have a rollback journal at `<path>-journal`, which the engine rolls back
 * on open. A missing file is a missing `size` key. One open store per file: a second open in this process is
 * CONFLICT; there is no cross-process locking (two processes must not open the same file).
 */
export class NodeFilePageStore extends FilePageStore {
  readonly path: string;
  readonly #files = new Map<string, OpenFile>();
  /** Files found missing (a `journal`, a `wal`): SQLite asks after them on every transaction. */
  readonly #missing = new Set<string>();
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
    let log: number;
    try {
      this.file('db', true);
      log = fs.openSync(`${path}-redo`, fs.existsSync(`${path}-redo`) ? 'r+' : 'w+');
    } catch (e) {
      this.#closeFiles();
      throw new EdgememError('INVALID_ARGUMENT', `cannot open ${path}: ${(e as Error).message}`, { cause: e });
    }
    try {
      this.openLog(fdIo(log), fs.fstatSync(log).size); // replays what a crash left in the log
    } catch (e) {
      fs.closeSync(log);
      this.#closeFiles();
      throw new EdgememError('INTERNAL', `cannot recover ${path} from its redo log: ${(e as Error).message}`, {
        cause: e,
      });
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
    if (this.#closed) throw new Error(`${this.path} is closed`);
    const p = this.#pathOf(name);
    let fd: number;
    if (this.#missing.has(name)) {
      if (!create) return undefined;
      fd = fs.openSync(p, 'w+');
    } else {
      try {
        fd = fs.openSync(p, 'r+');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        this.#missing.add(name); // only this store creates its files: no need to look again
        if (!create) return undefined;
        fd = fs.openSync(p, 'w+');
      }
    }
    this.#missing.delete(name);
    f = openFile(FILES.indexOf(name as (typeof FILES)[number]), fdIo(fd), fs.fstatSync(fd).size, true);
    this.#files.set(name, f);
    return f;
  }

  /** Empties the file durably before unlinking it: were the unlink lost, an empty journal is no hot one. */
  protected override removeFile(name: string): void {
    const f = this.#files.get(name);
    if (f) {
      f.io.truncate(0);
      f.io.flush();
      f.io.close();
      this.#files.delete(name);
    }
    fs.rmSync(this.#pathOf(name), { force: true });
    this.#missing.add(name);
  }

  protected override openFiles(): Iterable<OpenFile> {
    return this.#files.values();
  }

  /** Checkpoints (the database file then holds every commit, flushed) and closes. */
  close(): void {
    try {
      this.closeLog();
    } finally {
      this.#closeFiles();
      if (!this.#closed) openPaths.delete(this.#lockKey);
      this.#closed = true;
    }
  }

  #closeFiles(): void {
    for (const f of this.#files.values()) f.io.close();
    this.#files.clear();
  }
}
