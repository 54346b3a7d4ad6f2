/** `OpfsPageStore`: a PageStore over OPFS synchronous access handles — one OPFS file per VFS file, in a Web Worker. */

import { EdgememError, invalid } from '../api/errors.js';
import { FILES, type FileIo, FilePageStore, type OpenFile, openFile } from './file-page-store.js';

/** The OPFS file of the store's redo log. */
const LOG = 'redo';

/** The OPFS directory that holds one sub-directory per store. */
const ROOT = 'edgemem';

/** What is used of FileSystemSyncAccessHandle (TypeScript declares it in the WebWorker lib only, not DOM). */
interface SyncAccessHandle {
  read(buffer: Uint8Array, options: { at: number }): number;
  write(buffer: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

type SyncFileHandle = FileSystemFileHandle & { createSyncAccessHandle(): Promise<SyncAccessHandle> };

/** An access handle's positional reads and writes. */
function handleIo(h: SyncAccessHandle): FileIo {
  return {
    read: (dst, at) => h.read(dst, { at }),
    write: (src, at) => h.write(src, { at }),
    truncate: (size) => h.truncate(size),
    flush: () => h.flush(),
    close: () => h.close(),
  };
}

/** Whether this realm can create OPFS synchronous access handles (only dedicated Web Workers can). */
function opfsSyncAvailable(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    typeof navigator.storage?.getDirectory === 'function' &&
    typeof FileSystemFileHandle !== 'undefined' &&
    typeof (FileSystemFileHandle.prototype as Partial<SyncFileHandle>).createSyncAccessHandle === 'function'
  );
}

/**
 * Keeps a store in the origin private file system, directory `edgemem/<name>/`, one OPFS file per VFS file
 * (`db`, `journal`, `wal`; FilePageStore's layout), so `db` is an ordinary SQLite database file, and the redo
 * log `redo` (FilePageStore's commits; open it with `atomic: true` when you pass it as `pages`). Every file
 * is created up front, so an empty one counts as missing (SQLite opens a database whose `-wal` exists in WAL
 * mode): `<file>/size` exists once put, or when the file was non-empty on open. Every handle is acquired by `open` and held until
 * `close`; OPFS allows one per file, so one store name is open in one place (worker, tab) at a time.
 */
export class OpfsPageStore extends FilePageStore {
  readonly name: string;
  readonly #files: Map<string, OpenFile>;

  private constructor(name: string, files: Map<string, OpenFile>, log: SyncAccessHandle) {
    super();
    this.name = name;
    this.#files = files;
    this.openLog(handleIo(log), log.getSize()); // replays what a crash left in the log
  }

  /**
   * Opens (creating if needed) the store `name`. INVALID_ARGUMENT outside a dedicated Web Worker or for a
   * name that is not a plain file name; CONFLICT while the store is open elsewhere (another worker or tab).
   */
  static async open(name: string): Promise<OpfsPageStore> {
    if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
      throw invalid(`an OPFS store name must be a non-empty file name without / or \\, got ${JSON.stringify(name)}`);
    }
    if (!opfsSyncAvailable()) {
      throw invalid(
        'storage { opfs } needs a dedicated Web Worker: browsers offer OPFS synchronous access handles only ' +
          "there. Open the store inside a Worker, or use storage: 'memory' on the main thread",
      );
    }
    const files = new Map<string, OpenFile>();
    let log: SyncAccessHandle | undefined;
    try {
      const root = await navigator.storage.getDirectory();
      const dir = await (await root.getDirectoryHandle(ROOT, { create: true })).getDirectoryHandle(name, {
        create: true,
      });
      for (const file of [...FILES, LOG]) {
        const fh = (await dir.getFileHandle(file, { create: true })) as SyncFileHandle;
        let handle: SyncAccessHandle;
        try {
          handle = await fh.createSyncAccessHandle();
        } catch (e) {
          if (e instanceof DOMException && e.name === 'NoModificationAllowedError') {
            throw new EdgememError(
              'CONFLICT',
              `the OPFS store ${JSON.stringify(name)} is already open (in this or another worker or tab); close it first`,
              { cause: e },
            );
          }
          throw e;
        }
        if (file === LOG) {
          log = handle;
          continue;
        }
        const size = handle.getSize();
        files.set(file, openFile(FILES.indexOf(file as (typeof FILES)[number]), handleIo(handle), size, size > 0));
      }
      if (!log) throw new Error('no redo log');
      return new OpfsPageStore(name, files, log);
    } catch (e) {
      for (const f of files.values()) f.io.close();
      log?.close();
      if (e instanceof EdgememError) throw e;
      throw new EdgememError('INTERNAL', `cannot open the OPFS store ${JSON.stringify(name)}: ${String(e)}`, {
        cause: e,
      });
    }
  }

  protected override file(name: string, _create: boolean): OpenFile | undefined {
    const f = this.#files.get(name);
    if (f) return f;
    if (this.#files.size === 0) throw new Error(`the OPFS store ${JSON.stringify(this.name)} is closed`);
    throw new Error(`unknown page-store file ${JSON.stringify(name)}`);
  }

  /** OPFS files stay (their handles are held): removed is empty. */
  protected override removeFile(name: string): void {
    const f = this.file(name, true);
    if (!f) return;
    f.io.truncate(0);
    f.size = 0;
    f.onDisk = 0;
    f.exists = false;
    f.unsynced = true;
  }

  protected override openFiles(): Iterable<OpenFile> {
    return this.#files.values();
  }

  /** Checkpoints (`db` then holds every commit, flushed) and releases every handle: the store can then be opened again. */
  close(): void {
    try {
      this.closeLog();
    } finally {
      const files = [...this.#files.values()];
      this.#files.clear();
      for (const f of files) f.io.close();
    }
  }
}
