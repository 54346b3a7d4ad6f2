/**
 * The `edgemem-e5` package, edgemem's built-in embedder (`e5()`), for the API reference: documented from its
 * declarations, e5/src/index.d.ts (TypeDoc names the module after this file's tag).
 * @module edgemem-e5
 */
export * from '../../../e5/src/index.js';
