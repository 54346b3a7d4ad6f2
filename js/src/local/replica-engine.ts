/**
 * The engine's replica shapes (core/src/features/replica.rs) as the local store passes them: the ops a replica's
 * local writes queue in its outbox, the agent's memories a pull applies, and what applying them did.
 */

import type { JsonObject, JsonValue, Namespace } from '../api/types.js';

/** A memory write as the outbox records it: the write as made, the version it replaced (`base`) and made. */
export interface PutOp {
  op: 'put';
  namespace: Namespace;
  key: string;
  value: JsonValue;
  text: string | null;
  metadata: JsonObject;
  pinned: boolean;
  ttl_ms: number | null;
  if_version: number | null;
  embedding: number[] | null;
  base: number;
  version: number;
}

export interface DeleteOp {
  op: 'delete';
  namespace: Namespace;
  key: string;
  if_version: number | null;
  base: number;
}

/** A checkpoint put, pending writes added to it, or its thread deleted: pushed as the checkpoint is then. */
export interface CheckpointOp {
  op: 'checkpoint' | 'writes' | 'delete_thread';
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
}

export type ReplicaOp = PutOp | DeleteOp | CheckpointOp;

export type { PulledMemory } from '../protocol/pulled.js';

/** What applying a pulled page did: written or deleted here, already so, left for a local write to push. */
export interface PullApplied {
  applied: number;
  unchanged: number;
  pending: number;
}
