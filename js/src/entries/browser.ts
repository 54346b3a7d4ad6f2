/** The browser entry of `edgemem`: `openStore` with memory or host page-store storage, and OPFS in a Web Worker. */

import type { LocalMemoryStore } from '../api/types.js';
import type { TextMemoryStore } from '../embed/text-embedding.js';
import type { OpenOptions, OpenTextOptions } from '../local/open-store.js';
import { OpfsPageStore } from '../pages/opfs-page-store.js';
import { isReplicaOptions, type OpenReplicaOptions, openReplicaStore } from '../replica/open-replica.js';
import type { ReplicaMemoryStore } from '../replica/replica-store.js';
import { canShare, openSharedReplica } from '../replica/shared.js';
import { openStore as openFetched } from './default.js';

/** The remote store (edgemem Worker over HTTP + WebSocket), with the global `WebSocket`. */
export { connect } from '../remote/store.js';
export * from './public-api.js';
export { OpfsPageStore };

/**
 * Opens an in-process store. `storage: { opfs: name }` keeps it in the origin private file system and
 * works only inside a dedicated Web Worker (elsewhere: INVALID_ARGUMENT); `'memory'` works everywhere.
 */
export async function openStore(options: OpenReplicaOptions): Promise<ReplicaMemoryStore>;
export async function openStore(options: OpenTextOptions): Promise<LocalMemoryStore & TextMemoryStore>;
export async function openStore(options?: OpenOptions): Promise<LocalMemoryStore>;
export async function openStore(
  options: OpenOptions | OpenReplicaOptions = {},
): Promise<LocalMemoryStore | ReplicaMemoryStore> {
  if (isReplicaOptions(options)) {
    const at = options.storage;
    const open = () => openReplicaStore(options, (o) => openStore(o), undefined, undefined);
    // An OPFS replica is one tab's files: shared with the origin's other tabs through the one that owns it.
    if (typeof at === 'object' && at !== null && 'opfs' in at && canShare()) return openSharedReplica(at.opfs, open);
    return open();
  }
  const storage = options.storage;
  if (typeof storage !== 'object' || storage === null || !('opfs' in storage)) return openFetched(options);
  const pages = await OpfsPageStore.open(storage.opfs);
  try {
    return await openFetched({ ...options, storage: { pages, atomic: true } }); // its redo log commits each call
  } catch (e) {
    pages.close(); // releases the handles, so the name can be opened again
    throw e;
  }
}
