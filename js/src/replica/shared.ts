/**
 * An OPFS replica shared by the tabs of an origin. OPFS lets one context hold a store's files, so one tab owns the
 * replica — the one holding the Web Lock `edgemem-replica:<name>` — and serves it to the others over a
 * BroadcastChannel: each other tab's calls go to it (one channel per tab, `serveRpc`), and it sends them the
 * replica's status and events and its change events. When the owning tab closes, its lock is released, the next
 * tab in line takes it, opens the replica itself (a first sync it interrupted goes on from the last chunk taken)
 * and serves the rest; calls in flight to the closed tab fail with UNAVAILABLE-like INTERNAL errors and may be
 * made again.
 */

import { EdgememError, invalid } from '../api/errors.js';
import type { ChangeEvent, EventFilter, ExportStreamOptions, MemoryStore, Subscription } from '../api/types.js';
import { RpcClient, serveRpc } from '../rpc/index.js';
import { storeOverRpc } from '../rpc/store-over-rpc.js';
import { CALL_METHODS, STORE_METHODS, type StoreMethodName } from '../store/methods.js';
import type { ReplicaMemoryStore } from './replica-store.js';
import { ReplicaEmitter, type ReplicaEventName, type ReplicaEvents, type ReplicaStatus } from './status.js';

/** Messages on the shared channel (`edgemem-replica:<name>`) and on each tab's own (`…:<tab>`). */
type Message =
  | { t: 'hello'; tab: string }
  | { t: 'owner'; tab: string }
  | { t: 'welcome'; status: ReplicaStatus; replicaId: string }
  | { t: 'event'; name: ReplicaEventName; value: unknown }
  | { t: 'change'; event: ChangeEvent };

/** What a tab's serving end answers besides the store's own one-call methods. */
const EXTRA = ['sync', 'status'] as const;

/** Whether `filter` takes `e` (as the engine's `EventFilter::matches`). */
export function filterMatches(filter: EventFilter, e: ChangeEvent): boolean {
  if (filter.kinds?.length && !filter.kinds.includes(e.kind)) return false;
  if (filter.namespaces?.length && e.namespace) {
    const ns = e.namespace;
    if (!filter.namespaces.some((p) => p.length <= ns.length && p.every((s, i) => s === ns[i]))) return false;
  }
  if (filter.channels?.length && e.kind === 'notify' && !(e.channel && filter.channels.includes(e.channel)))
    return false;
  return true;
}

interface Sub {
  filter: EventFilter;
  callback: (event: ChangeEvent) => unknown;
  inner?: Subscription;
}

/** Whether this context has what sharing needs (a browser tab or worker): Web Locks and BroadcastChannel. */
export function canShare(): boolean {
  const nav = (globalThis as { navigator?: { locks?: unknown } }).navigator;
  return typeof nav?.locks === 'object' && typeof globalThis.BroadcastChannel === 'function';
}

/**
 * Opens the replica `name` shared among the tabs: this tab owns it (opens it with `open`) if no other does, else
 * uses the owner's, and takes it over when the owner closes.
 */
export async function openSharedReplica(
  name: string,
  open: () => Promise<ReplicaMemoryStore>,
): Promise<SharedReplicaStore> {
  const shared = new SharedReplica(name, open);
  await shared.start();
  return storeOf(shared);
}

/** A replica shared by the tabs: a `ReplicaMemoryStore`, and whether this tab owns it now. */
export type SharedReplicaStore = ReplicaMemoryStore & { readonly owner: boolean };

/** The store `shared` answers as: each method of the table, then the replica's controls. */
function storeOf(shared: SharedReplica): SharedReplicaStore {
  const store: Record<string, unknown> = {};
  for (const method of Object.keys(STORE_METHODS) as StoreMethodName[]) {
    store[method] = (...args: unknown[]) => shared.call(method, args);
  }
  store.subscribe = (filter: EventFilter, callback: (event: ChangeEvent) => unknown) =>
    shared.subscribe(filter, callback);
  store.close = () => shared.close();
  store.status = () => shared.status();
  store.sync = () => shared.sync();
  store.on = <E extends ReplicaEventName>(event: E, listener: (e: ReplicaEvents[E]) => void) =>
    shared.on(event, listener);
  // An iterable at once, its chunks from the replica (in another tab: refused, as whole-store streams do not cross).
  store.exportStream = (options?: ExportStreamOptions): AsyncIterable<string> => ({
    async *[Symbol.asyncIterator]() {
      yield* (await shared.target()).exportStream(options);
    },
  });
  Object.defineProperty(store, 'replicaId', { get: () => shared.replicaId });
  Object.defineProperty(store, 'owner', { get: () => shared.owner });
  return store as unknown as SharedReplicaStore;
}

/** The tab's part of a shared replica: owner or follower, and the change from one to the other. */
class SharedReplica {
  readonly #name: string;
  readonly #open: () => Promise<ReplicaMemoryStore>;
  readonly #tab = crypto.randomUUID();
  readonly #events = new ReplicaEmitter();
  readonly #subs = new Set<Sub>();
  readonly #hub: BroadcastChannel;
  /** This tab's own channel: the owner's answers and pushes to it. */
  readonly #mine: BroadcastChannel;
  /** As owner: the other tabs' channels. */
  readonly #clients = new Map<string, BroadcastChannel>();
  #owned: ReplicaMemoryStore | undefined;
  #rpc: RpcClient | undefined;
  #remote: MemoryStore | undefined;
  #welcome: Promise<void> | undefined;
  #welcomed: (() => void) | undefined;
  #status: ReplicaStatus | undefined;
  #replicaId = '';
  #closed = false;
  #release: (() => void) | undefined;

  constructor(name: string, open: () => Promise<ReplicaMemoryStore>) {
    this.#name = name;
    this.#open = open;
    this.#hub = new BroadcastChannel(`edgemem-replica:${name}`);
    this.#mine = new BroadcastChannel(`edgemem-replica:${name}:${this.#tab}`);
  }

  get replicaId(): string {
    return this.#owned?.replicaId ?? this.#replicaId;
  }

  /** Whether this tab owns the replica now. */
  get owner(): boolean {
    return this.#owned !== undefined;
  }

  /** Takes the lock if it is free (this tab owns the replica), else follows the owner and waits in line for it. */
  async start(): Promise<void> {
    const locks = (navigator as unknown as { locks: LockManager }).locks;
    const lock = `edgemem-replica:${this.#name}`;
    const held = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
    // Free: this tab owns it, holding the lock until close. Taken: follow, and wait in line for it.
    const owner = await new Promise<boolean>((resolve, reject) => {
      locks
        .request(lock, { ifAvailable: true }, async (l) => {
          if (!l) return resolve(false);
          try {
            await this.#becomeOwner();
          } catch (e) {
            reject(e);
            return;
          }
          resolve(true);
          await held;
        })
        .catch(reject);
    });
    if (owner) return;
    this.#follow();
    void locks.request(lock, async () => {
      if (this.#closed) return;
      await this.#becomeOwner();
      await held;
    });
    await this.#welcome;
  }

  async #becomeOwner(): Promise<void> {
    const replica = await this.#open();
    this.#owned = replica;
    this.#replicaId = replica.replicaId;
    // Calls waiting on the tab that owned it before: that tab is gone.
    this.#rpc?.failAll(new EdgememError('INTERNAL', 'the tab that owned the replica closed: call again'));
    this.#rpc = undefined;
    this.#remote = undefined;
    this.#welcomed?.();
    for (const name of ['status', 'sync', 'conflict', 'rejected'] as const) {
      replica.on(name, (value) => {
        if (name === 'status') this.#status = value as ReplicaStatus;
        this.#emit(name, value);
        this.#toClients({ t: 'event', name, value });
      });
    }
    await replica.subscribe({}, (event) => this.#toClients({ t: 'change', event }));
    for (const sub of this.#subs) sub.inner = await replica.subscribe(sub.filter, sub.callback);
    this.#hub.onmessage = ({ data }: MessageEvent<Message>) => {
      if (data?.t === 'hello') this.#serve(data.tab);
    };
    this.#hub.postMessage({ t: 'owner', tab: this.#tab } satisfies Message);
  }

  /** Serves the tab `tab` on its own channel (again, after an owner change). */
  #serve(tab: string): void {
    const replica = this.#owned;
    if (!replica) return;
    let ch = this.#clients.get(tab);
    if (!ch) {
      ch = new BroadcastChannel(`edgemem-replica:${this.#name}:${tab}`);
      this.#clients.set(tab, ch);
      const allowed = new Set<string>([...CALL_METHODS, ...EXTRA]);
      serveRpc(ch, (method, args) => {
        if (!allowed.has(method)) throw invalid(`${method} is not served to other tabs`);
        if (method === 'status') return replica.status();
        if (method === 'sync') return replica.sync();
        const fn = (replica as unknown as Record<string, (...a: unknown[]) => unknown>)[method];
        return fn?.apply(replica, args);
      });
    }
    ch.postMessage({ t: 'welcome', status: replica.status(), replicaId: replica.replicaId } satisfies Message);
  }

  #toClients(m: Message): void {
    for (const ch of this.#clients.values()) ch.postMessage(m);
  }

  /** Follows the owner: says hello (again until welcomed, and after each owner change), takes its pushes. */
  #follow(): void {
    this.#rpc = new RpcClient(this.#mine);
    const rpc = this.#rpc;
    this.#remote = storeOverRpc((method, args) => rpc.store(method, ...args));
    this.#awaitWelcome();
    this.#mine.addEventListener('message', ({ data }: MessageEvent<Message>) => {
      if (this.#owned) return;
      if (data?.t === 'welcome') {
        this.#status = data.status;
        this.#replicaId = data.replicaId;
        this.#welcomed?.();
      } else if (data?.t === 'event') {
        if (data.name === 'status') this.#status = data.value as ReplicaStatus;
        this.#emit(data.name, data.value);
      } else if (data?.t === 'change') {
        for (const sub of this.#subs) if (filterMatches(sub.filter, data.event)) sub.callback(data.event);
      }
    });
    this.#hub.onmessage = ({ data }: MessageEvent<Message>) => {
      if (data?.t === 'owner' && data.tab !== this.#tab && !this.#owned) {
        this.#rpc?.failAll(new EdgememError('INTERNAL', 'the tab that owned the replica closed: call again'));
        this.#awaitWelcome();
      }
    };
  }

  #awaitWelcome(): void {
    let done = false;
    this.#welcome = new Promise<void>((resolve) => {
      this.#welcomed = () => {
        done = true;
        resolve();
      };
    });
    const hello = () => {
      if (done || this.#closed || this.#owned) return;
      this.#hub.postMessage({ t: 'hello', tab: this.#tab } satisfies Message);
      setTimeout(hello, 250);
    };
    hello();
  }

  #emit(name: ReplicaEventName, value: unknown): void {
    this.#events.emit(name, value as never);
  }

  /** The store calls go to now: the replica here when this tab owns it, else the owner's through the channel. */
  async target(): Promise<MemoryStore> {
    if (this.#closed) throw invalid('the store is closed');
    if (this.#owned) return this.#owned;
    await this.#welcome;
    if (this.#owned) return this.#owned;
    if (!this.#remote) throw new EdgememError('INTERNAL', 'no tab owns the replica');
    return this.#remote;
  }

  /** Calls store method `method` on the replica: here when this tab owns it, else through the owner. */
  async call(method: StoreMethodName, args: unknown[]): Promise<unknown> {
    const target = await this.target();
    return (target as unknown as Record<string, (...a: unknown[]) => unknown>)[method]?.apply(target, args);
  }

  status(): ReplicaStatus {
    const s = this.#owned?.status() ?? this.#status;
    if (!s) throw new EdgememError('INTERNAL', 'the replica has no status yet');
    return s;
  }

  async sync(): Promise<void> {
    if (this.#owned) return this.#owned.sync();
    await this.target();
    await this.#rpc?.call('sync');
  }

  on<E extends ReplicaEventName>(event: E, listener: (e: ReplicaEvents[E]) => void): () => void {
    return this.#events.on(event, listener);
  }

  async subscribe(filter: EventFilter, callback: (event: ChangeEvent) => unknown): Promise<Subscription> {
    const sub: Sub = { filter, callback };
    if (this.#owned) sub.inner = await this.#owned.subscribe(filter, callback);
    this.#subs.add(sub);
    return {
      unsubscribe: async () => {
        this.#subs.delete(sub);
        await sub.inner?.unsubscribe();
      },
    };
  }

  /** Closes this tab's part: an owner closes the replica and lets the next tab in line take it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const owned = this.#owned;
    this.#owned = undefined;
    for (const ch of this.#clients.values()) ch.close();
    this.#hub.close();
    this.#mine.close();
    this.#rpc?.failAll(invalid('the store is closed'));
    try {
      await owned?.close();
    } finally {
      this.#release?.();
    }
  }
}
