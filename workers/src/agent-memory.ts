/**
 * `AgentMemory`: the Durable Object (SQLite-backed class) holding one agent's store. The Worker calls it
 * over RPC (`call`) for the HTTP API and forwards WebSocket upgrades to its `fetch`.
 *
 * - Storage: the engine's pages live in a table of the object's SQLite (older stores: its synchronous KV;
 *   do-page-store.ts); every store call that writes runs inside `transactionSync`, so a trap or exception rolls
 *   back everything that call wrote (read-only calls run without one and may write no page: `#run`).
 * - Cold start is lazy: the store opens on the first call that needs it and stays open in this instance
 *   (opening reads only the pages it touches; the vector index loads its snapshot and replays what follows).
 * - After a trap the package re-creates the wasm instance and the store reopens from the pages before its
 *   next call: acknowledged writes were committed to the KV, so none is lost.
 * - Change feed → WebSockets (hibernation API): see live-feed.ts; opening the store restores the sockets'
 *   subscriptions, so writes made after a wake from hibernation push.
 * - Alarm: armed by writes; sweeps expired memories, applies history/event retention, flushes buffered
 *   vectors into the index and snapshots it. It re-arms while writes keep coming, for the next expiry, and
 *   hourly while age-based retention has something to prune (see `alarm`).
 */
import { DurableObject } from 'cloudflare:workers';
import {
  type ChangeEvent,
  type ChunkPlace,
  type EventFilter,
  type ImportProgress,
  type LocalMemoryStore,
  type MemoryStore,
  openStore,
  RETENTION_DEFAULTS,
  type SearchQuery,
} from 'edgemem';
import {
  CALL_METHODS,
  type CallMethod,
  callStore,
  outcome,
  READ_METHODS,
  type Outcome as RpcOutcome,
  type StoreArgs,
  type StoreResult,
  WRITE_METHODS,
} from 'edgemem/rpc';
import { agentEmbedder, checkEmbedder } from './agent-embedder.js';
import {
  type AgentSettings,
  type EffectiveSettings,
  effective,
  mergedSettings,
  readAgentSettings,
  shapeConflicts,
  writeAgentSettings,
} from './agent-settings.js';
import { DurableObjectPageStore, deletePages, hasPages } from './do-page-store.js';
import type { Env } from './env.js';
import { ApiError, toWire, type WireError } from './http-errors.js';
import { LIMITS } from './limits.js';
import {
  attachmentOf,
  closeIfExpired,
  LiveFeed,
  type SocketAttachment,
  send,
  TOKEN_EXPIRY_HEADER,
} from './live-feed.js';
import { alarmDelayMs } from './store-settings.js';
import { parseClientMessage } from './ws-messages.js';

/** What `PUT` / `GET /v1/agents/{agent}` answer (the Worker adds the agent id). */
export interface AgentState {
  settings: EffectiveSettings;
  seq: number;
}

/** How often an idle agent with age-limited events or history is woken to apply the limit. */
const IDLE_RETENTION_MS = 3600 * 1000;

/**
 * The store methods the Worker may call: the table's one-call methods (edgemem/rpc `CALL_METHODS`). Whole-store
 * and unbounded reads are not among them (`export`, `import`, `history`, `changes` and `listCheckpoints` without
 * pages): a call's result must fit in one RPC (32 MiB), so the routes use the paged and chunked forms.
 */
export type StoreMethod = CallMethod;
const METHODS = new Set<string>(CALL_METHODS);
/** Calls that change the store: each arms the maintenance alarm. */
const MUTATING = new Set<string>(WRITE_METHODS);
/**
 * Methods whose engine calls only read pages: they run without `transactionSync` (do-page-store.ts `reading`).
 * So does `search` while the store says it would write nothing (`SearchWrites`): before BM25 reads the full-text
 * index a search applies the writes buffered for it, which writes pages; the alarm applies them when writes pause.
 */
const READ_ONLY = new Set<string>(READ_METHODS);

/** A call's result as it crosses the RPC boundary (edgemem/rpc; errors as values keep their code). */
export type Outcome<T> = RpcOutcome<T, WireError>;
export type { StoreArgs, StoreResult };

export class AgentMemory extends DurableObject<Env> {
  #store: Promise<LocalMemoryStore> | undefined;
  /** The page store of the store `#store` opens. */
  #pages: DurableObjectPageStore | undefined;
  readonly #feed: LiveFeed;
  #alarmArmed = false;
  #writesSinceAlarm = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#feed = new LiveFeed(ctx);
  }

  /** The store, opened on first use (and its sockets' subscriptions restored). */
  #open(): Promise<LocalMemoryStore> {
    this.#store ??= (async () => {
      const own = readAgentSettings(this.ctx.storage);
      const settings = mergedSettings(this.env, own);
      // An existing store keeps the dims (and metric, scalar) it was created with.
      if (hasPages(this.ctx.storage)) settings.dims = 0;
      // With an embedder, puts and searches without vectors are embedded here, before the write transaction;
      // the store records it (a store made by another is INVALID_ARGUMENT).
      const embedder = own?.embedder && agentEmbedder(this.env, own.embedder);
      const pages = new DurableObjectPageStore(this.ctx.storage);
      this.#pages = pages;
      const store = await openStore({
        ...settings,
        ...(embedder ? { embedder, dims: embedder.dims } : {}),
        storage: { pages, atomic: true },
        // No timers in the object: its alarm runs maintain() (which indexes the buffers too).
        idleFlushMs: 0,
      });
      await this.#feed.restore(store);
      return store;
    })().catch((e) => {
      this.#store = undefined; // the next call tries again
      throw e;
    });
    return this.#store;
  }

  async #state(store: MemoryStore): Promise<AgentState> {
    const stats = await store.stats();
    const own = readAgentSettings(this.ctx.storage);
    const settings = mergedSettings(this.env, own);
    return {
      settings: effective(settings, { dims: stats.dims, metric: stats.metric, scalar: stats.scalar }, own?.embedder),
      seq: stats.seq,
    };
  }

  /** The agent's effective settings and latest seq. */
  async settings(): Promise<Outcome<AgentState>> {
    try {
      return { ok: true, value: await this.#state(await this.#open()) };
    } catch (e) {
      return { ok: false, error: toWire(e) };
    }
  }

  /**
   * Replaces the agent's own settings (agent-settings.ts) and reopens its store with them; while the agent
   * holds no data its empty store is re-created, so dims/metric/scalar can change; after that they must stay
   * (CONFLICT). Other requests wait until the store is open again. A store that fails to open with the new
   * settings (e.g. i8 without cosine) keeps the old ones.
   */
  async configure(own: AgentSettings): Promise<Outcome<AgentState>> {
    // Errors are turned into values inside: blockConcurrencyWhile rethrows them as plain Errors.
    return this.ctx.blockConcurrencyWhile(async (): Promise<Outcome<AgentState>> => {
      try {
        return { ok: true, value: await this.#configure(own) };
      } catch (e) {
        return { ok: false, error: toWire(e) };
      }
    });
  }

  async #configure(own: AgentSettings): Promise<AgentState> {
    if (own.embedder) {
      checkEmbedder(this.env, own.embedder);
      own = { ...own, dims: own.embedder.dims }; // the embedder's vectors set the store's dims
    }
    const store = await this.#open();
    const current = await this.#state(store);
    const empty = current.seq === 0;
    // An agent holding data keeps its store's shape unless the document names one (then it must match).
    const has = current.settings;
    const want = effective(
      mergedSettings(
        this.env,
        empty
          ? own
          : { ...own, dims: own.dims ?? has.dims, metric: own.metric ?? has.metric, scalar: own.scalar ?? has.scalar },
      ),
    );
    if (!empty) {
      const conflicts = shapeConflicts(want, current.settings);
      if (conflicts.length) {
        throw new ApiError(
          'CONFLICT',
          `agent holds data: its store keeps ${conflicts.join(', ')}; only caps, retention and size limits can change now`,
        );
      }
    }
    const previous = readAgentSettings(this.ctx.storage);
    await store.close();
    this.#store = undefined;
    this.#feed.forget();
    const wipe = () => {
      if (!empty) return;
      this.ctx.storage.transactionSync(() => deletePages(this.ctx.storage));
    };
    wipe();
    writeAgentSettings(this.ctx.storage, own);
    try {
      return await this.#state(await this.#open());
    } catch (e) {
      wipe();
      writeAgentSettings(this.ctx.storage, previous);
      await this.#open().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Runs one store method; errors come back as values with their code. A read-only method runs as a read (no
   * transaction); should it try to write a page after all (reopening its store after a trap, say), the write
   * is refused and the call runs again as a write.
   */
  call<M extends StoreMethod>(method: M, args: StoreArgs<M>): Promise<Outcome<StoreResult<M>>> {
    return outcome<StoreResult<M>, WireError>(async () => {
      if (!METHODS.has(method)) throw new ApiError('INVALID_ARGUMENT', `unknown store method ${String(method)}`);
      return this.#run<StoreResult<M>>(method, (store) => callStore(store, METHODS, method, args));
    }, toWire);
  }

  /**
   * `search` answered as the JSON text of its hits (the engine's, not parsed here: `SearchJson`), which the
   * search route sends on as it is — the hits are neither parsed, cloned as objects over the RPC, nor
   * re-serialised.
   */
  searchJson(query: SearchQuery): Promise<Outcome<string>> {
    return outcome<string, WireError>(() => this.#run('search', (store) => store.searchJson(query)), toWire);
  }

  /** Runs `run` on the store as `method` runs: a read outside a transaction when it writes nothing (see `call`). */
  async #run<T>(method: StoreMethod, run: (store: LocalMemoryStore) => Promise<T>): Promise<T> {
    const store = await this.#open();
    const pages = this.#pages;
    if (pages && (READ_ONLY.has(method) || (method === 'search' && !store.searchWrites()))) {
      // LocalStore makes a call's engine call before its first await: all of it runs inside `reading`.
      const read = pages.reading((): Promise<T> => run(store));
      if (!read.refused) return await read.value;
      await read.value.catch(() => undefined);
    }
    const value = await run(store);
    if (MUTATING.has(method)) await this.#wrote();
    return value;
  }

  /**
   * A page of the change feed for polling: events with seq > `after` matching the filter, and the cursor to
   * pass next time. When the page is not full the cursor moves to the store's head (read before the
   * events, so nothing committed in between is skipped), so a filtered poller whose filter matched nothing
   * still advances and is not sent RESUME_GAP later for events it never needed.
   */
  async events(
    after: number,
    opts: { filter?: EventFilter; limit: number },
  ): Promise<Outcome<{ events: ChangeEvent[]; last: number; more: boolean }>> {
    try {
      // Both run as reads (no transaction): see `#run`.
      const head = await this.#run('seq', (store) => store.seq());
      const { events, more } = await this.#run('changesPage', (store) => store.changesPage(after, opts));
      const tail = events.at(-1)?.seq ?? after;
      return { ok: true, value: { events, last: more ? tail : Math.max(tail, head, after), more } };
    } catch (e) {
      return { ok: false, error: toWire(e) };
    }
  }

  /** One chunk of the agent's streamed export (routes/admin.ts streams them into the response). */
  async exportChunk(cursor: string | null): Promise<Outcome<{ ndjson: string; cursor: string | null }>> {
    try {
      const store = await this.#open();
      return { ok: true, value: await store.exportChunk(cursor, LIMITS.exportChunkBytes) };
    } catch (e) {
      return { ok: false, error: toWire(e) };
    }
  }

  /** Imports one chunk of NDJSON lines (routes/admin.ts feeds the request body through it). */
  async importChunk(ndjson: string, at: ChunkPlace): Promise<Outcome<ImportProgress>> {
    try {
      const store = await this.#open();
      const value = await store.importChunk(ndjson, at);
      await this.#wrote();
      return { ok: true, value };
    } catch (e) {
      return { ok: false, error: toWire(e) };
    }
  }

  /** Abandons an unfinished import (its request ended early): the store is emptied again. */
  async importAbort(): Promise<Outcome<boolean>> {
    try {
      const store = await this.#open();
      return { ok: true, value: await store.importAbort() };
    } catch (e) {
      return { ok: false, error: toWire(e) };
    }
  }

  /** Arms the maintenance alarm after a write, unless one is pending. */
  async #wrote(): Promise<void> {
    this.#writesSinceAlarm++;
    if (this.#alarmArmed) return;
    this.#alarmArmed = true;
    if ((await this.ctx.storage.getAlarm()) === null) {
      await this.ctx.storage.setAlarm(Date.now() + alarmDelayMs(this.env));
    }
  }

  /**
   * Maintenance: sweep, retention, index flush + snapshot. Then re-arms for the earliest of: the usual delay
   * while writes keep coming (or something expired), the next memory's expiry (so its `expire` event is
   * pushed without waiting for a write), and, while the store keeps events or history under an age limit,
   * an idle check at most hourly (so age-based retention reaches idle agents too).
   */
  override async alarm(): Promise<void> {
    this.#alarmArmed = false;
    const writes = this.#writesSinceAlarm;
    this.#writesSinceAlarm = 0;
    const store = await this.#open();
    const expired = await store.sweep();
    await store.maintain();
    const now = Date.now();
    const delay = alarmDelayMs(this.env);
    const stats = await store.stats();
    const when: number[] = [];
    if (writes > 0 || expired > 0) when.push(now + delay);
    if (stats.nextExpiryAt !== null) when.push(Math.max(stats.nextExpiryAt + 1, now + 1_000));
    const { retention } = mergedSettings(this.env, readAgentSettings(this.ctx.storage));
    const ageLimited =
      (retention?.eventsMaxAgeMs ?? RETENTION_DEFAULTS.eventsMaxAgeMs) > 0 ||
      (retention?.historyMaxAgeMs ?? RETENTION_DEFAULTS.historyMaxAgeMs) > 0;
    if (ageLimited && (stats.events > 0 || stats.versions > stats.memories))
      when.push(now + Math.max(delay, IDLE_RETENTION_MS));
    if (when.length) {
      this.#alarmArmed = true;
      await this.ctx.storage.setAlarm(Math.min(...when));
    }
  }

  /** WebSocket upgrades (already authenticated by the Worker). */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return Response.json(
        { error: { code: 'INVALID_ARGUMENT', message: 'expected a WebSocket upgrade' } },
        { status: 400 },
      );
    }
    const pair = new WebSocketPair();
    const server = pair[1];
    this.ctx.acceptWebSocket(server);
    const exp = Number(request.headers.get(TOKEN_EXPIRY_HEADER) || NaN);
    server.serializeAttachment({
      filter: null,
      expiresAt: Number.isFinite(exp) ? exp : null,
    } satisfies SocketAttachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (closeIfExpired(ws, attachmentOf(ws).expiresAt)) {
      await this.#feed.unsubscribe(ws);
      return;
    }
    // The seq a reply carries. An object woken from hibernation by a message has no open store: a ping, a bad
    // message or an unsubscribe is answered without opening it (a cold open per heartbeat would defeat
    // hibernation), with the last seq this socket was told about — everything before it was sent.
    const told = () => attachmentOf(ws).sent ?? 0;
    const seq = async () => (this.#store ? this.#store.then((s) => s.seq()).catch(told) : told());
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only long strings are encoded to count their bytes.
    const size =
      typeof message !== 'string'
        ? message.byteLength
        : message.length * 3 <= LIMITS.wsMessageBytes
          ? message.length
          : new TextEncoder().encode(message).byteLength;
    if (size > LIMITS.wsMessageBytes) {
      send(ws, {
        type: 'error',
        seq: await seq(),
        error: { code: 'PAYLOAD_TOO_LARGE', message: `messages are limited to ${LIMITS.wsMessageBytes} bytes` },
      });
      return;
    }
    const parsed = parseClientMessage(message);
    if (!parsed.ok) {
      send(ws, { type: 'error', seq: await seq(), error: parsed.error });
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'subscribe': {
        let store: MemoryStore;
        try {
          store = await this.#open();
        } catch (e) {
          send(ws, { type: 'error', seq: told(), error: toWire(e) });
          return;
        }
        await this.#feed.subscribe(store, ws, msg.filter ?? {}, msg.since);
        return;
      }
      case 'unsubscribe':
        await this.#feed.unsubscribe(ws);
        send(ws, { type: 'unsubscribed', seq: await seq() });
        return;
      case 'ping':
        send(ws, { type: 'pong', seq: await seq() });
        return;
    }
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    await this.#feed.unsubscribe(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.#feed.unsubscribe(ws);
  }
}
