/**
 * What a store with an embedder does with text (`StoreBase` calls these): puts with text and no embedding get the
 * text's passage vector, text searches without a vector get the query's; and `reembed`, which re-embeds every
 * memory, resumably, in stores that keep host metadata.
 */

import { EdgememError, invalid, options as opts } from '../api/errors.js';
import type { Memory, MemoryInput, MemoryStore, SearchQuery } from '../api/types.js';
import { EMBED_BATCH, type Embedder, embedAll, recordOf } from './embedder.js';
import { finishReembed, type HostMeta, type ReembedState, readProgress, writeProgress } from './embedder-record.js';

export interface ReembedProgress {
  /** Memories re-embedded so far (across resumed runs). */
  done: number;
  /** Live memories in the store when this run began. */
  total: number;
}

export interface ReembedOptions {
  /** Called after each batch is written (and its progress saved). */
  onProgress?: (progress: ReembedProgress) => unknown;
}

/** A store opened with an embedder (`openStore({ embedder })`, `connect({ embedder })`). */
export interface TextMemoryStore extends MemoryStore {
  readonly embedder: Embedder;
  /** Whether a re-embed is unfinished (opened with `reembed: true`, or a run was interrupted). */
  readonly reembedPending: boolean;
  /**
   * Re-embeds the text of every memory with this store's embedder (each one a new version, value, metadata,
   * pin and expiry kept), in batches, saving its progress after each: after a crash, open the store with the
   * same embedder and call it again to go on. Then the store records this embedder. Local stores only.
   */
  reembed(options?: ReembedOptions): Promise<ReembedProgress>;
}

/** The text a put indexes: its `text`, or else a string value (as the engine derives it). */
function textOf(m: MemoryInput): string | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  if (typeof m.text === 'string') return m.text;
  return m.text === undefined && typeof m.value === 'string' ? m.value : undefined;
}

function needsEmbedding(m: MemoryInput): boolean {
  return typeof m === 'object' && m !== null && m.embedding === undefined && !!textOf(m);
}

/** `memories` with the embeddings they lack filled in (texts embedded in batches); the inputs are not changed. */
export async function withEmbeddings(embedder: Embedder, memories: MemoryInput[]): Promise<MemoryInput[]> {
  const todo: { m: MemoryInput; i: number; text: string }[] = [];
  for (const [i, m] of memories.entries()) {
    const text = textOf(m);
    if (text !== undefined && needsEmbedding(m)) todo.push({ m, i, text });
  }
  if (todo.length === 0) return memories;
  const vectors = await embedAll(
    embedder,
    todo.map((t) => t.text),
    'passage',
  );
  const out = memories.slice();
  for (const [j, { m, i }] of todo.entries()) out[i] = { ...m, embedding: vectors[j] };
  return out;
}

/**
 * `query` with its text embedded as its vector (a promise) when it has text and no vector and is not lexical;
 * else `query` itself, synchronously (a Durable Object's read runs the store call before any await).
 */
export function embeddedQuery(embedder: Embedder, query: SearchQuery): SearchQuery | Promise<SearchQuery> {
  if (
    typeof query === 'object' &&
    query !== null &&
    query.vector === undefined &&
    query.mode !== 'lexical' &&
    typeof query.text === 'string' &&
    query.text !== ''
  ) {
    return embedAll(embedder, [query.text], 'query').then(([vector]) => ({ ...query, vector }));
  }
  return query;
}

/**
 * Re-embeds the text of every memory of `store` with `embedder` (see `TextMemoryStore.reembed`), its progress
 * kept in `meta` after each batch; then the store records `embedder`.
 */
export async function reembed(
  store: MemoryStore,
  meta: HostMeta,
  embedder: Embedder,
  options?: ReembedOptions,
): Promise<ReembedProgress> {
  const o = opts(options, 'reembed options');
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw invalid('onProgress must be a function');
  const to = recordOf(embedder);
  let state: ReembedState = (await readProgress(meta)) ?? { to, cursor: null, done: 0 };
  if (state.to.id !== to.id || state.to.dims !== to.dims || state.to.normalized !== to.normalized)
    state = { to, cursor: null, done: 0 };
  await writeProgress(meta, state);
  const total = (await store.stats()).memories;
  for (;;) {
    const page = await store.list({
      limit: EMBED_BATCH,
      ...(state.cursor === null ? {} : { cursor: state.cursor }),
    });
    const done = await reembedPage(store, embedder, page.items);
    state = { to, cursor: page.nextCursor, done: state.done + done };
    if (page.nextCursor === null) break;
    await writeProgress(meta, state);
    await o.onProgress?.({ done: state.done, total });
  }
  await finishReembed(meta, to);
  const progress = { done: state.done, total };
  await o.onProgress?.(progress);
  return progress;
}

/** Re-embeds one page of memories (those with text that have not expired); a concurrent write to one is retried. */
async function reembedPage(store: MemoryStore, embedder: Embedder, items: Memory[]): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    const live = items.filter(
      (m): m is Memory & { text: string } =>
        m.text !== null && m.text !== '' && (m.expiresAt === null || m.expiresAt > now + 1),
    );
    if (live.length === 0) return 0;
    const vectors = await embedAll(
      embedder,
      live.map((m) => m.text),
      'passage',
    );
    const puts: MemoryInput[] = live.map((m, i) => ({
      namespace: m.namespace,
      key: m.key,
      value: m.value,
      text: m.text,
      embedding: vectors[i],
      metadata: m.metadata,
      pinned: m.pinned,
      ...(m.expiresAt === null ? {} : { ttlMs: Math.max(1, m.expiresAt - Date.now()) }),
      ifVersion: m.version,
    }));
    try {
      await store.putBatch(puts);
      return live.length;
    } catch (e) {
      if (!(e instanceof EdgememError) || e.code !== 'CONFLICT' || attempt >= 4) throw e;
      // Written to meanwhile: read the page's memories again and re-embed what they hold now.
      const fresh = await Promise.all(items.map((m) => store.get(m.namespace, m.key)));
      items = fresh.filter((m): m is Memory => m !== null);
    }
  }
}
