/**
 * `StoreBase`: what every store (local, remote) shares above its transport. It owns the embedder (puts and
 * searches with text are embedded here, then handed to the transport's `putEmbedded` / `putBatchEmbedded` /
 * `searchEmbedded`) and derives the convenience methods from the primitives: `history`, `listCheckpoints` and
 * `changes` from their pages, `export` / `import` from the NDJSON streams (the table: methods.ts).
 */
import { argument, checkSafe, invalid } from '../api/errors.js';
import { checkExportSeqs, documentFromLines, documentLines, ndjsonLines } from '../api/ndjson.js';
import type {
  Assessment,
  ChangeEvent,
  ChangesOptions,
  ChangesPage,
  Checkpoint,
  CheckpointInput,
  CheckpointPage,
  ConsolidateOptions,
  ConsolidateReport,
  ContextBlock,
  ContextOptions,
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
  Remembered,
  RememberFact,
  RememberInput,
  SearchHit,
  SearchJson,
  SearchQuery,
  Stats,
  Subscription,
  WriteAck,
} from '../api/types.js';
import type { RememberModels } from '../coherence/index.js';
import { type Embedder, recordOf } from '../embed/embedder.js';
import { checkRecord, hasHostMeta } from '../embed/embedder-record.js';
import {
  embeddedQuery,
  type ReembedOptions,
  type ReembedProgress,
  reembed,
  type TextMemoryStore,
  withEmbeddings,
} from '../embed/text-embedding.js';
import { PAGED } from './paged.js';
import { rememberFacts } from './remember-flow.js';

export abstract class StoreBase implements MemoryStore, SearchJson {
  #embedder: Embedder | undefined;
  #models: RememberModels = {};
  #reembedPending = false;

  /**
   * Gives the store the caller's models for `remember` (`openStore` / `connect` do, once).
   * @internal
   */
  useModels(models: RememberModels): this {
    this.#models = models;
    return this;
  }

  /** The embedder that makes this store's vectors from text, if it was opened with one. */
  get embedder(): Embedder | undefined {
    return this.#embedder;
  }

  /** Whether a re-embed is unfinished (opened with `reembed: true`, or a run was interrupted). */
  get reembedPending(): boolean {
    return this.#reembedPending;
  }

  /**
   * Gives the store its embedder (`openStore` / `connect` do, once). A store that keeps host metadata is checked
   * against the embedder it records (`checkRecord`); on failure the store is closed.
   * @internal
   */
  async useEmbedder(embedder: Embedder, reembedOnMismatch: boolean): Promise<this & TextMemoryStore> {
    if (hasHostMeta(this)) {
      try {
        this.#reembedPending = await checkRecord(this, recordOf(embedder), reembedOnMismatch);
      } catch (e) {
        await this.close().catch(() => undefined);
        throw e;
      }
    }
    this.#embedder = embedder;
    return this as this & TextMemoryStore; // `embedder` is set from here on
  }

  /** See `TextMemoryStore.reembed`. */
  async reembed(options?: ReembedOptions): Promise<ReembedProgress> {
    const embedder = this.#embedder;
    if (!embedder) throw invalid('reembed needs a store opened with an embedder');
    if (!hasHostMeta(this)) throw invalid('reembed works on local stores; a remote agent re-embeds in its Worker');
    this.#reembedPending = true;
    const progress = await reembed(this, this, embedder, options);
    this.#reembedPending = false;
    return progress;
  }

  // --- the transport's primitives -----------------------------------------------------------------------------

  /** `put` of a memory whose text, if any, is already embedded. */
  protected abstract putEmbedded(memory: MemoryInput): Promise<WriteAck>;
  /** `putBatch` of memories whose texts are already embedded. */
  protected abstract putBatchEmbedded(memories: MemoryInput[]): Promise<WriteAck[]>;
  /** `search` of a query whose text, if it needs a vector, is already embedded. */
  protected abstract searchEmbedded(query: SearchQuery): Promise<SearchHit[]>;
  /** `searchJson` of an embedded query: by default `searchEmbedded`'s hits serialised. */
  protected async searchJsonEmbedded(query: SearchQuery): Promise<string> {
    return JSON.stringify(await this.searchEmbedded(query));
  }

  /** `remember` of one fact, its text embedded (if the store embeds). */
  protected abstract rememberEmbedded(fact: RememberFact): Promise<Remembered>;
  /** `assess` of one fact, its text embedded (if the store embeds). */
  protected abstract assessEmbedded(fact: RememberFact): Promise<Assessment>;
  /** `context` with its query embedded as `vector` (if the store embeds). */
  protected abstract contextEmbedded(options: ContextOptions): Promise<ContextBlock>;
  abstract consolidate(options: ConsolidateOptions): Promise<ConsolidateReport>;

  abstract get(namespace: Namespace, key: string, options?: GetOptions): Promise<Memory | null>;
  abstract delete(namespace: Namespace, key: string, options?: DeleteOptions): Promise<number>;
  abstract list(options?: ListOptions): Promise<ListPage>;
  abstract listNamespaces(options?: ListNamespacesOptions): Promise<Namespace[]>;
  abstract historyPage(namespace: Namespace, key: string, options?: HistoryOptions): Promise<HistoryPage>;
  abstract putCheckpoint(checkpoint: CheckpointInput): Promise<number>;
  abstract getCheckpoint(threadId: string, options?: GetCheckpointOptions): Promise<Checkpoint | null>;
  abstract listCheckpointsPage(options?: ListCheckpointsOptions): Promise<CheckpointPage>;
  abstract putWrites(input: PutWritesInput): Promise<void>;
  abstract deleteThread(threadId: string): Promise<number>;
  abstract notify(channel: string, payload: JsonValue): Promise<number>;
  abstract subscribe(filter: EventFilter, callback: (event: ChangeEvent) => unknown): Promise<Subscription>;
  abstract changesPage(after: number, options?: ChangesOptions): Promise<ChangesPage>;
  abstract stats(): Promise<Stats>;
  abstract seq(): Promise<number>;
  abstract exportStream(options?: ExportStreamOptions): AsyncIterable<string>;
  abstract importStream(source: NdjsonSource): Promise<ImportProgress>;
  abstract sweep(): Promise<number>;
  abstract maintain(): Promise<void>;
  abstract close(): Promise<void>;

  // --- with the embedder --------------------------------------------------------------------------------------

  async put(memory: MemoryInput): Promise<WriteAck> {
    const embedder = this.#embedder;
    if (!embedder) return this.putEmbedded(memory);
    const [m] = await withEmbeddings(embedder, [memory]);
    return this.putEmbedded(m ?? memory);
  }

  async putBatch(memories: MemoryInput[]): Promise<WriteAck[]> {
    const embedder = this.#embedder;
    if (!embedder) return this.putBatchEmbedded(memories);
    if (!Array.isArray(memories)) throw invalid('putBatch takes an array of memories');
    return this.putBatchEmbedded(await withEmbeddings(embedder, memories));
  }

  async search(query: SearchQuery): Promise<SearchHit[]> {
    const q = this.#embedder ? embeddedQuery(this.#embedder, query) : query;
    // Without a text to embed the transport's call is made before any await (a Durable Object's read runs it so).
    return this.searchEmbedded(q instanceof Promise ? await q : q);
  }

  remember(input: RememberInput): Promise<Remembered[]> {
    const transport = {
      assess: (f: RememberFact) => this.assessEmbedded(f),
      rememberOne: (f: RememberFact) => this.rememberEmbedded(f),
    };
    return rememberFacts(transport, this.#embedder, this.#models, input);
  }

  async assess(input: RememberInput): Promise<Assessment> {
    if (typeof input !== 'object' || input === null || typeof input.text !== 'string')
      throw invalid('assess takes { namespace, text }');
    const { messages: _, ...fact } = input;
    if (this.#embedder && fact.embedding === undefined) {
      const [m] = await withEmbeddings(this.#embedder, [
        { namespace: fact.namespace, key: 'fact', value: null, text: input.text },
      ]);
      return this.assessEmbedded({ ...fact, text: input.text, embedding: m?.embedding });
    }
    return this.assessEmbedded({ ...fact, text: input.text });
  }

  async context(options?: ContextOptions): Promise<ContextBlock> {
    const o = options ?? {};
    if (typeof o !== 'object' || o === null) throw invalid('context takes an options object');
    if (this.#embedder && o.vector === undefined && typeof o.query === 'string' && o.query !== '') {
      const q = await embeddedQuery(this.#embedder, { text: o.query });
      return this.contextEmbedded({ ...o, vector: q.vector });
    }
    return this.contextEmbedded(o);
  }

  /** See `SearchJson`. */
  async searchJson(query: SearchQuery): Promise<string> {
    const q = this.#embedder ? embeddedQuery(this.#embedder, query) : query;
    return this.searchJsonEmbedded(q instanceof Promise ? await q : q);
  }

  // --- derived from the primitives ----------------------------------------------------------------------------

  history(namespace: Namespace, key: string): Promise<Memory[]> {
    return PAGED.history(this, namespace, key);
  }

  listCheckpoints(options?: ListCheckpointsOptions): Promise<Checkpoint[]> {
    return PAGED.listCheckpoints(this, options);
  }

  changes(after: number, options?: ChangesOptions): Promise<ChangeEvent[]> {
    return PAGED.changes(this, after, options);
  }

  async export(): Promise<ExportDoc> {
    return documentFromLines(ndjsonLines(this.exportStream()));
  }

  async import(doc: ExportDoc): Promise<void> {
    if (typeof doc !== 'object' || doc === null) throw invalid('import takes an export document');
    checkSafe(doc.seq, 'doc.seq');
    checkExportSeqs(doc);
    const lines = argument('import', () => [...documentLines(doc)]);
    await this.importStream(lines.map((l) => `${l}\n`));
  }
}
