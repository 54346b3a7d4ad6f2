/** The page-store hook: a synchronous key/value store of database pages a host provides, and the in-memory one. */

/**
 * What the engine's SQLite VFS keeps its files in (core/src/vfs.rs): keys `<file>/<n>` hold chunk n
 * (8 KiB, the last one may be shorter) of `<file>` (`db` or `journal`), and `<file>/size` holds the
 * file's length as 8 little-endian bytes. All calls are synchronous; a throw becomes an I/O error that
 * rolls the current transaction back.
 */
export interface PageStore {
  /** The bytes stored at `key`, or undefined. */
  get(key: string): Uint8Array | undefined;
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
 * (`transaction`): a call's puts go to an overlay that a trap discards, so SQLite needs no journal here.
 */
export class MemoryPageStore implements PageStore {
  readonly #pages = new Map<string, Uint8Array>();
  /** Writes of the running transaction (undefined value: deleted). */
  #overlay: Map<string, Uint8Array | undefined> | undefined;

  get(key: string): Uint8Array | undefined {
    const o = this.#overlay;
    if (o?.has(key)) return o.get(key);
    return this.#pages.get(key);
  }
  put(key: string, bytes: Uint8Array): void {
    if (this.#overlay) this.#overlay.set(key, bytes.slice());
    else this.#pages.set(key, bytes.slice());
  }
  delete(key: string): void {
    if (this.#overlay) this.#overlay.set(key, undefined);
    else this.#pages.delete(key);
  }
  sync(): void {}

  transaction<T>(fn: () => T): T {
    if (this.#overlay) return fn(); // nested: part of the outer transaction
    const overlay = new Map<string, Uint8Array | undefined>();
    this.#overlay = overlay;
    try {
      const result = fn();
      for (const [k, v] of overlay) {
        if (v === undefined) this.#pages.delete(k);
        else this.#pages.set(k, v);
      }
      return result;
    } finally {
      this.#overlay = undefined;
    }
  }

  /** Total bytes held. */
  get bytes(): number {
    let n = 0;
    for (const v of this.#pages.values()) n += v.length; // committed pages only
    return n;
  }
}
