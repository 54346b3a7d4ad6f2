/** The page-store hook: a synchronous key/value store of database pages a host provides, and the in-memory one. */

import { CHUNK_BYTES } from './page-keys.js';

/**
 * What the engine's SQLite VFS keeps its files in (core/src/storage/vfs.rs): keys `<file>/<n>` hold chunk n
 * (8 KiB, the last one may be shorter) of `<file>` (`db` or `journal`), and `<file>/size` holds the
 * file's length as 8 little-endian bytes. All calls are synchronous; a throw becomes an I/O error that
 * rolls the current transaction back.
 */
export interface PageStore {
  /** The bytes stored at `key`, or undefined. */
  get(key: string): Uint8Array | undefined;
  /**
   * Optional: copies the bytes at `key`, from byte `offset` on, into `dst` (a view into wasm memory, valid
   * only during the call) as far as both go; returns how many bytes it copied, or -1 when there is nothing
   * at `key`. A page read that SQLite's cache misses calls it when present, else `get` and copies: stores
   * that read from files implement it to read straight into the engine's page buffer.
   */
  readInto?(key: string, offset: number, dst: Uint8Array): number;
  /** Stores `bytes` at `key`. `bytes` is a view into wasm memory valid only during the call: copy to keep. */
  put(key: string, bytes: Uint8Array): void;
  delete(key: string): void;
  /** Makes earlier puts durable (SQLite's sync points). */
  sync(): void;
  /** Releases resources when the store closes. */
  close?(): void;
  /**
   * Hosts that commit atomically (open them with `atomic: true`) run each store call through this: the
   * puts `fn` makes must all take effect if it returns and none if it throws (a Durable Object passes
   * `ctx.storage.transactionSync`). Only a trap throws out of `fn`; engine errors come back as values.
   */
  transaction?<T>(fn: () => T): T;
}

/**
 * Pages in a JavaScript Map: the storage behind `storage: 'memory'`. Living outside the wasm instance, it
 * survives a trap, so an in-memory store is reopened after one with every acknowledged write. Atomic
 * (`transaction`): a call's puts go to an overlay that a trap discards, so SQLite's rollback journal stays in
 * wasm memory (core/src/storage/vfs.rs) and never comes here.
 */
export class MemoryPageStore implements PageStore {
  readonly #pages = new Map<string, Uint8Array>();
  /** Whether a transaction is running (its writes go to `#overlay`). */
  #inTransaction = false;
  /** Writes of the running transaction (undefined value: deleted), made at its first write. */
  #overlay: Map<string, Uint8Array | undefined> | undefined;
  /**
   * Whole-chunk (`CHUNK_BYTES`) buffers no longer referenced, reused by `put`. Without it every page
   * write allocated a new 8 KiB ArrayBuffer and dropped the old one: ~64 KiB of external memory per PUT,
   * which made V8 run a full mark-compact every ~100 ms under a write load (measured: 20 in 3,000 PUTs,
   * 2-6 ms each, the PUT p99). Only chunk-sized buffers go in: a `<file>/size` entry (8 bytes) left on
   * top once wedged the pool (full, and no top buffer that fit), so 82 % of page writes allocated again.
   */
  readonly #free: Uint8Array[] = [];

  get(key: string): Uint8Array | undefined {
    const o = this.#overlay;
    if (o !== undefined) {
      const v = o.get(key);
      if (v !== undefined || o.has(key)) return v;
    }
    return this.#pages.get(key);
  }
  put(key: string, bytes: Uint8Array): void {
    const copy = this.#copy(bytes);
    const o = this.#writes();
    if (o) {
      this.#release(o.get(key));
      o.set(key, copy);
    } else {
      this.#set(key, copy);
    }
  }
  delete(key: string): void {
    const o = this.#writes();
    if (o) {
      this.#release(o.get(key));
      o.set(key, undefined);
    } else {
      this.#release(this.#pages.get(key));
      this.#pages.delete(key);
    }
  }
  sync(): void {}

  transaction<T>(fn: () => T): T {
    if (this.#inTransaction) return fn(); // nested: part of the outer transaction
    this.#inTransaction = true;
    let committed = false;
    try {
      const result = fn();
      const overlay = this.#overlay;
      if (overlay) {
        for (const [k, v] of overlay) {
          if (v === undefined) {
            this.#release(this.#pages.get(k));
            this.#pages.delete(k);
          } else {
            this.#set(k, v);
          }
        }
      }
      committed = true;
      return result;
    } finally {
      const overlay = this.#overlay;
      this.#overlay = undefined;
      this.#inTransaction = false;
      if (!committed && overlay) for (const v of overlay.values()) this.#release(v);
    }
  }

  /**
   * The running transaction's writes, made at its first write (a call that only reads, such as a GET,
   * allocates nothing here), or undefined outside a transaction.
   */
  #writes(): Map<string, Uint8Array | undefined> | undefined {
    if (!this.#inTransaction) return undefined;
    this.#overlay ??= new Map();
    return this.#overlay;
  }

  /** A private copy of `bytes` (which is a view into wasm memory), in a recycled buffer when one fits. */
  #copy(bytes: Uint8Array): Uint8Array {
    const recycled = bytes.length === CHUNK_BYTES ? this.#free.pop() : undefined;
    const buf = recycled ?? new Uint8Array(bytes.length);
    buf.set(bytes);
    return buf;
  }

  #set(key: string, page: Uint8Array): void {
    const old = this.#pages.get(key);
    this.#pages.set(key, page);
    if (old !== page) this.#release(old);
  }

  /** Keeps a chunk buffer nothing refers to any more for reuse (a bounded number). */
  #release(buf: Uint8Array | undefined): void {
    if (buf?.length === CHUNK_BYTES && this.#free.length < 256) this.#free.push(buf);
  }

  /** Total bytes held. */
  get bytes(): number {
    let n = 0;
    for (const v of this.#pages.values()) n += v.length; // committed pages only
    return n;
  }
}
