/**
 * The API's most frequent request — `GET /v1/agents/{agent}/memories/{key}?ns=…` with nothing else — answered
 * without the router (fast-path.ts: what every fast path shares), with the same validation (schemas.ts) and the same
 * response as the route in routes/memories.ts (measured under Miniflare: ~13 % of a GET's time in the isolate;
 * bench/peers/miniflare/request-path.mjs). Also the URL both memory fast paths take (`plainMemoryUrl`).
 */
import { callAgent } from './agent-client.js';
import { admitted, type FastPath, plainUrl, respond } from './fast-path.js';
import { ApiError } from './http-errors.js';
import { KeyParams, NamespaceQuery, splitNamespace } from './schemas.js';
import { memoryOut } from './wire.js';

const PATH = /^\/v1\/agents\/([^/%]+)\/memories\/([^/%]+)$/;

/** A URL `/v1/agents/{agent}/memories/{key}?ns=…` (no percent-encoding in the path, no other parameter). */
export interface MemoryUrl {
  url: URL;
  agent: string;
  key: string;
  ns: string;
  namespace: string[];
}

/** `req`'s URL when it names one memory plainly (see MemoryUrl) and validly, else undefined. */
export function plainMemoryUrl(req: Request): MemoryUrl | undefined {
  const plain = plainUrl(req, PATH, ['ns']);
  if (!plain) return undefined;
  const [agent = '', key = ''] = plain.params;
  const ns = plain.query.ns ?? '';
  if (!KeyParams.safeParse({ agent, key }).success || !NamespaceQuery.safeParse(ns).success) return undefined;
  try {
    return { url: plain.url, agent, key, ns, namespace: splitNamespace(ns) };
  } catch {
    return undefined; // a namespace the route refuses
  }
}

/** The route's answer to `req`, or undefined: the router must answer it. */
export const fastMemoryGet: FastPath = async (req, env) => {
  if (req.method !== 'GET') return undefined;
  const target = plainMemoryUrl(req);
  if (!target || !(await admitted(req, env, target.url, target.agent, 'read'))) return undefined;
  const { agent, key, ns, namespace } = target;
  return respond(async () => {
    const memory = await callAgent(env, agent, 'get', namespace, key, undefined);
    if (!memory) throw new ApiError('NOT_FOUND', `no memory ${JSON.stringify(key)} in namespace ${JSON.stringify(ns)}`);
    return memoryOut(memory);
  });
};
