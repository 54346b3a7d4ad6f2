/**
 * `edgemem/rpc`: a store's methods called across a boundary — a Web Worker's postMessage, a Durable Object's
 * RPC — with results and errors (their `code`) carried as plain data. The side that holds the store serves an
 * allow-list of methods (`callStore`, `outcome`, or `serveRpc` over postMessage); the calling side gets the
 * result, or an `EdgememError` with the same code (`unwrap`, or `RpcClient` over postMessage).
 */
import { codeOf, EdgememError, type ErrorCode, invalid } from '../api/errors.js';
import type { MemoryStore } from '../api/types.js';
import { type StoreOverRpcOptions, storeOverRpc } from './store-over-rpc.js';

export { EdgememError };

/** The MemoryStore methods that can cross a boundary: every one that answers with a promise but `subscribe`. */
export type StoreMethod = Exclude<
  {
    [K in keyof MemoryStore]: MemoryStore[K] extends (...args: never[]) => Promise<unknown> ? K : never;
  }[keyof MemoryStore],
  'subscribe'
>;
export type StoreArgs<M extends StoreMethod> = Parameters<MemoryStore[M]>;
export type StoreResult<M extends StoreMethod> = Awaited<ReturnType<MemoryStore[M]>>;

/** An error as plain data (structured clone and JSON keep it): its code, message, and RESUME_GAP's oldestSeq. */
export interface WireError<C extends string = ErrorCode> {
  code: C;
  message: string;
  oldestSeq?: number;
}

/** A call's answer as plain data: the value, or the error. */
export type Outcome<T, E = WireError> = { ok: true; value: T } | { ok: false; error: E };

/** Any thrown value as a WireError: a known `code` (an EdgememError's, say) is kept, anything else is INTERNAL. */
export function toWireError(e: unknown): WireError {
  const err = (typeof e === 'object' && e !== null ? e : {}) as {
    code?: unknown;
    message?: unknown;
    oldestSeq?: unknown;
  };
  const w: WireError = {
    code: codeOf(err.code),
    message: typeof err.message === 'string' ? err.message : String(e),
  };
  if (typeof err.oldestSeq === 'number') w.oldestSeq = err.oldestSeq;
  return w;
}

/** Runs `fn`: its value or its error (converted by `toWire`) as an Outcome. Never rejects. */
export async function outcome<T, E = WireError>(
  fn: () => T | Promise<T>,
  toWire: (e: unknown) => E = toWireError as (e: unknown) => E,
): Promise<Outcome<T, E>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, error: toWire(e) };
  }
}

/** The value of `o`, or its error thrown (as an EdgememError with the same code unless `toError` says otherwise). */
export function unwrap<T, E extends WireError<string> = WireError>(
  o: Outcome<T, E>,
  toError: (e: E) => Error = (e) =>
    new EdgememError(codeOf(e.code), e.message, e.oldestSeq === undefined ? undefined : { oldestSeq: e.oldestSeq }),
): T {
  if (!o.ok) throw toError(o.error);
  return o.value;
}

/**
 * Calls `method` of `store` with `args` when `methods` allows it, else INVALID_ARGUMENT: the serving side's
 * dispatch, so a caller across the boundary reaches only the methods its host chose.
 */
export async function callStore<M extends StoreMethod>(
  store: MemoryStore,
  methods: ReadonlySet<string>,
  method: M,
  args: StoreArgs<M>,
): Promise<StoreResult<M>> {
  if (typeof method !== 'string' || !methods.has(method)) {
    throw invalid(`unknown store method ${JSON.stringify(String(method))}`);
  }
  if (!Array.isArray(args)) throw invalid(`${method}: the arguments must be an array`);
  const fn = store[method] as (...a: unknown[]) => Promise<StoreResult<M>>;
  return fn.apply(store, args);
}

/** A request `serveRpc` answers, and its reply: the messages that cross postMessage. */
export interface RpcRequest {
  rpc: number;
  method: string;
  args: unknown[];
}
export interface RpcReply {
  rpc: number;
  outcome: Outcome<unknown>;
}

/** What RPC uses of a `Worker` (the page's side) or of a worker's `self` (the worker's side). */
export interface MessageEndpoint {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

function isRequest(m: unknown): m is RpcRequest {
  return typeof m === 'object' && m !== null && typeof (m as RpcRequest).rpc === 'number' && 'method' in m;
}

function isReply(m: unknown): m is RpcReply {
  return typeof m === 'object' && m !== null && typeof (m as RpcReply).rpc === 'number' && 'outcome' in m;
}

/**
 * The serving side (in a Web Worker, `serveRpc(self, ...)`): answers each request that arrives on `endpoint` by
 * `handle(method, args)`, one at a time in arrival order (a call never interleaves with another). Other messages
 * are left to other listeners.
 */
export function serveRpc(endpoint: MessageEndpoint, handle: (method: string, args: unknown[]) => unknown): void {
  let queue: Promise<void> = Promise.resolve();
  endpoint.addEventListener('message', ({ data }) => {
    if (!isRequest(data)) return;
    queue = queue.then(async () => {
      const reply: RpcReply = { rpc: data.rpc, outcome: await outcome(() => handle(data.method, data.args)) };
      try {
        endpoint.postMessage(reply);
      } catch (e) {
        // A result structured clone cannot copy (a function, say): the caller gets an error, not silence.
        const error: WireError = {
          code: 'INTERNAL',
          message: `${data.method}: the result cannot be sent: ${String(e)}`,
        };
        endpoint.postMessage({ rpc: data.rpc, outcome: { ok: false, error } } satisfies RpcReply);
      }
    });
  });
}

/**
 * Serves `store`'s `methods` on `endpoint` (`store` may be a function, for a store that is reopened): the page
 * then calls them through `RpcClient.store`.
 */
export function serveStore(
  endpoint: MessageEndpoint,
  store: MemoryStore | (() => MemoryStore),
  methods: readonly StoreMethod[],
): void {
  const allowed = new Set<string>(methods);
  const current = typeof store === 'function' ? store : () => store;
  serveRpc(endpoint, (method, args) => callStore(current(), allowed, method as StoreMethod, args as never));
}

/** The calling side (on the page, `new RpcClient(worker)`): promises of what `serveRpc` answers. */
export class RpcClient {
  readonly #endpoint: MessageEndpoint;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #next = 1;

  constructor(endpoint: MessageEndpoint) {
    this.#endpoint = endpoint;
    endpoint.addEventListener('message', ({ data }) => {
      if (!isReply(data)) return;
      const p = this.#pending.get(data.rpc);
      this.#pending.delete(data.rpc);
      if (!p) return;
      try {
        p.resolve(unwrap(data.outcome));
      } catch (e) {
        p.reject(e as Error);
      }
    });
  }

  /** Calls `method` on the other side; rejects with an EdgememError carrying the error's code. */
  call(method: string, ...args: unknown[]): Promise<unknown> {
    const rpc = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(rpc, { resolve, reject });
      const request: RpcRequest = { rpc, method, args };
      this.#endpoint.postMessage(request);
    });
  }

  /** A served store's method, typed as MemoryStore declares it. */
  store<M extends StoreMethod>(method: M, ...args: StoreArgs<M>): Promise<StoreResult<M>> {
    return this.call(method, ...args) as Promise<StoreResult<M>>;
  }

  /**
   * The served store as a `MemoryStore` (`storeOverRpc`: each one-call method of the table is one request, the
   * paged reads come whole from their pages; a subscription and streamed transfer are refused).
   */
  memoryStore(options?: StoreOverRpcOptions): MemoryStore {
    return storeOverRpc((method, args) => this.store(method, ...args), options);
  }

  /** Rejects every call still waiting (the other side died: a Worker's `error` event, say). */
  failAll(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(error);
  }
}

export {
  type Access,
  CALL_METHODS,
  type CallMethod,
  type Crossing,
  isCallMethod,
  type MethodSpec,
  READ_METHODS,
  STORE_METHODS,
  type StoreMethodName,
  WRITE_METHODS,
} from '../store/methods.js';
export { type CallStore, type StoreOverRpcOptions, storeOverRpc } from './store-over-rpc.js';
