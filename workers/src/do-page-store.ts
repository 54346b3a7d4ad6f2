/**
 * The engine's page store in a SQLite-backed Durable Object, opened with `atomic: true`: every store call runs
 * inside `ctx.storage.transactionSync`, so its page writes commit together or — on a trap or exception — not at
 * all. Only the pages a call touches are written (8 KiB each), never the whole database. `sync()` is a no-op: the
 * DO commits at the end of the transaction and its output gate holds responses until that is durable.
 *
 * Where the pages live (`PageLayout`):
 * - `table` (every store created now): the database file's chunks in a table of the object's own SQLite,
 *   `edgemem_pages (id INTEGER PRIMARY KEY, data BLOB)`, chunk n at id n and the file's size at id -1. Measured
 *   in workerd (Miniflare), 3,000 reads and writes of 8 KiB pages over 1,500 keys, repeated: a read by integer
 *   key costs a third of a `kv.get` (median; 2-7x less), a write about two thirds of a `kv.put`. The KV is a
 *   text-keyed table that keeps ~1 KB of each value in its b-tree cells (a deep tree for 8 KiB values) and
 *   deserialises a value on every read.
 * - `kv` (stores created before): every key in the synchronous KV (`ctx.storage.kv`) under `p:`. A store keeps
 *   the layout it was created with.
 * Any key the table does not map (none the engine writes today) goes to the KV under `p:` in both layouts.
 * A full page goes into the table without its longest run of zeros (page-hole.ts): fewer bytes for the object's
 * SQLite to write; a value of a whole page's length is a page as it was written.
 *
 * Reads (`reading`): a call that only reads runs without `transactionSync`, which costs a read-only call in
 * workerd its savepoint, its release and a commit of the object's database (measured: a GET's workerd CPU
 * 0.90 → 0.65 ms). There a page write is refused — it throws before reaching storage, so nothing a read
 * call does can be committed outside a transaction — and noted, so the caller can run the call again as a
 * write.
 */
import type { PageStore } from 'edgemem';
import { elideHole, restoreHole } from './page-hole.js';

/** Keys of the engine's pages in the KV are prefixed, so the KV can hold other things beside them. */
export const PAGE_PREFIX = 'p:';
/** The table holding the pages of a `table` store. */
export const PAGE_TABLE = 'edgemem_pages';

export type PageLayout = 'table' | 'kv';

const READ = `SELECT data FROM ${PAGE_TABLE} WHERE id = ?`;
const WRITE = `INSERT INTO ${PAGE_TABLE} (id, data) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data`;
const DELETE = `DELETE FROM ${PAGE_TABLE} WHERE id = ?`;
/** The engine's page size (core/src/storage/vfs.rs CHUNK): full pages are written through one reused buffer. */
const PAGE_BYTES = 8192;

/** The table id of a page key: chunk n of the database file at n, its size at -1; undefined for other keys. */
function tableId(key: string): number | undefined {
  if (!key.startsWith('db/')) return undefined;
  const rest = key.slice(3);
  if (rest === 'size') return -1;
  const n = Number(rest);
  return Number.isSafeInteger(n) && n >= 0 && String(n) === rest ? n : undefined;
}

/**
 * The layout of the store in `storage`: `kv` when its KV holds the first chunk of a database (a store created
 * before the table), else `table` (the table is created when missing).
 */
export function pageLayout(storage: DurableObjectStorage): PageLayout {
  if (storage.kv.get(`${PAGE_PREFIX}db/0`) !== undefined) return 'kv';
  storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${PAGE_TABLE} (id INTEGER PRIMARY KEY, data BLOB NOT NULL)`);
  return 'table';
}

/** Whether `storage` holds any engine page, in either layout. */
export function hasPages(storage: DurableObjectStorage): boolean {
  for (const _ of storage.kv.list({ prefix: PAGE_PREFIX, limit: 1 })) return true;
  try {
    return storage.sql.exec(`SELECT 1 FROM ${PAGE_TABLE} LIMIT 1`).toArray().length > 0;
  } catch {
    return false; // no table: a store never opened here, or one of the `kv` layout
  }
}

/** Deletes every engine page from `storage` (call inside a transaction). */
export function deletePages(storage: DurableObjectStorage): void {
  for (const [key] of storage.kv.list({ prefix: PAGE_PREFIX })) storage.kv.delete(key);
  storage.sql.exec(`DROP TABLE IF EXISTS ${PAGE_TABLE}`);
}

export class DurableObjectPageStore implements PageStore {
  readonly #storage: DurableObjectStorage;
  readonly #table: boolean;
  /**
   * A page being written, copied out of wasm memory (4-byte aligned, as page-hole.ts scans it): `sql.exec` copies a
   * bound blob into SQLite before it returns, so a page stored whole goes from here; one without its hole is a new,
   * shorter buffer.
   */
  readonly #scratch = new Uint8Array(PAGE_BYTES);
  /** Inside `reading`: no transaction, and writes are refused and counted in `#refused`. */
  #readOnly = false;
  #refused = 0;

  constructor(storage: DurableObjectStorage, layout: PageLayout = pageLayout(storage)) {
    this.#storage = storage;
    this.#table = layout === 'table';
  }

  #row(id: number): ArrayBuffer | undefined {
    for (const [data] of this.#storage.sql.exec(READ, id).raw()) {
      return data as ArrayBuffer;
    }
    return undefined;
  }

  get(key: string): Uint8Array | undefined {
    const id = this.#table ? tableId(key) : undefined;
    if (id !== undefined) {
      const data = this.#row(id);
      if (data === undefined) return undefined;
      return id >= 0 ? restoreHole(new Uint8Array(data), PAGE_BYTES, key) : new Uint8Array(data);
    }
    const v = this.#storage.kv.get<Uint8Array | ArrayBuffer>(PAGE_PREFIX + key);
    if (v === undefined || v === null) return undefined;
    return v instanceof Uint8Array ? v : new Uint8Array(v);
  }

  /**
   * Runs `fn` — which makes its store calls synchronously — as a read: those calls run without a transaction and
   * any page write they attempt throws (the engine reports it and discards its state: see LocalStore's
   * `#atomically`). `refused`: whether one was attempted, i.e. `fn` must run again outside `reading`.
   */
  reading<T>(fn: () => T): { value: T; refused: boolean } {
    const before = this.#refused;
    this.#readOnly = true;
    try {
      const value = fn();
      return { value, refused: this.#refused !== before };
    } finally {
      this.#readOnly = false;
    }
  }

  #refuseWrite(key: string): void {
    if (!this.#readOnly) return;
    this.#refused++;
    throw new Error(`page store: a read-only call tried to write ${key}`);
  }

  put(key: string, bytes: Uint8Array): void {
    this.#refuseWrite(key);
    // `bytes` views wasm memory only during this call; a copy of exactly its bytes is what is stored (never a
    // view of the whole wasm memory).
    const id = this.#table ? tableId(key) : undefined;
    if (id !== undefined) {
      let data: ArrayBuffer;
      if (id < 0) {
        data = bytes.slice().buffer;
      } else if (bytes.length === PAGE_BYTES) {
        this.#scratch.set(bytes);
        const stored = elideHole(this.#scratch);
        data = stored === this.#scratch ? this.#scratch.buffer : (stored.buffer as ArrayBuffer);
      } else {
        // The engine writes whole chunks (core/src/storage/vfs.rs pads a partial write); a shorter row would read back as a
        // page without its hole.
        throw new Error(`page store: ${key} is ${bytes.length} bytes, not a page of ${PAGE_BYTES}`);
      }
      this.#storage.sql.exec(WRITE, id, data);
      return;
    }
    this.#storage.kv.put(PAGE_PREFIX + key, bytes.slice());
  }

  delete(key: string): void {
    this.#refuseWrite(key);
    const id = this.#table ? tableId(key) : undefined;
    if (id !== undefined) this.#storage.sql.exec(DELETE, id);
    else this.#storage.kv.delete(PAGE_PREFIX + key);
  }

  sync(): void {}

  transaction<T>(fn: () => T): T {
    return this.#readOnly ? fn() : this.#storage.transactionSync(fn);
  }
}
