/**
 * How memories, versions and change events look in MCP results: the store's fields a model can use, times as
 * ISO 8601 strings instead of epoch milliseconds, no vectors.
 */

import type { ChangeEvent, Memory, SearchHit } from '../api/types.js';

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A search hit: where it is, what it says, how well it matched. */
export function hitView(h: SearchHit) {
  return {
    namespace: h.namespace,
    key: h.key,
    text: h.text,
    value: h.value,
    metadata: h.metadata,
    score: h.score,
    version: h.version,
    seq: h.seq,
  };
}

/** One version of a memory (its namespace and key are the history's). */
export function versionView(m: Memory) {
  return {
    version: m.version,
    seq: m.seq,
    text: m.text,
    value: m.value,
    metadata: m.metadata,
    pinned: m.pinned,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
    expiresAt: m.expiresAt === null ? null : iso(m.expiresAt),
  };
}

/** A change of the feed, with `time` for `ts`. */
export function eventView(e: ChangeEvent) {
  const { ts, ...rest } = e;
  return { ...rest, time: iso(ts) };
}
