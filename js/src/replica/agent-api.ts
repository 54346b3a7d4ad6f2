/**
 * The replica's calls to its agent on the edgemem Worker (workers/src/routes/replica.ts): who the token is, the
 * snapshot one chunk at a time, the changes after a seq, and a batch of queued writes.
 */

import { safeOut } from '../api/errors.js';
import type { WireCheckpoint } from '../protocol/checkpoints.js';
import type { PulledMemory } from '../protocol/pulled.js';
import { HttpClient, type HttpOptions } from '../remote/http.js';
import { pathPart } from '../remote/wire.js';

/** The response header naming a snapshot's next chunk (absent after the last). */
const NEXT_CURSOR = 'Edgemem-Next-Cursor';

export type Scope = 'read' | 'write' | 'subscribe';

/** `GET …/replica`: the token's scopes and the agent's settings and latest seq. */
export interface AgentReplicaInfo {
  scopes: Scope[];
  seq: number;
  settings: { dims: number; metric?: string; scalar?: string; [setting: string]: unknown };
  /** The embedder the agent records (its vectors' maker), if it has one. */
  embedder: { id: string; dims: number } | null;
}

/** A version range a pushed write replaced without its writer (replica `by`, in pulls) having seen it. */
export interface Overwrote {
  from: number;
  to: number;
  by?: string;
}

/** One of the agent's memories as a pull brings it, and what its writer overwrote unseen. */
export type PulledMemoryItem = PulledMemory & { kind: 'memory'; overwrote?: Overwrote };

export type PulledItem =
  | PulledMemoryItem
  | { kind: 'checkpoint'; checkpoint: WireCheckpoint }
  | { kind: 'thread_deleted'; threadId: string };

export interface PullPage {
  items: PulledItem[];
  cursor: number;
  more: boolean;
  head: number;
}

/** A queued write as pushed: the outbox's op with its id (checkpoint ops carry the checkpoint as it is here). */
export type PushOp = { id: number; op: string } & Record<string, unknown>;

export type PushResult =
  | { id: number; seq: number | null; version?: number; duplicate?: true; overwrote?: Overwrote }
  | { id: number; error: { code: string; message: string } };

export class AgentApi {
  readonly #http: HttpClient;
  readonly #path: string;

  constructor(options: HttpOptions & { agent: string }) {
    this.#http = new HttpClient(options);
    this.#path = `/v1/agents/${pathPart(options.agent, 'agent')}/replica`;
  }

  info(): Promise<AgentReplicaInfo> {
    return this.#http.request<AgentReplicaInfo>('GET', this.#path);
  }

  /**
   * One chunk (about `bytes` long) of the agent's export from `cursor` (null: the start), and the next chunk's
   * cursor (null: done).
   */
  async snapshotChunk(cursor: string | null, bytes: number): Promise<{ ndjson: string; next: string | null }> {
    const query = new URLSearchParams({ bytes: String(bytes) });
    if (cursor !== null) query.set('cursor', cursor);
    const res = await this.#http.stream('GET', `${this.#path}/snapshot?${query}`);
    const ndjson = await res.text();
    return { ndjson, next: res.headers.get(NEXT_CURSOR) };
  }

  async changes(after: number, limit: number): Promise<PullPage> {
    const page = await this.#http.request<PullPage>('GET', `${this.#path}/changes`, { query: { after, limit } });
    return { ...page, cursor: safeOut(page.cursor, 'cursor'), head: safeOut(page.head, 'head') };
  }

  async push(replica: string, ops: PushOp[]): Promise<PushResult[]> {
    const { results } = await this.#http.request<{ results: PushResult[] }>('POST', `${this.#path}/push`, {
      body: { replica, ops },
    });
    return results;
  }
}
