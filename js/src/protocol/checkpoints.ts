/**
 * Checkpoints as the HTTP API carries them whole (a replica's pushes and pulls): the checkpoint with its pending
 * writes and blobs, payloads as `data` (JSON) or `dataBase64` (bytes); and such a checkpoint stored in a store — the
 * checkpoint, then each task's pending writes at their positions (a write already stored is kept, LangGraph's rule).
 */

import { fromBase64, toBase64 } from '../api/base64.js';
import type { Checkpoint, CheckpointData, MemoryStore } from '../api/types.js';

type Wire = Record<string, unknown>;

/** A checkpoint as `GET …/checkpoints/{thread}` answers it. */
export type WireCheckpoint = Wire & { threadId: string; checkpointNs: string; checkpointId: string };

function dataOut(d: CheckpointData): { data: unknown } | { dataBase64: string } {
  return d instanceof Uint8Array ? { dataBase64: toBase64(d) } : { data: d };
}

function dataIn(x: Wire): CheckpointData {
  return typeof x.dataBase64 === 'string' ? fromBase64(x.dataBase64) : (x.data as CheckpointData);
}

/** A checkpoint with its pending writes as the agent's push route takes it. */
export function checkpointToWire(c: Checkpoint): WireCheckpoint {
  const { data, pendingWrites, blobs, ...rest } = c;
  return {
    ...rest,
    ...dataOut(data),
    pendingWrites: pendingWrites.map(({ value, ...w }) => ({ ...w, ...dataOut(value) })),
    blobs: blobs.map(({ data: d, ...b }) => ({ ...b, ...dataOut(d) })),
  };
}

/** Stores a whole checkpoint (pending writes included) in `store`; returns the checkpoint's seq there. */
export async function storeWireCheckpoint(store: MemoryStore, c: WireCheckpoint): Promise<number> {
  const seq = await store.putCheckpoint({
    threadId: c.threadId,
    checkpointNs: c.checkpointNs,
    checkpointId: c.checkpointId,
    parentId: (c.parentId as string | null | undefined) ?? null,
    data: dataIn(c),
    metadata: (c.metadata as Checkpoint['metadata'] | undefined) ?? {},
    channelVersions: (c.channelVersions as Record<string, string> | undefined) ?? {},
    blobs: ((c.blobs ?? []) as Wire[]).map((b) => ({
      channel: b.channel as string,
      version: b.version as string,
      data: dataIn(b),
    })),
  });
  // A task's writes at positions 0, 1, … in order; LangGraph's special channels (negative idx) take theirs anyway.
  const rank = (w: Wire) => ((w.idx as number) < 0 ? Number.MAX_SAFE_INTEGER + (w.idx as number) : (w.idx as number));
  const byTask = new Map<string, [string, CheckpointData][]>();
  for (const w of [...((c.pendingWrites ?? []) as Wire[])].sort((a, b) => rank(a) - rank(b))) {
    const list = byTask.get(w.taskId as string) ?? [];
    list.push([w.channel as string, dataIn(w)]);
    byTask.set(w.taskId as string, list);
  }
  for (const [taskId, writes] of byTask) {
    await store.putWrites({
      threadId: c.threadId,
      checkpointNs: c.checkpointNs,
      checkpointId: c.checkpointId,
      taskId,
      writes,
    });
  }
  return seq;
}
