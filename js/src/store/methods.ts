/**
 * The store method table: every `MemoryStore` method once, with its access and how it may cross a boundary. The
 * RPC allow-lists (the Worker's Durable Object, `serveStore`), the read-only set a host runs outside its write
 * transaction, `storeOverRpc` and the derived methods of `StoreBase` are all read from here; a method of
 * `MemoryStore` missing from the table (or one the table names that `MemoryStore` lacks) fails to compile.
 */
import type { MemoryStore } from '../api/types.js';

/**
 * What a method does to a store: `read` (reads pages only), `write` (a change with a seq), `search` (a read that
 * may first index what writes buffered), `upkeep` (sweep, retention, index work: writes pages, no change of its
 * own), `subscribe` (a live feed), `lifecycle` (close).
 */
export type Access = 'read' | 'write' | 'search' | 'upkeep' | 'subscribe' | 'lifecycle';

/**
 * How a method's result crosses a boundary: `call` (one bounded call: one RPC), `paged` (the whole of a paged
 * read, derived from `pagedBy`), `whole` (the whole store: derived from the streamed form `pagedBy`), `stream` (an
 * async iterable or a streamed body: a host carries it with its own chunks), `local` (never crosses).
 */
export type Crossing = 'call' | 'paged' | 'whole' | 'stream' | 'local';

export interface MethodSpec {
  readonly access: Access;
  readonly crossing: Crossing;
  /** For `paged` and `whole`: the primitive it is derived from. */
  readonly pagedBy?: keyof MemoryStore;
}

const call = (access: Access) => ({ access, crossing: 'call' }) as const;

/** The table. Its order is the order of `MemoryStore`'s declaration. */
export const STORE_METHODS = {
  put: call('write'),
  putBatch: call('write'),
  get: call('read'),
  delete: call('write'),
  list: call('read'),
  listNamespaces: call('read'),
  history: { access: 'read', crossing: 'paged', pagedBy: 'historyPage' },
  historyPage: call('read'),
  search: call('search'),
  remember: call('write'),
  assess: call('search'),
  consolidate: call('write'),
  context: call('search'),
  putCheckpoint: call('write'),
  getCheckpoint: call('read'),
  listCheckpoints: { access: 'read', crossing: 'paged', pagedBy: 'listCheckpointsPage' },
  listCheckpointsPage: call('read'),
  putWrites: call('write'),
  deleteThread: call('write'),
  notify: call('write'),
  subscribe: { access: 'subscribe', crossing: 'local' },
  changes: { access: 'read', crossing: 'paged', pagedBy: 'changesPage' },
  changesPage: call('read'),
  stats: call('read'),
  seq: call('read'),
  export: { access: 'read', crossing: 'whole', pagedBy: 'exportStream' },
  import: { access: 'write', crossing: 'whole', pagedBy: 'importStream' },
  exportStream: { access: 'read', crossing: 'stream' },
  importStream: { access: 'write', crossing: 'stream' },
  sweep: call('upkeep'),
  maintain: call('upkeep'),
  close: { access: 'lifecycle', crossing: 'local' },
} as const satisfies { readonly [M in keyof MemoryStore]: MethodSpec };

type Table = typeof STORE_METHODS;
/** Every store method's name. */
export type StoreMethodName = keyof Table;
/** The methods that cross a boundary as one bounded call (the Worker's RPC, `serveStore`, `storeOverRpc`). */
export type CallMethod = { [M in StoreMethodName]: Table[M]['crossing'] extends 'call' ? M : never }[StoreMethodName];
/** The paged reads answered whole, from their pages. */
export type PagedMethod = { [M in StoreMethodName]: Table[M]['crossing'] extends 'paged' ? M : never }[StoreMethodName];

const names = Object.keys(STORE_METHODS) as StoreMethodName[];
const where = (test: (spec: MethodSpec) => boolean) => names.filter((m) => test(STORE_METHODS[m]));

/** The methods that cross a boundary as one bounded call (results within one RPC's size: paged and chunked). */
export const CALL_METHODS: readonly CallMethod[] = where((s) => s.crossing === 'call') as CallMethod[];
/** Calls that change the store (each with a seq). */
export const WRITE_METHODS: readonly CallMethod[] = CALL_METHODS.filter((m) => STORE_METHODS[m].access === 'write');
/** Calls that only read pages: a host may run them outside its write transaction. */
export const READ_METHODS: readonly CallMethod[] = CALL_METHODS.filter((m) => STORE_METHODS[m].access === 'read');

/** Whether `name` is a method of the table that crosses as one call. */
export function isCallMethod(name: unknown): name is CallMethod {
  return (
    typeof name === 'string' &&
    Object.hasOwn(STORE_METHODS, name) &&
    STORE_METHODS[name as StoreMethodName].crossing === 'call'
  );
}
