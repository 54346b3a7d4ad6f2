/**
 * The paged reads answered whole: each `paged` method of the table (methods.ts) from its page primitive, for any
 * store — `StoreBase` and `storeOverRpc` both answer with these. A `paged` method added to the table without an
 * entry here fails to compile.
 */
import { checkPositive, invalid, options as opts } from '../api/errors.js';
import { allChanges, allHistory, someCheckpoints } from '../api/paging.js';
import type { MemoryStore } from '../api/types.js';
import type { PagedMethod } from './methods.js';

/** The most checkpoints `listCheckpoints` asks one `listCheckpointsPage` call for (the HTTP route's page limit). */
const CHECKPOINTS_PER_CALL = 1000;

type Pages = Pick<MemoryStore, 'historyPage' | 'listCheckpointsPage' | 'changesPage'>;

export const PAGED: {
  [M in PagedMethod]: (store: Pages, ...args: Parameters<MemoryStore[M]>) => ReturnType<MemoryStore[M]>;
} = {
  history: (store, namespace, key) => allHistory((o) => store.historyPage(namespace, key, o)),
  listCheckpoints: async (store, options = {}) => {
    if (typeof options !== 'object' || options === null) throw invalid('listCheckpoints takes { threadId?, ... }');
    return someCheckpoints(options, (o) => store.listCheckpointsPage(o), CHECKPOINTS_PER_CALL);
  },
  changes: async (store, after, options) => {
    checkPositive(opts(options, 'changes options').limit ?? 1000, 'limit');
    return allChanges(after, options, (a, o) => store.changesPage(a, o));
  },
};
