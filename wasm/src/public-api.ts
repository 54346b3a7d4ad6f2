/** What every entry of the package exports besides `openStore`. */

export { EdgememError, ERROR_CODES, type ErrorCode } from './errors.js';
export { MemoryPageStore, type PageStore } from './page-store.js';
export type { OpenOptions, StorageOption } from './open-store.js';
export type { StoreSettings } from './local-store.js';
export type * from './types.js';
