/**
 * `EmbeddingStore`: a `MemoryStore` with an embedder — puts with text and no embedding get the text's passage
 * vector, text searches without a vector get the query's — over any other store (local or remote), and
 * `reembed()`, which re-embeds every memory, resumably, in stores that keep host metadata.
 */

import { EdgememError, invalid, options as opts } from '../api/errors.js';
import type {
  ChangeEvent,
  ChangesOptions,
  ChangesPage,
  Checkpoint,
  CheckpointInput,
  CheckpointPage,
  ChunkedTransfer,
  DeleteOptions,
  EventFilter,
  ExportDoc,
  ExportStreamOptions,
  GetCheckpointOptions,
  GetOptions,
  HistoryOptions,
  HistoryPage,
  ImportProgress,
  JsonValue,
  ListCheckpointsOptions,
  ListNamespacesOptions,
  ListOptions,
  ListPage,
  Memory,
  MemoryInput,
  MemoryStore,
  Namespace,
  NdjsonSource,
  PutWritesInput,
  SearchHit,
  SearchJson,
  SearchQuery,
  SearchWrites,
  Stats,
  Subscription,
  WriteAck,
} from '../api/types.js';
import { EMBED_BATCH, type Embedder, embedAll, recordOf } from './embedder.js';
import {
  checkRecord,
  finishReembed,
  type HostMeta,
  hasHostMeta,
  type ReembedState,
  readProgress,
  writeProgress,
} from './embedder-record.js';

export interface ReembedProgress {
  /** Memories re-embedded so far (across resumed runs). */
  done: number;
  /** Live memories in the store when this run began. */
  total: number;
}

export interface ReembedOptions {
  /** Called after each batch is written (and its progress saved). */
  onProgress?: (progress: ReembedProgress) => unknown;
}

/** A store opened with an embedder (`openStore({ embedder })`, `connect({ embedder })`). */
export interface TextMemoryStore extends MemoryStore {
  readonly embedder: Embedder;
  /** Whether a re-embed is unfinished (opened with `reembed: true`, or a run was interrupted). */
  readonly reembedPending: boolean;
  /**
   * Re-embeds the text of every memory with this store's embedder (each one a new version, value, metadata,
   * pin and expiry kept), in batches, saving its progress after each: after a crash, open the store with the
   * same embedder and call it again to go on. Then the store records this embedder. Local stores only.
   */
  reembed(options?: ReembedOptions): Promise<ReembedProgress>;
}

/** The text a put indexes: its `text`, or else a string value (as the engine derives it). */
function textOf(m: MemoryInput): string | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  if (typeof m.text === 'string') return m.text;
  return m.text === undefined && typeof m.value === 'string' ? m.value : undefined;
}

function needsEmbedding(m: MemoryInput): boolean {
  return typeof m === 'object' && m !== null && m.embedding === undefined && !!textOf(m);
}

export class EmbeddingStore implements TextMemoryStore, ChunkedTransfer, SearchWrites, SearchJson {
  readonly #inner: MemoryStore;
  readonly #meta: HostMeta | undefined;
  readonly embedder: Embedder;
  #pending: boolean;

  private constructor(inner: MemoryStore, embedder: Embedder, meta: HostMeta | undefined, pending: boolean) {
    this.#inner = inner;
    this.embedder = embedder;
    this.#meta = meta;
    this.#pending = pending;
  }

  /**
   * Wraps `inner`. A store that keeps host metadata is checked against the embedder it records (see
   * `checkRecord`); on failure `inner` is closed.
   */
  static async over(inner: MemoryStore, embedder: Embedder, reembed: boolean): Promise<EmbeddingStore> {
    const meta = hasHostMeta(inner) ? inner : undefined;
    let pending = false;
    if (meta) {
      try {
        pending = await checkRecord(meta, recordOf(embedder), reembed);
      } catch (e) {
        await inner.close().catch(() => undefined);
        throw e;
      }
    }
    return new EmbeddingStore(inner, embedder, meta, pending);
  }

  get reembedPending(): boolean {
    return this.#pending;
  }

  /** `memories` with the embeddings they lack filled in (texts embedded in batches); the inputs are not changed. */
  async #withEmbeddings(memories: MemoryInput[]): Promise<MemoryInput[]> {
    const todo: { m: MemoryInput; i: number; text: string }[] = [];
    for (const [i, m] of memories.entries()) {
      const text = textOf(m);
      if (text !== undefined && needsEmbedding(m)) todo.push({ m, i, text });
    }
    if (todo.length === 0) return memories;
    const vectors = await embedAll(
      this.embedder,
      todo.map((t) => t.text),
      'passage',
    );
    const out = memories.slice();
    for (const [j, { m, i }] of todo.entries()) out[i] = { ...m, embedding: vectors[j] };
    return out;
  }

  async put(memory: MemoryInput): Promise<WriteAck> {
    const [m] = await this.#withEmbeddings([memory]);
    return this.#inner.put(m ?? memory);
  }

  async putBatch(memories: MemoryInput[]): Promise<WriteAck[]> {
    if (!Array.isArray(memories)) throw invalid('putBatch takes an array of memories');
    return this.#inner.putBatch(await this.#withEmbeddings(memories));
  }

  async search(query: SearchQuery): Promise<SearchHit[]> {
    const q = this.#embedded(query);
    // Without a text to embed the inner call is made before any await (a Durable Object's read runs it so).
    return this.#inner.search(q instanceof Promise ? await q : q);
  }

  /** See `SearchJson` (the inner store's hits as JSON, or its `search`'s serialised when it has no such method). */
  async searchJson(query: SearchQuery): Promise<string> {
    const inner = this.#inner as MemoryStore & Partial<SearchJson>;
    const e = this.#embedded(query);
    const q = e instanceof Promise ? await e : e;
    return inner.searchJson ? inner.searchJson(q) : JSON.stringify(await inner.search(q));
  }

  /** `query` with its text embedded as its vector (a promise) when it has text and no vector and is not lexical. */
  #embedded(query: SearchQuery): SearchQuery | Promise<SearchQuery> {
    if (
      typeof query === 'object' &&
      query !== null &&
      query.vector === undefined &&
      query.mode !== 'lexical' &&
      typeof query.text === 'string' &&
      query.text !== ''
    ) {
      return embedAll(this.embedder, [query.text], 'query').then(([vector]) => ({ ...query, vector }));
    }
    return query;
  }

  async reembed(options?: ReembedOptions): Promise<ReembedProgress> {
    const o = opts(options, 'reembed options');
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function')
      throw invalid('onProgress must be a function');
    const meta = this.#meta;
    if (!meta) throw invalid('reembed works on local stores; a remote agent re-embeds in its Worker');
    const to = recordOf(this.embedder);
    let state: ReembedState = (await readProgress(meta)) ?? { to, cursor: null, done: 0 };
    if (state.to.id !== to.id || state.to.dims !== to.dims || state.to.normalized !== to.normalized)
      state = { to, cursor: null, done: 0 };
    await writeProgress(meta, state);
    this.#pending = true;
    const total = (await this.#inner.stats()).memories;
    for (;;) {
      const page = await this.#inner.list({
        limit: EMBED_BATCH,
        ...(state.cursor === null ? {} : { cursor: state.cursor }),
      });
      const done = await this.#reembedPage(page.items);
      state = { to, cursor: page.nextCursor, done: state.done + done };
      if (page.nextCursor === null) break;
      await writeProgress(meta, state);
      await o.onProgress?.({ done: state.done, total });
    }
    await finishReembed(meta, to);
    this.#pending = false;
    const progress = { done: state.done, total };
    await o.onProgress?.(progress);
    return progress;
  }

  /** Re-embeds one page of memories (those with text that have not expired); a concurrent write to one is retried. */
  async #reembedPage(items: Memory[]): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const now = Date.now();
      const live = items.filter(
        (m): m is Memory & { text: string } =>
          m.text !== null && m.text !== '' && (m.expiresAt === null || m.expiresAt > now + 1),
      );
      if (live.length === 0) return 0;
      const vectors = await embedAll(
        this.embedder,
        live.map((m) => m.text),
        'passage',
      );
      const puts: MemoryInput[] = live.map((m, i) => ({
        namespace: m.namespace,
        key: m.key,
        value: m.value,
        text: m.text,
        embedding: vectors[i],
        metadata: m.metadata,
        pinned: m.pinned,
        ...(m.expiresAt === null ? {} : { ttlMs: Math.max(1, m.expiresAt - Date.now()) }),
        ifVersion: m.version,
      }));
      try {
        await this.#inner.putBatch(puts);
        return live.length;
      } catch (e) {
        if (!(e instanceof EdgememError) || e.code !== 'CONFLICT' || attempt >= 4) throw e;
        // Written to meanwhile: read the page's memories again and re-embed what they hold now.
        const fresh = await Promise.all(items.map((m) => this.#inner.get(m.namespace, m.key)));
        items = fresh.filter((m): m is Memory => m !== null);
      }
    }
  }

  get(namespace: Namespace, key: string, options?: GetOptions): Promise<Memory | null> {
    return this.#inner.get(namespace, key, options);
  }
  delete(namespace: Namespace, key: string, options?: DeleteOptions): Promise<number> {
    return this.#inner.delete(namespace, key, options);
  }
  list(options?: ListOptions): Promise<ListPage> {
    return this.#inner.list(options);
  }
  listNamespaces(options?: ListNamespacesOptions): Promise<Namespace[]> {
    return this.#inner.listNamespaces(options);
  }
  history(namespace: Namespace, key: string): Promise<Memory[]> {
    return this.#inner.history(namespace, key);
  }
  historyPage(namespace: Namespace, key: string, options?: HistoryOptions): Promise<HistoryPage> {
    return this.#inner.historyPage(namespace, key, options);
  }
  putCheckpoint(checkpoint: CheckpointInput): Promise<number> {
    return this.#inner.putCheckpoint(checkpoint);
  }
  getCheckpoint(threadId: string, options?: GetCheckpointOptions): Promise<Checkpoint | null> {
    return this.#inner.getCheckpoint(threadId, options);
  }
  listCheckpoints(options: ListCheckpointsOptions): Promise<Checkpoint[]> {
    return this.#inner.listCheckpoints(options);
  }
  listCheckpointsPage(options: ListCheckpointsOptions): Promise<CheckpointPage> {
    return this.#inner.listCheckpointsPage(options);
  }
  putWrites(input: PutWritesInput): Promise<void> {
    return this.#inner.putWrites(input);
  }
  deleteThread(threadId: string): Promise<number> {
    return this.#inner.deleteThread(threadId);
  }
  notify(channel: string, payload: JsonValue): Promise<number> {
    return this.#inner.notify(channel, payload);
  }
  subscribe(filter: EventFilter, callback: (event: ChangeEvent) => unknown): Promise<Subscription> {
    return this.#inner.subscribe(filter, callback);
  }
  changes(after: number, options?: ChangesOptions): Promise<ChangeEvent[]> {
    return this.#inner.changes(after, options);
  }
  changesPage(after: number, options?: ChangesOptions): Promise<ChangesPage> {
    return this.#inner.changesPage(after, options);
  }
  stats(): Promise<Stats> {
    return this.#inner.stats();
  }
  seq(): Promise<number> {
    return this.#inner.seq();
  }
  export(): Promise<ExportDoc> {
    return this.#inner.export();
  }
  import(doc: ExportDoc): Promise<void> {
    return this.#inner.import(doc);
  }
  exportStream(options?: ExportStreamOptions): AsyncIterable<string> {
    return this.#inner.exportStream(options);
  }
  importStream(source: NdjsonSource): Promise<ImportProgress> {
    return this.#inner.importStream(source);
  }
  sweep(): Promise<number> {
    return this.#inner.sweep();
  }
  maintain(): Promise<void> {
    return this.#inner.maintain();
  }
  /** The inner store's chunked transfer (local stores; a host such as the Worker's Durable Object streams with it). */
  #chunked(): ChunkedTransfer {
    const t = this.#inner as Partial<ChunkedTransfer>;
    if (
      typeof t.exportChunk !== 'function' ||
      typeof t.importChunk !== 'function' ||
      typeof t.importAbort !== 'function'
    ) {
      throw invalid('this store has no chunked transfer (remote stores stream with exportStream / importStream)');
    }
    return t as ChunkedTransfer;
  }
  exportChunk(cursor: string | null, maxBytes?: number): Promise<{ ndjson: string; cursor: string | null }> {
    return this.#chunked().exportChunk(cursor, maxBytes);
  }
  importChunk(ndjson: string): Promise<ImportProgress> {
    return this.#chunked().importChunk(ndjson);
  }
  importAbort(): Promise<boolean> {
    return this.#chunked().importAbort();
  }

  /** See `SearchWrites` (true when the inner store cannot tell). */
  searchWrites(): boolean {
    return (this.#inner as Partial<SearchWrites>).searchWrites?.() ?? true;
  }

  /** Closes the store (not the embedder: the caller made it and may share it; close it yourself). */
  close(): Promise<void> {
    return this.#inner.close();
  }
}
