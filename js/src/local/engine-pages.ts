/** `EnginePages`: a host page store as the wasm engine calls it (js/wasm/src/host_pages.rs). */

import { copyInto } from '../pages/page-keys.js';
import type { PageStore } from '../pages/page-store.js';

/**
 * Every call passed through to the host's store, a throw noted in `failed` (LocalStore discards the
 * call's writes after one), plus `readPage`, which puts a page into wasm memory in one call from the
 * engine: reading a page as `get` and copying it from Rust took four calls across the boundary (get,
 * an instanceof check, length, copy), and a SQLite cache miss is one page read.
 */
export class EnginePages implements PageStore {
  readonly #pages: PageStore;
  #memory: Uint8Array | undefined;
  failed = false;

  constructor(pages: PageStore) {
    this.#pages = pages;
  }

  /**
   * Copies the page at `key` from byte `offset` on into wasm memory at `ptr` (at most `len` bytes);
   * returns how many bytes it copied, or -1 when there is no page. Through the host's own `readInto`
   * when it has one (file stores read straight into the page buffer), else `get` and a copy into
   * the memory at `ptr`.
   */
  readPage(key: string, offset: number, memory: WebAssembly.Memory, ptr: number, len: number): number {
    const pages = this.#pages;
    if (pages.readInto) {
      let n: number;
      try {
        n = pages.readInto(key, offset, new Uint8Array(memory.buffer, ptr, len));
      } catch (e) {
        this.failed = true;
        throw e;
      }
      if (!Number.isInteger(n) || n < -1 || n > len) {
        throw new TypeError(`page store readInto(${key}) returned ${String(n)}, not a count of at most ${len} or -1`);
      }
      return n;
    }
    const page = this.get(key);
    if (page !== undefined && page !== null && !(page instanceof Uint8Array)) {
      throw new TypeError(`page store get(${key}) returned something other than a Uint8Array`);
    }
    return copyInto(page ?? undefined, offset, this.#memoryView(memory), ptr, len);
  }

  /**
   * A view of all of `memory`, kept while its buffer stays the same (a `memory.grow` replaces it): a page
   * read copies into it at the page buffer's address instead of making a view per read.
   */
  #memoryView(memory: WebAssembly.Memory): Uint8Array {
    const buffer = memory.buffer;
    let view = this.#memory;
    if (view === undefined || view.buffer !== buffer) view = this.#memory = new Uint8Array(buffer);
    return view;
  }

  get(key: string): Uint8Array | undefined {
    try {
      return this.#pages.get(key);
    } catch (e) {
      this.failed = true;
      throw e;
    }
  }
  put(key: string, bytes: Uint8Array): void {
    try {
      this.#pages.put(key, bytes);
    } catch (e) {
      this.failed = true;
      throw e;
    }
  }
  delete(key: string): void {
    try {
      this.#pages.delete(key);
    } catch (e) {
      this.failed = true;
      throw e;
    }
  }
  sync(): void {
    try {
      this.#pages.sync();
    } catch (e) {
      this.failed = true;
      throw e;
    }
  }
}
