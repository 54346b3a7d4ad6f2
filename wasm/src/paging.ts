/**
 * Whole results from pages: the loops `history` and `listCheckpoints` share on every store, local or remote,
 * over the paged reads that end by count and by size (`historyPage`, `listCheckpointsPage`).
 */
import type { Checkpoint, CheckpointPage, HistoryOptions, HistoryPage, ListCheckpointsOptions, Memory } from './types.js';

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
