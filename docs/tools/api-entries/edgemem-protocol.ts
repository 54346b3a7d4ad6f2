/**
 * The `edgemem/protocol` entry of the package, for the API reference (TypeDoc names the module after this file's tag).
 * @module edgemem/protocol
 */
export * from '../../../js/src/protocol/index.js';
