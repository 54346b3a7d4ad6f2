/**
 * The API's search — `POST /v1/agents/{agent}/search` with a JSON body of known length and no query — answered
 * without the router (fast-path.ts: what every fast path shares), with the same validation (schemas.ts), the same
 * store call and the same response as the route in routes/search.ts (`searchAnswer`).
 */
import { admitted, type FastPath, plainJsonBody, plainUrl, respondJson, withJsonBody } from './fast-path.js';
import { LIMITS } from './limits.js';
import { searchAnswer } from './routes/search.js';
import { AgentParams, SearchBody } from './schemas.js';

const PATH = /^\/v1\/agents\/([^/%]+)\/search$/;

/** The route's answer to `req`, or undefined: the router must answer `req` (its body unread). */
export const fastSearch: FastPath = async (req, env, router) => {
  if (req.method !== 'POST' || !plainJsonBody(req, LIMITS.bodyBytes)) return undefined;
  const plain = plainUrl(req, PATH, []);
  const agent = plain?.params[0] ?? '';
  if (!plain || !AgentParams.safeParse({ agent }).success) return undefined;
  if (!(await admitted(req, env, plain.url, agent, 'read'))) return undefined;
  return withJsonBody(req, SearchBody, router, (body) => respondJson(() => searchAnswer(env, agent, body)));
};
