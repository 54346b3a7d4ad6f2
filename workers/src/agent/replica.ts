/**
 * The agent's side of its replicas (edgemem's `openStore({ replicaOf })`): `pull`, the memories and checkpoints
 * changed after a seq, each as it is now, vectors included; and `push`, a replica's queued writes applied in the
 * order given, each recorded with the write that applied it (the engine's applied ops), so a retried op is answered
 * from the record and never applied twice. A put or delete made on a version other than the live one (a concurrent
 * write from elsewhere came first) is applied — the agent orders writes — and answered with the versions it
 * overwrote, which later pulls of the key name too (`overwrote`), so the replica whose write lost hears of it.
 */
import type { ChangeEvent, LocalMemoryStore, MemoryInput } from 'edgemem';
import { EdgememError } from 'edgemem';
import { type PulledMemory, pulledOf, storeWireCheckpoint, type WireCheckpoint } from 'edgemem/protocol';
import { ApiError } from '../http-errors.js';
import { checkpointOut } from '../wire.js';
import type { Maintenance } from './alarm.js';
import type { AgentStore } from './open.js';

/** Where the agent notes which versions a pushed write overwrote without having seen them. */
const OVERWRITES = 'edgemem_replica_overwrites';
/** Overwrite notes kept (the oldest go first): a replica hears of its lost write within its next pulls. */
const OVERWRITES_KEPT = 10_000;

/** One item of a pull, in the order of the changes it sums up (a key once, as it is now). */
export type PulledItem =
  | (PulledMemory & {
      kind: 'memory';
      /** This version was pushed by replica `by` on top of `[from, to]`, versions it had not seen. */
      overwrote?: { from: number; to: number; by: string };
    })
  | { kind: 'checkpoint'; checkpoint: ReturnType<typeof checkpointOut> }
  | { kind: 'thread_deleted'; threadId: string };

export interface PullPage {
  items: PulledItem[];
  /** Pass as `after` next time. */
  cursor: number;
  /** The page ended at its limit: ask again at once. */
  more: boolean;
  /** The agent's latest seq when the page was read. */
  head: number;
}

type Wire = Record<string, unknown>;

/** A pushed memory write: the engine's outbox op (snake_case), as the push route validated it. */
interface MemoryOp {
  id: number;
  namespace: string[];
  key: string;
  base: number;
  if_version?: number | null;
}

/** A pushed op: a memory put or delete (the engine's outbox op), a checkpoint's state, or a thread deletion. */
export type PushedOp =
  | (MemoryOp & { op: 'put'; value: unknown } & Wire)
  | (MemoryOp & { op: 'delete' })
  | { id: number; op: 'checkpoint'; checkpoint: WireCheckpoint }
  | { id: number; op: 'delete_thread'; thread_id: string };

/** What the agent did with one pushed op. */
export type PushResult =
  | { id: number; seq: number | null; version?: number; duplicate?: true; overwrote?: { from: number; to: number } }
  | { id: number; error: { code: string; message: string } };

export class Replicas {
  readonly #ctx: DurableObjectState;
  readonly #store: AgentStore;
  readonly #maintenance: Maintenance;
  #tableReady = false;

  constructor(ctx: DurableObjectState, store: AgentStore, maintenance: Maintenance) {
    this.#ctx = ctx;
    this.#store = store;
    this.#maintenance = maintenance;
  }

  #sql(): SqlStorage {
    const sql = this.#ctx.storage.sql;
    if (!this.#tableReady) {
      sql.exec(
        `CREATE TABLE IF NOT EXISTS ${OVERWRITES} (ns TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL,
         first INTEGER NOT NULL, last INTEGER NOT NULL, replica TEXT NOT NULL, PRIMARY KEY (ns, key, version))`,
      );
      this.#tableReady = true;
    }
    return sql;
  }

  /**
   * The memories and checkpoints changed after `after` (at most `limit` changes' worth), each as it is at the head:
   * one read of the store, so the page is consistent as of `head`. RESUME_GAP when the feed no longer holds them.
   */
  async pull(after: number, limit: number): Promise<PullPage> {
    const store = await this.#store.open();
    const head = await store.seq();
    const { events, more } = await store.changesPage(after, { limit });
    const last = new Map<string, ChangeEvent>();
    for (const e of events) {
      const id = itemId(e);
      if (id === undefined) continue;
      last.delete(id); // re-inserted: the map keeps the order of each item's last change
      last.set(id, e);
    }
    const items: PulledItem[] = [];
    for (const e of last.values()) {
      const item = await this.#item(store, e);
      if (item) items.push(item);
    }
    const tail = events.at(-1)?.seq ?? after;
    return { items, cursor: more ? tail : Math.max(tail, head, after), more, head };
  }

  async #item(store: LocalMemoryStore, e: ChangeEvent): Promise<PulledItem | undefined> {
    if (e.kind === 'notify') return undefined;
    if (e.kind === 'checkpoint') {
      const threadId = e.channel as string;
      if (e.key === undefined || e.key === null) return { kind: 'thread_deleted', threadId };
      const ns = (e.payload as { checkpointNs?: string } | null | undefined)?.checkpointNs ?? '';
      const c = await store.getCheckpoint(threadId, { checkpointNs: ns, checkpointId: e.key });
      return c ? { kind: 'checkpoint', checkpoint: checkpointOut(c) } : undefined;
    }
    const namespace = e.namespace as string[];
    const key = e.key as string;
    const m = await store.get(namespace, key, { includeEmbedding: true, validAt: 'any' });
    const item: PulledItem = { kind: 'memory', ...pulledOf(namespace, key, m) };
    if (!m) return item;
    const row = this.#sql()
      .exec<{ first: number; last: number; replica: string }>(
        `SELECT first, last, replica FROM ${OVERWRITES} WHERE ns = ? AND key = ? AND version = ?`,
        JSON.stringify(namespace),
        key,
        m.version,
      )
      .toArray()[0];
    if (row) item.overwrote = { from: row.first, to: row.last, by: row.replica };
    return item;
  }

  /** Applies a replica's ops in order; each answered on its own (one failing op does not stop the others). */
  async push(replica: string, ops: PushedOp[]): Promise<PushResult[]> {
    const store = await this.#store.open();
    const out: PushResult[] = [];
    let wrote = false;
    for (const op of ops) {
      try {
        const r = await this.#apply(store, replica, op);
        if (!('duplicate' in r)) wrote = true;
        out.push(r);
      } catch (e) {
        const known = e instanceof EdgememError || e instanceof ApiError;
        const message = e instanceof Error ? e.message : String(e);
        out.push({ id: op.id, error: { code: known ? e.code : 'INTERNAL', message } });
      }
    }
    if (wrote) await this.#maintenance.wrote();
    return out;
  }

  async #apply(store: LocalMemoryStore, replica: string, op: PushedOp): Promise<PushResult> {
    if (op.op === 'checkpoint') return { id: op.id, seq: await storeWireCheckpoint(store, op.checkpoint) };
    if (op.op === 'delete_thread') {
      await store.deleteThread(op.thread_id);
      return { id: op.id, seq: null };
    }
    const done = store.appliedOp(replica, op.id);
    if (done !== null) return { id: op.id, seq: done, duplicate: true };
    const live = (await store.get(op.namespace, op.key))?.version ?? 0;
    const overwrote = op.if_version == null && live > op.base ? { from: op.base + 1, to: live } : undefined;
    if (op.op === 'delete') {
      const ifVersion = op.if_version ?? undefined;
      if (live === 0 && ifVersion === undefined) return { id: op.id, seq: null }; // already gone here
      const seq = await store.deleteOnce(replica, op.id, op.namespace, op.key, { ifVersion });
      return overwrote ? { id: op.id, seq, overwrote } : { id: op.id, seq };
    }
    const ack = await store.putOnce(replica, op.id, putInput(op));
    if (overwrote) {
      this.#sql().exec(
        `INSERT OR REPLACE INTO ${OVERWRITES} (ns, key, version, first, last, replica) VALUES (?, ?, ?, ?, ?, ?)`,
        JSON.stringify(op.namespace),
        op.key,
        ack.version,
        overwrote.from,
        overwrote.to,
        replica,
      );
      this.#sql().exec(
        `DELETE FROM ${OVERWRITES} WHERE rowid <= (SELECT max(rowid) FROM ${OVERWRITES}) - ?`,
        OVERWRITES_KEPT,
      );
    }
    return { id: op.id, seq: ack.seq, version: ack.version, ...(overwrote ? { overwrote } : {}) };
  }
}

/** The change an event is about, as a pull's item: a memory, a checkpoint, or a thread deleted. */
function itemId(e: ChangeEvent): string | undefined {
  if (e.kind === 'notify') return undefined;
  if (e.kind === 'checkpoint') {
    const ns = (e.payload as { checkpointNs?: string } | null | undefined)?.checkpointNs ?? '';
    return e.key == null ? `t${e.channel}` : `c${JSON.stringify([e.channel, ns, e.key])}`;
  }
  return `m${JSON.stringify([e.namespace, e.key])}`;
}

/** A pushed put as the store's input (the outbox op is the engine's snake_case). */
function putInput(op: Wire): MemoryInput {
  const input: MemoryInput = {
    namespace: op.namespace as string[],
    key: op.key as string,
    value: op.value as MemoryInput['value'],
  };
  if (typeof op.text === 'string') input.text = op.text;
  if (Array.isArray(op.embedding)) input.embedding = Float32Array.from(op.embedding as number[]);
  if (op.metadata && typeof op.metadata === 'object') input.metadata = op.metadata as MemoryInput['metadata'];
  if (op.pinned === true) input.pinned = true;
  if (typeof op.ttl_ms === 'number') input.ttlMs = op.ttl_ms;
  if (typeof op.if_version === 'number') input.ifVersion = op.if_version;
  if (typeof op.valid_from === 'number') input.validFrom = op.valid_from;
  if (typeof op.valid_to === 'number') input.validTo = op.valid_to;
  // What `remember` keeps (seen count, links): replication's own field of the engine's put.
  if (op.coherence && typeof op.coherence === 'object') Object.assign(input, { coherence: op.coherence });
  return input;
}
