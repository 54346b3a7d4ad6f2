/** What a replica tells its UI: its status (connected, pending writes, the agent seq it has, lag) and its events. */

import type { EdgememError } from '../api/errors.js';
import type { Memory, Namespace } from '../api/types.js';

/** Where a replica's sync is. */
export type ReplicaPhase = 'starting' | 'snapshot' | 'catching-up' | 'live' | 'offline' | 'closed';

export interface ReplicaStatus {
  phase: ReplicaPhase;
  /** The last exchange with the agent succeeded (a push, a pull or the snapshot; the feed socket is not counted). */
  connected: boolean;
  /** Local writes not yet applied by the agent. */
  pending: number;
  /** The agent seq this replica has applied everything up to. */
  agentSeq: number;
  /** The agent's latest seq as last seen (null: not yet). */
  headSeq: number | null;
  /** `headSeq - agentSeq` (null: not yet known). */
  lag: number | null;
  /** When the last exchange with the agent succeeded (ms since the epoch; null: never). */
  lastSyncAt: number | null;
  /** The token has the `write` scope (false: writes are refused with FORBIDDEN). */
  writable: boolean;
  /** Conflicts reported so far (see the `conflict` event). */
  conflicts: number;
  /** Local writes the agent refused and this replica rolled back (see the `rejected` event). */
  rejected: number;
  /** The last sync failure, until a sync succeeds. */
  error: EdgememError | null;
}

/**
 * Two writes to one key from sides that had not seen each other. The agent orders them: `won` (this replica's
 * write came later and replaced the versions `lost.from..lost.to` it had not seen) or `lost` (a write from
 * elsewhere replaced versions this replica had, `lost.from..lost.to`, among them possibly its own). The replaced
 * versions stay in the key's history.
 */
export interface ConflictEvent {
  side: 'won' | 'lost';
  namespace: Namespace;
  key: string;
  /** The version now live at the agent. */
  version: number;
  lost: { from: number; to: number };
}

/** A local write the agent refused (CONFLICT of a CAS write, a cap, …): rolled back here to the agent's state. */
export interface RejectedEvent {
  op: 'put' | 'delete' | 'checkpoint' | 'delete_thread';
  namespace?: Namespace;
  key?: string;
  threadId?: string;
  error: EdgememError;
  /** The memory as the agent has it, now here too (null: the agent has none). */
  restored?: Memory | null;
}

/** A step of sync. */
export interface SyncEvent {
  /** `snapshot`: chunks of the first sync imported; `pull`: agent changes applied; `push`: local writes applied. */
  kind: 'snapshot' | 'pull' | 'push';
  count: number;
  agentSeq: number;
}

export interface ReplicaEvents {
  status: ReplicaStatus;
  sync: SyncEvent;
  conflict: ConflictEvent;
  rejected: RejectedEvent;
}

export type ReplicaEventName = keyof ReplicaEvents;

/** Listeners by event; a throwing listener is logged and does not stop the others or the sync. */
export class ReplicaEmitter {
  readonly #listeners = new Map<ReplicaEventName, Set<(e: never) => void>>();

  on<E extends ReplicaEventName>(event: E, listener: (e: ReplicaEvents[E]) => void): () => void {
    const set = this.#listeners.get(event) ?? new Set();
    set.add(listener as (e: never) => void);
    this.#listeners.set(event, set);
    return () => set.delete(listener as (e: never) => void);
  }

  emit<E extends ReplicaEventName>(event: E, value: ReplicaEvents[E]): void {
    for (const l of this.#listeners.get(event) ?? []) {
      try {
        (l as (e: ReplicaEvents[E]) => void)(value);
      } catch (e) {
        console.error(`edgemem replica: a ${event} listener threw`, e);
      }
    }
  }
}
