/**
 * `storeOverRpc(call)`: a `MemoryStore` whose calls cross a boundary one at a time, built from the method table:
 * every `call` method is one `call(method, args)`, the paged reads come whole from their pages, and what cannot
 * cross as one bounded call (a live subscription, whole-store and streamed transfer) is refused.
 */
import { EdgememError } from '../api/errors.js';
import type { MemoryStore } from '../api/types.js';
import { CALL_METHODS, type CallMethod, STORE_METHODS, type StoreMethodName } from '../store/methods.js';
import { PAGED } from '../store/paged.js';

/** One store call across the boundary, its result or its error (an `EdgememError` with the code). */
export type CallStore = <M extends CallMethod>(
  method: M,
  args: Parameters<MemoryStore[M]>,
) => Promise<Awaited<ReturnType<MemoryStore[M]>>>;

export interface StoreOverRpcOptions {
  /** The error a method that cannot cross is refused with. Default: INVALID_ARGUMENT naming the method. */
  refused?: (method: StoreMethodName) => Error;
}

const notAcross = (method: StoreMethodName) =>
  new EdgememError('INVALID_ARGUMENT', `${method} is not available across this boundary`);

/**
 * A store over `call`. `close()` closes nothing (each call stood alone); the methods that cannot cross reject
 * (`exportStream`'s iterable, at its first step) with `options.refused(method)`.
 */
export function storeOverRpc(call: CallStore, options: StoreOverRpcOptions = {}): MemoryStore {
  const refused = options.refused ?? notAcross;
  const store: Record<string, unknown> = {};
  for (const method of CALL_METHODS) {
    store[method] = (...args: never[]) => call(method, args as Parameters<MemoryStore[typeof method]>);
  }
  const pages = store as unknown as MemoryStore;
  for (const [method, derive] of Object.entries(PAGED)) {
    store[method] = (...args: unknown[]) => (derive as (s: MemoryStore, ...a: unknown[]) => unknown)(pages, ...args);
  }
  for (const method of Object.keys(STORE_METHODS) as StoreMethodName[]) {
    if (method in store) continue;
    if (method === 'close') store.close = async () => {};
    else if (method === 'exportStream') {
      const fail = () => Promise.reject(refused(method));
      store.exportStream = () => ({ [Symbol.asyncIterator]: () => ({ next: fail }) });
    } else store[method] = () => Promise.reject(refused(method));
  }
  return pages;
}
