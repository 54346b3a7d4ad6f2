/**
 * `AgentMemory`: the Durable Object (SQLite-backed class) holding one agent's store. Its RPC methods are the
 * Worker's contract with it (agent-client.ts), and each answers with an Outcome: its value, or its error as a value
 * with its code (`wireOutcome`). Each job lives in agent/, and the class only delegates to it:
 *
 * - agent/open.ts — the store, opened on first use, and its settings (`settings`, `configure`);
 * - agent/calls.ts — the store calls (`call`, `searchJson`, `events`): reads outside a transaction, writes inside;
 * - agent/transfer.ts — the streamed export and import (`exportChunk`, `importChunk`, `importAbort`);
 * - agent/alarm.ts — the maintenance alarm (`alarm`), armed by writes (it consolidates too, when the agent says);
 * - agent/sockets.ts — the WebSocket feed (`fetch` for the upgrade, the hibernation API's handlers);
 * - agent/replica.ts — its replicas' pulls and pushes (`replicaPull`, `replicaPush`).
 */
import { DurableObject } from 'cloudflare:workers';
import type { ChunkPlace, EventFilter, ImportProgress, SearchQuery } from 'edgemem';
import type { StoreArgs, StoreResult } from 'edgemem/rpc';
import { Maintenance } from './agent/alarm.js';
import { type EventsPage, StoreCalls, type StoreMethod } from './agent/calls.js';
import { type AgentState, AgentStore } from './agent/open.js';
import { type PullPage, type PushedOp, type PushResult, Replicas } from './agent/replica.js';
import { Sockets } from './agent/sockets.js';
import { Transfer } from './agent/transfer.js';
import type { AgentSettings } from './agent-settings.js';
import type { Env } from './env.js';
import { type Outcome, wireOutcome } from './http-errors.js';
import { LiveFeed } from './live-feed.js';

export type { AgentState, EventsPage, StoreArgs, StoreMethod, StoreResult };

export class AgentMemory extends DurableObject<Env> {
  readonly #store: AgentStore;
  readonly #calls: StoreCalls;
  readonly #transfer: Transfer;
  readonly #maintenance: Maintenance;
  readonly #sockets: Sockets;
  readonly #replicas: Replicas;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const feed = new LiveFeed(ctx);
    this.#store = new AgentStore(ctx, env, feed);
    this.#maintenance = new Maintenance(ctx, env, this.#store);
    this.#calls = new StoreCalls(this.#store, this.#maintenance);
    this.#transfer = new Transfer(this.#store, this.#maintenance);
    this.#sockets = new Sockets(ctx, this.#store, feed);
    this.#replicas = new Replicas(ctx, this.#store, this.#maintenance);
  }

  /** The agent's effective settings and latest seq. */
  settings(): Promise<Outcome<AgentState>> {
    return wireOutcome(() => this.#store.state());
  }

  /** Replaces the agent's own settings and reopens its store with them (AgentStore.configure); others wait. */
  configure(own: AgentSettings): Promise<Outcome<AgentState>> {
    // Errors are turned into values inside: blockConcurrencyWhile rethrows them as plain Errors.
    return this.ctx.blockConcurrencyWhile(() =>
      wireOutcome(async () => {
        const state = await this.#store.configure(own);
        // Consolidation turned on: the alarm starts on what the agent already holds, without waiting for a write.
        if (own.consolidate && state.seq > 0) await this.#maintenance.arm();
        return state;
      }),
    );
  }

  /** Runs one store method of the table's one-call methods (StoreCalls.call). */
  call<M extends StoreMethod>(method: M, args: StoreArgs<M>): Promise<Outcome<StoreResult<M>>> {
    return wireOutcome(() => this.#calls.call(method, args));
  }

  /** `search` answered as the JSON text of its hits, which the search route sends on as it is. */
  searchJson(query: SearchQuery): Promise<Outcome<string>> {
    return wireOutcome(() => this.#calls.searchJson(query));
  }

  /** A page of the change feed for polling, and the cursor to pass next time (StoreCalls.events). */
  events(after: number, opts: { filter?: EventFilter; limit: number }): Promise<Outcome<EventsPage>> {
    return wireOutcome(() => this.#calls.events(after, opts));
  }

  /** One chunk of the agent's streamed export (routes/admin.ts streams them into the response). */
  exportChunk(cursor: string | null, maxBytes?: number): Promise<Outcome<{ ndjson: string; cursor: string | null }>> {
    return wireOutcome(() => this.#transfer.exportChunk(cursor, maxBytes));
  }

  /** Imports one chunk of NDJSON lines (routes/admin.ts feeds the request body through it). */
  importChunk(ndjson: string, at: ChunkPlace): Promise<Outcome<ImportProgress>> {
    return wireOutcome(() => this.#transfer.importChunk(ndjson, at));
  }

  /** Abandons an unfinished import (its request ended early): the store is emptied again. */
  importAbort(): Promise<Outcome<boolean>> {
    return wireOutcome(() => this.#transfer.importAbort());
  }

  /** The memories and checkpoints changed after `after`, as they are now (Replicas.pull). */
  replicaPull(after: number, limit: number): Promise<Outcome<PullPage>> {
    return wireOutcome(() => this.#replicas.pull(after, limit));
  }

  /** A replica's queued writes, applied in order, a retried op answered from the record (Replicas.push). */
  replicaPush(replica: string, ops: PushedOp[]): Promise<Outcome<PushResult[]>> {
    return wireOutcome(() => this.#replicas.push(replica, ops));
  }

  /** Maintenance: sweep, retention, index flush + snapshot; re-armed as agent/alarm.ts says. */
  override alarm(): Promise<void> {
    return this.#maintenance.run();
  }

  /** WebSocket upgrades (already authenticated by the Worker). */
  override async fetch(request: Request): Promise<Response> {
    return this.#sockets.accept(request);
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    return this.#sockets.message(ws, message);
  }

  override webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    return this.#sockets.close(ws, code, reason);
  }

  override webSocketError(ws: WebSocket): Promise<void> {
    return this.#sockets.error(ws);
  }
}
