/**
 * edgemem's Worker with an instrumented Durable Object, for do-breakdown.mjs only (never deployed): the same routes
 * and the same `AgentMemory`, whose storage's synchronous KV counts and times every page read and write, plus
 * `/probe/*` routes that time the pieces of a request inside the Worker and the object (workerd's clock moves in
 * 1 ms steps: each figure is a total over many calls divided by their number).
 */

import { openStore } from 'edgemem';
import { AgentMemory as Base, type StoreArgs, type StoreMethod } from '../../../workers/src/agent-memory.js';
import { authenticate } from '../../../workers/src/auth.js';
import { DurableObjectPageStore } from '../../../workers/src/do-page-store.js';
import type { Env } from '../../../workers/src/env.js';
import worker from '../../../workers/src/index.js';
import { MemoryPutBody, SearchBody } from '../../../workers/src/schemas.js';

interface Counters {
  gets: number;
  getMs: number;
  getBytes: number;
  puts: number;
  putMs: number;
  putBytes: number;
  deletes: number;
  /** Bytes of the written values in zero runs of 64 bytes or more (what eliding them would save). */
  putZeroRuns: number;
}
const zero = (): Counters => ({
  gets: 0,
  getMs: 0,
  getBytes: 0,
  puts: 0,
  putMs: 0,
  putBytes: 0,
  deletes: 0,
  putZeroRuns: 0,
});

/** Bytes of `v` in runs of at least 64 zero bytes, counted by 32-bit words. */
function zeroRunBytes(v: Uint8Array): number {
  const words = new Uint32Array(v.buffer, v.byteOffset, v.byteLength >> 2);
  let total = 0;
  let run = 0;
  for (let i = 0; i < words.length; i++) {
    if (words[i] === 0) run++;
    else {
      if (run >= 16) total += run * 4;
      run = 0;
    }
  }
  if (run >= 16) total += run * 4;
  return total;
}

/** What the probed object's KV did since the last reset (one object per probe run). */
let counters = zero();

/**
 * Makes the synchronous KV count and time get/put/delete, on its prototype (workerd checks that a Durable
 * Object's state is its own type, so the object cannot be handed a wrapped one). Once per isolate.
 */
function countKv(kv: DurableObjectStorage['kv']): void {
  const proto = Object.getPrototypeOf(kv) as Record<string, (...a: unknown[]) => unknown> & { __counted?: true };
  if (proto.__counted) return;
  proto.__counted = true;
  const { get, put, delete: del } = proto;
  proto.get = function (this: unknown, ...a: unknown[]) {
    const t = performance.now();
    const v = get.apply(this, a) as Uint8Array | undefined;
    counters.getMs += performance.now() - t;
    counters.gets++;
    if (v) counters.getBytes += v.byteLength;
    return v;
  };
  proto.put = function (this: unknown, ...a: unknown[]) {
    const t = performance.now();
    const r = put.apply(this, a);
    counters.putMs += performance.now() - t;
    counters.puts++;
    if (a[1] instanceof Uint8Array) {
      counters.putBytes += a[1].byteLength;
      if (a[1].byteOffset % 4 === 0 && a[1].byteLength % 4 === 0) counters.putZeroRuns += zeroRunBytes(a[1]);
    }
    return r;
  };
  proto.delete = function (this: unknown, ...a: unknown[]) {
    counters.deletes++;
    return del.apply(this, a);
  };
}

export class AgentMemory extends Base {
  #commits = 0;
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    countKv(ctx.storage.kv);
  }

  /** Runs `calls` store calls here (no RPC), each its own transaction; their total time and the KV traffic. */
  async probe(calls: Array<[StoreMethod, unknown[]]>): Promise<{ ms: number; n: number; kv: Counters }> {
    counters = zero();
    const t = performance.now();
    for (const [method, args] of calls) {
      const r = await this.call(method, args as StoreArgs<typeof method>);
      if (!r.ok) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
    }
    return { ms: performance.now() - t, n: calls.length, kv: counters };
  }

  /** Creates this agent's empty store in the `kv` layout (stores made before the page table), before first use. */
  async useKvLayout(dims: number): Promise<void> {
    const pages = new DurableObjectPageStore(this.ctx.storage, 'kv');
    const store = await openStore({ dims, storage: { pages, atomic: true }, idleFlushMs: 0, scalar: 'i8' });
    await store.close();
  }

  /** `times` transactions each writing `pages` 8 KiB values (the KV writes alone, no engine). */
  kvCommits(pages: number, times: number): { ms: number } {
    const page = new Uint8Array(8192).fill(1);
    const t = performance.now();
    for (let i = 0; i < times; i++) {
      this.ctx.storage.transactionSync(() => {
        for (let p = 0; p < pages; p++) this.ctx.storage.kv.put(`probe:${p}`, page.slice());
      });
    }
    return { ms: performance.now() - t };
  }

  /** One transaction writing `pages` 8 KiB values (its response waits for the commit to be durable). */
  commitPages(pages: number): number {
    const page = new Uint8Array(8192).fill(this.#commits++ & 0xff); // new bytes each time: nothing can elide the write
    if (pages > 0) {
      this.ctx.storage.transactionSync(() => {
        for (let p = 0; p < pages; p++) this.ctx.storage.kv.put(`probe:${p}`, page.slice());
      });
    }
    return pages;
  }

  /** Returns its argument: the RPC round trip and the structured clone of what crosses it. */
  echo<T>(x: T): T {
    return x;
  }
}

type Probed = Pick<AgentMemory, 'probe' | 'kvCommits' | 'commitPages' | 'echo' | 'useKvLayout'> & {
  call(method: string, args: unknown[]): Promise<{ ok: boolean }>;
};
const stubOf = (env: Env, agent: string) =>
  env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(agent)) as unknown as Probed;

/** The call's arguments with its embedding or query vector as a Float32Array instead of an array of numbers. */
function withF32(args: unknown[]): unknown[] {
  const [first, ...rest] = args as [Record<string, unknown>, ...unknown[]];
  const f32 = (v: unknown) => (Array.isArray(v) ? Float32Array.from(v as number[]) : v);
  return [{ ...first, embedding: f32(first.embedding), vector: f32(first.vector) }, ...rest];
}

/** Total ms of `times` runs of `fn`. */
async function timed(times: number, fn: () => unknown): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < times; i++) await fn();
  return performance.now() - t;
}

async function probeRoute(req: Request, env: Env, path: string): Promise<Response> {
  const params = new URL(req.url).searchParams;
  const stub = stubOf(env, params.get('agent') ?? 'bench-agent');
  if (path === '/probe/commit')
    return Response.json({ pages: await stub.commitPages(Number(params.get('pages') ?? 0)) });
  if (path === '/probe/kv-layout') {
    await stub.useKvLayout(Number(params.get('dims')));
    return Response.json({ ok: true });
  }
  const body = (await req.json()) as Record<string, unknown>;
  switch (path) {
    case '/probe/store':
      return Response.json(await stub.probe(body.calls as Array<[StoreMethod, unknown[]]>));
    case '/probe/kv':
      return Response.json(await stub.kvCommits(body.pages as number, body.times as number));
    case '/probe/worker': {
      // The Worker's own steps, each `times` times: auth (JWT), request JSON parse + zod, RPC with the call's
      // arguments (echoed back), the store call over RPC, the response JSON.
      const times = body.times as number;
      const token = body.token as string;
      const [method, args] = body.call as [StoreMethod, unknown[]];
      const text = JSON.stringify(args[0]);
      const schema = method === 'search' ? SearchBody : MemoryPutBody;
      const result = await stub.call(method, args);
      return Response.json({
        times,
        auth_ms: await timed(times, () => authenticate(env, token)),
        parse_ms: await timed(times, () => JSON.parse(text)),
        zod_ms: await timed(times, () => schema.parse(JSON.parse(text))),
        rpc_noop_ms: await timed(times, () => stub.echo(0)),
        rpc_args_ms: await timed(times, () => stub.echo(args)),
        rpc_args_f32_ms: await timed(times, () => stub.echo(withF32(args))),
        rpc_result_ms: await timed(times, () => stub.echo(result)),
        rpc_call_ms: await timed(times, () => stub.call(method, args)),
        response_json_ms: await timed(times, () => JSON.stringify(result)),
      });
    }
  }
  return new Response('no such probe', { status: 404 });
}

export default {
  async fetch(req: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (path.startsWith('/probe/')) return probeRoute(req, env, path);
    return worker.fetch(req, env, ctx);
  },
} satisfies ExportedHandler<Env>;
