/**
 * `edgemem/langgraph`: LangGraph.js persistence over any `MemoryStore` (local `openStore` or remote
 * `connect`): `EdgememSaver` (a `BaseCheckpointSaver`) and `EdgememStore` (a `BaseStore`).
 */

export { EdgememSaver } from './saver.js';
export { EdgememStore, type EdgememIndexConfig, type EmbeddingsIndexConfig, type StoreEmbeddedIndexConfig, type EdgememSearchOperation, type EdgememSearchOptions, type EdgememStoreOptions } from './store.js';
export { storeEmbedder, type StoreEmbedder } from './store-embedder.js';
