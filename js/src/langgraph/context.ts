/**
 * From a LangGraph node to the edgemem store behind it: the store a node is handed (`config.store`, or
 * `getStore()`) is LangGraph's `AsyncBatchedStore` around the one the graph was compiled with;
 * `asEdgememStore` unwraps it, and `memoryContext` gets the prompt-ready block for a query in one call.
 */

import type { BaseStore } from '@langchain/langgraph-checkpoint';
import { EdgememError } from '../api/errors.js';
import type { ContextBlock, ContextOptions } from '../api/types.js';
import { EdgememStore } from './store.js';

/** The `EdgememStore` a graph was compiled with, from the store its nodes are handed (or the store itself). */
export function asEdgememStore(store: BaseStore | undefined): EdgememStore {
  let s: unknown = store;
  // LangGraph's AsyncBatchedStore (recognised by its lg_name, as LangGraph itself does) holds it as `store`.
  if (typeof s === 'object' && s !== null && (s as { lg_name?: unknown }).lg_name === 'AsyncBatchedStore')
    s = (s as { store?: unknown }).store;
  if (s instanceof EdgememStore) return s;
  throw new EdgememError(
    'INVALID_ARGUMENT',
    store === undefined
      ? 'no store: compile the graph with { store: new EdgememStore(...) }'
      : 'the graph store is not an EdgememStore: compile the graph with { store: new EdgememStore(...) }',
  );
}

/**
 * The context block for a prompt, from a LangGraph node: pinned memories, the facts relevant to `options.query`
 * valid now (or at `validAt`), and the latest changes, within `options.budget` tokens (default 1000). Put its
 * `text` in the system prompt.
 *
 * ```ts
 * const block = await memoryContext(config.store, { query: lastUserMessage, namespaces: [['user', userId]] });
 * ```
 */
export function memoryContext(store: BaseStore | undefined, options: ContextOptions = {}): Promise<ContextBlock> {
  return asEdgememStore(store).context(options);
}
