/** The engine settings of every agent's store, from the Worker's variables (env.ts) and the limits. */
import type { StoreSettings } from 'edgemem';
import { intVar, type Env } from './env.js';
import { LIMITS } from './limits.js';

export function storeSettings(env: Env): StoreSettings {
  return {
    dims: intVar(env, 'EDGEMEM_DIMS', 384),
    maxBytes: intVar(env, 'EDGEMEM_MAX_BYTES', 0),
    maxMemories: intVar(env, 'EDGEMEM_MAX_MEMORIES', 0),
    retention: {
      historyVersions: intVar(env, 'EDGEMEM_HISTORY_VERSIONS', undefined),
      eventsMax: intVar(env, 'EDGEMEM_EVENTS_MAX', undefined),
      eventsMaxAgeMs: intVar(env, 'EDGEMEM_EVENTS_MAX_AGE_MS', undefined),
    },
    maxMemoryBytes: LIMITS.memoryBytes,
    maxCheckpointBytes: LIMITS.checkpointBytes,
  };
}

/** Delay of the maintenance alarm after a write, ms. */
export function alarmDelayMs(env: Env): number {
  return intVar(env, 'EDGEMEM_ALARM_MS', 300_000) ?? 300_000;
}
