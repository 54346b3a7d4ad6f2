/**
 * The messages between the page and its store Web Worker (store-worker.ts). The page sends a `Request` with an
 * id; the worker answers with a `Reply` of the same id. `call` requests run a `MemoryStore` method by name with
 * its own argument types; `open` (re)opens the OPFS store with settings; `reset` deletes it first. While the
 * built-in embedder's weights load, the worker also posts `Progress` messages for the request that loads them.
 */
import type { MemoryStore, Stats } from 'edgemem';

/** The store methods the page may call through the worker. */
export type StoreMethod =
  | 'put'
  | 'delete'
  | 'get'
  | 'list'
  | 'history'
  | 'search'
  | 'putCheckpoint'
  | 'getCheckpoint'
  | 'listCheckpoints'
  | 'deleteThread'
  | 'changes'
  | 'stats'
  | 'sweep';

export type Args<M extends StoreMethod> = Parameters<MemoryStore[M]>;
export type Result<M extends StoreMethod> = Awaited<ReturnType<MemoryStore[M]>>;

/**
 * Which embedder the store worker opens the store with: the built-in e5 (edgemem-e5, run inside the worker), an
 * OpenAI-compatible endpoint the worker calls directly (URL, key and model stay in this tab), or none (lexical).
 */
export type EmbedderChoice =
  | { kind: 'e5' }
  | { kind: 'endpoint'; url: string; key: string; model: string }
  | { kind: 'none' };

/** Settings the page opens the store with. */
export interface OpenSettings {
  embedder: EmbedderChoice;
  /** Cap on live memories (0: none); past it the least recently used unpinned ones are evicted. */
  maxMemories: number;
}

/** What `open` and `reset` answer: the store's stats (its `dims` is the one it was created with) and its embedder. */
export interface Opened {
  stats: Stats;
  /** The OPFS name the store lives under (edgemem/<name>/). */
  name: string;
  /** The embedder the store runs with (puts and searches by text are embedded in the worker), or null. */
  embedder: { id: string; dims: number } | null;
  /** Why there is none although one was chosen (it failed to load, or the store was made for other vectors). */
  embedderError: string | null;
  /** Recreating the store (erasing it) with the chosen embedder would turn vectors on. */
  recreate: boolean;
}

/** Loading progress of the built-in embedder's weights (edgemem-e5's onProgress). */
export interface Progress {
  id: number;
  progress: { phase: 'download' | 'cache' | 'ready'; loaded: number; total?: number };
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

export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WireError } | Progress;
