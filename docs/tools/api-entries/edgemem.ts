/**
 * The `edgemem` entry of the package, for the API reference (TypeDoc names the module after this file's tag).
 * @module edgemem
 */
export * from '../../../js/src/entries/node.js';
