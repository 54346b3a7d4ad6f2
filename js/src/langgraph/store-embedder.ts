/** Whether a `MemoryStore` embeds text itself — an `EmbeddingStore` (`openStore` / `connect` with an embedder) or a remote agent whose Worker embeds — and at how many dimensions. */

import type { MemoryStore } from '../api/types.js';
import { EmbeddingStore } from '../embed/embedding-store.js';
import { RemoteStore } from '../remote/store.js';

/** Who embeds a store's text-only puts and text searches, and their vectors' dimensions. */
export interface StoreEmbedder {
  /** `client`: this process (an embedder given to `openStore` / `connect`); `worker`: the agent's Worker. */
  where: 'client' | 'worker';
  id: string;
  dims: number;
}

/**
 * The embedder behind `store`, or null when it embeds nothing. Checked by class, not by shape: an
 * `EmbeddingStore` carries its embedder; a `RemoteStore` asks its agent's settings (one request).
 */
export async function storeEmbedder(store: MemoryStore): Promise<StoreEmbedder | null> {
  if (store instanceof EmbeddingStore) return { where: 'client', id: store.embedder.id, dims: store.embedder.dims };
  if (store instanceof RemoteStore) {
    const e = (await store.agentInfo()).settings.embedder;
    return e ? { where: 'worker', id: `${e.kind}:${e.model}`, dims: e.dims } : null;
  }
  return null;
}
