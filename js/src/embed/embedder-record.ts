/** Which embedder made a store's vectors, kept in the store (host metadata), and the check made when it is opened with one. */

import { invalid, toEdgememError } from '../api/errors.js';
import { describeEmbedder, type EmbedderRecord, sameEmbedder } from './embedder.js';

/** A store that keeps host metadata (local stores; see `LocalStore.appMeta`). */
export interface HostMeta {
  appMeta(name: string): Promise<string | null>;
  setAppMeta(name: string, value: string | null): Promise<void>;
}

/** The entry naming the embedder that made the store's vectors. */
const RECORD = 'embedder';
/** The entry of an unfinished re-embed: the embedder it re-embeds with and how far it got. */
const PROGRESS = 'embedder.reembed';

/** An unfinished re-embed: `cursor` is the list cursor after the last memory re-embedded (null: not started). */
export interface ReembedState {
  to: EmbedderRecord;
  cursor: string | null;
  done: number;
}

export function hasHostMeta(store: object): store is HostMeta {
  const s = store as Partial<HostMeta>;
  return typeof s.appMeta === 'function' && typeof s.setAppMeta === 'function';
}

function parseEntry<T>(json: string | null, name: string): T | null {
  if (json === null) return null;
  try {
    return JSON.parse(json) as T;
  } catch (e) {
    throw toEdgememError(new Error(`the store's ${name} entry is not JSON: ${String(e)}`));
  }
}

export async function readRecord(meta: HostMeta): Promise<EmbedderRecord | null> {
  return parseEntry<EmbedderRecord>(await meta.appMeta(RECORD), RECORD);
}

export async function readProgress(meta: HostMeta): Promise<ReembedState | null> {
  return parseEntry<ReembedState>(await meta.appMeta(PROGRESS), PROGRESS);
}

export async function writeProgress(meta: HostMeta, state: ReembedState): Promise<void> {
  await meta.setAppMeta(PROGRESS, JSON.stringify(state));
}

/** Ends a re-embed: its embedder becomes the store's, then the progress entry goes (a crash between is resumed as done). */
export async function finishReembed(meta: HostMeta, to: EmbedderRecord): Promise<void> {
  await meta.setAppMeta(RECORD, JSON.stringify(to));
  await meta.setAppMeta(PROGRESS, null);
}

/**
 * The check when a store is opened with `embedder`: a store without a record takes this one; the same one
 * opens; another is INVALID_ARGUMENT naming both — unless `reembed`, which starts a re-embed to this one
 * (`store.reembed()` runs it). A store in the middle of a re-embed opens with the embedder it re-embeds with.
 * Returns whether a re-embed is pending.
 */
export async function checkRecord(meta: HostMeta, embedder: EmbedderRecord, reembed: boolean): Promise<boolean> {
  const progress = await readProgress(meta);
  if (progress) {
    if (sameEmbedder(progress.to, embedder)) return true;
    if (!reembed) {
      throw invalid(
        `this store is being re-embedded with embedder ${describeEmbedder(progress.to)}; it was opened with ${describeEmbedder(embedder)}: ` +
          'open it with that embedder and call store.reembed() to finish, or pass reembed: true to re-embed with this one',
      );
    }
    await writeProgress(meta, { to: embedder, cursor: null, done: 0 });
    return true;
  }
  const record = await readRecord(meta);
  if (!record) {
    await meta.setAppMeta(RECORD, JSON.stringify(embedder));
    return false;
  }
  if (sameEmbedder(record, embedder)) return false;
  if (!reembed) {
    throw invalid(
      `this store's vectors were made by embedder ${describeEmbedder(record)}; it was opened with ${describeEmbedder(embedder)}: ` +
        'pass reembed: true and call store.reembed() to re-embed every memory with it, or open it with the embedder it records',
    );
  }
  await writeProgress(meta, { to: embedder, cursor: null, done: 0 });
  return true;
}
