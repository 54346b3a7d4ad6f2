/**
 * edgemem's Worker with probes of a request's fixed cost, for request-path.mjs only (never deployed): the real
 * routes and `AgentMemory`, plus `/probe/path`, which times inside the isolate, step by step, what a GET, PUT,
 * CHECKPOINT PUT or SEARCH request costs — the whole request through the Worker's `fetch` (no HTTP socket), the
 * Hono floor (`/v1/health`), auth, validation, the Durable Object's id, the RPC with the call, the call inside the
 * object (with and without its RPC), an empty `transactionSync` there, the response's JSON. workerd's clock moves
 * in coarse steps: each figure is a total over many calls divided by their number.
 */

import { AgentMemory as Base, type StoreArgs, type StoreMethod } from '../../../workers/src/agent-memory.js';
import { authenticate, bearer } from '../../../workers/src/auth.js';
import { DurableObjectPageStore } from '../../../workers/src/do-page-store.js';
import type { Env } from '../../../workers/src/env.js';
import worker from '../../../workers/src/index.js';
import {
  CheckpointPutBody,
  KeyParams,
  MemoryPutBody,
  NamespaceQuery,
  SearchBody,
} from '../../../workers/src/schemas.js';

/**
 * While set, the object's reads run inside `transactionSync` as every store call did before reads ran without
 * one (do-page-store.ts `reading`): the bare GET's `_tx` variant, what that transaction costs.
 */
let readsInTransaction = false;
const reading = DurableObjectPageStore.prototype.reading;
DurableObjectPageStore.prototype.reading = function <T>(this: DurableObjectPageStore, fn: () => T) {
  return readsInTransaction ? { value: fn(), refused: false } : reading.call(this, fn);
};

export class AgentMemory extends Base {
  /** `call` with a read-only store call inside a transaction (a probe). */
  async callInTransaction(method: StoreMethod, args: unknown[]) {
    readsInTransaction = true;
    try {
      return await this.call(method, args as StoreArgs<typeof method>);
    } finally {
      readsInTransaction = false;
    }
  }

  /** `times` runs of the store call here (the DO's `call`, no RPC), and `times` empty transactions: total ms. */
  async probeInside(method: StoreMethod, args: unknown[], times: number): Promise<{ call_ms: number; tx_ms: number }> {
    const t0 = performance.now();
    for (let i = 0; i < times; i++) {
      const r = await this.call(method, args as StoreArgs<typeof method>);
      if (!r.ok) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
    }
    const t1 = performance.now();
    for (let i = 0; i < times; i++) this.ctx.storage.transactionSync(() => i);
    return { call_ms: t1 - t0, tx_ms: performance.now() - t1 };
  }

  echo<T>(x: T): T {
    return x;
  }
}

type Probed = {
  call(method: string, args: unknown[]): Promise<{ ok: boolean; value?: unknown }>;
  callInTransaction(method: string, args: unknown[]): Promise<{ ok: boolean; value?: unknown }>;
  probeInside(method: string, args: unknown[], times: number): Promise<{ call_ms: number; tx_ms: number }>;
  echo<T>(x: T): Promise<T>;
};

/** The call's arguments as the route passes them: its embedding or query vector as a Float32Array. */
function withF32(args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return args;
  const o = { ...(first as Record<string, unknown>) };
  for (const k of ['embedding', 'vector']) if (Array.isArray(o[k])) o[k] = Float32Array.from(o[k] as number[]);
  return [o, ...rest];
}

/** Total ms of `times` runs of `fn`. */
async function timed(times: number, fn: () => unknown): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < times; i++) await fn();
  return performance.now() - t;
}

interface OpProbe {
  /** The HTTP request as the client sends it. */
  method: string;
  path: string;
  body?: string;
  /** The store call the route makes. */
  call: [StoreMethod, unknown[]];
}

/** The route's own validation: its path parameters, query and JSON body through the same schemas. */
function validate(op: string, o: OpProbe): void {
  const url = new URL(`http://probe${o.path}`);
  const parts = url.pathname.split('/');
  if (op === 'get' || op === 'put') {
    KeyParams.parse({ agent: parts[3], key: decodeURIComponent(parts[5] ?? '') });
    NamespaceQuery.parse(url.searchParams.get('ns') ?? '');
  }
  if (o.body === undefined) return;
  const body = JSON.parse(o.body);
  if (op === 'put') MemoryPutBody.parse(body);
  else if (op === 'search') SearchBody.parse(body);
  else if (op === 'checkpoint_put') CheckpointPutBody.parse(body);
}

async function probePath(req: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const { agent, token, times, ops } = (await req.json()) as {
    agent: string;
    token: string;
    times: number;
    ops: Record<string, OpProbe>;
  };
  const stub = env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(agent)) as unknown as Probed;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  // The headers of a request with `body` as an HTTP client sends it: with its length (a Request made here has none).
  const headersFor = (body?: string) =>
    body === undefined ? headers : { ...headers, 'content-length': String(new TextEncoder().encode(body).length) };
  const fetchOnce = async (method: string, path: string, body?: string) => {
    const res = await worker.fetch(
      new Request(`http://probe${path}`, { method, headers: headersFor(body), body }),
      env,
      ctx,
    );
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const micro = times * 10;
  const out: Record<string, Record<string, number>> = {
    common: {
      health_ms: (await timed(times, () => fetchOnce('GET', '/v1/health'))) / times,
      auth_ms:
        (await timed(micro, () => authenticate(env, bearer(new Request('http://probe', { headers }), false)))) / micro,
      do_id_ms: (await timed(micro, () => env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(agent)))) / micro,
      rpc_empty_ms: (await timed(times, () => stub.echo(0))) / times,
    },
  };
  for (const [op, o] of Object.entries(ops)) {
    const [method, raw] = o.call;
    const args = withF32(raw);
    const result = (await stub.call(method, args)).value;
    const inside = await stub.probeInside(method, args, times);
    // The same request with an object that answers at once: the Worker's own part of it.
    const answering = {
      call: async () => ({ ok: true, value: result }),
      searchJson: async () => ({ ok: true, value: JSON.stringify(result) }), // the search route's call
    };
    const workerOnlyEnv = {
      ...env,
      AGENT_MEMORY: { idFromName: (name: string) => env.AGENT_MEMORY.idFromName(name), get: () => answering },
    } as unknown as Env;
    // `routed`: without its Content-Length, which sends a PUT or CHECKPOINT PUT to the router, not its fast path.
    const workerOnce = async (routed = false) => {
      const res = await worker.fetch(
        new Request(`http://probe${o.path}`, {
          method: o.method,
          headers: routed ? headers : headersFor(o.body),
          body: o.body,
        }),
        workerOnlyEnv,
        ctx,
      );
      if (!res.ok) throw new Error(`${o.method} ${o.path} (worker only): ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    const bareOnce = async () => {
      const res = await bareGet(new Request(`http://probe${o.path}`, { headers }), env, false);
      await res.arrayBuffer();
    };
    out[op] = {
      request_ms: (await timed(times, () => fetchOnce(o.method, o.path, o.body))) / times,
      ...(op === 'get' ? { bare_request_ms: (await timed(times, bareOnce)) / times } : {}),
      worker_only_ms: (await timed(micro, () => workerOnce())) / micro,
      ...(o.body !== undefined && op !== 'search'
        ? { worker_only_routed_ms: (await timed(micro, () => workerOnce(true))) / micro }
        : {}),
      validate_ms: (await timed(micro, () => validate(op, o))) / micro,
      rpc_call_ms: (await timed(times, () => stub.call(method, args))) / times,
      rpc_call_new_stub_ms:
        (await timed(times, () =>
          (env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(agent)) as unknown as Probed).call(method, args),
        )) / times,
      in_do_call_ms: inside.call_ms / times,
      in_do_empty_tx_ms: inside.tx_ms / times,
      rpc_args_ms: (await timed(times, () => stub.echo(args))) / times,
      rpc_result_ms: (await timed(times, () => stub.echo(result))) / times,
      response_json_ms:
        (await timed(micro, () => new Response(JSON.stringify(result), { headers: { 'content-type': 'json' } }))) /
        micro,
    };
  }
  return Response.json(out);
}

/**
 * A GET with nothing but what it needs — the path split by hand, the token checked, the store call, the
 * memory's JSON: the floor under the API's GET route (routing, middleware and validation cost the rest).
 */
async function bareGet(req: Request, env: Env, transaction: boolean): Promise<Response> {
  const url = new URL(req.url);
  const [, , , agent = '', , key = ''] = url.pathname.split('/');
  const principal = await authenticate(env, bearer(req, false));
  if (!principal.admin && principal.agent !== agent) return new Response('forbidden', { status: 403 });
  const ns = (url.searchParams.get('ns') ?? '').split('/');
  const stub = env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(agent)) as unknown as Probed;
  const args = [ns, decodeURIComponent(key)];
  const r = await (transaction ? stub.callInTransaction('get', args) : stub.call('get', args));
  return Response.json(r.value);
}

export default {
  async fetch(req: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (path === '/probe/path') return probePath(req, env, ctx);
    if (path.startsWith('/bare/')) return bareGet(req, env, false);
    if (path.startsWith('/bare-tx/')) return bareGet(req, env, true);
    return worker.fetch(req, env, ctx);
  },
} satisfies ExportedHandler<Env>;
