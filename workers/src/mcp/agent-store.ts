/**
 * `agentStore`: an agent's Durable Object as a `MemoryStore`, for code that takes any store (the MCP server
 * the Worker serves at `/v1/agents/{agent}/mcp`), built from the method table by `storeOverRpc`: each one-call
 * method is one RPC (`callAgent`); the unbounded reads go through their pages (`historyPage`, `changesPage`,
 * `listCheckpointsPage`), so no call's result passes a Durable Object call's size. What a Worker request cannot
 * do is refused with INVALID_ARGUMENT: a live subscription (the WebSocket feed is the way), whole-store
 * export/import (the NDJSON routes are).
 */
import { EdgememError, type MemoryStore } from 'edgemem';
import { type StoreMethodName, storeOverRpc } from 'edgemem/rpc';
import { callAgent } from '../agent-client.js';
import type { Env } from '../env.js';

/** Where to go instead, for each method a Worker request cannot serve. */
function elsewhere(method: StoreMethodName): string {
  if (method === 'subscribe') return 'a live subscription (use the WebSocket feed, /v1/agents/{agent}/ws)';
  if (method === 'export' || method === 'exportStream') return 'export (GET /v1/agents/{agent}/export streams it)';
  if (method === 'import' || method === 'importStream') return 'import (POST /v1/agents/{agent}/import streams it)';
  return method;
}

export function agentStore(env: Env, agent: string): MemoryStore {
  return storeOverRpc((method, args) => callAgent(env, agent, method, ...args), {
    refused: (method) =>
      new EdgememError('INVALID_ARGUMENT', `${elsewhere(method)} is not available through this endpoint`),
  });
}
