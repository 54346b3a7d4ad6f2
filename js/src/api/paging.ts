/**
 * Whole results from pages: the loops `history`, `listCheckpoints` and `changes` share on every store (local,
 * remote, or one of your own), over the paged reads that end by count and by size (`historyPage`,
 * `listCheckpointsPage`, `changesPage`).
 */
import type {
  ChangeEvent,
  ChangesOptions,
  ChangesPage,
  Checkpoint,
  CheckpointPage,
  HistoryOptions,
  HistoryPage,
  ListCheckpointsOptions,
  Memory,
} from './types.js';

/** Every version `page` gives, following `nextAfterSeq` to the end. */
export async function allHistory(page: (options: HistoryOptions) => Promise<HistoryPage>): Promise<Memory[]> {
  const out: Memory[] = [];
  let afterSeq = 0;
  for (;;) {
    const p = await page({ afterSeq });
    out.push(...p.versions);
    if (p.nextAfterSeq === null) return out;
    afterSeq = p.nextAfterSeq;
  }
}

/** Up to `options.limit` (default 100) checkpoints from `page`, following `nextBefore`, `perPage` at most per call. */
export async function someCheckpoints(
  options: ListCheckpointsOptions,
  page: (options: ListCheckpointsOptions) => Promise<CheckpointPage>,
  perPage = Number.MAX_SAFE_INTEGER,
): Promise<Checkpoint[]> {
  const limit = options?.limit ?? 100;
  const out: Checkpoint[] = [];
  let before = options?.before;
  for (;;) {
    const p = await page({ ...options, before, limit: Math.min(perPage, limit - out.length) });
    out.push(...p.checkpoints);
    if (p.nextBefore === null || out.length >= limit) return out;
    before = p.nextBefore;
  }
}

/** Up to `options.limit` (default 1000) events after `after` from `page`, following `more`. */
export async function allChanges(
  after: number,
  options: ChangesOptions | undefined,
  page: (after: number, options: ChangesOptions) => Promise<ChangesPage>,
): Promise<ChangeEvent[]> {
  const limit = options?.limit ?? 1000;
  const out: ChangeEvent[] = [];
  let cursor = after;
  for (;;) {
    const p = await page(cursor, { ...options, limit: limit - out.length });
    out.push(...p.events);
    const last = p.events.at(-1);
    if (!p.more || out.length >= limit || last === undefined) return out;
    cursor = last.seq;
  }
}
