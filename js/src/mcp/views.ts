/**
 * How memories, versions and change events look in MCP results: the store's fields a model can use, times as
 * ISO 8601 strings instead of epoch milliseconds, no vectors.
 */

import type { ChangeEvent, ContextItem, Memory, SearchHit } from '../api/types.js';

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
    ...validity(h),
  };
}

/** A memory's valid time, when it has one: since when (and until when) the fact is true in the world. */
function validity(m: { validFrom?: number | null | undefined; validTo?: number | null | undefined }) {
  return {
    ...(m.validFrom == null ? {} : { validFrom: iso(m.validFrom) }),
    ...(m.validTo == null ? {} : { validTo: iso(m.validTo) }),
  };
}

/** What `remember` recorded of a memory: how often it was told, and what it replaced or was replaced by. */
function coherence(m: Memory) {
  return {
    ...(m.seen === undefined ? {} : { seen: m.seen }),
    ...(m.lastSeen === undefined ? {} : { lastSeen: iso(m.lastSeen) }),
    ...(m.replaces === undefined ? {} : { replaces: m.replaces }),
    ...(m.replacedBy === undefined ? {} : { replacedBy: m.replacedBy }),
  };
}

/** One memory of a context block, times as ISO 8601. */
export function contextItemView(i: ContextItem) {
  return {
    section: i.section,
    namespace: i.namespace,
    key: i.key,
    text: i.text,
    validFrom: i.validFrom === null ? null : iso(i.validFrom),
    validTo: i.validTo === null ? null : iso(i.validTo),
    updatedAt: iso(i.updatedAt),
    score: i.score,
    replaced: i.replaced,
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
    ...validity(m),
    ...coherence(m),
  };
}

/** A change of the feed, with `time` for `ts`. */
export function eventView(e: ChangeEvent) {
  const { ts, ...rest } = e;
  return { ...rest, time: iso(ts) };
}
