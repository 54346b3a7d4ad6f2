/** `EdgememSaver`: LangGraph's `BaseCheckpointSaver` over any `MemoryStore` (local or `connect()`), channel values stored once per version. */
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
} from '@langchain/langgraph-checkpoint';
import { EdgememError } from '../api/errors.js';
import type { ChannelBlob, Condition, MemoryStore, Checkpoint as StoredCheckpoint } from '../api/types.js';
import { takesJsonText } from '../local/json-text.js';
import { fromStored, type Serialized, toStored, toStoredText } from './serialized.js';

/** Checkpoints a `list` page asks the store for (the store also cuts pages at about 4 MiB). */
const LIST_PAGE = 100;

function missing(what: string, call: string): EdgememError {
  return new EdgememError(
    'INVALID_ARGUMENT',
    `${call}: the config's "configurable" has no "${what}" (pass e.g. { configurable: { thread_id: "my-thread" } })`,
  );
}

/**
 * A LangGraph checkpointer over an edgemem store: `new EdgememSaver(await openStore(...))` in-process
 * (Node file, browser OPFS, workerd) or `new EdgememSaver(connect({ url, agent, token }))` against the
 * Worker. Checkpoints map to the store's checkpoints (thread, `checkpoint_ns`, id, parent, metadata),
 * each channel value to a blob stored once per (channel, version), pending writes to the store's writes.
 *
 * Channel versions are made unique per write (`getNextVersion`), so a fork (resuming from an older
 * checkpoint) never reuses a version another branch already stored a value for.
 */
export class EdgememSaver extends BaseCheckpointSaver {
  readonly store: MemoryStore;

  constructor(store: MemoryStore, serde?: SerializerProtocol) {
    super(serde);
    this.store = store;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined) return undefined;
    const checkpointNs = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const checkpointId = getCheckpointId(config) || undefined;
    const stored = await this.store.getCheckpoint(threadId, { checkpointNs, checkpointId });
    return stored === null ? undefined : this.#tuple(stored);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const checkpointNs = config.configurable?.checkpoint_ns as string | undefined;
    const onlyId = config.configurable?.checkpoint_id as string | undefined;
    const { conditions, rest } = splitFilter(options?.filter);
    let remaining = options?.limit ?? Infinity;
    if (remaining <= 0) return;
    let before = options?.before?.configurable?.checkpoint_id as string | undefined;
    for (;;) {
      // The store filters on scalar metadata fields; anything else (objects, arrays) is compared here.
      const pageLimit = rest.length === 0 && onlyId === undefined ? Math.min(remaining, LIST_PAGE) : LIST_PAGE;
      const page = await this.store.listCheckpointsPage({
        threadId,
        checkpointNs,
        before,
        limit: pageLimit,
        filter: conditions,
      });
      for (const stored of page.checkpoints) {
        if (onlyId !== undefined && stored.checkpointId !== onlyId) continue;
        const tuple = await this.#tuple(stored);
        if (!rest.every(([key, value]) => deepEqual(tuple.metadata?.[key as keyof CheckpointMetadata], value)))
          continue;
        yield tuple;
        remaining -= 1;
        if (remaining <= 0) return;
      }
      if (page.nextBefore === null) return;
      before = page.nextBefore;
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined) throw missing('thread_id', 'EdgememSaver.put');
    const checkpointNs = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const { channel_values: values, ...skeleton } = copyCheckpoint(checkpoint);
    const blobs: ChannelBlob[] = [];
    for (const [channel, version] of Object.entries(newVersions)) {
      if (!Object.hasOwn(values, channel)) continue;
      blobs.push({ channel, version: String(version), data: await this.#dump(values[channel]) });
    }
    await this.store.putCheckpoint({
      threadId,
      checkpointNs,
      checkpointId: checkpoint.id,
      parentId: (config.configurable?.checkpoint_id as string | undefined) ?? null,
      data: await this.#dump(skeleton),
      metadata: jsonObject(toStored(await this.serde.dumpsTyped(metadata)), 'metadata'),
      channelVersions: Object.fromEntries(Object.entries(skeleton.channel_versions).map(([c, v]) => [c, String(v)])),
      blobs,
    });
    return { configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (threadId === undefined) throw missing('thread_id', 'EdgememSaver.putWrites');
    if (checkpointId === undefined) throw missing('checkpoint_id', 'EdgememSaver.putWrites');
    if (writes.length === 0) return;
    // The store applies LangGraph's rule: a task's regular writes are kept as first stored, the special
    // channels' (error, interrupt, resume, scheduled) take WRITES_IDX_MAP's index and replace.
    const pairs: [string, Serialized][] = [];
    for (const [channel, value] of writes) pairs.push([channel, await this.#dump(value)]);
    await this.store.putWrites({
      threadId,
      checkpointNs: (config.configurable?.checkpoint_ns as string | undefined) ?? '',
      checkpointId,
      taskId,
      writes: pairs,
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.store.deleteThread(threadId);
  }

  /**
   * The next integer with a random fraction (the role of the random suffix of LangGraph's Postgres
   * saver's string versions, kept a number so the saver types as every other): versions still grow
   * (`floor(current) + 1 + r > current`), and two branches of a thread, forked from one checkpoint, do
   * not make the same version of a channel, whose blob the first would otherwise keep.
   */
  override getNextVersion(current: number | undefined): number {
    return Math.floor(current ?? 0) + 1 + Math.floor(Math.random() * 2 ** 20) / 2 ** 21;
  }

  /**
   * A value as a store payload: JSON text handed on as it is to a store that takes it (an in-process
   * one: `JsonText`, typed as the data it stands for), else the parsed JSON or the bytes.
   */
  async #dump(value: unknown): Promise<Serialized> {
    const typed = await this.serde.dumpsTyped(value);
    if ((this.store as { [takesJsonText]?: boolean })[takesJsonText] === true)
      return toStoredText(this.serde, typed) as Serialized;
    return toStored(typed);
  }

  async #tuple(stored: StoredCheckpoint): Promise<CheckpointTuple> {
    const skeleton = (await fromStored(this.serde, stored.data)) as Omit<Checkpoint, 'channel_values'>;
    const byVersion = new Map(stored.blobs.map((b) => [`${b.channel}\u0000${b.version}`, b.data]));
    const channelValues: Record<string, unknown> = {};
    for (const [channel, version] of Object.entries(skeleton.channel_versions ?? {})) {
      const data = byVersion.get(`${channel}\u0000${String(version)}`);
      if (data !== undefined) channelValues[channel] = await fromStored(this.serde, data);
    }
    const checkpoint: Checkpoint = { ...skeleton, channel_values: channelValues };
    const { threadId, checkpointNs, parentId } = stored;
    if (checkpoint.v < 4 && parentId !== null)
      await this.#migratePendingSends(checkpoint, threadId, checkpointNs, parentId);
    const pendingWrites: CheckpointPendingWrite[] = [];
    for (const w of stored.pendingWrites)
      pendingWrites.push([w.taskId, w.channel, await fromStored(this.serde, w.value)]);
    const tuple: CheckpointTuple = {
      config: {
        configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: stored.checkpointId },
      },
      checkpoint,
      metadata: (await fromStored(this.serde, stored.metadata)) as CheckpointMetadata,
      pendingWrites,
    };
    if (parentId !== null)
      tuple.parentConfig = {
        configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: parentId },
      };
    return tuple;
  }

  /** Checkpoints before format v4 kept pending sends as the parent's writes to TASKS: move them into the channel. */
  async #migratePendingSends(
    checkpoint: Checkpoint,
    threadId: string,
    checkpointNs: string,
    parentId: string,
  ): Promise<void> {
    const parent = await this.store.getCheckpoint(threadId, { checkpointNs, checkpointId: parentId });
    const sends: unknown[] = [];
    for (const w of parent?.pendingWrites ?? [])
      if (w.channel === TASKS) sends.push(await fromStored(this.serde, w.value));
    checkpoint.channel_values[TASKS] = sends;
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }
}

/** A `list` filter as the store's equality conditions (scalar values) and the pairs compared here (the rest). */
function splitFilter(filter: Record<string, unknown> | undefined): {
  conditions: Condition[];
  rest: [string, unknown][];
} {
  const conditions: Condition[] = [];
  const rest: [string, unknown][] = [];
  for (const [field, value] of Object.entries(filter ?? {})) {
    if (
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      conditions.push({ field, op: 'eq', value });
    } else {
      rest.push([field, value]);
    }
  }
  return { conditions, rest };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

function jsonObject(data: Serialized, what: string): Record<string, never> {
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Uint8Array) {
    throw new EdgememError('INVALID_ARGUMENT', `EdgememSaver: the serializer must turn ${what} into a JSON object`);
  }
  return data as Record<string, never>;
}
