/**
 * The `edgemem/mcp` entry of the package, for the API reference (TypeDoc names the module after this file's tag).
 * @module edgemem/mcp
 */
export * from '../../../js/src/mcp/index.js';
