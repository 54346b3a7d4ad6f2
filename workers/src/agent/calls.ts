/**
 * The store calls the Worker makes over RPC: `call` (one method of the table, allow-listed), `searchJson` and
 * `events` (a poll of the change feed). A call that writes runs inside `transactionSync` (the store is opened
 * atomic), so a trap or exception rolls back everything it wrote, and arms the maintenance alarm; a read-only call
 * runs without a transaction and may write no page (`run`).
 */
import type { ChangeEvent, EventFilter, LocalMemoryStore, SearchQuery } from 'edgemem';
import {
  CALL_METHODS,
  type CallMethod,
  callStore,
  READ_METHODS,
  STORE_METHODS,
  type StoreArgs,
  type StoreResult,
  WRITE_METHODS,
} from 'edgemem/rpc';
import { ApiError } from '../http-errors.js';
import type { Maintenance } from './alarm.js';
import type { AgentStore } from './open.js';

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
 * So do the searching reads (`search`, `assess`, `context`) while the store says it would write nothing
 * (`SearchWrites`): before BM25 reads the full-text index a search applies the writes buffered for it, which
 * writes pages; the alarm applies them when writes pause.
 */
const READ_ONLY = new Set<string>(READ_METHODS);
const SEARCHING = new Set<string>(CALL_METHODS.filter((m) => STORE_METHODS[m].access === 'search'));

/** A page of the change feed for polling (`events`): the events, the cursor to pass next time, whether more follow. */
export interface EventsPage {
  events: ChangeEvent[];
  last: number;
  more: boolean;
}

export class StoreCalls {
  readonly #store: AgentStore;
  readonly #maintenance: Maintenance;

  constructor(store: AgentStore, maintenance: Maintenance) {
    this.#store = store;
    this.#maintenance = maintenance;
  }

  /**
   * Runs one store method. A read-only method runs as a read (no transaction); should it try to write a page after
   * all (reopening its store after a trap, say), the write is refused and the call runs again as a write.
   */
  async call<M extends StoreMethod>(method: M, args: StoreArgs<M>): Promise<StoreResult<M>> {
    if (!METHODS.has(method)) throw new ApiError('INVALID_ARGUMENT', `unknown store method ${String(method)}`);
    return this.#run<StoreResult<M>>(method, (store) => callStore(store, METHODS, method, args));
  }

  /**
   * `search` answered as the JSON text of its hits (the engine's, not parsed here: `SearchJson`), which the
   * search route sends on as it is — the hits are neither parsed, cloned as objects over the RPC, nor
   * re-serialised.
   */
  searchJson(query: SearchQuery): Promise<string> {
    return this.#run('search', (store) => store.searchJson(query));
  }

  /**
   * A page of the change feed for polling: events with seq > `after` matching the filter, and the cursor to
   * pass next time. When the page is not full the cursor moves to the store's head (read before the
   * events, so nothing committed in between is skipped), so a filtered poller whose filter matched nothing
   * still advances and is not sent RESUME_GAP later for events it never needed.
   */
  async events(after: number, opts: { filter?: EventFilter; limit: number }): Promise<EventsPage> {
    // Both run as reads (no transaction): see `#run`.
    const head = await this.#run('seq', (store) => store.seq());
    const { events, more } = await this.#run('changesPage', (store) => store.changesPage(after, opts));
    const tail = events.at(-1)?.seq ?? after;
    return { events, last: more ? tail : Math.max(tail, head, after), more };
  }

  /** Runs `run` on the store as `method` runs: a read outside a transaction when it writes nothing (see `call`). */
  async #run<T>(method: StoreMethod, run: (store: LocalMemoryStore) => Promise<T>): Promise<T> {
    const store = await this.#store.open();
    const pages = this.#store.pages;
    if (pages && (READ_ONLY.has(method) || (SEARCHING.has(method) && !store.searchWrites()))) {
      // LocalStore makes a call's engine call before its first await: all of it runs inside `reading`.
      const read = pages.reading((): Promise<T> => run(store));
      if (!read.refused) return await read.value;
      await read.value.catch(() => undefined);
    }
    const value = await run(store);
    if (MUTATING.has(method)) await this.#maintenance.wrote();
    return value;
  }
}
