/**
 * Where a replica's local store lives, for each storage option: how it opens, and how a reload past the agent's
 * retention replaces it — in memory, a new store; in a file, a new file beside it (`<path>.reload`) renamed over
 * the old one once loaded (one atomic rename: a crash leaves the old store or the new one, never half of each; a
 * leftover `.reload` file is removed at the next open). Other storages open, but cannot reload in place.
 */

import type { StoreSettings } from '../api/types.js';
import type { LocalStore } from '../local/local-store.js';
import type { StorageOption } from '../local/open-store.js';
import type { ReplicaStorage } from './open-replica.js';

/** The synchronous file operations a file replica's reload needs (the Node entry's `fs`). */
export interface ReplicaFiles {
  exists(path: string): boolean;
  remove(path: string): void;
  rename(from: string, to: string): void;
}

/** Opens a local store at `storage` with `settings` (the entry adds its embedder and wasm loading). */
export type OpenLocal = (storage: StorageOption, settings: StoreSettings) => Promise<LocalStore>;

/** The database file of `path` and its redo log (pages/node-file-page-store.ts). */
const filesOf = (path: string) => [path, `${path}-redo`];

export function replicaStorage(storage: StorageOption, open: OpenLocal, files?: ReplicaFiles): ReplicaStorage {
  if (storage === 'memory') {
    return {
      open: (settings) => open('memory', settings),
      scratch: (settings) => open('memory', settings),
      adopt: async (fresh) => fresh,
    };
  }
  if (typeof storage === 'object' && storage !== null && 'file' in storage && files) {
    const path = storage.file;
    const reload = `${path}.reload`;
    const clear = (p: string) => {
      for (const f of filesOf(p)) if (files.exists(f)) files.remove(f);
    };
    return {
      open: (settings) => {
        clear(reload); // a reload a crash interrupted: the store at `path` is whole
        return open(storage, settings);
      },
      scratch: (settings) => {
        clear(reload);
        return open({ file: reload }, settings);
      },
      adopt: async (fresh, settings) => {
        await fresh.close(); // its redo log applied: the reload file alone holds it
        if (files.exists(`${path}-redo`)) files.remove(`${path}-redo`);
        files.rename(reload, path);
        clear(reload);
        return open(storage, settings);
      },
    };
  }
  return { open: (settings) => open(storage, settings) };
}
