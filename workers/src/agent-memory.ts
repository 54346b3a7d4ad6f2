/**
 * `AgentMemory`: the Durable Object (SQLite-backed class) holding one agent's store. The Worker calls it
 * over RPC (`call`) for the HTTP API and forwards WebSocket upgrades to its `fetch`.
 *
 * - Storage: the engine's pages live in the object's synchronous KV (do-page-store.ts); every store call
 *   runs inside `transactionSync`, so a trap or exception rolls back everything that call wrote.
 * - Cold start is lazy: the store opens on the first call that needs it and stays open in this instance
 *   (opening reads only the pages it touches; the vector index loads its snapshot and replays what follows).
 * - After a trap the package re-creates the wasm instance and the store reopens from the pages before its
 *   next call: acknowledged writes were committed to the KV, so none is lost.
 * - Change feed → WebSockets (hibernation API): see live-feed.ts; opening the store restores the sockets'
 *   subscriptions, so writes made after a wake from hibernation push.
 * - Alarm: armed by writes; sweeps expired memories, applies history/event retention, flushes buffered
 *   vectors into the index and snapshots it. It re-arms while writes keep coming or something expired.
 */
import { DurableObject } from 'cloudflare:workers';
import { openStore, type MemoryStore } from 'edgemem';
import { DurableObjectPageStore } from './do-page-store.js';
import type { Env } from './env.js';
import { ApiError, toWire, type WireError } from './http-errors.js';
import { LIMITS } from './limits.js';
import { LiveFeed, send, type SocketAttachment } from './live-feed.js';
import { parseClientMessage } from './ws-messages.js';
import { alarmDelayMs, storeSettings } from './store-settings.js';

/** The store methods the Worker may call. */
export type StoreMethod =
  | 'put'
  | 'putBatch'
  | 'get'
  | 'delete'
  | 'list'
  | 'history'
  | 'search'
  | 'putCheckpoint'
  | 'getCheckpoint'
  | 'listCheckpoints'
  | 'putWrites'
  | 'deleteThread'
  | 'notify'
  | 'changes'
  | 'stats'
  | 'export'
  | 'import';

const METHODS = new Set<string>([
  'put', 'putBatch', 'get', 'delete', 'list', 'history', 'search', 'putCheckpoint', 'getCheckpoint',
  'listCheckpoints', 'putWrites', 'deleteThread', 'notify', 'changes', 'stats', 'export', 'import',
]);
const MUTATING = new Set<string>(['put', 'putBatch', 'delete', 'putCheckpoint', 'putWrites', 'deleteThread', 'notify', 'import']);

/** A call's result as it crosses the RPC boundary (errors as values keep their code). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WireError };

export type StoreArgs<M extends StoreMethod> = Parameters<MemoryStore[M]>;
export type StoreResult<M extends StoreMethod> = Awaited<ReturnType<MemoryStore[M]>>;

export class AgentMemory extends DurableObject<Env> {
  #store: Promise<MemoryStore> | undefined;
  readonly #feed: LiveFeed;
  #alarmArmed = false;
  #writesSinceAlarm = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#feed = new LiveFeed(ctx);
  }

  /** The store, opened on first use (and its sockets' subscriptions restored). */
  #open(): Promise<MemoryStore> {
    this.#store ??= (async () => {
      const store = await openStore({
        ...storeSettings(this.env),
        storage: { pages: new DurableObjectPageStore(this.ctx.storage), atomic: true },
      });
      await this.#feed.restore(store);
      return store;
    })().catch((e) => {
      this.#store = undefined; // the next call tries again
      throw e;
    });
    return this.#store;
  }

  /** Runs one store method; errors come back as values with their code. */
  async call<M extends StoreMethod>(method: M, args: StoreArgs<M>): Promise<Outcome<StoreResult<M>>> {
    try {
      if (!METHODS.has(method)) throw new ApiError('INVALID_ARGUMENT', `unknown store method ${String(method)}`);
      const store = await this.#open();
      const fn = store[method] as (...a: unknown[]) => Promise<StoreResult<M>>;
      const value = await fn.apply(store, args as unknown[]);
      if (MUTATING.has(method)) await this.#wrote();
      return { ok: true, value };
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

  override async alarm(): Promise<void> {
    this.#alarmArmed = false;
    const writes = this.#writesSinceAlarm;
    this.#writesSinceAlarm = 0;
    const store = await this.#open();
    const expired = await store.sweep();
    await store.maintain();
    if (writes > 0 || expired > 0) {
      this.#alarmArmed = true;
      await this.ctx.storage.setAlarm(Date.now() + alarmDelayMs(this.env));
    }
  }

  /** WebSocket upgrades (already authenticated by the Worker). */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return Response.json({ error: { code: 'INVALID_ARGUMENT', message: 'expected a WebSocket upgrade' } }, { status: 400 });
    }
    const pair = new WebSocketPair();
    const server = pair[1];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ filter: null } satisfies SocketAttachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    let store: MemoryStore;
    try {
      store = await this.#open();
    } catch (e) {
      send(ws, { type: 'error', seq: 0, error: toWire(e) });
      return;
    }
    const seq = async () => (await store.stats()).seq;
    const size = typeof message === 'string' ? message.length : message.byteLength;
    if (size > LIMITS.wsMessageBytes) {
      send(ws, { type: 'error', seq: await seq(), error: { code: 'PAYLOAD_TOO_LARGE', message: `messages are limited to ${LIMITS.wsMessageBytes} bytes` } });
      return;
    }
    const parsed = parseClientMessage(message);
    if (!parsed.ok) {
      send(ws, { type: 'error', seq: await seq(), error: parsed.error });
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'subscribe':
        await this.#feed.subscribe(store, ws, msg.filter ?? {}, msg.since);
        return;
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
