/** The Worker's side of the RPC to an agent's Durable Object: one object per agent id (`idFromName`). */
import type { SearchQuery } from 'edgemem';
import { unwrap as unwrapOutcome } from 'edgemem/rpc';
import type { AgentMemory, Outcome, StoreArgs, StoreMethod, StoreResult } from './agent-memory.js';
import type { Env } from './env.js';
import { ApiError } from './http-errors.js';

export function agentStub(env: Env, agent: string): DurableObjectStub {
  return env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(agent)) as unknown as DurableObjectStub;
}

/** Calls `method` on the agent's store; a coded error comes back as a thrown ApiError. */
export async function callAgent<M extends StoreMethod>(
  env: Env,
  agent: string,
  method: M,
  ...args: StoreArgs<M>
): Promise<StoreResult<M>> {
  const stub = agentStub(env, agent) as unknown as {
    call(method: M, args: StoreArgs<M>): Promise<Outcome<StoreResult<M>>>;
  };
  return unwrap(await stub.call(method, args));
}

/** The agent's hits for `query` as the JSON text of an array (AgentMemory.searchJson); errors as for callAgent. */
export async function searchAgentJson(env: Env, agent: string, query: SearchQuery): Promise<string> {
  const stub = agentStub(env, agent) as unknown as Pick<AgentMemory, 'searchJson'>;
  return unwrap(await stub.searchJson(query));
}

/** Unwraps an Outcome from the agent's object: a coded error comes back as a thrown ApiError. */
export function unwrap<T>(r: Outcome<T>): T {
  return unwrapOutcome(r, (e) => new ApiError(e.code, e.message, e.oldestSeq));
}

/** A page of the agent's change feed and the cursor for the next poll (AgentMemory.events). */
export async function pollAgent(
  env: Env,
  agent: string,
  ...args: Parameters<AgentMemory['events']>
): ReturnType<AgentMemory['events']> {
  const stub = agentStub(env, agent) as unknown as Pick<AgentMemory, 'events'>;
  return stub.events(...args);
}

/** The Durable Object's streamed export and import calls (AgentMemory.exportChunk / importChunk / importAbort). */
export function transferStub(
  env: Env,
  agent: string,
): Pick<AgentMemory, 'exportChunk' | 'importChunk' | 'importAbort'> {
  return agentStub(env, agent) as unknown as Pick<AgentMemory, 'exportChunk' | 'importChunk' | 'importAbort'>;
}
