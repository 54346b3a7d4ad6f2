/**
 * `edgemem/langgraph`: LangGraph.js persistence over any `MemoryStore` (local `openStore` or remote
 * `connect`): `EdgememSaver` (a `BaseCheckpointSaver`) and `EdgememStore` (a `BaseStore`).
 */

export { EdgememSaver } from './saver.js';
