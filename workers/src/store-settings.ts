/** The engine settings of every agent's store, from the Worker's variables (env.ts) and the limits. */
import { SCALAR_KINDS, type ScalarKind, type StoreSettings } from 'edgemem';
import { type Env, intVar } from './env.js';
import { LIMITS } from './limits.js';

export function storeSettings(env: Env): StoreSettings {
  return {
    dims: intVar(env, 'EDGEMEM_DIMS', 384),
    ...(env.EDGEMEM_SCALAR ? { scalar: scalarVar(env.EDGEMEM_SCALAR) } : {}),
    maxBytes: intVar(env, 'EDGEMEM_MAX_BYTES', 0),
    maxMemories: intVar(env, 'EDGEMEM_MAX_MEMORIES', 0),
    memoryBudget: intVar(env, 'EDGEMEM_MEMORY_BUDGET', DEFAULT_MEMORY_BUDGET),
    retention: {
      historyVersions: intVar(env, 'EDGEMEM_HISTORY_VERSIONS', undefined),
      eventsMax: intVar(env, 'EDGEMEM_EVENTS_MAX', undefined),
      eventsMaxAgeMs: intVar(env, 'EDGEMEM_EVENTS_MAX_AGE_MS', undefined),
    },
    maxMemoryBytes: LIMITS.memoryBytes,
    maxCheckpointBytes: LIMITS.checkpointBytes,
  };
}

/**
 * The engine's heap budget in a Durable Object: an isolate has 128 MB, shared with the JavaScript heap and the
 * runtime; the engine gets 96 MiB of it, so a write that would index past it is refused (QUOTA_EXCEEDED) rather
 * than the isolate being killed. At 384-d i4 that is ~185k vectors per agent (docs/scale.md).
 */
export const DEFAULT_MEMORY_BUDGET = 96 << 20;

/** Delay of the maintenance alarm after a write, ms. */
export function alarmDelayMs(env: Env): number {
  return intVar(env, 'EDGEMEM_ALARM_MS', 300_000) ?? 300_000;
}

/**
 * The vector scalar kind of a new agent's store when neither its settings nor EDGEMEM_SCALAR name one: i4
 * with the cosine metric (the only metric i4 and i8 support), else f32. Why i4: a Durable Object has 128 MB,
 * and at 100k × 384 the engine's heap after a reopen is 48 MB with i4 against 66 MB with i8, with the same
 * search time in wasm and R@10 against exact search 0.967 vs 0.950; LoCoMo hybrid R@10 0.762 vs 0.763 (MiniLM)
 * and 0.749 vs 0.752 (e5). docs/decisions/i4-default-in-the-worker.md.
 */
export function defaultScalar(metric: StoreSettings['metric']): NonNullable<StoreSettings['scalar']> {
  return (metric ?? 'cosine') === 'cosine' ? 'i4' : 'f32';
}

function scalarVar(raw: string): ScalarKind {
  const kind = SCALAR_KINDS.find((k) => k === raw);
  if (kind) return kind;
  throw new Error(`variable EDGEMEM_SCALAR must be one of ${SCALAR_KINDS.join(', ')}, got ${JSON.stringify(raw)}`);
}
