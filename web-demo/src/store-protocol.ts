/**
 * The messages between the page and its store Web Worker (store-worker.ts). The page sends a `Request` with an
 * id; the worker answers with a `Reply` of the same id. `call` requests run a `MemoryStore` method by name with
 * its own argument types; `open` (re)opens the OPFS store with settings; `reset` deletes it first.
 */
import type { MemoryStore, Stats } from 'edgemem';

/** The store methods the page may call through the worker. */
export type StoreMethod =
  | 'put' | 'delete' | 'get' | 'list' | 'history' | 'search'
  | 'putCheckpoint' | 'getCheckpoint' | 'listCheckpoints' | 'deleteThread'
  | 'changes' | 'stats' | 'sweep';

export type Args<M extends StoreMethod> = Parameters<MemoryStore[M]>;
export type Result<M extends StoreMethod> = Awaited<ReturnType<MemoryStore[M]>>;

/** Settings the page opens the store with. `dims` only matters when the store is created (0: no vectors). */
export interface OpenSettings {
  dims: number;
  /** Cap on live memories (0: none); past it the least recently used unpinned ones are evicted. */
  maxMemories: number;
}

/** What `open` and `reset` answer: the store's stats (its `dims` is the one it was created with). */
export interface Opened {
  stats: Stats;
  /** The OPFS name the store lives under (edgemem/<name>/). */
  name: string;
}

export type Request =
  | { id: number; type: 'open'; settings: OpenSettings }
  | { id: number; type: 'reset'; settings: OpenSettings }
  | { [M in StoreMethod]: { id: number; type: 'call'; method: M; args: Args<M> } }[StoreMethod];

/** A request before its id is assigned (Omit distributed over the union). */
export type RequestBody = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** An error as plain data (it crosses postMessage): the EdgememError code when there is one. */
export interface WireError {
  code: string;
  message: string;
}

export type Reply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: WireError };
