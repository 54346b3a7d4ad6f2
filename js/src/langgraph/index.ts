/**
 * `edgemem/langgraph`: LangGraph.js persistence over any `MemoryStore` (local `openStore` or remote
 * `connect`): `EdgememSaver` (a `BaseCheckpointSaver`) and `EdgememStore` (a `BaseStore`).
 */

export { EdgememSaver } from './saver.js';
export {
  type EdgememIndexConfig,
  type EdgememSearchOperation,
  type EdgememSearchOptions,
  EdgememStore,
  type EdgememStoreOptions,
  type EmbeddingsIndexConfig,
  type StoreEmbeddedIndexConfig,
} from './store.js';
export { type StoreEmbedder, storeEmbedder } from './store-embedder.js';
