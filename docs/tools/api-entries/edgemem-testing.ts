/**
 * The `edgemem/testing` entry of the package, for the API reference (TypeDoc names the module after this file's tag).
 * @module edgemem/testing
 */
export * from '../../../js/src/testing/index.js';
