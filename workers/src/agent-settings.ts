/**
 * Per-agent store settings (`PUT /v1/agents/{agent}`): an agent's own settings document, kept in its Durable
 * Object's KV beside the engine's pages, over the Worker's defaults (store-settings.ts, the EDGEMEM_* vars).
 *
 * - `dims`, `metric`, `scalar` shape the store's vector index: they can be set while the agent holds no data
 *   (seq 0 — its empty store is re-created), and after that only to the values it already has (CONFLICT).
 *   An existing store always keeps its own: changing EDGEMEM_DIMS later only affects new agents.
 * - Caps (`maxBytes`, `maxMemories`), `retention`, the size limits and `sequence` can change at any time; the
 *   store is reopened with them at once (lower caps evict from the next write on).
 * - A PUT replaces the whole document: a field left out goes back to the Worker's default — except the shape
 *   fields of an agent that holds data, which stay what its store has.
 * - The scalar kind defaults to i4 with the cosine metric, else f32 (store-settings.ts `defaultScalar`).
 * - `coherence` (`remember`'s rules' settings) goes to the store; `consolidate` is the Worker's own: its alarm
 *   consolidates the agent's memories a bounded page per run (agent/alarm.ts).
 */
import type { StoreSettings } from 'edgemem';
import type { EmbedderSettingT } from './agent-embedder.js';
import type { Env } from './env.js';
import { defaultScalar, storeSettings } from './store-settings.js';

/**
 * What an agent's own settings may hold (validated by schemas.ts `AgentSettings`). `embedder` (agent-embedder.ts)
 * sets `dims` to its own; the store records it, so an agent holding data cannot switch to another (INVALID_ARGUMENT).
 */
export type AgentSettings = Pick<
  StoreSettings,
  | 'dims'
  | 'metric'
  | 'scalar'
  | 'maxBytes'
  | 'maxMemories'
  | 'retention'
  | 'maxMemoryBytes'
  | 'maxCheckpointBytes'
  | 'sequence'
  | 'coherence'
> & {
  embedder?: EmbedderSettingT;
  /** The maintenance alarm consolidates the agent's memories, a bounded page per run (agent/alarm.ts). */
  consolidate?: boolean;
};

/** The settings of the Worker's own, not the store's: kept out of the store's options. */
const WORKER_ONLY = new Set(['embedder', 'consolidate']);

/** The settings as reported: every field resolved. */
export type EffectiveSettings = Required<Pick<StoreSettings, 'dims' | 'metric' | 'scalar'>> & AgentSettings;

/** The KV key of the document (the engine's pages are under `p:`). */
const KEY = 'settings:v1';

export function readAgentSettings(storage: DurableObjectStorage): AgentSettings | undefined {
  const raw = storage.kv.get<string>(KEY);
  return typeof raw === 'string' ? (JSON.parse(raw) as AgentSettings) : undefined;
}

export function writeAgentSettings(storage: DurableObjectStorage, settings: AgentSettings | undefined): void {
  if (settings === undefined) storage.kv.delete(KEY);
  else storage.kv.put(KEY, JSON.stringify(settings));
}

/** The agent's settings over the Worker's defaults (retention merged field by field). */
export function mergedSettings(env: Env, withEmbedder: AgentSettings | undefined): StoreSettings {
  const base = storeSettings(env);
  const own =
    withEmbedder &&
    (Object.fromEntries(Object.entries(withEmbedder).filter(([k]) => !WORKER_ONLY.has(k))) as StoreSettings);
  const defined = <T extends object>(o: T | undefined) =>
    Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined));
  const merged: StoreSettings = own
    ? { ...base, ...defined(own), retention: { ...base.retention, ...defined(own.retention) } }
    : base;
  // The scalar default depends on the metric the agent ends up with (i4 needs cosine).
  return { ...merged, scalar: merged.scalar ?? defaultScalar(merged.metric) };
}

/** Resolved values for the API's answers (engine defaults filled in); `own`: the agent's Worker-only settings. */
export function effective(
  s: StoreSettings,
  stored?: { dims: number; metric: string; scalar: string },
  own?: Pick<AgentSettings, 'embedder' | 'consolidate'>,
): EffectiveSettings {
  return {
    ...(own?.embedder ? { embedder: own.embedder } : {}),
    dims: stored?.dims ?? s.dims ?? 0,
    metric: (stored?.metric as EffectiveSettings['metric'] | undefined) ?? s.metric ?? 'cosine',
    scalar: (stored?.scalar as EffectiveSettings['scalar'] | undefined) ?? s.scalar ?? defaultScalar(s.metric),
    maxBytes: s.maxBytes ?? 0,
    maxMemories: s.maxMemories ?? 0,
    retention: Object.fromEntries(Object.entries(s.retention ?? {}).filter(([, v]) => v !== undefined)),
    maxMemoryBytes: s.maxMemoryBytes,
    maxCheckpointBytes: s.maxCheckpointBytes,
    ...(s.sequence ? { sequence: s.sequence } : {}),
    ...(s.coherence ? { coherence: s.coherence } : {}),
    ...(own?.consolidate !== undefined ? { consolidate: own.consolidate } : {}),
  };
}

/** The shape fields that differ between `want` and what the store has (empty: compatible). */
export function shapeConflicts(want: EffectiveSettings, has: EffectiveSettings): string[] {
  return (['dims', 'metric', 'scalar'] as const)
    .filter((k) => want[k] !== has[k])
    .map((k) => `${k} ${JSON.stringify(has[k])} (asked for ${JSON.stringify(want[k])})`);
}
