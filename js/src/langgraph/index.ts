/**
 * `edgemem/langgraph`: LangGraph.js persistence over any `MemoryStore` (local `openStore` or remote
 * `connect`): `EdgememSaver` (a `BaseCheckpointSaver`) and `EdgememStore` (a `BaseStore`, consolidating on write
 * with its `remember` option); `memoryContext` gets a prompt-ready context block from a graph node.
 */

export { asEdgememStore, memoryContext } from './context.js';
export { type MessageLike, toChatMessages } from './messages.js';
export { EdgememSaver } from './saver.js';
export {
  type EdgememIndexConfig,
  type EdgememRememberInput,
  type EdgememRememberOptions,
  type EdgememSearchOperation,
  type EdgememSearchOptions,
  EdgememStore,
  type EdgememStoreOptions,
  type EmbeddingsIndexConfig,
  type StoreEmbeddedIndexConfig,
} from './store.js';
export { type StoreEmbedder, storeEmbedder } from './store-embedder.js';
