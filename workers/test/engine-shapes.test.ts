/**
 * The HTTP API's zod schemas against the engine's shapes (generated from its Rust types, exported by `edgemem`):
 * every field of the engine's options and every value of its enums is reachable over HTTP, except the fields
 * named here as the Worker's own business. Fields are checked by `tsc` (scripts/test-workers), values here.
 */
import {
  type ConsolidateOptions,
  type ContextOptions,
  type CoherenceSettings as EngineCoherence,
  EVENT_KINDS,
  FILTER_OPS,
  FUSION_METHODS,
  type FusionOptions,
  METRICS,
  type MemoryInput,
  type RememberFact,
  SCALAR_KINDS,
  SEARCH_MODES,
  type SearchQuery,
  type EventFilter as StoreEventFilter,
  type StoreSettings,
} from 'edgemem';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  AgentSettings,
  type BatchBody,
  type CoherenceSettings,
  Condition,
  type ConsolidateBody,
  type ContextBody,
  EventFilter,
  type RememberBody,
  SearchBody,
} from '../src/schemas';

/** true when both sides have the same keys, else what differs (which fails `Check`, naming the fields). */
type SameKeys<Http, Engine extends PropertyKey> = [Exclude<Engine, keyof Http> | Exclude<keyof Http, Engine>] extends [
  never,
]
  ? true
  : { notOverHttp: Exclude<Engine, keyof Http>; unknownToTheEngine: Exclude<keyof Http, Engine> };
type Check<T extends true> = T;

type Search = z.input<typeof SearchBody>;
/** Store settings the Worker sets itself (from the isolate and its own defaults), and HTTP-only ones. */
type WorkerOwnedSettings = 'memoryBudget' | 'syncFull' | 'indexSnapshotEvery' | 'idleFlushMs';

// biome-ignore lint/correctness/noUnusedVariables: a compile-time check; tsc evaluates it, nothing uses it
type HttpShapeChecks = [
  Check<SameKeys<Search, keyof SearchQuery>>,
  Check<SameKeys<NonNullable<Search['fusion']>, keyof FusionOptions>>,
  Check<SameKeys<z.input<typeof BatchBody>['memories'][number], keyof MemoryInput>>,
  Check<SameKeys<z.input<typeof EventFilter>, keyof StoreEventFilter>>,
  Check<
    SameKeys<
      Omit<z.input<typeof AgentSettings>, 'embedder' | 'consolidate'>,
      Exclude<keyof StoreSettings, WorkerOwnedSettings>
    >
  >,
  Check<SameKeys<z.input<typeof RememberBody>, keyof RememberFact>>,
  Check<SameKeys<z.input<typeof ConsolidateBody>, keyof ConsolidateOptions>>,
  Check<SameKeys<z.input<typeof ContextBody>, keyof ContextOptions>>,
  Check<SameKeys<z.input<typeof CoherenceSettings>, keyof EngineCoherence>>,
  Check<
    SameKeys<NonNullable<z.input<typeof AgentSettings>['retention']>, keyof NonNullable<StoreSettings['retention']>>
  >,
];

describe("the HTTP schemas take every value of the engine's enums", () => {
  const search = { text: 'x', vector: [1] };
  it('search modes and fusion methods', () => {
    for (const mode of SEARCH_MODES) expect(SearchBody.safeParse({ ...search, mode }).success, mode).toBe(true);
    for (const method of FUSION_METHODS)
      expect(SearchBody.safeParse({ ...search, fusion: { method } }).success, method).toBe(true);
    expect(FUSION_METHODS).toContain('z_score');
  });

  it('filter operators', () => {
    for (const op of FILTER_OPS) expect(Condition.safeParse({ field: 'f', op, value: [1] }).success, op).toBe(true);
  });

  it('event kinds', () => {
    expect(EventFilter.safeParse({ kinds: [...EVENT_KINDS] }).success).toBe(true);
  });

  it('metrics and scalar kinds', () => {
    for (const metric of METRICS) expect(AgentSettings.safeParse({ metric }).success, metric).toBe(true);
    for (const scalar of SCALAR_KINDS) expect(AgentSettings.safeParse({ scalar }).success, scalar).toBe(true);
  });

  it('and nothing else', () => {
    expect(SearchBody.safeParse({ ...search, fusion: { method: 'zscore' } }).success).toBe(false);
    expect(EventFilter.safeParse({ kinds: ['renamed'] }).success).toBe(false);
  });
});
