/**
 * A LangGraph step's write — `POST /v1/agents/{agent}/checkpoints` with a JSON body of known length and no query —
 * answered without the router (fast-path.ts: what every fast path shares), with the same validation (schemas.ts),
 * the same store call and the same response as the route in routes/checkpoints.ts.
 */
import { callAgent } from './agent-client.js';
import { admitted, type FastPath, plainJsonBody, plainUrl, respond, withJsonBody } from './fast-path.js';
import { CHECKPOINT_BODY_BYTES, checkpointInput } from './routes/checkpoints.js';
import { AgentParams, CheckpointPutBody } from './schemas.js';

const PATH = /^\/v1\/agents\/([^/%]+)\/checkpoints$/;

/** The route's answer to `req`, or undefined: the router must answer `req` (its body unread). */
export const fastCheckpointPut: FastPath = async (req, env, router) => {
  if (req.method !== 'POST' || !plainJsonBody(req, CHECKPOINT_BODY_BYTES)) return undefined;
  const plain = plainUrl(req, PATH, []);
  const agent = plain?.params[0] ?? '';
  if (!plain || !AgentParams.safeParse({ agent }).success) return undefined;
  if (!(await admitted(req, env, plain.url, agent, 'write'))) return undefined;
  return withJsonBody(req, CheckpointPutBody, router, (body) =>
    respond(async () => ({ seq: await callAgent(env, agent, 'putCheckpoint', checkpointInput(body)) })),
  );
};
