/**
 * `ReplicaStore`: the `MemoryStore` of a live local replica of an edge agent. Every read is the local engine's
 * (never a network wait); every write is applied locally at once and queued in the same local transaction, then
 * pushed by the sync (sync.ts); `status()` and `on()` tell a UI where sync is. A token without the `write` scope
 * makes a read-only replica: its writes are refused here with FORBIDDEN.
 */

import { EdgememError, invalid } from '../api/errors.js';
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
  PutWritesInput,
  Remembered,
  RememberInput,
  SearchHit,
  SearchQuery,
  Stats,
  Subscription,
  WriteAck,
} from '../api/types.js';
import type { LocalStore } from '../local/local-store.js';
import type { ReplicaEmitter, ReplicaEventName, ReplicaEvents, ReplicaStatus } from './status.js';
import type { ReplicaSync } from './sync.js';

/** What a replica adds to a `MemoryStore`. */
export interface ReplicaControls {
  /** This replica's id at its agent (its pushed ops are recorded under it). */
  readonly replicaId: string;
  /** Where sync is now. */
  status(): ReplicaStatus;
  /** Pushes and pulls now; resolves when caught up, rejects when the agent cannot be reached (sync goes on retrying). */
  sync(): Promise<void>;
  /** Listens to `status`, `sync`, `conflict` or `rejected`; returns a function that stops listening. */
  on<E extends ReplicaEventName>(event: E, listener: (e: ReplicaEvents[E]) => void): () => void;
}

export type ReplicaMemoryStore = MemoryStore & ReplicaControls;

interface LocalSub {
  filter: EventFilter;
  callback: (event: ChangeEvent) => unknown;
  inner: Subscription;
}

/** The replica's store: local reads, local writes queued and pushed. */
export class ReplicaStore implements ReplicaMemoryStore {
  readonly #replicaId: () => string;
  #store: LocalStore;
  readonly #sync: ReplicaSync;
  readonly #events: ReplicaEmitter;
  readonly #notify: (channel: string, payload: JsonValue) => Promise<number>;
  readonly #onClose: () => Promise<void>;
  /** While the local store is being replaced (a reload): calls wait for the new one. */
  #swap: Promise<void> | undefined;
  readonly #subs = new Set<LocalSub>();
  #closed = false;

  constructor(options: {
    store: LocalStore;
    replicaId: () => string;
    sync: ReplicaSync;
    events: ReplicaEmitter;
    notify: (channel: string, payload: JsonValue) => Promise<number>;
    onClose: () => Promise<void>;
  }) {
    this.#store = options.store;
    this.#replicaId = options.replicaId;
    this.#sync = options.sync;
    this.#events = options.events;
    this.#notify = options.notify;
    this.#onClose = options.onClose;
  }

  get replicaId(): string {
    return this.#replicaId();
  }

  /** The local store now. @internal */
  get local(): LocalStore {
    return this.#store;
  }

  /**
   * Replaces the local store (a reload past retention): calls wait until `swap` resolves with the new store, and
   * local subscriptions move to it. @internal
   */
  async replace(swap: () => Promise<LocalStore>): Promise<void> {
    let done: () => void = () => undefined;
    this.#swap = new Promise((resolve) => {
      done = resolve;
    });
    try {
      this.#store = await swap();
      for (const sub of this.#subs) sub.inner = await this.#store.subscribe(sub.filter, sub.callback);
    } finally {
      this.#swap = undefined;
      done();
    }
  }

  status(): ReplicaStatus {
    return { ...this.#sync.status };
  }

  sync(): Promise<void> {
    if (this.#closed) return Promise.reject(invalid('the store is closed'));
    return this.#sync.sync();
  }

  on<E extends ReplicaEventName>(event: E, listener: (e: ReplicaEvents[E]) => void): () => void {
    return this.#events.on(event, listener);
  }

  async #local(): Promise<LocalStore> {
    if (this.#closed) throw invalid('the store is closed');
    while (this.#swap) await this.#swap;
    return this.#store;
  }

  /** A write: refused on a read-only replica; applied locally (queued with it) after any first snapshot; pushed soon. */
  async #write<T>(write: (store: LocalStore) => Promise<T>): Promise<T> {
    if (!this.#sync.status.writable) {
      throw new EdgememError('FORBIDDEN', "this replica's token has no write scope: it is read-only");
    }
    await this.#sync.settled();
    const store = await this.#local();
    // A first snapshot interrupted offline: this write comes first (the next sync pulls from the start instead).
    if (store.importNote() !== null) await store.importAbort();
    const out = await write(store);
    this.#sync.wrote();
    return out;
  }

  put(memory: MemoryInput): Promise<WriteAck> {
    return this.#write((s) => s.put(memory));
  }
  putBatch(memories: MemoryInput[]): Promise<WriteAck[]> {
    return this.#write((s) => s.putBatch(memories));
  }
  // The hot reads hand the local store's promise back as it is: no await of their own when nothing is swapping.
  get(namespace: Namespace, key: string, options?: GetOptions): Promise<Memory | null> {
    if (this.#swap || this.#closed) return this.#local().then((s) => s.get(namespace, key, options));
    return this.#store.get(namespace, key, options);
  }
  delete(namespace: Namespace, key: string, options?: DeleteOptions): Promise<number> {
    return this.#write((s) => s.delete(namespace, key, options));
  }
  async list(options?: ListOptions): Promise<ListPage> {
    return (await this.#local()).list(options);
  }
  async listNamespaces(options?: ListNamespacesOptions): Promise<Namespace[]> {
    return (await this.#local()).listNamespaces(options);
  }
  async history(namespace: Namespace, key: string): Promise<Memory[]> {
    return (await this.#local()).history(namespace, key);
  }
  async historyPage(namespace: Namespace, key: string, options?: HistoryOptions): Promise<HistoryPage> {
    return (await this.#local()).historyPage(namespace, key, options);
  }
  search(query: SearchQuery): Promise<SearchHit[]> {
    if (this.#swap || this.#closed) return this.#local().then((s) => s.search(query));
    return this.#store.search(query);
  }
  /** Decided by the local engine against the replica's memories; what it writes is pushed as puts. */
  remember(input: RememberInput): Promise<Remembered[]> {
    return this.#write((s) => s.remember(input));
  }
  async assess(input: RememberInput): Promise<Assessment> {
    return (await this.#local()).assess(input);
  }
  consolidate(options: ConsolidateOptions): Promise<ConsolidateReport> {
    return this.#write((s) => s.consolidate(options));
  }
  async context(options?: ContextOptions): Promise<ContextBlock> {
    return (await this.#local()).context(options);
  }
  putCheckpoint(checkpoint: CheckpointInput): Promise<number> {
    return this.#write((s) => s.putCheckpoint(checkpoint));
  }
  async getCheckpoint(threadId: string, options?: GetCheckpointOptions): Promise<Checkpoint | null> {
    return (await this.#local()).getCheckpoint(threadId, options);
  }
  async listCheckpoints(options?: ListCheckpointsOptions): Promise<Checkpoint[]> {
    return (await this.#local()).listCheckpoints(options);
  }
  async listCheckpointsPage(options?: ListCheckpointsOptions): Promise<CheckpointPage> {
    return (await this.#local()).listCheckpointsPage(options);
  }
  putWrites(input: PutWritesInput): Promise<void> {
    return this.#write((s) => s.putWrites(input));
  }
  deleteThread(threadId: string): Promise<number> {
    return this.#write((s) => s.deleteThread(threadId));
  }

  /** Publishes on the agent's feed (every side sees it): needs the agent, not the replica — offline it fails. */
  async notify(channel: string, payload: JsonValue): Promise<number> {
    if (this.#closed) throw invalid('the store is closed');
    return this.#notify(channel, payload);
  }

  /** This replica's own changes: local writes and the agent's changes as they are applied here (local seqs). */
  async subscribe(filter: EventFilter, callback: (event: ChangeEvent) => unknown): Promise<Subscription> {
    const inner = await (await this.#local()).subscribe(filter, callback);
    const sub: LocalSub = { filter, callback, inner };
    this.#subs.add(sub);
    return {
      unsubscribe: async () => {
        this.#subs.delete(sub);
        await sub.inner.unsubscribe();
      },
    };
  }
  async changes(after: number, options?: ChangesOptions): Promise<ChangeEvent[]> {
    return (await this.#local()).changes(after, options);
  }
  async changesPage(after: number, options?: ChangesOptions): Promise<ChangesPage> {
    return (await this.#local()).changesPage(after, options);
  }
  async stats(): Promise<Stats> {
    return (await this.#local()).stats();
  }
  async seq(): Promise<number> {
    return (await this.#local()).seq();
  }
  async export(): Promise<ExportDoc> {
    return (await this.#local()).export();
  }
  async import(_doc: ExportDoc): Promise<void> {
    throw invalid("a replica's data comes from its agent: import into the agent instead");
  }
  async *exportStream(options?: ExportStreamOptions): AsyncIterable<string> {
    yield* (await this.#local()).exportStream(options);
  }
  async importStream(): Promise<ImportProgress> {
    throw invalid("a replica's data comes from its agent: import into the agent instead");
  }
  async sweep(): Promise<number> {
    return (await this.#local()).sweep();
  }
  async maintain(): Promise<void> {
    return (await this.#local()).maintain();
  }

  /** Stops syncing (queued writes stay queued: the next open pushes them) and closes the local store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    while (this.#swap) await this.#swap;
    this.#closed = true;
    this.#sync.close();
    await this.#onClose();
    await this.#store.close();
  }
}
