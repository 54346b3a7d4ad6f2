/**
 * The API's most frequent write — `PUT /v1/agents/{agent}/memories/{key}?ns=…` with a JSON body of known length —
 * answered without the router (fast-path.ts: what every fast path shares), with the same validation (schemas.ts),
 * the same store call and the same response as the route in routes/memories.ts.
 */
import type { MemoryInput } from 'edgemem';
import { callAgent } from './agent-client.js';
import { admitted, type FastPath, plainJsonBody, respond, withJsonBody } from './fast-path.js';
import { LIMITS } from './limits.js';
import { plainMemoryUrl } from './memory-get-fast-path.js';
import { defined } from './routes/common.js';
import { MemoryPutBody } from './schemas.js';
import { vectorIn } from './wire.js';

/** The route's answer to `req`, or undefined: the router must answer `req` (its body unread). */
export const fastMemoryPut: FastPath = async (req, env, router) => {
  if (req.method !== 'PUT' || !plainJsonBody(req, LIMITS.bodyBytes)) return undefined;
  const target = plainMemoryUrl(req);
  if (!target || !(await admitted(req, env, target.url, target.agent, 'write'))) return undefined;
  const { agent, key, namespace } = target;
  return withJsonBody(req, MemoryPutBody, router, (body) =>
    respond(() => {
      const memory = defined({ ...body, embedding: vectorIn(body.embedding), namespace, key }) as MemoryInput;
      return callAgent(env, agent, 'put', memory);
    }),
  );
};
