/**
 * `AgentStore`: an agent's Durable Object as a `MemoryStore`, for code that takes any store (the MCP server
 * the Worker serves at `/v1/agents/{agent}/mcp`). Each method is one RPC (`callAgent`); the unbounded reads
 * go through their pages (`historyPage`, `changesPage`, `listCheckpointsPage`), so no call's result passes a
 * Durable Object call's size. What a Worker request cannot do is refused with INVALID_ARGUMENT: a live
 * subscription (the WebSocket feed is the way), whole-store export/import (the NDJSON routes are), close.
 */
import {
  allChanges,
  allHistory,
  type ChangeEvent,
  type ChangesOptions,
  type ChangesPage,
  type Checkpoint,
  type CheckpointInput,
  type CheckpointPage,
  type DeleteOptions,
  EdgememError,
  type ExportDoc,
  type GetCheckpointOptions,
  type GetOptions,
  type HistoryOptions,
  type HistoryPage,
  type ImportProgress,
  type JsonValue,
  type ListCheckpointsOptions,
  type ListNamespacesOptions,
  type ListOptions,
  type ListPage,
  type Memory,
  type MemoryInput,
  type MemoryStore,
  type Namespace,
  type PutWritesInput,
  type SearchHit,
  type SearchQuery,
  type Stats,
  type Subscription,
  someCheckpoints,
  type WriteAck,
} from 'edgemem';
import { callAgent } from '../agent-client.js';
import type { Env } from '../env.js';

const notHere = (what: string) =>
  new EdgememError('INVALID_ARGUMENT', `${what} is not available through this endpoint`);

export class AgentStore implements MemoryStore {
  readonly #env: Env;
  readonly #agent: string;

  constructor(env: Env, agent: string) {
    this.#env = env;
    this.#agent = agent;
  }

  put(memory: MemoryInput): Promise<WriteAck> {
    return callAgent(this.#env, this.#agent, 'put', memory);
  }
  putBatch(memories: MemoryInput[]): Promise<WriteAck[]> {
    return callAgent(this.#env, this.#agent, 'putBatch', memories);
  }
  get(namespace: Namespace, key: string, options?: GetOptions): Promise<Memory | null> {
    return callAgent(this.#env, this.#agent, 'get', namespace, key, options);
  }
  delete(namespace: Namespace, key: string, options?: DeleteOptions): Promise<number> {
    return callAgent(this.#env, this.#agent, 'delete', namespace, key, options);
  }
  list(options?: ListOptions): Promise<ListPage> {
    return callAgent(this.#env, this.#agent, 'list', options);
  }
  listNamespaces(options?: ListNamespacesOptions): Promise<Namespace[]> {
    return callAgent(this.#env, this.#agent, 'listNamespaces', options);
  }
  history(namespace: Namespace, key: string): Promise<Memory[]> {
    return allHistory((o) => this.historyPage(namespace, key, o));
  }
  historyPage(namespace: Namespace, key: string, options?: HistoryOptions): Promise<HistoryPage> {
    return callAgent(this.#env, this.#agent, 'historyPage', namespace, key, options);
  }
  search(query: SearchQuery): Promise<SearchHit[]> {
    return callAgent(this.#env, this.#agent, 'search', query);
  }
  putCheckpoint(checkpoint: CheckpointInput): Promise<number> {
    return callAgent(this.#env, this.#agent, 'putCheckpoint', checkpoint);
  }
  getCheckpoint(threadId: string, options?: GetCheckpointOptions): Promise<Checkpoint | null> {
    return callAgent(this.#env, this.#agent, 'getCheckpoint', threadId, options);
  }
  listCheckpoints(options: ListCheckpointsOptions): Promise<Checkpoint[]> {
    return someCheckpoints(options, (o) => this.listCheckpointsPage(o), 1000);
  }
  listCheckpointsPage(options: ListCheckpointsOptions): Promise<CheckpointPage> {
    return callAgent(this.#env, this.#agent, 'listCheckpointsPage', options);
  }
  putWrites(input: PutWritesInput): Promise<void> {
    return callAgent(this.#env, this.#agent, 'putWrites', input);
  }
  deleteThread(threadId: string): Promise<number> {
    return callAgent(this.#env, this.#agent, 'deleteThread', threadId);
  }
  notify(channel: string, payload: JsonValue): Promise<number> {
    return callAgent(this.#env, this.#agent, 'notify', channel, payload);
  }
  subscribe(_filter: unknown, _callback: (event: ChangeEvent) => unknown): Promise<Subscription> {
    return Promise.reject(notHere('a live subscription (use the WebSocket feed, /v1/agents/{agent}/ws)'));
  }
  changes(after: number, options?: ChangesOptions): Promise<ChangeEvent[]> {
    return allChanges(after, options, (a, o) => this.changesPage(a, o));
  }
  changesPage(after: number, options?: ChangesOptions): Promise<ChangesPage> {
    return callAgent(this.#env, this.#agent, 'changesPage', after, options);
  }
  stats(): Promise<Stats> {
    return callAgent(this.#env, this.#agent, 'stats');
  }
  /** The latest seq alone: `stats()` would also count the versions, events and checkpoints (whole-index scans). */
  seq(): Promise<number> {
    return callAgent(this.#env, this.#agent, 'seq');
  }
  export(): Promise<ExportDoc> {
    return Promise.reject(notHere('export (GET /v1/agents/{agent}/export streams it)'));
  }
  import(_doc: ExportDoc): Promise<void> {
    return Promise.reject(notHere('import (POST /v1/agents/{agent}/import streams it)'));
  }
  /** An iterable whose first step rejects, as a stream that fails would. */
  exportStream(): AsyncIterable<string> {
    const fail = () => Promise.reject(notHere('export (GET /v1/agents/{agent}/export streams it)'));
    return { [Symbol.asyncIterator]: () => ({ next: fail }) };
  }
  importStream(): Promise<ImportProgress> {
    return Promise.reject(notHere('import (POST /v1/agents/{agent}/import streams it)'));
  }
  sweep(): Promise<number> {
    return callAgent(this.#env, this.#agent, 'sweep');
  }
  maintain(): Promise<void> {
    return callAgent(this.#env, this.#agent, 'maintain');
  }
  async close(): Promise<void> {
    // Nothing to close: every call was its own request to the agent's object.
  }
}
