/**
 * The `edgemem/langgraph` entry of the package, for the API reference (TypeDoc names the module after this file's tag).
 * @module edgemem/langgraph
 */
export * from '../../../js/src/langgraph/index.js';
