/**
 * The agent's store inside its Durable Object, and its settings: opened on first use with the agent's settings over
 * the Worker's defaults (agent-settings.ts), its state (effective settings, latest seq), and `configure`, which
 * re-creates an empty store or reopens one holding data with new settings.
 *
 * - Storage: the engine's pages live in a table of the object's SQLite (older stores: its synchronous KV;
 *   do-page-store.ts), opened atomic: a call that writes runs inside `transactionSync` (calls.ts).
 * - Cold start is lazy: the store opens on the first call that needs it and stays open in this instance (opening
 *   reads only the pages it touches; the vector index loads its snapshot and replays what follows).
 * - After a trap the package re-creates the wasm instance and the store reopens from the pages before its next
 *   call: acknowledged writes were committed, so none is lost.
 * - Opening the store restores its sockets' subscriptions (live-feed.ts), so writes made after a wake from
 *   hibernation push.
 */
import { type LocalMemoryStore, type MemoryStore, openStore } from 'edgemem';
import { agentEmbedder, checkEmbedder } from '../agent-embedder.js';
import {
  type AgentSettings,
  type EffectiveSettings,
  effective,
  mergedSettings,
  readAgentSettings,
  shapeConflicts,
  writeAgentSettings,
} from '../agent-settings.js';
import { DurableObjectPageStore, deletePages, hasPages } from '../do-page-store.js';
import type { Env } from '../env.js';
import { ApiError } from '../http-errors.js';
import type { LiveFeed } from '../live-feed.js';

/** What `PUT` / `GET /v1/agents/{agent}` answer (the Worker adds the agent id). */
export interface AgentState {
  settings: EffectiveSettings;
  seq: number;
}

export class AgentStore {
  readonly #ctx: DurableObjectState;
  readonly #env: Env;
  readonly #feed: LiveFeed;
  #store: Promise<LocalMemoryStore> | undefined;
  /** The page store of the store `#store` opens. */
  #pages: DurableObjectPageStore | undefined;

  constructor(ctx: DurableObjectState, env: Env, feed: LiveFeed) {
    this.#ctx = ctx;
    this.#env = env;
    this.#feed = feed;
  }

  /** The store, opened on first use (and its sockets' subscriptions restored). */
  open(): Promise<LocalMemoryStore> {
    this.#store ??= (async () => {
      const own = readAgentSettings(this.#ctx.storage);
      const settings = mergedSettings(this.#env, own);
      // An existing store keeps the dims (and metric, scalar) it was created with.
      if (hasPages(this.#ctx.storage)) settings.dims = 0;
      // With an embedder, puts and searches without vectors are embedded here, before the write transaction;
      // the store records it (a store made by another is INVALID_ARGUMENT).
      const embedder = own?.embedder && agentEmbedder(this.#env, own.embedder);
      const pages = new DurableObjectPageStore(this.#ctx.storage);
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

  /** The store while it is open or opening, else undefined (what can answer without opening it asks). */
  get opened(): Promise<LocalMemoryStore> | undefined {
    return this.#store;
  }

  /** The page store of the store `open` opened last. */
  get pages(): DurableObjectPageStore | undefined {
    return this.#pages;
  }

  /** The agent's effective settings and latest seq. */
  async state(): Promise<AgentState> {
    return this.#state(await this.open());
  }

  async #state(store: MemoryStore): Promise<AgentState> {
    const stats = await store.stats();
    const own = readAgentSettings(this.#ctx.storage);
    const settings = mergedSettings(this.#env, own);
    return {
      settings: effective(settings, { dims: stats.dims, metric: stats.metric, scalar: stats.scalar }, own),
      seq: stats.seq,
    };
  }

  /**
   * Replaces the agent's own settings (agent-settings.ts) and reopens its store with them; while the agent
   * holds no data its empty store is re-created, so dims/metric/scalar can change; after that they must stay
   * (CONFLICT). The object runs it under `blockConcurrencyWhile`: other requests wait until the store is open
   * again. A store that fails to open with the new settings (e.g. i8 without cosine) keeps the old ones.
   */
  async configure(own: AgentSettings): Promise<AgentState> {
    if (own.embedder) {
      checkEmbedder(this.#env, own.embedder);
      own = { ...own, dims: own.embedder.dims }; // the embedder's vectors set the store's dims
    }
    const storage = this.#ctx.storage;
    const store = await this.open();
    const current = await this.#state(store);
    const empty = current.seq === 0;
    // An agent holding data keeps its store's shape unless the document names one (then it must match).
    const has = current.settings;
    const want = effective(
      mergedSettings(
        this.#env,
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
    const previous = readAgentSettings(storage);
    await store.close();
    this.#store = undefined;
    this.#feed.forget();
    const wipe = () => {
      if (!empty) return;
      storage.transactionSync(() => deletePages(storage));
    };
    wipe();
    writeAgentSettings(storage, own);
    try {
      return await this.#state(await this.open());
    } catch (e) {
      wipe();
      writeAgentSettings(storage, previous);
      await this.open().catch(() => undefined);
      throw e;
    }
  }
}
