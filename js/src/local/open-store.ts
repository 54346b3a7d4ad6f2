/** `openStore` options and the runtime-independent part of opening a local store. */

import { invalid, toEdgememError } from '../api/errors.js';
import type { LocalMemoryStore, StoreSettings } from '../api/types.js';
import { type ModelOptions, toRememberModels } from '../coherence/index.js';
import { type EmbedderOption, toEmbedder } from '../embed/embedder.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import { MemoryPageStore, type PageStore } from '../pages/page-store.js';
import { LocalStore } from './local-store.js';
import { initRuntime, isReady, type WasmSource } from './runtime.js';

/**
 * Where a store keeps its data: `'memory'` (pages in a JS Map, gone when the process ends), a host
 * page store (`atomic`: the host commits each call atomically, e.g. a Durable Object's transactionSync),
 * from the Node entry only a database file, or from the browser entry, inside a dedicated Web Worker,
 * the origin private file system (`opfs`: the store's name there).
 */
export type StorageOption = 'memory' | { pages: PageStore; atomic?: boolean } | { file: string } | { opfs: string };

export interface OpenOptions extends StoreSettings, ModelOptions {
  /** Default `'memory'`. */
  storage?: StorageOption;
  /** The compiled edgemem module or its bytes; default: loaded from the package (fetch, or fs in Node). */
  wasm?: WasmSource;
  /**
   * Makes vectors from text: an `Embedder` (e.g. `e5()` from `edgemem-e5`, `openaiEmbeddings(...)`) or a function
   * `(texts, kind) => vectors`. Then `put` with text and no embedding embeds the text, and `search({ text })`
   * without a vector runs hybrid search with the embedded query. The store records the embedder (id, dims,
   * normalisation); opening it with another is INVALID_ARGUMENT unless `reembed` is true.
   */
  embedder?: EmbedderOption;
  /** Opened with an embedder other than the one the store records: re-embed (call `store.reembed()`). */
  reembed?: boolean;
}

/** `OpenOptions` with an embedder: `openStore` returns a `TextMemoryStore`. */
export type OpenTextOptions = OpenOptions & { embedder: EmbedderOption };

/** Opens a local store, then, with `options.embedder`, wraps it (checking the embedder the store records). */
export async function openWithEmbedder(
  options: OpenOptions,
  load: () => Promise<WasmSource>,
  fileStore: PagesForFile | undefined,
): Promise<LocalMemoryStore | (LocalMemoryStore & TextMemoryStore)> {
  if (typeof options !== 'object' || options === null) throw invalid('openStore takes an options object');
  const { extractor, judge, ...settings } = options;
  const models = toRememberModels({ extractor, judge });
  if (settings.embedder === undefined) {
    if (settings.reembed !== undefined) throw invalid('reembed needs an embedder');
    return (await openWith(settings, load, fileStore)).useModels(models);
  }
  if (settings.reembed !== undefined && typeof settings.reembed !== 'boolean')
    throw invalid('reembed must be a boolean');
  const embedder = await toEmbedder(settings.embedder, settings.dims);
  const inner = (await openWith({ ...settings, dims: embedder.dims }, load, fileStore)).useModels(models);
  return inner.useEmbedder(embedder, settings.reembed === true);
}

export type PagesForFile = (path: string) => PageStore;

/** Opens a local store once the runtime is initialised from `options.wasm` or `load()`. */
export async function openWith(
  options: OpenOptions,
  load: () => Promise<WasmSource>,
  fileStore: PagesForFile | undefined,
): Promise<LocalStore> {
  if (typeof options !== 'object' || options === null) throw invalid('openStore takes an options object');
  if (!isReady()) {
    try {
      initRuntime(options.wasm ?? (await load()));
    } catch (e) {
      throw toEdgememError(e);
    }
  }
  const storage = options.storage ?? 'memory';
  if (storage === 'memory') return LocalStore.open(new MemoryPageStore(), options, true);
  if (typeof storage === 'object' && storage !== null && 'pages' in storage) {
    const pages = checkPageStore(storage.pages);
    const atomic = storage.atomic ?? false;
    if (atomic && typeof pages.transaction !== 'function') {
      // Atomic stores journal in memory: without a host transaction a trap would leave a torn database.
      throw invalid('storage { atomic: true } needs a page store with a transaction(fn) method');
    }
    return LocalStore.open(pages, options, atomic);
  }
  if (typeof storage === 'object' && storage !== null && 'file' in storage) {
    if (!fileStore) throw invalid('storage { file } is only available from the Node entry of edgemem');
    if (typeof storage.file !== 'string' || storage.file === '') throw invalid('storage.file must be a path');
    const pages = fileStore(storage.file);
    try {
      return LocalStore.open(pages, options, true); // each call one transaction of the file's redo log
    } catch (e) {
      pages.close?.(); // release the file (and its lock) when the store cannot be opened
      throw e;
    }
  }
  if (typeof storage === 'object' && storage !== null && 'opfs' in storage) {
    throw invalid('storage { opfs } is only available from the browser entry of edgemem, in a dedicated Web Worker');
  }
  throw invalid(`unknown storage option ${JSON.stringify(storage)}`);
}

/** A host page store must have the four synchronous methods; anything else is INVALID_ARGUMENT. */
function checkPageStore(pages: unknown): PageStore {
  const p = pages as Partial<PageStore> | null;
  for (const m of ['get', 'put', 'delete', 'sync'] as const) {
    if (typeof p !== 'object' || p === null || typeof p[m] !== 'function') {
      throw invalid(`storage.pages must be a PageStore with get, put, delete and sync methods (missing ${m})`);
    }
  }
  return p as PageStore;
}
