/** `OpfsPageStore`: a PageStore over OPFS synchronous access handles — one OPFS file per VFS file, in a Web Worker. */

import { EdgememError, invalid } from './errors.js';
import { CHUNK_BYTES as CHUNK, chunkIndex, chunkRead, copyInto, splitKey as split } from './page-keys.js';
import type { PageStore } from './page-store.js';

/** The files the engine's VFS keeps in a page store (core/src/vfs.rs), each one OPFS file of that name. */
const FILES = ['db', 'journal', 'wal'] as const;

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

type SyncFileHandle = FileSystemFileHandle & { createSyncAccessHandle?(): Promise<SyncAccessHandle> };

interface OpenFile {
  handle: SyncAccessHandle;
  /** The file's logical length: the last `<file>/size` put, or the length found on open. */
  size: number;
  /**
   * Whether `<file>/size` exists: put it, or found the file non-empty on open. Every file is created up
   * front, so an empty one counts as missing (SQLite opens a database whose `-wal` exists in WAL mode).
   */
  exists: boolean;
}

/** Whether this realm can create OPFS synchronous access handles (only dedicated Web Workers can). */
function opfsSyncAvailable(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    typeof navigator.storage?.getDirectory === 'function' &&
    typeof FileSystemFileHandle !== 'undefined' &&
    typeof (FileSystemFileHandle.prototype as SyncFileHandle).createSyncAccessHandle === 'function'
  );
}

/**
 * Keeps a store in the origin private file system, directory `edgemem/<name>/`: `<file>/<n>` is bytes
 * `n * 8192 ..` of OPFS file `<file>` (`db`, `journal`, `wal`) and `<file>/size` its length, so `db` is an
 * ordinary SQLite database file (page size 8192). Every handle is acquired by `open` and held until
 * `close`; OPFS allows one per file, so one store name is open in one place (worker, tab) at a time.
 */
export class OpfsPageStore implements PageStore {
  readonly name: string;
  readonly #files: Map<string, OpenFile>;

  private constructor(name: string, files: Map<string, OpenFile>) {
    this.name = name;
    this.#files = files;
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
    try {
      const root = await navigator.storage.getDirectory();
      const dir = await (await root.getDirectoryHandle(ROOT, { create: true })).getDirectoryHandle(name, {
        create: true,
      });
      for (const file of FILES) {
        const fh: SyncFileHandle = await dir.getFileHandle(file, { create: true });
        let handle: SyncAccessHandle;
        try {
          handle = await fh.createSyncAccessHandle!();
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
        const size = handle.getSize();
        files.set(file, { handle, size, exists: size > 0 });
      }
    } catch (e) {
      for (const f of files.values()) f.handle.close();
      if (e instanceof EdgememError) throw e;
      throw new EdgememError('INTERNAL', `cannot open the OPFS store ${JSON.stringify(name)}: ${String(e)}`, {
        cause: e,
      });
    }
    return new OpfsPageStore(name, files);
  }

  #file(file: string): OpenFile {
    const f = this.#files.get(file);
    if (f) return f;
    if (this.#files.size === 0) throw new Error(`the OPFS store ${JSON.stringify(this.name)} is closed`);
    throw new Error(`unknown page-store file ${JSON.stringify(file)}`);
  }

  get(key: string): Uint8Array | undefined {
    const [file, part] = split(key);
    const f = this.#file(file);
    if (!f.exists) return undefined;
    if (part === 'size') {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, BigInt(f.size), true);
      return b;
    }
    const offset = chunkIndex(part) * CHUNK;
    const end = Math.min(offset + CHUNK, f.size);
    if (end <= offset) return undefined;
    const buf = new Uint8Array(end - offset);
    const n = f.handle.read(buf, { at: offset });
    return n === buf.length ? buf : buf.subarray(0, n);
  }

  /** Reads straight from the access handle into `dst` (no buffer of its own, unlike `get`). */
  readInto(key: string, offset: number, dst: Uint8Array): number {
    const [file, part] = split(key);
    if (part === 'size') return copyInto(this.get(key), offset, dst);
    const f = this.#file(file);
    if (!f.exists) return -1;
    const span = chunkRead(part, offset, f.size, dst.length);
    if (!span) return -1;
    return span.n === 0 ? 0 : f.handle.read(dst.subarray(0, span.n), { at: span.at });
  }

  put(key: string, bytes: Uint8Array): void {
    const [file, part] = split(key);
    const f = this.#file(file);
    if (part === 'size') {
      if (bytes.length !== 8) throw new Error(`${key}: expected 8 bytes, got ${bytes.length}`);
      const size = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
      if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${key}: size ${size} too large`);
      f.size = Number(size);
      f.exists = true;
      f.handle.truncate(f.size);
      return;
    }
    // A chunk may land beyond the logical size (the VFS writes chunks before it records a larger size,
    // and pads a partly written last chunk): the next size put, `sync` and `close` trim the file.
    const offset = chunkIndex(part) * CHUNK;
    let done = 0;
    while (done < bytes.length) done += f.handle.write(bytes.subarray(done), { at: offset + done });
  }

  delete(key: string): void {
    const [file, part] = split(key);
    if (part !== 'size') return; // chunks past the end go with the truncation that precedes this
    const f = this.#file(file);
    f.handle.truncate(0);
    f.size = 0;
    f.exists = false;
  }

  sync(): void {
    for (const f of this.#files.values()) {
      trim(f);
      f.handle.flush();
    }
  }

  /** Flushes and releases every handle: the store can then be opened again, here or elsewhere. */
  close(): void {
    const files = [...this.#files.values()];
    this.#files.clear();
    let error: unknown;
    for (const f of files) {
      try {
        trim(f);
        f.handle.flush();
      } catch (e) {
        error ??= e;
      }
      f.handle.close();
    }
    if (error !== undefined) throw error;
  }
}

/** Cuts what lies past the logical size (padding of a partly written last chunk). */
function trim(f: OpenFile): void {
  if (f.handle.getSize() !== f.size) f.handle.truncate(f.size);
}
