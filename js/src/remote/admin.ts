/**
 * Admin helpers of the remote client (they take the Worker's admin token, never a scoped one):
 * `createAgent` sets an agent's store settings (`PUT /v1/agents/{agent}`), `agentSettings` reads them,
 * `mintToken` mints a short-lived token scoped to one agent (`POST /v1/tokens`) — what a backend hands a
 * browser so it can `connect` to its own agent and nothing else.
 */

import { invalid } from '../api/errors.js';
import type { StoreSettings } from '../api/types.js';
import { type FetchLike, HttpClient } from './http.js';
import { pathPart } from './wire.js';

/**
 * The settings an agent's store can be created with. `dims`, `metric` and `scalar` are fixed once the agent
 * holds data (changing them then is CONFLICT); caps, retention and size limits can change at any time (lower
 * caps apply from the next write). Absent fields take the Worker's defaults (its EDGEMEM_* variables).
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
>;

/** An agent's embedder setting as the Worker reports it (secrets are named, never shown). */
export interface AgentEmbedder {
  /** `openai` (an OpenAI-compatible endpoint) or `workers-ai`. */
  kind: string;
  model: string;
  dims: number;
}

export interface AgentInfo {
  agent: string;
  /** The effective settings (the agent's own over the Worker's defaults). */
  settings: Required<Pick<AgentSettings, 'dims' | 'metric' | 'scalar'>> &
    AgentSettings & {
      /** Present when the agent embeds text-only puts and searches in its Worker. */
      embedder?: AgentEmbedder;
    };
  /** The agent's latest seq (0: it holds no data yet). */
  seq: number;
}

export interface AdminOptions {
  url: string;
  adminToken: string;
  fetch?: FetchLike;
}

export type Scope = 'read' | 'write' | 'subscribe';

export interface MintedToken {
  token: string;
  agent: string;
  scopes: Scope[];
  /** ms since the epoch. */
  expiresAt: number;
}

/**
 * Creates or reconfigures `agent` with `settings` (replacing any settings it had; absent fields: the Worker's
 * defaults). Idempotent. CONFLICT when dims/metric/scalar differ from those of an agent that already holds data.
 */
export async function createAgent(
  options: AdminOptions & { agent: string; settings?: AgentSettings },
): Promise<AgentInfo> {
  const http = new HttpClient({ url: options.url, token: options.adminToken, fetch: options.fetch });
  return http.request<AgentInfo>('PUT', `/v1/agents/${pathPart(options.agent, 'agent')}`, {
    body: options.settings ?? {},
  });
}

/** The effective settings of `agent` (any token with the `read` scope for it works too). */
export async function agentSettings(options: AdminOptions & { agent: string }): Promise<AgentInfo> {
  const http = new HttpClient({ url: options.url, token: options.adminToken, fetch: options.fetch });
  return http.request<AgentInfo>('GET', `/v1/agents/${pathPart(options.agent, 'agent')}`);
}

/** Mints a token for `agent` with `scopes`, valid for `ttlSeconds` (default 1 hour, at most 24 hours). */
export async function mintToken(
  options: AdminOptions & { agent: string; scopes: Scope[]; ttlSeconds?: number },
): Promise<MintedToken> {
  if (!Array.isArray(options.scopes)) throw invalid('scopes must be an array of "read" | "write" | "subscribe"');
  const http = new HttpClient({ url: options.url, token: options.adminToken, fetch: options.fetch });
  return http.request<MintedToken>('POST', '/v1/tokens', {
    body: { agent: options.agent, scopes: options.scopes, ttlSeconds: options.ttlSeconds },
  });
}
