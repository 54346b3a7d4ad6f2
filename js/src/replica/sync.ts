/**
 * A replica's sync with its agent, one cycle at a time and never two at once: the first sync from a snapshot (the
 * agent's export, chunk by chunk, into the empty local store), then the local writes the outbox holds pushed in
 * order, then the agent's changes after the replica's cursor pulled and applied — a page and its cursor in one
 * local transaction. Cycles run when a local write is made, when the agent's feed says it changed, on `sync()`,
 * and after a failure again with backoff. Reads never wait for any of it.
 *
 * Past the agent's feed retention (RESUME_GAP) the replica reloads: its writes pushed first, then a snapshot into a
 * fresh store (`ReplicaHost.reload`), which replaces the old one only if no write came in meanwhile.
 */

import { EdgememError, toEdgememError } from '../api/errors.js';
import type { Memory, Namespace } from '../api/types.js';
import type { LocalStore } from '../local/local-store.js';
import type { ReplicaOp } from '../local/replica-engine.js';
import { checkpointToWire, storeWireCheckpoint } from '../protocol/checkpoints.js';
import { type PulledMemory, pulledOf } from '../protocol/pulled.js';
import type { AgentApi, PulledItem, PulledMemoryItem, PushOp, PushResult } from './agent-api.js';
import type { ReplicaEmitter, ReplicaPhase, ReplicaStatus } from './status.js';

/** Where the replica's local store lives, and how a reload replaces it. */
export interface ReplicaHost {
  /** The local store now. */
  readonly store: LocalStore;
  /** The replica's id at the agent now (a reload makes a new replica, its op ids counting from 1 again). */
  readonly replicaId: string;
  /**
   * Opens a fresh empty store beside the current one, lets `fill` load it, then — if `ready()` still says so —
   * makes it the current store (the old one is closed and its storage replaced); else drops it. True when swapped.
   */
  reload(fill: (fresh: LocalStore) => Promise<void>, ready: () => boolean): Promise<boolean>;
}

export interface SyncSettings {
  /** Changes per pull request (default 1000, the most the Worker gives). */
  pullLimit: number;
  /** Ops per push request (default 100, the most the Worker takes). */
  pushBatch: number;
  /** About how long a snapshot chunk is (default and most 4 MiB): how much an interrupted first sync loads again. */
  snapshotChunkBytes: number;
  /** First retry delay after a failure (default 200 ms), doubling up to `maxDelayMs` (default 5000 ms). */
  minDelayMs: number;
  maxDelayMs: number;
}

/** Errors retrying cannot fix: the replica stops retrying until `sync()` is called again. */
const FATAL = new Set(['UNAUTHORIZED', 'FORBIDDEN']);

export class ReplicaSync {
  readonly #host: ReplicaHost;
  readonly #api: AgentApi;
  readonly #events: ReplicaEmitter;
  readonly #settings: SyncSettings;
  /** Reads the agent's copy of one memory (to roll a refused write back). */
  readonly #remoteGet: (ns: Namespace, key: string) => Promise<Memory | null>;
  readonly status: ReplicaStatus;
  #running: Promise<void> | undefined;
  #again = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #delay = 0;
  #closed = false;
  /** While the first snapshot loads: writes wait for it (the engine refuses writes during an import). */
  #snapshot: Promise<void> | undefined;
  /** A snapshot was loaded in this process (an empty agent's leaves the store at seq 0: no need for another). */
  #snapshotted = false;

  constructor(options: {
    host: ReplicaHost;
    api: AgentApi;
    events: ReplicaEmitter;
    settings: SyncSettings;
    remoteGet: (ns: Namespace, key: string) => Promise<Memory | null>;
    writable: boolean;
  }) {
    this.#host = options.host;
    this.#api = options.api;
    this.#events = options.events;
    this.#settings = options.settings;
    this.#remoteGet = options.remoteGet;
    const store = this.#host.store;
    this.status = {
      phase: 'starting',
      connected: false,
      pending: store.outboxLen(),
      agentSeq: store.replicaCursor(),
      headSeq: null,
      lag: null,
      lastSyncAt: null,
      writable: options.writable,
      conflicts: 0,
      rejected: 0,
      error: null,
    };
  }

  /** Resolves once no first snapshot is loading (writes wait for it). */
  async settled(): Promise<void> {
    while (this.#snapshot) await this.#snapshot.catch(() => undefined);
  }

  /** A local write was made: count it and push soon. */
  wrote(): void {
    this.status.pending = this.#host.store.outboxLen();
    this.#emitStatus();
    this.kick();
  }

  /** Runs a cycle soon (one already running runs once more after it). */
  kick(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  /** Runs cycles until one finds nothing to do; rejects with the failure that stopped it (the replica retries). */
  async sync(): Promise<void> {
    for (;;) {
      if (this.#running) {
        await this.#running;
        continue;
      }
      this.#again = false;
      this.#running = this.#cycle().finally(() => {
        this.#running = undefined;
      });
      await this.#running;
      if (!this.#again) return;
    }
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#setPhase('closed', false);
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#cycle();
        this.#delay = 0;
      } catch {
        // #cycle recorded the failure in the status; try again later.
        if (this.#closed || FATAL.has(this.status.error?.code ?? '')) return;
        this.#delay = Math.min(
          this.#settings.maxDelayMs,
          Math.max(this.#settings.minDelayMs, this.#delay * 2 || this.#settings.minDelayMs),
        );
        const wait = this.#delay * (0.75 + Math.random() * 0.5);
        this.#retry = setTimeout(() => this.kick(), wait);
        (this.#retry as { unref?: () => void }).unref?.();
        return;
      }
    } while (this.#again && !this.#closed);
  }

  /** One cycle: snapshot if the store is new, push, pull. Records the outcome in the status. */
  async #cycle(): Promise<void> {
    if (this.#closed) return;
    try {
      const store = this.#host.store;
      const resuming = store.importNote() !== null;
      if (resuming || (!this.#snapshotted && store.replicaCursor() === 0 && (await store.seq()) === 0)) {
        await this.#firstSnapshot(store);
      }
      await this.#push();
      await this.#pull();
      this.status.connected = true;
      this.status.error = null;
      this.status.lastSyncAt = Date.now();
      this.#setPhase('live', true);
    } catch (e) {
      const err = toEdgememError(e);
      if (this.#closed) return;
      this.status.connected = false;
      this.status.error = err;
      this.#setPhase('offline', false);
      throw err;
    }
  }

  async #firstSnapshot(store: LocalStore): Promise<void> {
    this.#setPhase('snapshot', this.status.connected);
    const run = this.#loadSnapshot(store);
    this.#snapshot = run;
    try {
      await run;
    } finally {
      this.#snapshot = undefined;
    }
  }

  /**
   * Loads the agent's export into `store` (empty), chunk by chunk as the Worker cuts it, each chunk kept with the
   * cursor of the next in its transaction: a snapshot interrupted at any point (network, a killed process) goes on
   * from the last chunk taken. Then the cursor is the export's seq.
   */
  async #loadSnapshot(store: LocalStore): Promise<void> {
    let cursor: string | null = null;
    let first = true;
    let seq = 0;
    const note = store.importNote();
    if (note !== null) {
      ({ next: cursor, seq } = JSON.parse(note) as { next: string | null; seq: number });
      first = false;
    } else {
      await store.importAbort().catch(() => false); // an import without a note is not ours to resume
    }
    let chunks = 0;
    const fetchChunk = (from: string | null) => {
      const p = this.#api.snapshotChunk(from, this.#settings.snapshotChunkBytes);
      p.catch(() => undefined); // awaited below; a prefetch a failed import leaves behind is dropped
      return p;
    };
    let ahead = fetchChunk(cursor);
    for (;;) {
      const { ndjson, next } = await ahead;
      // The next chunk is on its way while this one is imported.
      if (next !== null) ahead = fetchChunk(next);
      if (first) seq = headerSeq(ndjson);
      await store.importChunkNoting(ndjson, { first, last: next === null }, JSON.stringify({ next, seq }));
      first = false;
      cursor = next;
      chunks += 1;
      this.#events.emit('sync', { kind: 'snapshot', count: chunks, agentSeq: seq });
      if (next === null) break;
    }
    store.applyPulled([], seq);
    this.status.agentSeq = seq;
    this.#snapshotted = true;
  }

  /** Pushes the outbox in order, a batch per request; each answered op leaves the outbox. */
  async #push(): Promise<void> {
    for (;;) {
      const store = this.#host.store;
      const queued = store.outboxOps(this.#settings.pushBatch);
      if (queued.length === 0) break;
      const ops: PushOp[] = [];
      for (const { id, op } of queued) {
        const wire = await this.#wireOp(store, id, op);
        if (wire) ops.push(wire);
      }
      const results = ops.length > 0 ? await this.#api.push(this.#host.replicaId, ops) : [];
      const byId = new Map(ops.map((o) => [o.id, o]));
      store.outboxRemove(queued[queued.length - 1]?.id ?? 0);
      for (const r of results) await this.#answered(store, byId.get(r.id), r);
      this.status.pending = store.outboxLen();
      this.#events.emit('sync', { kind: 'push', count: queued.length, agentSeq: this.status.agentSeq });
      this.#emitStatus();
    }
  }

  /** An outbox op as pushed: a checkpoint op carries the checkpoint as it is here now (none: nothing to push). */
  async #wireOp(store: LocalStore, id: number, op: ReplicaOp): Promise<PushOp | undefined> {
    if (op.op === 'put' || op.op === 'delete') return { ...op, id };
    if (op.op === 'delete_thread') return { id, op: 'delete_thread', thread_id: op.thread_id };
    const c = await store.getCheckpoint(op.thread_id, {
      checkpointNs: op.checkpoint_ns,
      checkpointId: op.checkpoint_id,
    });
    return c ? { id, op: 'checkpoint', checkpoint: checkpointToWire(c) } : undefined;
  }

  /** What the agent answered for one op: a conflict it won, or a refusal rolled back to the agent's state. */
  async #answered(store: LocalStore, op: PushOp | undefined, r: PushResult): Promise<void> {
    if (!op) return;
    const namespace = op.namespace as Namespace | undefined;
    const key = op.key as string | undefined;
    if (!('error' in r)) {
      if (r.overwrote && namespace && key !== undefined) {
        this.status.conflicts += 1;
        const lost = { from: r.overwrote.from, to: r.overwrote.to };
        this.#events.emit('conflict', { side: 'won', namespace, key, version: r.version ?? 0, lost });
      }
      return;
    }
    const error = new EdgememError(
      (r.error.code as EdgememError['code']) ?? 'INTERNAL',
      `the agent refused this replica's ${op.op}: ${r.error.message}`,
    );
    this.status.rejected += 1;
    if ((op.op === 'put' || op.op === 'delete') && namespace && key !== undefined) {
      const restored = await this.#remoteGet(namespace, key);
      store.applyPulled([pulledOf(namespace, key, restored)], store.replicaCursor());
      this.#events.emit('rejected', { op: op.op, namespace, key, error, restored });
    } else {
      this.#events.emit('rejected', {
        op: op.op as 'checkpoint' | 'delete_thread',
        threadId:
          (op.thread_id as string | undefined) ?? (op.checkpoint as { threadId?: string } | undefined)?.threadId,
        error,
      });
    }
  }

  /** Pulls the agent's changes after the cursor until caught up; past retention, reloads. */
  async #pull(): Promise<void> {
    for (;;) {
      const store = this.#host.store;
      let page: Awaited<ReturnType<AgentApi['changes']>>;
      try {
        page = await this.#api.changes(store.replicaCursor(), this.#settings.pullLimit);
      } catch (e) {
        if (toEdgememError(e).code !== 'RESUME_GAP') throw e;
        await this.#reload();
        continue;
      }
      this.#setPhase(page.more ? 'catching-up' : this.status.phase, true);
      await this.#apply(store, page.items, page.cursor);
      this.status.agentSeq = page.cursor;
      this.status.headSeq = page.head;
      this.status.lag = Math.max(0, page.head - page.cursor);
      this.#events.emit('sync', { kind: 'pull', count: page.items.length, agentSeq: page.cursor });
      this.#emitStatus();
      if (!page.more) return;
    }
  }

  /** A pulled page: checkpoints in order (not queued to push back), then the memories with the cursor, atomically. */
  async #apply(store: LocalStore, items: PulledItem[], cursor: number): Promise<void> {
    const memories: PulledMemory[] = [];
    const others: PulledItem[] = [];
    for (const item of items) {
      if (item.kind !== 'memory') {
        others.push(item);
        continue;
      }
      if (item.overwrote) await this.#lostHere(store, item);
      const { kind: _k, overwrote: _o, ...m } = item;
      memories.push(m);
    }
    if (others.length > 0) {
      await store.withoutOutbox(async () => {
        for (const item of others) {
          if (item.kind === 'checkpoint') await storeWireCheckpoint(store, item.checkpoint);
          else if (item.kind === 'thread_deleted') await store.deleteThread(item.threadId);
        }
      });
    }
    store.applyPulled(memories, cursor);
  }

  /** A pulled version replaced versions its writer had not seen: if this replica had one of them, it lost. */
  async #lostHere(store: LocalStore, item: PulledMemoryItem): Promise<void> {
    const { overwrote } = item;
    if (!overwrote || overwrote.by === this.#host.replicaId) return; // our own write: we heard as it was applied
    const mine = await store.get(item.namespace, item.key);
    if (mine && mine.version >= overwrote.from && mine.version <= overwrote.to) {
      this.status.conflicts += 1;
      this.#events.emit('conflict', {
        side: 'lost',
        namespace: item.namespace,
        key: item.key,
        version: item.version,
        lost: { from: overwrote.from, to: overwrote.to },
      });
    }
  }

  /** Past the feed's retention: push what is queued, load a snapshot into a fresh store, swap it in. */
  async #reload(): Promise<void> {
    this.#setPhase('snapshot', true);
    for (;;) {
      await this.#push();
      const swapped = await this.#host.reload(
        (fresh) => this.#loadSnapshot(fresh),
        () => this.#host.store.outboxLen() === 0,
      );
      if (swapped) return;
    }
  }

  #setPhase(phase: ReplicaPhase, connected: boolean): void {
    this.status.phase = phase;
    this.status.connected = connected;
    this.#emitStatus();
  }

  #emitStatus(): void {
    this.#events.emit('status', { ...this.status });
  }
}

/** The export's seq, from its first (header) line. */
function headerSeq(ndjson: string): number {
  const end = ndjson.indexOf('\n');
  const header = JSON.parse(end < 0 ? ndjson : ndjson.slice(0, end)) as { seq?: unknown };
  if (typeof header.seq !== 'number' || !Number.isSafeInteger(header.seq))
    throw new EdgememError('INTERNAL', "the agent's snapshot does not start with its header line");
  return header.seq;
}
