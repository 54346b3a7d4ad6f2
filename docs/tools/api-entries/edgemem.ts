/**
 * The `edgemem` entry of the package, for the API reference (TypeDoc names the module after this file's tag).
 * @module edgemem
 */
export * from '../../../wasm/src/node.js';
