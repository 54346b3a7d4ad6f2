/** Whether a `MemoryStore` embeds text itself — a store opened with an embedder (`openStore` / `connect`) or a remote agent whose Worker embeds — and at how many dimensions. */

import type { MemoryStore } from '../api/types.js';
import { RemoteStore } from '../remote/store.js';
import { StoreBase } from '../store/base.js';

/** Who embeds a store's text-only puts and text searches, and their vectors' dimensions. */
export interface StoreEmbedder {
  /** `client`: this process (an embedder given to `openStore` / `connect`); `worker`: the agent's Worker. */
  where: 'client' | 'worker';
  id: string;
  dims: number;
}

/**
 * The embedder behind `store`, or null when it embeds nothing. Checked by class, not by shape: a store opened
 * with an embedder carries it; a `RemoteStore` without one asks its agent's settings (one request).
 */
export async function storeEmbedder(store: MemoryStore): Promise<StoreEmbedder | null> {
  const own = store instanceof StoreBase ? store.embedder : undefined;
  if (own) return { where: 'client', id: own.id, dims: own.dims };
  if (store instanceof RemoteStore) {
    const e = (await store.agentInfo()).settings.embedder;
    return e ? { where: 'worker', id: `${e.kind}:${e.model}`, dims: e.dims } : null;
  }
  return null;
}
