/**
 * The Worker's side of the RPC to an agent's Durable Object: one object per agent id (`idFromName`), reached through
 * its typed stub (env.ts: `DurableObjectNamespace<AgentMemory>`), every answer an Outcome unwrapped here.
 */
import type { SearchQuery } from 'edgemem';
import { unwrap as unwrapOutcome } from 'edgemem/rpc';
import type { AgentMemory, StoreArgs, StoreMethod, StoreResult } from './agent-memory.js';
import type { Env } from './env.js';
import { ApiError, type Outcome } from './http-errors.js';

/** The agent's Durable Object, its RPC methods typed as the class declares them. */
export function agentStub(env: Env, agent: string): DurableObjectStub<AgentMemory> {
  return env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(agent));
}

/** Calls `method` on the agent's store; a coded error comes back as a thrown ApiError. */
export async function callAgent<M extends StoreMethod>(
  env: Env,
  agent: string,
  method: M,
  ...args: StoreArgs<M>
): Promise<StoreResult<M>> {
  // Cast: the stub's type of `call` (Rpc.Provider) drops its type parameter, and tsc gives up (TS2589, "excessively
  // deep") mapping the store's results with their JSON values (Rpc.Stubify of the recursive JsonValue).
  const stub = agentStub(env, agent) as unknown as Pick<AgentMemory, 'call'>;
  return unwrap(await stub.call(method, args));
}

/** The agent's hits for `query` as the JSON text of an array (AgentMemory.searchJson); errors as for callAgent. */
export async function searchAgentJson(env: Env, agent: string, query: SearchQuery): Promise<string> {
  return unwrap(await agentStub(env, agent).searchJson(query));
}

/** Unwraps an Outcome from the agent's object: a coded error comes back as a thrown ApiError. */
export function unwrap<T>(r: Outcome<T>): T {
  return unwrapOutcome(r, (e) => new ApiError(e.code, e.message, e.oldestSeq));
}

/** A page of the agent's change feed and the cursor for the next poll (AgentMemory.events). */
export function pollAgent(
  env: Env,
  agent: string,
  ...args: Parameters<AgentMemory['events']>
): ReturnType<AgentMemory['events']> {
  // Cast: tsc gives up (TS2589) mapping the events' JSON payloads for the stub's type (Rpc.Stubify of JsonValue).
  const stub = agentStub(env, agent) as unknown as Pick<AgentMemory, 'events'>;
  return stub.events(...args);
}
