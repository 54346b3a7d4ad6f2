/** The Worker's bindings and variables (wrangler.jsonc `vars`, secrets from `.dev.vars` or `wrangler secret put`). */
import type { AgentMemory } from './agent-memory.js';

export interface Env {
  AGENT_MEMORY: DurableObjectNamespace<AgentMemory>;
  /** Secret. Full access to every route and agent; the only credential that mints scoped tokens. */
  ADMIN_TOKEN?: string;
  /** Secret. HMAC key of scoped tokens; when absent it is derived from ADMIN_TOKEN (rotating that revokes them). */
  TOKEN_SECRET?: string;
  /** Embedding dimensions of every agent's store (0: no vectors). Default 384. */
  EDGEMEM_DIMS?: string;
  /** Scalar kind of new agents' vector indexes: f32, f16, i8 or i4. Default: i4 with cosine, else f32 (store-settings.ts). */
  EDGEMEM_SCALAR?: string;
  /** Caps per agent on live unpinned memories, bytes / count (0 or absent: none). */
  EDGEMEM_MAX_BYTES?: string;
  EDGEMEM_MAX_MEMORIES?: string;
  /** The engine's heap budget per agent in bytes (0: none). Default 96 MiB of the isolate's 128 MB (store-settings.ts). */
  EDGEMEM_MEMORY_BUDGET?: string;
  /** History versions kept per key (engine default when absent). */
  EDGEMEM_HISTORY_VERSIONS?: string;
  /** Change-feed events retained (default 100,000) and their maximum age in ms. */
  EDGEMEM_EVENTS_MAX?: string;
  EDGEMEM_EVENTS_MAX_AGE_MS?: string;
  /** Delay of the maintenance alarm after a write (TTL sweep, retention, index snapshot), ms. Default 300,000. */
  EDGEMEM_ALARM_MS?: string;
  /**
   * Local development only (scripts/start passes it to `wrangler dev`): comma-separated host names, e.g.
   * `127.0.0.1,localhost`; a request whose Host names another is FORBIDDEN (request-checks.ts). Unset: every host.
   */
  ALLOWED_HOSTS?: string;
  /** Optional Workers AI binding (`"ai": { "binding": "AI" }`): agents can embed with it (embedder kind workers-ai). */
  AI?: WorkersAi;
  /** Secrets named by agents' embedder settings (`apiKeySecret`) are read from here too. */
}

/** The part of the Workers AI binding the embedder uses (text embedding models answer `{ shape, data }`). */
export interface WorkersAi {
  run(model: string, input: { text: string[] }): Promise<unknown>;
}

/** An optional non-negative integer variable, or `fallback`. A malformed one is a deployment error. */
export function intVar(env: Env, name: keyof Env, fallback: number | undefined): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isSafeInteger(n) || n < 0) {
    throw new Error(`variable ${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  }
  return n;
}
