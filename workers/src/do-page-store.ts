/**
 * The engine's page store on a SQLite-backed Durable Object's synchronous KV (`ctx.storage.kv`), opened
 * with `atomic: true`: every store call runs inside `ctx.storage.transactionSync`, so its page writes
 * commit together or — on a trap or exception — not at all. Only the pages a call touches are written
 * (8 KiB each), never the whole database. `sync()` is a no-op: the DO commits at the end of the
 * transaction and its output gate holds responses until that is durable.
 */
import type { PageStore } from 'edgemem';

/** Keys of the engine's pages are prefixed, so the KV can hold other things beside them. */
const PREFIX = 'p:';

export class DurableObjectPageStore implements PageStore {
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  get(key: string): Uint8Array | undefined {
    const v = this.#storage.kv.get<Uint8Array | ArrayBuffer>(PREFIX + key);
    if (v === undefined || v === null) return undefined;
    return v instanceof Uint8Array ? v : new Uint8Array(v);
  }

  put(key: string, bytes: Uint8Array): void {
    // `bytes` views wasm memory only during this call; the KV serialises it right away, and the copy
    // keeps the stored value an exact-length Uint8Array rather than a view of the whole wasm memory.
    this.#storage.kv.put(PREFIX + key, bytes.slice());
  }

  delete(key: string): void {
    this.#storage.kv.delete(PREFIX + key);
  }

  sync(): void {}

  transaction<T>(fn: () => T): T {
    return this.#storage.transactionSync(fn);
  }
}
