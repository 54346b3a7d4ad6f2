/**
 * A memory as a replica's pull carries it (`GET …/replica/changes`, and a replica's rollback): its live state with
 * the agent's version and vector, or `deleted`. The engine's `PulledMemory` (snake_case), which the replica applies.
 */
import type { JsonObject, JsonValue, Memory, Namespace } from '../api/types.js';

export interface PulledMemory {
  namespace: Namespace;
  key: string;
  version: number;
  deleted?: boolean;
  value?: JsonValue;
  text?: string | null;
  metadata?: JsonObject;
  pinned?: boolean;
  expires_at?: number | null;
  embedding?: number[] | null;
  valid_from?: number | null;
  valid_to?: number | null;
  /** What `remember` keeps of it: seen count, last seen, the keys it replaced / was replaced by. */
  coherence?: JsonObject | null;
}

/** The memory `m` at (`namespace`, `key`) as a pulled item (null: there is none). */
export function pulledOf(namespace: Namespace, key: string, m: Memory | null): PulledMemory {
  if (!m) return { namespace, key, version: 0, deleted: true };
  return {
    namespace,
    key,
    version: m.version,
    value: m.value,
    text: m.text,
    metadata: m.metadata,
    pinned: m.pinned,
    expires_at: m.expiresAt,
    embedding: m.embedding ? Array.from(m.embedding) : null,
    valid_from: m.validFrom ?? null,
    valid_to: m.validTo ?? null,
    coherence: coherenceOf(m),
  };
}

/** `m`'s coherence fields as the engine stores them (null: none). */
function coherenceOf(m: Memory): JsonObject | null {
  const c: JsonObject = {};
  if (m.seen !== undefined) c.seen = m.seen;
  if (m.lastSeen !== undefined) c.last_seen = m.lastSeen;
  if (m.replaces !== undefined) c.replaces = m.replaces;
  if (m.replacedBy !== undefined) c.replaced_by = m.replacedBy;
  return Object.keys(c).length > 0 ? c : null;
}
