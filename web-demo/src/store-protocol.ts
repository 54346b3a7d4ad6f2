/**
 * What the page and its store Web Worker (store-worker.ts) exchange, over edgemem/rpc: the store methods the page
 * may call, `open` (opens the OPFS store with settings) and `reset` (deletes it first), each answered in order.
 * While the built-in embedder's weights load, the worker also posts `Progress` messages.
 */
import type { Stats } from 'edgemem';
import type { StoreMethod as AnyStoreMethod } from 'edgemem/rpc';

/** The store methods the page may call through the worker. */
export const STORE_METHODS = [
  'put',
  'delete',
  'get',
  'list',
  'history',
  'search',
  'putCheckpoint',
  'getCheckpoint',
  'listCheckpoints',
  'deleteThread',
  'changes',
  'stats',
  'sweep',
] as const satisfies readonly AnyStoreMethod[];

export type StoreMethod = (typeof STORE_METHODS)[number];

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
  progress: { phase: 'download' | 'cache' | 'ready'; loaded: number; total?: number };
}

export function isProgress(m: unknown): m is Progress {
  return typeof m === 'object' && m !== null && 'progress' in m;
}
