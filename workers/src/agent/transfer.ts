/**
 * The agent's whole store out and in, chunk by chunk, each call well inside a Durable Object call's limits:
 * routes/admin.ts streams the export's chunks into its response and feeds an import's request body through
 * `importChunk`, whose chunks carry their place in the stream so the import has one verdict.
 */
import type { ChunkPlace, ImportProgress } from 'edgemem';
import { LIMITS } from '../limits.js';
import type { Maintenance } from './alarm.js';
import type { AgentStore } from './open.js';

export class Transfer {
  readonly #store: AgentStore;
  readonly #maintenance: Maintenance;

  constructor(store: AgentStore, maintenance: Maintenance) {
    this.#store = store;
    this.#maintenance = maintenance;
  }

  /**
   * One chunk of the streamed export, from `cursor` (null: the start), about `maxBytes` long (at most the limit),
   * and the cursor of the next (null: done).
   */
  async exportChunk(
    cursor: string | null,
    maxBytes = LIMITS.exportChunkBytes,
  ): Promise<{ ndjson: string; cursor: string | null }> {
    const store = await this.#store.open();
    return store.exportChunk(cursor, Math.min(maxBytes, LIMITS.exportChunkBytes));
  }

  /** Imports one chunk of NDJSON lines at its place in the stream; it arms the maintenance alarm. */
  async importChunk(ndjson: string, at: ChunkPlace): Promise<ImportProgress> {
    const store = await this.#store.open();
    const value = await store.importChunk(ndjson, at);
    await this.#maintenance.wrote();
    return value;
  }

  /** Abandons an unfinished import (its request ended early): the store is emptied again. */
  async importAbort(): Promise<boolean> {
    const store = await this.#store.open();
    return store.importAbort();
  }
}
