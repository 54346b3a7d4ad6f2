/**
 * `connect({ url, agent, token })`: the remote `MemoryStore` — the same interface as an in-process store,
 * over the edgemem Worker's HTTP API v1 (one request per call) and its WebSocket feed (`subscribe`, see
 * remote-feed.ts). Errors are `EdgememError`s with the code of the Worker's error body (UNAUTHORIZED and
 * FORBIDDEN included); a network failure is INTERNAL.
 *
 * Differences from a local store, all from the HTTP API's limits (workers/README.md): namespace segments must
 * not contain `/`; `k` ≤ 100; batches ≤ 100 memories; pages ≤ 1000 items (`changes` pages through them up to
 * `limit`). `subscribe` callbacks run asynchronously, when the socket delivers.
 */

import { argument, checkSafe, EdgememError, invalid, safeOut } from '../api/errors.js';
import { checkFusion } from '../api/fusion.js';
import { lineChunks, ndjsonLines } from '../api/ndjson.js';
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
  SearchHit,
  SearchQuery,
  Stats,
  Subscription,
  WriteAck,
} from '../api/types.js';
import { type ModelOptions, toRememberModels } from '../coherence/index.js';
import { type EmbedderOption, toEmbedder } from '../embed/embedder.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import { StoreBase } from '../store/base.js';
import type { AgentInfo } from './admin.js';
import { type ReconnectOptions, RemoteSubscription, type WebSocketConstructor } from './feed.js';
import { type FetchLike, HttpClient, type QueryValue, type TokenSource } from './http.js';
import * as wire from './wire.js';

export interface ConnectOptions extends ModelOptions {
  /** Base URL of the edgemem Worker, e.g. `https://memory.example.com`. */
  url: string;
  /** The agent id (1–128 characters of `A-Z a-z 0-9 . _ : -`). */
  agent: string;
  /**
   * A token for this agent (scoped, from `mintToken` / `POST /v1/tokens`, or the admin token), or a function
   * returning a current one: it is called before each request and reconnect, so short-lived tokens can be renewed.
   */
  token: TokenSource;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /**
   * The WebSocket class for `subscribe`. Default: the global `WebSocket` (browsers, workerd, Node ≥ 22); the
   * Node entry falls back to the `ws` package (an optional peer dependency) where there is none.
   */
  WebSocket?: WebSocketConstructor;
  reconnect?: ReconnectOptions;
  /**
   * Called when a subscription ends on its own because it could not resume without losing events
   * (RESUME_GAP, with `oldestSeq`: resync, then subscribe again) or its token was refused (UNAUTHORIZED /
   * FORBIDDEN). Default: `console.error`.
   */
  onError?: (error: EdgememError) => void;
  /**
   * Embeds text on this side before it is sent (see `OpenOptions.embedder`): puts with text and no embedding,
   * searches with text and no vector. Not recorded in the agent (a Worker agent can embed itself: its settings).
   */
  embedder?: EmbedderOption;
}

/** `ConnectOptions` with an embedder: `connect` returns a `TextMemoryStore`. */
export type ConnectTextOptions = ConnectOptions & { embedder: EmbedderOption };

/** The remote store, wrapped when `options.embedder` is given. */
export async function remoteWithEmbedder(
  options: ConnectOptions,
  loadWebSocket?: WebSocketLoader,
): Promise<MemoryStore | TextMemoryStore> {
  const store = new RemoteStore(options, loadWebSocket);
  if (typeof options !== 'object' || options === null) return store;
  store.useModels(toRememberModels(options));
  if (options.embedder === undefined) return store;
  return store.useEmbedder(await toEmbedder(options.embedder), false);
}

/** How an entry finds a WebSocket class when `options.WebSocket` is not given. */
export type WebSocketLoader = () => Promise<WebSocketConstructor>;

export const globalWebSocket: WebSocketLoader = async () => {
  const ws = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!ws) throw new EdgememError('INVALID_ARGUMENT', 'no global WebSocket here: pass connect({ WebSocket })');
  return ws;
};

/** The remote store of one agent. */
export class RemoteStore extends StoreBase {
  readonly #http: HttpClient;
  readonly #agent: string;
  readonly #options: ConnectOptions;
  readonly #loadWebSocket: WebSocketLoader;
  readonly #subs = new Set<RemoteSubscription>();
  #closed = false;

  constructor(options: ConnectOptions, loadWebSocket: WebSocketLoader = globalWebSocket) {
    super();
    if (typeof options !== 'object' || options === null) throw invalid('connect takes { url, agent, token }');
    this.#http = new HttpClient(options);
    this.#agent = `/v1/agents/${wire.pathPart(options.agent, 'agent')}`;
    this.#options = options;
    this.#loadWebSocket = loadWebSocket;
  }

  #call<T>(method: string, path: string, options?: { query?: Record<string, QueryValue>; body?: unknown }): Promise<T> {
    if (this.#closed) return Promise.reject(invalid('the store is closed'));
    return this.#http.request<T>(method, this.#agent + path, options);
  }

  /** This agent's effective settings (`GET /v1/agents/{agent}`; a token with the `read` scope suffices). */
  agentInfo(): Promise<AgentInfo> {
    return this.#call<AgentInfo>('GET', '');
  }

  #memoryPath(key: string): string {
    return `/memories/${wire.pathPart(key, 'key')}`;
  }

  #memoryBody(m: MemoryInput) {
    if (typeof m !== 'object' || m === null) throw invalid('a memory must be an object');
    return {
      value: m.value,
      text: m.text,
      embedding: wire.vectorOut(m.embedding, 'embedding'),
      metadata: m.metadata,
      pinned: m.pinned,
      ttlMs: m.ttlMs,
      ifVersion: m.ifVersion,
      validFrom: m.validFrom,
      validTo: m.validTo,
    };
  }

  protected async putEmbedded(memory: MemoryInput): Promise<WriteAck> {
    const body = this.#memoryBody(memory);
    const ns = wire.nsQuery(memory.namespace);
    return wire.toAck(await this.#call('PUT', this.#memoryPath(memory.key), { query: { ns }, body }));
  }

  protected async putBatchEmbedded(memories: MemoryInput[]): Promise<WriteAck[]> {
    if (!Array.isArray(memories)) throw invalid('putBatch takes an array of memories');
    if (memories.length === 0) {
      if (this.#closed) throw invalid('the store is closed');
      return [];
    }
    const body = memories.map((m) => ({ ...this.#memoryBody(m), namespace: m.namespace, key: m.key }));
    const r = await this.#call<{ acks: unknown[] }>('POST', '/memories/batch', { body: { memories: body } });
    return r.acks.map(wire.toAck);
  }

  async get(namespace: Namespace, key: string, options: GetOptions = {}): Promise<Memory | null> {
    const query = {
      ns: wire.nsQuery(namespace),
      ...wire.asOfQuery(options.asOf),
      validAt: wire.validAtQuery(options.validAt),
      embedding: options.includeEmbedding ? 'true' : undefined,
    };
    try {
      return wire.toMemory(await this.#call('GET', this.#memoryPath(key), { query }));
    } catch (e) {
      if (e instanceof EdgememError && e.code === 'NOT_FOUND') return null;
      throw e;
    }
  }

  async delete(namespace: Namespace, key: string, options: DeleteOptions = {}): Promise<number> {
    const query = {
      ns: wire.nsQuery(namespace),
      ifVersion: options.ifVersion === undefined ? undefined : checkSafe(options.ifVersion, 'ifVersion'),
    };
    return (await this.#call<{ seq: number }>('DELETE', this.#memoryPath(key), { query })).seq;
  }

  async list(options: ListOptions = {}): Promise<ListPage> {
    const query = {
      prefix: wire.nsQuery(options.prefix, 'prefix'),
      limit: options.limit,
      cursor: options.cursor,
      ...wire.asOfQuery(options.asOf),
      validAt: wire.validAtQuery(options.validAt),
      embeddings: options.includeEmbeddings ? 'true' : undefined,
      filter: options.filter === undefined ? undefined : argument('list filter', () => JSON.stringify(options.filter)),
      valueFilter:
        options.valueFilter === undefined
          ? undefined
          : argument('list valueFilter', () => JSON.stringify(options.valueFilter)),
      offset: options.offset,
    };
    const page = await this.#call<{ items: unknown[]; nextCursor: string | null }>('GET', '/memories', { query });
    return { items: page.items.map(wire.toMemory), nextCursor: page.nextCursor };
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<Namespace[]> {
    if (typeof options !== 'object' || options === null) throw invalid('listNamespaces takes an options object');
    const query = {
      prefix: options.prefix === undefined ? undefined : wire.nsQuery(options.prefix, 'prefix'),
      suffix: options.suffix === undefined ? undefined : wire.nsQuery(options.suffix, 'suffix'),
      maxDepth: options.maxDepth,
      limit: options.limit,
      offset: options.offset,
    };
    return (await this.#call<{ namespaces: Namespace[] }>('GET', '/namespaces', { query })).namespaces;
  }

  async historyPage(namespace: Namespace, key: string, options: HistoryOptions = {}): Promise<HistoryPage> {
    const query = { ns: wire.nsQuery(namespace), afterSeq: options.afterSeq, limit: options.limit };
    const r = await this.#call<{ versions: unknown[]; nextAfterSeq: number | null }>(
      'GET',
      `${this.#memoryPath(key)}/history`,
      { query },
    );
    return { versions: r.versions.map(wire.toMemory), nextAfterSeq: r.nextAfterSeq ?? null };
  }

  protected async searchEmbedded(query: SearchQuery): Promise<SearchHit[]> {
    if (typeof query !== 'object' || query === null) throw invalid('search takes a query object');
    checkFusion(query.fusion);
    const body = { ...query, vector: wire.vectorOut(query.vector, 'vector') };
    return (await this.#call<{ hits: unknown[] }>('POST', '/search', { body })).hits.map(wire.toHit);
  }

  /** One fact: `POST /remember` (the extractor and the judge run on this side, before it). */
  protected async rememberEmbedded(fact: RememberFact): Promise<Remembered> {
    if (typeof fact !== 'object' || fact === null) throw invalid('remember takes { namespace, text }');
    const body = { ...fact, embedding: wire.vectorOut(fact.embedding, 'embedding') };
    return wire.toRemembered(await this.#call('POST', '/remember', { body }));
  }

  protected async assessEmbedded(fact: RememberFact): Promise<Assessment> {
    if (typeof fact !== 'object' || fact === null) throw invalid('assess takes { namespace, text }');
    const body = { ...fact, embedding: wire.vectorOut(fact.embedding, 'embedding') };
    return this.#call<Assessment>('POST', '/remember/assess', { body });
  }

  async consolidate(options: ConsolidateOptions): Promise<ConsolidateReport> {
    if (typeof options !== 'object' || options === null) throw invalid('consolidate takes { namespace }');
    const r = await this.#call<ConsolidateReport>('POST', '/consolidate', { body: options });
    return { ...r, decisions: r.decisions.map(wire.toRemembered) };
  }

  protected async contextEmbedded(options: ContextOptions): Promise<ContextBlock> {
    if (typeof options !== 'object' || options === null) throw invalid('context takes an options object');
    const body = { ...options, vector: wire.vectorOut(options.vector, 'vector') };
    return this.#call<ContextBlock>('POST', '/context', { body });
  }

  async putCheckpoint(c: CheckpointInput): Promise<number> {
    if (typeof c !== 'object' || c === null) throw invalid('a checkpoint must be an object');
    const { data, blobs, ...rest } = c;
    const body = {
      ...rest,
      ...wire.dataOut(data),
      blobs: blobs?.map(({ data: d, ...b }) => ({ ...b, ...wire.dataOut(d) })),
    };
    return (await this.#call<{ seq: number }>('POST', '/checkpoints', { body })).seq;
  }

  async getCheckpoint(threadId: string, options: GetCheckpointOptions = {}): Promise<Checkpoint | null> {
    const path = `/checkpoints/${wire.pathPart(threadId, 'threadId')}`;
    try {
      return wire.toCheckpoint(
        await this.#call('GET', path, {
          query: { checkpointNs: options.checkpointNs, checkpointId: options.checkpointId },
        }),
      );
    } catch (e) {
      if (e instanceof EdgememError && e.code === 'NOT_FOUND') return null;
      throw e;
    }
  }

  async listCheckpointsPage(options: ListCheckpointsOptions = {}): Promise<CheckpointPage> {
    if (typeof options !== 'object' || options === null) throw invalid('listCheckpoints takes { threadId?, ... }');
    const query = {
      threadId: options.threadId,
      checkpointNs: options.checkpointNs,
      before: options.before,
      limit: options.limit,
      filter:
        options.filter === undefined
          ? undefined
          : argument('listCheckpoints filter', () => JSON.stringify(options.filter)),
    };
    const r = await this.#call<{ checkpoints: unknown[]; nextBefore: string | null }>('GET', '/checkpoints', { query });
    return { checkpoints: r.checkpoints.map(wire.toCheckpoint), nextBefore: r.nextBefore ?? null };
  }

  async putWrites(input: PutWritesInput): Promise<void> {
    if (typeof input !== 'object' || input === null || !Array.isArray(input.writes)) {
      throw invalid('writes must be an array of [channel, value] pairs');
    }
    const { threadId, writes, ...rest } = input;
    const body = { ...rest, writes: writes.map(([channel, value]) => ({ channel, ...wire.dataOut(value) })) };
    await this.#call('POST', `/checkpoints/${wire.pathPart(threadId, 'threadId')}/writes`, { body });
  }

  async deleteThread(threadId: string): Promise<number> {
    return (await this.#call<{ deleted: number }>('DELETE', `/checkpoints/${wire.pathPart(threadId, 'threadId')}`))
      .deleted;
  }

  async notify(channel: string, payload: JsonValue): Promise<number> {
    if (typeof channel !== 'string') throw invalid('channel must be a string');
    return (await this.#call<{ seq: number }>('POST', '/notify', { body: { channel, payload: payload ?? null } })).seq;
  }

  async subscribe(filter: EventFilter, callback: (event: ChangeEvent) => void): Promise<Subscription> {
    if (this.#closed) throw invalid('the store is closed');
    if (typeof callback !== 'function') throw invalid('subscribe needs a callback');
    const given = this.#options.WebSocket;
    const ctx = {
      http: this.#http,
      agentPath: this.#agent,
      webSocket: given ? async () => given : this.#loadWebSocket,
      reconnect: this.#options.reconnect ?? {},
      onError: this.#options.onError ?? ((e: EdgememError) => console.error('edgemem: a subscription ended', e)),
    };
    const sub = await RemoteSubscription.open(ctx, filter ?? {}, callback, (s) => this.#subs.delete(s));
    if (this.#closed) {
      await sub.unsubscribe();
      throw invalid('the store is closed');
    }
    this.#subs.add(sub);
    return sub;
  }

  /** Its own loop over the events route, whose pages carry the cursor to go on from (`last`), filtered pages too. */
  override async changes(after: number, options: ChangesOptions = {}): Promise<ChangeEvent[]> {
    let cursor = checkSafe(after, 'after');
    const limit = checkSafe(options.limit ?? 1000, 'limit');
    const out: ChangeEvent[] = [];
    // The route pages at most 1000 events (and about 4 MiB); the local store's limit goes up to 10,000.
    while (out.length < limit) {
      const page = await this.#eventsPage(cursor, options.filter ?? {}, Math.min(1000, limit - out.length));
      out.push(...page.events);
      if (!page.more) break;
      cursor = page.last;
    }
    return out;
  }

  async changesPage(after: number, options: ChangesOptions = {}): Promise<ChangesPage> {
    const { events, more } = await this.#eventsPage(
      checkSafe(after, 'after'),
      options.filter ?? {},
      Math.min(1000, checkSafe(options.limit ?? 1000, 'limit')),
    );
    return { events, more };
  }

  async #eventsPage(after: number, f: EventFilter, limit: number): Promise<ChangesPage & { last: number }> {
    const query = {
      kind: f.kinds,
      prefix: f.namespaces?.map((ns) => wire.nsQuery(ns, 'filter.namespaces')),
      channel: f.channels,
      after,
      limit,
    };
    const r = await this.#call<{ events: unknown[]; last: number; more: boolean }>('GET', '/events', { query });
    return { events: r.events.map(wire.toEvent), last: r.last, more: r.more };
  }

  async stats(): Promise<Stats> {
    const s = await this.#call<Stats>('GET', '/stats');
    return { ...s, seq: safeOut(s.seq, 'seq') };
  }

  async seq(): Promise<number> {
    return (await this.stats()).seq;
  }

  async *exportStream(): AsyncIterable<string> {
    if (this.#closed) throw invalid('the store is closed');
    const res = await this.#http.stream('GET', `${this.#agent}/export`);
    if (!res.body) return;
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        if (text) yield text;
      }
      const tail = decoder.decode();
      if (tail) yield tail;
    } catch (e) {
      throw new EdgememError('INTERNAL', `the export stream broke off: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    } finally {
      reader.releaseLock();
    }
  }

  async importStream(source: NdjsonSource): Promise<ImportProgress> {
    if (this.#closed) throw invalid('the store is closed');
    // Whole lines, re-chunked as they come: the Worker reads the body as a stream too.
    const chunks = lineChunks(ndjsonLines(source));
    const encoder = new TextEncoder();
    let failed: unknown;
    // A source that fails mid-way aborts the request (an errored body alone can leave it hanging); the
    // Worker then abandons the import, as it does for any body that ends before its end line.
    const abort = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(`${next.value}\n`));
        } catch (e) {
          failed = e;
          abort.abort(e);
          controller.error(e);
        }
      },
    });
    try {
      const headers = { 'content-type': 'application/x-ndjson' };
      const res = await this.#http.stream('POST', `${this.#agent}/import`, { headers, body, signal: abort.signal });
      return (await res.json()) as ImportProgress;
    } catch (e) {
      // The source's own error (a bad line, a broken file) rather than the request's it caused.
      throw failed === undefined
        ? e
        : failed instanceof EdgememError
          ? failed
          : new EdgememError('INVALID_ARGUMENT', String(failed));
    }
  }

  async sweep(): Promise<number> {
    return (await this.#call<{ expired: number }>('POST', '/sweep')).expired;
  }

  async maintain(): Promise<void> {
    await this.#call('POST', '/maintain');
  }

  /** Ends every subscription; later calls reject with INVALID_ARGUMENT. Nothing is flushed: the Worker committed each call. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const sub of [...this.#subs]) await sub.unsubscribe();
  }
}

/** A remote store of `agent` on the edgemem Worker at `url`. No request is made until the first call. */
export async function connect(options: ConnectTextOptions): Promise<TextMemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore>;
export async function connect(options: ConnectOptions): Promise<MemoryStore | TextMemoryStore> {
  return remoteWithEmbedder(options);
}
