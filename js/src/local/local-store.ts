/** `LocalStore`: the in-process MemoryStore over the wasm engine, reopened from its page store after a trap. */

import {
  argument,
  checkPositive,
  checkSafe,
  EdgememError,
  invalid,
  isWellFormed,
  options as opts,
  safeOut,
  toEdgememError,
  wellFormed,
} from '../api/errors.js';
import type * as engine from '../api/generated/engine.js';
import { lineChunks, ndjsonLines, placedChunks } from '../api/ndjson.js';
import type {
  Assessment,
  ChangeEvent,
  ChangesOptions,
  ChangesPage,
  Checkpoint,
  CheckpointInput,
  CheckpointPage,
  ChunkedTransfer,
  ChunkPlace,
  ConsolidateOptions,
  ConsolidateReport,
  ContextBlock,
  ContextOptions,
  DeleteOptions,
  EventFilter,
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
  Namespace,
  NdjsonSource,
  PutWritesInput,
  Remembered,
  RememberFact,
  SearchHit,
  SearchQuery,
  SearchWrites,
  Stats,
  StoreSettings,
  Subscription,
  WriteAck,
} from '../api/types.js';
import { withEmbeddings } from '../embed/text-embedding.js';
import type { PageStore } from '../pages/page-store.js';
import { StoreBase } from '../store/base.js';
import * as conv from './conversions.js';
import { consolidateArgs, contextArgs, factArgs, searchArgs } from './engine-args.js';
import { EnginePages } from './engine-pages.js';
import { takesJsonText, Utf8Json } from './json-text.js';
import type { PullApplied, PulledMemory, ReplicaOp } from './replica-engine.js';
import { bindings, currentGeneration, guarded, type WasmStore } from './runtime.js';

/** `StoreSettings.idleFlushMs` when not given. */
const IDLE_FLUSH_MS = 100;
/** NDJSON text per chunk of `exportStream` when the caller names no size (the engine's default too). */
const DEFAULT_EXPORT_CHUNK_BYTES = 4 << 20;

/** Joins a namespace's segments for `WasmStore.getLive`; no valid segment contains it (a control character). */
const SEGMENT_SEPARATOR = '\u001f';

/**
 * A namespace `getLive` can take joined: a non-empty array of strings, none holding the separator or a lone
 * surrogate (a plain string argument would turn it into U+FFFD and read another memory). Anything else goes
 * the JSON way, where the engine reports what is wrong with it.
 */
function isPlainNamespace(namespace: unknown): namespace is string[] {
  if (!Array.isArray(namespace) || namespace.length === 0) return false;
  for (const segment of namespace) {
    if (typeof segment !== 'string' || segment.includes(SEGMENT_SEPARATOR) || !isWellFormed(segment)) return false;
  }
  return true;
}

/** The engine's `StoreOptions` JSON: the settings as they are (numbers checked), without the TypeScript-only ones. */
function engineConfig(s: StoreSettings, atomic: boolean): string {
  const { idleFlushMs: _, ...settings } = s;
  checkNumbers(settings, '');
  if (typeof settings.retention === 'object' && settings.retention !== null)
    checkNumbers(settings.retention, 'retention.');
  return JSON.stringify({ ...settings, atomic });
}

/** Every number among `o`'s own fields is a safe integer, else INVALID_ARGUMENT naming it. */
function checkNumbers(o: object, path: string): void {
  for (const [name, v] of Object.entries(o)) if (typeof v === 'number') checkSafe(v, path + name);
}

interface Sub {
  filter: string;
  callback: (event: ChangeEvent) => unknown;
  /** The engine's subscription id, valid in instance generation `generation`. */
  engineId: number;
  generation: number;
}

/**
 * A store in this process's wasm instance, its pages in `pages` (outside the instance). Calls are
 * synchronous underneath; subscription callbacks run right after the call that caused the event returns.
 */
export class LocalStore extends StoreBase implements ChunkedTransfer, SearchWrites {
  /** Checkpoint payloads may come as `JsonText` (edgemem/langgraph's saver). */
  readonly [takesJsonText] = true;
  readonly #pages: PageStore;
  /** `#pages` as the engine calls them. */
  readonly #engine: EnginePages;
  /** For stores with a host transaction: `#engine`, whose noted throws `#atomically` checks. */
  readonly #watched: EnginePages | undefined;
  readonly #config: string;
  #inner: WasmStore | undefined;
  #generation = -1;
  #closed = false;
  readonly #subs = new Map<number, Sub>();
  #nextSub = 1;
  readonly #queue: [number, string][] = [];
  readonly #idleFlushMs: number;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #lastWrite = 0;
  /** A replica's outbox is on (`replicaOutbox`): set again on the engine whenever it is reopened. */
  #outbox = false;

  private constructor(pages: PageStore, config: string, idleFlushMs: number) {
    super();
    this.#pages = pages;
    this.#engine = new EnginePages(pages);
    this.#watched = pages.transaction ? this.#engine : undefined;
    this.#config = config;
    this.#idleFlushMs = idleFlushMs;
  }

  /** Opens (creating if needed) the store kept in `pages`. The runtime must be initialised. */
  static open(pages: PageStore, settings: StoreSettings = {}, atomic = false): LocalStore {
    const idle = settings.idleFlushMs ?? IDLE_FLUSH_MS;
    if (typeof idle !== 'number' || !Number.isFinite(idle) || idle < 0)
      throw invalid('idleFlushMs must be a number of ms, 0 or more');
    const store = new LocalStore(pages, engineConfig(settings, atomic), idle);
    try {
      guarded(() => store.#atomically(() => store.#reopen()));
    } catch (e) {
      throw toEdgememError(e);
    }
    return store;
  }

  /** (Re)opens the engine store on the current instance and re-registers subscriptions. */
  #reopen(): WasmStore {
    this.#inner = undefined;
    const inner = bindings.WasmStore.open(this.#config, this.#engine);
    const generation = currentGeneration();
    for (const [id, sub] of this.#subs) {
      sub.engineId = inner.subscribe(sub.filter, (json: string) => this.#queue.push([id, json]));
      sub.generation = generation;
    }
    if (this.#outbox) inner.setOutbox(true);
    this.#inner = inner;
    this.#generation = generation;
    return inner;
  }

  /**
   * After a write: notes its time and arms the idle flush if it is not armed (see
   * `StoreSettings.idleFlushMs`). One timer per pause, not one per write: re-arming a timer on every
   * write cost wasm PUTs ~15 % in Node.
   */
  #wrote(): void {
    if (this.#idleFlushMs === 0) return;
    this.#lastWrite = performance.now();
    if (this.#idleTimer === undefined) this.#armIdleFlush(this.#idleFlushMs);
  }

  #armIdleFlush(ms: number): void {
    const timer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#closed) return;
      const quiet = performance.now() - this.#lastWrite;
      if (quiet < this.#idleFlushMs) {
        this.#armIdleFlush(this.#idleFlushMs - quiet); // written to since: wait for the pause
        return;
      }
      try {
        this.#call((w) => w.flushBuffers());
      } catch {
        // Nothing is lost: the buffers stay, and the next write, search or maintain() indexes them.
      }
    }, ms);
    // Node: a pending flush does not keep the process alive.
    (timer as { unref?: () => void }).unref?.();
    this.#idleTimer = timer;
  }

  /** Runs one engine call: reopens after a trap elsewhere, converts errors, then delivers events. */
  #call<T>(f: (w: WasmStore) => T): T {
    if (this.#closed) throw invalid('the store is closed');
    try {
      return guarded(() =>
        this.#atomically(() => {
          const current = this.#generation === currentGeneration() ? this.#inner : undefined;
          return f(current ?? this.#reopen());
        }),
      );
    } catch (e) {
      if (this.#generation !== currentGeneration()) {
        // This call trapped: reopen now so the next call runs on the fresh instance (if this fails,
        // the next call tries again).
        try {
          guarded(() => this.#atomically(() => this.#reopen()));
        } catch {
          this.#inner = undefined;
        }
      }
      throw toEdgememError(e);
    } finally {
      this.#deliver();
    }
  }

  /**
   * Runs `f` inside the page store's transaction when it has one: a trap (the only throw that leaves
   * it) discards the call's page writes; an engine error is carried out as a value and the writes kept
   * (SQLite already rolled its own transaction back in them) — unless a page-store call threw. Then
   * SQLite may have stopped half way through writing its pages, and the undo record (its rollback
   * journal, in wasm memory for atomic stores) would be lost with the instance: every write of the call
   * is discarded instead, and the engine store, which may count on some of them, is dropped and reopened
   * from the pages before the next call.
   */
  #atomically<T>(f: () => T): T {
    const tx = this.#pages.transaction;
    if (!tx) return f();
    type Outcome = { ok: true; value: T } | { ok: false; error: unknown };
    let ran = false;
    let r: Outcome;
    try {
      r = tx.call<PageStore, [() => Outcome], Outcome>(this.#pages, (): Outcome => {
        const watched = this.#watched;
        if (watched) watched.failed = false;
        let out: Outcome;
        try {
          out = { ok: true, value: f() };
        } catch (e) {
          if (e instanceof WebAssembly.RuntimeError) throw e;
          out = { ok: false, error: e };
        }
        if (watched?.failed) {
          this.#dropEngine(); // inside the transaction: whatever closing it writes is discarded too
          throw out.ok
            ? new EdgememError('INTERNAL', 'the page store failed during this call; none of its writes were kept')
            : out.error;
        }
        ran = true;
        return out;
      });
    } catch (e) {
      // The host's commit failed after the call ran: the engine's state is ahead of the pages.
      if (ran) this.#dropEngine();
      throw e;
    }
    if (!r.ok) throw r.error;
    return r.value;
  }

  /** Forgets the engine store without closing it (its state may be ahead of the pages); the next call reopens. */
  #dropEngine(): void {
    const inner = this.#inner;
    this.#inner = undefined;
    if (inner && this.#generation === currentGeneration()) {
      try {
        inner.free();
      } catch {
        // Freeing only releases wasm memory; the store is reopened from the pages either way.
      }
    }
  }

  #deliver(): void {
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      const [id, json] = next;
      const sub = this.#subs.get(id);
      if (!sub) continue;
      let event: ChangeEvent;
      try {
        event = conv.toEvent(JSON.parse(json));
      } catch (e) {
        // Only a seq beyond 2^53-1 gets here: better no event than one with a rounded seq.
        console.error('edgemem: an event could not be delivered', e);
        continue;
      }
      try {
        const r: unknown = sub.callback(event);
        // An async callback's rejection must not become an unhandled rejection (fatal in Node).
        if (r && typeof (r as PromiseLike<unknown>).then === 'function') {
          (r as PromiseLike<unknown>).then(undefined, (e: unknown) =>
            console.error('edgemem: a subscribe callback rejected', e),
          );
        }
      } catch (e) {
        console.error('edgemem: a subscribe callback threw', e);
      }
    }
  }

  /** A put's arguments for the engine: its JSON and its vector. */
  #putArgs(memory: MemoryInput) {
    return argument('put', () => {
      const raw = conv.putArg(memory);
      let emb = conv.f32(memory.embedding, 'embedding');
      if (emb && emb.length === 0) {
        raw.embedding = [];
        emb = undefined;
      }
      return [JSON.stringify(raw), emb] as const;
    });
  }

  protected async putEmbedded(memory: MemoryInput): Promise<WriteAck> {
    const [json, emb] = this.#putArgs(memory);
    const ack = conv.toAck(JSON.parse(this.#call((w) => w.put(json, emb))));
    this.#wrote();
    return ack;
  }

  protected async putBatchEmbedded(memories: MemoryInput[]): Promise<WriteAck[]> {
    if (!Array.isArray(memories)) throw invalid('putBatch takes an array of memories');
    const [json, flat, lens] = argument('putBatch', () => {
      const raws = memories.map(conv.putArg);
      const vecs = memories.map((m) => conv.f32(m.embedding, 'embedding'));
      const lens = new Uint32Array(vecs.map((v) => v?.length ?? 0));
      vecs.forEach((v, i) => {
        if (v && v.length === 0) raws[i].embedding = [];
      });
      const flat = new Float32Array(lens.reduce((a, b) => a + b, 0));
      let at = 0;
      for (const v of vecs) {
        if (v) {
          flat.set(v, at);
          at += v.length;
        }
      }
      return [JSON.stringify(raws), flat, lens] as const;
    });
    const acks = JSON.parse(this.#call((w) => w.putBatch(json, flat, lens)));
    this.#wrote();
    return (acks as unknown[]).map(conv.toAck);
  }

  async get(namespace: Namespace, key: string, options?: GetOptions): Promise<Memory | null> {
    if (options === undefined && typeof key === 'string' && isWellFormed(key) && isPlainNamespace(namespace)) {
      const m = JSON.parse(this.#call((w) => w.getLive(namespace.join(SEGMENT_SEPARATOR), key)));
      return m === null ? null : conv.toMemory(m);
    }
    const args = argument('get', () => {
      const o = opts(options, 'get options');
      return JSON.stringify({
        namespace,
        key,
        asOf: conv.asOfArg(o.asOf),
        validAt: conv.validAtArg(o.validAt),
        includeEmbedding: o.includeEmbedding === true,
      });
    });
    const m = JSON.parse(this.#call((w) => w.get(args)));
    return m === null ? null : conv.toMemory(m);
  }

  #deleteArgs(namespace: Namespace, key: string, options?: DeleteOptions): string {
    return argument('delete', () => {
      const o = opts(options, 'delete options');
      return JSON.stringify({ namespace, key, ifVersion: conv.optSafe(o.ifVersion, 'ifVersion') });
    });
  }

  async delete(namespace: Namespace, key: string, options?: DeleteOptions): Promise<number> {
    const args = this.#deleteArgs(namespace, key, options);
    const seq = this.#call((w) => w.delete(args));
    this.#wrote();
    return seq;
  }

  async list(options?: ListOptions): Promise<ListPage> {
    const q = argument('list', () => {
      const o = opts(options, 'list options');
      return JSON.stringify({
        ...o,
        prefix: o.prefix ?? [],
        limit: o.limit === undefined ? undefined : checkPositive(o.limit, 'limit'),
        cursor: o.cursor ?? undefined,
        asOf: conv.asOfArg(o.asOf),
        validAt: conv.validAtArg(o.validAt),
        includeEmbeddings: o.includeEmbeddings === true,
        filter: o.filter ?? [],
        valueFilter: o.valueFilter ?? [],
        offset: conv.optSafe(o.offset, 'offset'),
      });
    });
    const page = JSON.parse(this.#call((w) => w.list(q)));
    return { items: (page.items as unknown[]).map(conv.toMemory), nextCursor: page.nextCursor };
  }

  async listNamespaces(options?: ListNamespacesOptions): Promise<Namespace[]> {
    const q = argument('listNamespaces', () => {
      const o = opts(options, 'listNamespaces options');
      return JSON.stringify({
        ...o,
        prefix: o.prefix ?? [],
        suffix: o.suffix ?? [],
        maxDepth: conv.optSafe(o.maxDepth, 'maxDepth'),
        limit: conv.optSafe(o.limit, 'limit'),
        offset: conv.optSafe(o.offset, 'offset'),
      });
    });
    return JSON.parse(this.#call((w) => w.listNamespaces(q))) as Namespace[];
  }

  async historyPage(namespace: Namespace, key: string, options?: HistoryOptions): Promise<HistoryPage> {
    const o = opts(options, 'history options');
    const args = argument('history', () =>
      JSON.stringify({
        namespace,
        key,
        afterSeq: o.afterSeq === undefined ? undefined : checkSafe(o.afterSeq, 'afterSeq'),
        limit: o.limit === undefined ? undefined : checkPositive(o.limit, 'limit'),
      }),
    );
    const page = JSON.parse(this.#call((w) => w.history(args))) as engine.HistoryPage;
    return {
      versions: page.versions.map(conv.toMemory),
      nextAfterSeq: page.nextAfterSeq === null ? null : safeOut(page.nextAfterSeq, 'nextAfterSeq'),
    };
  }

  protected async searchEmbedded(query: SearchQuery): Promise<SearchHit[]> {
    return JSON.parse(this.#searchJson(query)) as SearchHit[];
  }

  protected override async searchJsonEmbedded(query: SearchQuery): Promise<string> {
    return this.#searchJson(query);
  }

  /** The engine's JSON text of `query`'s hits (synchronous: the engine call runs before the caller's first await). */
  #searchJson(query: SearchQuery): string {
    const [json, vector] = searchArgs(query);
    return this.#call((w) => w.search(json, vector));
  }

  protected async rememberEmbedded(fact: RememberFact): Promise<Remembered> {
    const [json, emb] = factArgs(fact, 'remember');
    const r = JSON.parse(this.#call((w) => w.remember(json, emb, false))) as Remembered;
    this.#wrote();
    return r;
  }

  protected async assessEmbedded(fact: RememberFact): Promise<Assessment> {
    const [json, emb] = factArgs(fact, 'assess');
    return JSON.parse(this.#call((w) => w.remember(json, emb, true))) as Assessment;
  }

  async consolidate(options: ConsolidateOptions): Promise<ConsolidateReport> {
    const json = consolidateArgs(options);
    const r = JSON.parse(this.#call((w) => w.consolidate(json))) as ConsolidateReport;
    if (r.decisions.length > 0) this.#wrote();
    return r;
  }

  protected async contextEmbedded(options: ContextOptions): Promise<ContextBlock> {
    const [json, vector] = contextArgs(options);
    return JSON.parse(this.#call((w) => w.context(json, vector))) as ContextBlock;
  }

  async putCheckpoint(c: CheckpointInput): Promise<number> {
    const json = argument('putCheckpoint', () => {
      if (typeof c !== 'object' || c === null) throw invalid('putCheckpoint takes a checkpoint object');
      const out = new Utf8Json().open({
        threadId: c.threadId,
        checkpointNs: c.checkpointNs ?? '',
        checkpointId: c.checkpointId,
        parentId: c.parentId ?? null,
        metadata: c.metadata ?? {},
        channelVersions: c.channelVersions ?? {},
      });
      out.text('"data":').data(c.data).text(',"blobs":[');
      (c.blobs ?? []).forEach((b, i) => {
        if (typeof b !== 'object' || b === null) throw invalid('each blob must be { channel, version, data }');
        out.text(i > 0 ? ',' : '').open({ channel: b.channel, version: b.version });
        out.text('"data":').data(b.data).text('}');
      });
      return out.text(']}').finish();
    });
    return this.#call((w) => w.putCheckpoint(json));
  }

  async getCheckpoint(threadId: string, options?: GetCheckpointOptions): Promise<Checkpoint | null> {
    const args = argument('getCheckpoint', () => {
      const o = opts(options, 'getCheckpoint options');
      return JSON.stringify({ ...o, threadId, checkpointNs: o.checkpointNs ?? '' });
    });
    const c = JSON.parse(this.#call((w) => w.getCheckpoint(args)));
    return c === null ? null : conv.toCheckpoint(c);
  }

  async listCheckpointsPage(options: ListCheckpointsOptions = {}): Promise<CheckpointPage> {
    const q = argument('listCheckpoints', () => {
      if (typeof options !== 'object' || options === null) throw invalid('listCheckpoints takes { threadId?, ... }');
      return JSON.stringify({
        ...options,
        limit: options.limit === undefined ? undefined : checkPositive(options.limit, 'limit'),
        filter: options.filter ?? [],
      });
    });
    const page = JSON.parse(this.#call((w) => w.listCheckpoints(q))) as {
      checkpoints: unknown[];
      nextBefore: string | null;
    };
    return { checkpoints: page.checkpoints.map(conv.toCheckpoint), nextBefore: page.nextBefore };
  }

  async putWrites(input: PutWritesInput): Promise<void> {
    const json = argument('putWrites', () => {
      if (typeof input !== 'object' || input === null)
        throw invalid('putWrites takes { threadId, checkpointId, taskId, writes }');
      if (!Array.isArray(input.writes)) throw invalid('writes must be an array of [channel, value] pairs');
      const out = new Utf8Json().open({
        threadId: input.threadId,
        checkpointNs: input.checkpointNs ?? '',
        checkpointId: input.checkpointId,
        taskId: input.taskId,
      });
      out.text('"writes":[');
      input.writes.forEach((w, i) => {
        if (!Array.isArray(w) || w.length !== 2) throw invalid('each write must be a [channel, value] pair');
        out
          .text(`${i > 0 ? ',' : ''}[${JSON.stringify(w[0]) ?? 'null'},`)
          .data(w[1])
          .text(']');
      });
      return out.text(']}').finish();
    });
    this.#call((w) => w.putWrites(json));
  }

  async deleteThread(threadId: string): Promise<number> {
    if (typeof threadId !== 'string') throw invalid('threadId must be a string');
    wellFormed(threadId, 'threadId');
    return this.#call((w) => w.deleteThread(threadId));
  }

  async notify(channel: string, payload: JsonValue): Promise<number> {
    if (typeof channel !== 'string') throw invalid('channel must be a string');
    wellFormed(channel, 'channel');
    const json = argument('notify payload', () => JSON.stringify(payload ?? null));
    return this.#call((w) => w.notify(channel, json));
  }

  async subscribe(filter: EventFilter, callback: (event: ChangeEvent) => unknown): Promise<Subscription> {
    if (typeof callback !== 'function') throw invalid('subscribe needs a callback');
    const sub: Sub = {
      filter: argument('subscribe filter', () => JSON.stringify(opts(filter, 'subscribe filter'))),
      callback,
      engineId: 0,
      generation: -1,
    };
    const id = this.#nextSub++;
    this.#call((w) => {
      sub.engineId = w.subscribe(sub.filter, (json: string) => this.#queue.push([id, json]));
      sub.generation = this.#generation;
    });
    this.#subs.set(id, sub);
    return {
      unsubscribe: async () => {
        if (!this.#subs.delete(id) || this.#closed) return;
        // After a trap the engine-side subscription died with its instance (and is not re-registered).
        this.#call((w) => {
          if (sub.generation === this.#generation) w.unsubscribe(sub.engineId);
        });
      },
    };
  }

  async changesPage(after: number, options?: ChangesOptions): Promise<ChangesPage> {
    const a = checkSafe(after, 'after');
    const o = opts(options, 'changes options');
    const filter = argument('changes filter', () => JSON.stringify(opts(o.filter, 'changes filter')));
    const limit = checkPositive(o.limit ?? 1000, 'limit');
    if (limit > 0xffffffff) throw invalid('limit is too large');
    const page = JSON.parse(this.#call((w) => w.changes(a, filter, limit))) as { events: unknown[]; more: boolean };
    return { events: page.events.map(conv.toEvent), more: page.more };
  }

  async stats(): Promise<Stats> {
    return JSON.parse(this.#call((w) => w.stats())) as Stats;
  }

  /** See `SearchWrites`; true when the store is closed or must reopen first. */
  searchWrites(): boolean {
    const inner = this.#generation === currentGeneration() ? this.#inner : undefined;
    return this.#closed || inner === undefined || inner.searchWrites();
  }

  async seq(): Promise<number> {
    return safeOut(
      this.#call((w) => w.seq()),
      'seq',
    );
  }

  async *exportStream(options: ExportStreamOptions = {}): AsyncIterable<string> {
    const bytes = options.chunkBytes ?? DEFAULT_EXPORT_CHUNK_BYTES;
    checkPositive(bytes, 'chunkBytes');
    let cursor: string | null = null;
    do {
      const chunk: { ndjson: string; cursor: string | null } = await this.exportChunk(cursor, bytes);
      cursor = chunk.cursor;
      yield chunk.ndjson;
    } while (cursor !== null);
  }

  async importStream(source: NdjsonSource): Promise<ImportProgress> {
    let progress: ImportProgress | undefined;
    try {
      for await (const { ndjson, first, last } of placedChunks(lineChunks(ndjsonLines(source)))) {
        progress = await this.importChunk(ndjson, { first, last });
      }
    } catch (e) {
      // The source failed (or a chunk did: the engine has already emptied the store).
      await this.importAbort().catch(() => false);
      throw toEdgememError(e);
    }
    if (!progress?.done) {
      await this.importAbort();
      throw invalid('the NDJSON export ended before its end line: nothing was imported');
    }
    return progress;
  }

  async exportChunk(
    cursor: string | null,
    maxBytes: number = DEFAULT_EXPORT_CHUNK_BYTES,
  ): Promise<{ ndjson: string; cursor: string | null }> {
    if (cursor !== null && typeof cursor !== 'string') throw invalid('cursor must be a string or null');
    checkPositive(maxBytes, 'maxBytes');
    const out = this.#call((w) => w.exportChunk(cursor ?? undefined, Math.min(maxBytes, 0xffffffff)));
    const chunk = { ndjson: out.ndjson, cursor: out.cursor ?? null };
    out.free();
    return chunk;
  }

  async importChunk(ndjson: string, at: ChunkPlace): Promise<ImportProgress> {
    return this.importChunkNoting(ndjson, at, undefined);
  }

  /**
   * `importChunk`, keeping `note` (where the source goes on) with the chunk in its transaction; after a crash
   * `importNote` reads it back, and the import goes on from there. @internal
   */
  async importChunkNoting(ndjson: string, at: ChunkPlace, note: string | undefined): Promise<ImportProgress> {
    if (typeof ndjson !== 'string') throw invalid('importChunk takes NDJSON text');
    wellFormed(ndjson, 'the NDJSON text');
    const { first, last } = opts(at, 'importChunk place');
    if (typeof first !== 'boolean' || typeof last !== 'boolean')
      throw invalid("importChunk takes the chunk's place in its stream: { first, last }, both booleans");
    const progress = JSON.parse(this.#call((w) => w.importChunk(ndjson, first, last, note))) as ImportProgress;
    if (progress.done) this.#wrote();
    return progress;
  }

  /** The note kept with the last chunk of the import in progress (null: none in progress, or no note). @internal */
  importNote(): string | null {
    return this.#call((w) => w.importNote()) ?? null;
  }

  async importAbort(): Promise<boolean> {
    return this.#call((w) => w.importAbort());
  }

  /** A host metadata entry kept in the store itself (`name`: 1-64 of a-z 0-9 . _ -), or null. */
  async appMeta(name: string): Promise<string | null> {
    if (typeof name !== 'string') throw invalid('a metadata name must be a string');
    return this.#call((w) => w.appMeta(name)) ?? null;
  }

  /** Sets (a string, at most 64 KiB) or removes (null) a host metadata entry; no seq, no event. */
  async setAppMeta(name: string, value: string | null): Promise<void> {
    if (typeof name !== 'string') throw invalid('a metadata name must be a string');
    if (value !== null && typeof value !== 'string') throw invalid('a metadata value must be a string or null');
    if (value !== null) wellFormed(value, 'a metadata value');
    this.#call((w) => w.setAppMeta(name, value ?? undefined));
  }

  /**
   * Turns the replica outbox on: from now on each local write queues its op in its own transaction (edgemem's
   * replica, replica/). @internal
   */
  replicaOutbox(on: boolean): void {
    this.#outbox = on;
    this.#call((w) => w.setOutbox(on));
  }

  /** The oldest `limit` ops still to push, in write order. @internal */
  outboxOps(limit: number): { id: number; op: ReplicaOp }[] {
    return JSON.parse(this.#call((w) => w.outboxOps(limit)));
  }

  /** How many ops are still to push. @internal */
  outboxLen(): number {
    return this.#call((w) => w.outboxLen());
  }

  /** Removes the ops up to and including id `through` (the agent applied them). @internal */
  outboxRemove(through: number): void {
    this.#call((w) => w.outboxRemove(through));
  }

  /**
   * At the agent: `put` as op `op` of replica `replica`, recorded with the write in its transaction, so a retry is
   * answered by `appliedOp` rather than applied again (the Worker's replica push).
   */
  async putOnce(replica: string, op: number, memory: MemoryInput): Promise<WriteAck> {
    const embedder = this.embedder;
    const [m = memory] = embedder ? await withEmbeddings(embedder, [memory]) : [memory];
    const [json, emb] = this.#putArgs(m);
    const ack = conv.toAck(JSON.parse(this.#call((w) => w.putOnce(json, emb, replica, op))));
    this.#wrote();
    return ack;
  }

  /** At the agent: `delete` as op `op` of replica `replica`, recorded as `putOnce` records a put. */
  async deleteOnce(replica: string, op: number, namespace: Namespace, key: string, options?: DeleteOptions) {
    const args = this.#deleteArgs(namespace, key, options);
    const seq = this.#call((w) => w.deleteOnce(args, replica, op));
    this.#wrote();
    return seq;
  }

  /** The seq of the write that applied op `op` of `replica`, or null. @internal */
  appliedOp(replica: string, op: number): number | null {
    return this.#call((w) => w.appliedOp(replica, op)) ?? null;
  }

  /** The cursor of the agent's changes applied here (0: none). @internal */
  replicaCursor(): number {
    return this.#call((w) => w.replicaCursor());
  }

  /** Applies a page of the agent's memories and moves the cursor, in one transaction. @internal */
  applyPulled(items: PulledMemory[], cursor: number): PullApplied {
    const done = JSON.parse(this.#call((w) => w.applyPulled(JSON.stringify(items), cursor))) as PullApplied;
    if (done.applied > 0) this.#wrote();
    return done;
  }

  /** Runs `f` (synchronous engine calls of this store) with the outbox off: the agent's own writes applied here. @internal */
  async withoutOutbox<T>(f: () => Promise<T>): Promise<T> {
    if (!this.#outbox) return f();
    this.#call((w) => w.setOutbox(false));
    try {
      return await f();
    } finally {
      this.#call((w) => w.setOutbox(true));
    }
  }

  async sweep(): Promise<number> {
    return this.#call((w) => w.sweep());
  }

  async maintain(): Promise<void> {
    this.#call((w) => w.maintain());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    try {
      this.#call((w) => w.close());
    } finally {
      this.#closed = true;
      this.#subs.clear();
      if (this.#inner && this.#generation === currentGeneration()) this.#inner.free();
      this.#inner = undefined;
      this.#pages.close?.();
    }
  }
}

export { EdgememError };
