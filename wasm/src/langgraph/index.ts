/**
 * `edgemem/langgraph`: LangGraph.js persistence over any `MemoryStore` (local `openStore` or remote
 * `connect`): `EdgememSaver` (a `BaseCheckpointSaver`) and `EdgememStore` (a `BaseStore`).
 */

export { EdgememSaver } from './saver.js';
export { EdgememStore, type EdgememIndexConfig, type EdgememSearchOperation, type EdgememSearchOptions, type EdgememStoreOptions } from './store.js';
