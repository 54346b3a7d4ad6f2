/**
 * `openStore({ storage, replicaOf: { url, agent, token } })`: opens (or creates) the local store of a replica of an
 * edge agent, checks it belongs to that agent, turns its outbox on, and starts its sync — a first snapshot when it
 * is new, then pushes and pulls, woken by the agent's WebSocket feed (or polling, for a token without the
 * `subscribe` scope). A replica opened offline works from what it holds; a new one needs the agent once, unless
 * `dims` is given.
 */

import { EdgememError, invalid, toEdgememError } from '../api/errors.js';
import type { LocalMemoryStore, Namespace, StoreSettings } from '../api/types.js';
import type { LocalStore } from '../local/local-store.js';
import type { OpenOptions } from '../local/open-store.js';
import type { ReconnectOptions, WebSocketConstructor } from '../remote/feed.js';
import type { FetchLike, TokenSource } from '../remote/http.js';
import { RemoteStore, type WebSocketLoader } from '../remote/store.js';
import { AgentApi, type AgentReplicaInfo, type Scope } from './agent-api.js';
import { opfsReplicaStorage } from './opfs-storage.js';
import { ReplicaStore } from './replica-store.js';
import { ReplicaEmitter } from './status.js';
import { type ReplicaFiles, replicaStorage } from './storage.js';
import { type ReplicaHost, ReplicaSync } from './sync.js';

/** `openStore` options of a replica: where its local store lives (as for any store), and its agent. */
export interface OpenReplicaOptions extends OpenOptions {
  replicaOf: ReplicaOf;
}

export function isReplicaOptions(options: unknown): options is OpenReplicaOptions {
  return typeof options === 'object' && options !== null && (options as OpenReplicaOptions).replicaOf !== undefined;
}

/**
 * Opens a replica from an entry: `open` is the entry's own `openStore` for the local store (its storages, wasm
 * loading, embedder); `files` lets a file replica reload in place (the Node entry).
 */
export function openReplicaStore(
  options: OpenReplicaOptions,
  open: (options: OpenOptions) => Promise<LocalMemoryStore>,
  files: ReplicaFiles | undefined,
  loadWebSocket: WebSocketLoader | undefined,
): Promise<ReplicaStore> {
  const { replicaOf, storage = 'memory', ...settings } = options;
  const local = (where: OpenOptions['storage'], s: StoreSettings) =>
    open({ ...settings, ...s, storage: where }) as Promise<LocalStore>;
  const { embedder: _e, reembed: _r, wasm: _w, ...engineSettings } = settings;
  const where =
    typeof storage === 'object' && storage !== null && 'opfs' in storage
      ? opfsReplicaStorage(storage.opfs, local)
      : replicaStorage(storage, local, files);
  return openReplica(replicaOf, engineSettings, where, loadWebSocket);
}

/** Which agent a store replicates, and how it talks to it. */
export interface ReplicaOf {
  /** Base URL of the edgemem Worker. */
  url: string;
  /** The agent id. */
  agent: string;
  /** A token for the agent: `read` at least; `write` to write here; `subscribe` for live updates (else polling). */
  token: TokenSource;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** The WebSocket class for the agent's feed (defaults as for `connect`). */
  WebSocket?: WebSocketConstructor;
  reconnect?: ReconnectOptions;
  /** Follow the agent's feed over a WebSocket (default true, with a `subscribe` token); false: poll. */
  live?: boolean;
  /** Poll the agent this often when not live (default 5000 ms). */
  pollMs?: number;
  /** Changes per pull request (1..1000, default 1000). */
  pullLimit?: number;
  /** Ops per push request (1..100, default 100). */
  pushBatch?: number;
  /** About how many bytes of the agent's export each first-sync request loads (64 KiB..4 MiB, default 4 MiB). */
  snapshotChunkBytes?: number;
}

/** What the entry that opens a replica provides: its local store, and how a reload replaces it. */
export interface ReplicaStorage {
  /** Opens the replica's local store with these settings (dims etc.; the embedder is the entry's). */
  open(settings: StoreSettings): Promise<LocalStore>;
  /**
   * Opens a fresh empty store for a reload, or undefined when this storage cannot be reloaded in place (then a
   * replica past its agent's retention reports RESUME_GAP and must be re-created).
   */
  scratch?(settings: StoreSettings): Promise<LocalStore>;
  /** Makes `fresh` (from `scratch`) the store at the replica's place; `old` is closed already. */
  adopt?(fresh: LocalStore, settings: StoreSettings): Promise<LocalStore>;
}

/** Host metadata entries the replica keeps in its local store. */
const META = { id: 'replica.id', agent: 'replica.agent', scopes: 'replica.scopes' } as const;

/** Opens the replica of `replicaOf.agent` kept in `storage`. */
export async function openReplica(
  replicaOf: ReplicaOf,
  settings: StoreSettings,
  storage: ReplicaStorage,
  loadWebSocket: WebSocketLoader | undefined,
): Promise<ReplicaStore> {
  if (typeof replicaOf !== 'object' || replicaOf === null) throw invalid('replicaOf takes { url, agent, token }');
  const api = new AgentApi({
    url: replicaOf.url,
    agent: replicaOf.agent,
    token: replicaOf.token,
    fetch: replicaOf.fetch,
  });
  const pullLimit = range(replicaOf.pullLimit, 1000, 1, 1000, 'pullLimit');
  const pushBatch = range(replicaOf.pushBatch, 100, 1, 100, 'pushBatch');
  const pollMs = range(replicaOf.pollMs, 5000, 10, 3_600_000, 'pollMs');
  const snapshotChunkBytes = range(replicaOf.snapshotChunkBytes, 4 << 20, 64 << 10, 4 << 20, 'snapshotChunkBytes');
  let info: AgentReplicaInfo | undefined;
  try {
    info = await api.info();
  } catch (e) {
    const err = toEdgememError(e);
    if (err.code === 'UNAUTHORIZED' || err.code === 'FORBIDDEN' || err.code === 'NOT_FOUND') throw err;
    // Offline: the store opens as it is.
  }
  const local = { ...settings };
  if (info) {
    const s = info.settings;
    local.dims = s.dims;
    if (s.metric) local.metric = s.metric as StoreSettings['metric'];
    if (s.scalar) local.scalar = s.scalar as StoreSettings['scalar'];
  }
  let store = await storage.open(local);
  try {
    const embedder = store.embedder;
    const agentEmbedder = info?.embedder?.id;
    if (embedder && agentEmbedder && agentEmbedder !== embedder.id) {
      throw invalid(
        `a replica embeds with its agent's embedder only: the agent's is ${agentEmbedder}, this one is ${embedder.id}`,
      );
    }
    const agentName = `${replicaOf.url.replace(/\/+$/, '')}#${replicaOf.agent}`;
    const of = await store.appMeta(META.agent);
    if (of !== null && of !== agentName) {
      throw invalid(`this store is a replica of ${of}, not of ${agentName}`);
    }
    if (of === null) {
      if (!info && settings.dims === undefined)
        throw new EdgememError(
          'INTERNAL',
          `cannot reach ${replicaOf.url} to create the replica (give dims to start offline)`,
        );
      await store.setAppMeta(META.agent, agentName);
    }
    let replicaId = await store.appMeta(META.id);
    if (replicaId === null) {
      replicaId = crypto.randomUUID();
      await store.setAppMeta(META.id, replicaId);
    }
    let scopes: Scope[];
    if (info) {
      scopes = info.scopes;
      // Kept for opening offline next time; unchanged (or mid-snapshot, when the engine takes no writes) it stays.
      const known = await store.appMeta(META.scopes);
      if (known !== JSON.stringify(scopes) && store.importNote() === null) {
        await store.setAppMeta(META.scopes, JSON.stringify(scopes));
      }
    } else {
      scopes = JSON.parse((await store.appMeta(META.scopes)) ?? '["read","write"]') as Scope[];
    }
    store.replicaOutbox(true);

    const remote = new RemoteStore(
      {
        url: replicaOf.url,
        agent: replicaOf.agent,
        token: replicaOf.token,
        fetch: replicaOf.fetch,
        WebSocket: replicaOf.WebSocket,
        reconnect: replicaOf.reconnect,
        onError: (e) => feedEnded(e),
      },
      loadWebSocket,
    );
    const events = new ReplicaEmitter();
    let replica: ReplicaStore | undefined;
    const host: ReplicaHost = {
      get store() {
        return replica?.local ?? store;
      },
      get replicaId() {
        return replicaId as string;
      },
      reload: async (fill, ready) => {
        const { scratch, adopt } = storage;
        if (!scratch || !adopt || !replica) {
          throw new EdgememError(
            'RESUME_GAP',
            'the agent no longer holds the changes this replica needs, and this storage cannot reload in place: open the replica anew',
          );
        }
        const fresh = await scratch(local);
        try {
          await fill(fresh);
        } catch (e) {
          await fresh.close().catch(() => undefined);
          throw e;
        }
        if (!ready()) {
          await fresh.close().catch(() => undefined);
          return false;
        }
        const old = replica.local;
        // The reloaded store is a new replica: its outbox counts op ids from 1 again.
        const id = crypto.randomUUID();
        await replica.replace(async () => {
          // Closed before anything is awaited: a write still on its way to it fails and is retried on the new one.
          const closing = old.close();
          await closing;
          const next = await adopt(fresh, local);
          await next.setAppMeta(META.agent, agentName);
          await next.setAppMeta(META.id, id);
          await next.setAppMeta(META.scopes, JSON.stringify(scopes));
          next.replicaOutbox(true);
          replicaId = id;
          return next;
        });
        return true;
      },
    };
    const sync = new ReplicaSync({
      host,
      api,
      events,
      settings: { pullLimit, pushBatch, snapshotChunkBytes, minDelayMs: 200, maxDelayMs: 5000 },
      remoteGet: (ns: Namespace, key: string) => remote.get(ns, key, { includeEmbedding: true, validAt: 'any' }),
      writable: scopes.includes('write'),
    });

    // Wake-ups: the agent's feed over a WebSocket, else polling.
    let poll: ReturnType<typeof setInterval> | undefined;
    let feed: { unsubscribe(): Promise<void> } | undefined;
    let closed = false;
    const startPolling = () => {
      if (poll || closed) return;
      poll = setInterval(() => sync.kick(), pollMs);
      (poll as { unref?: () => void }).unref?.();
    };
    const follow = async () => {
      if (closed) return;
      try {
        feed = await remote.subscribe({}, (e) => {
          if (e.seq > sync.status.agentSeq) sync.kick();
        });
        // The socket hears what commits after it is subscribed; a pull now takes what committed before that.
        sync.kick();
      } catch {
        startPolling();
      }
    };
    function feedEnded(e: EdgememError) {
      feed = undefined;
      if (closed) return;
      if (e.code === 'RESUME_GAP') {
        // The socket fell behind the feed: follow again from now (the pull catches up on its own).
        void follow();
        sync.kick();
      } else startPolling();
    }
    if (replicaOf.live !== false && scopes.includes('subscribe')) void follow();
    else startPolling();

    replica = new ReplicaStore({
      store,
      replicaId: () => replicaId as string,
      sync,
      events,
      notify: (channel, payload) => remote.notify(channel, payload),
      onClose: async () => {
        closed = true;
        clearInterval(poll);
        await feed?.unsubscribe().catch(() => undefined);
        await remote.close();
      },
    });
    sync.kick();
    return replica;
  } catch (e) {
    await store.close().catch(() => undefined);
    store = undefined as unknown as LocalStore;
    throw e;
  }
}

function range(v: number | undefined, dflt: number, min: number, max: number, what: string): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw invalid(`replicaOf.${what} must be an integer in ${min}..${max}`);
  return v;
}
