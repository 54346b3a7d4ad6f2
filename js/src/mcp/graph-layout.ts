/**
 * How the MCP knowledge graph (entities, relations) is laid out as edgemem memories.
 *
 * - An entity is the memory `[...root, 'entities'] / key(name)`: value `{ name, entityType, observations }`,
 *   text `name`, `entityType` and the observations on lines of their own (lexical search finds it by any of them).
 * - A relation is the memory `[...root, 'relations'] / key(JSON [from, relationType, to])`: value
 *   `{ from, to, relationType }`, text `from relationType to`.
 * - The key is the name (or the relation's JSON) itself when it is a valid key that does not start with `#`,
 *   else `#` + the SHA-256 of it in hex (names over 256 bytes, with control characters, `.`, `..`, empty).
 * - `metadata.order` keeps the graph's order (the reference server's file order, which its results follow):
 *   the store's seq when the entity or relation was created, plus its index in the call. Updates keep it.
 *
 * Everything here reads and writes through `MemoryStore` only, in batches of at most 100 memories (the remote
 * store's limit per batch), so it works on a local store and on `connect()` alike.
 */

import type { Memory, MemoryInput, MemoryStore, Namespace } from '../api/types.js';

export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

export interface Graph {
  entities: Entity[];
  relations: Relation[];
}

/** An entity or relation as stored: with its key, its version (for compare-and-set) and its place in the graph. */
export interface Stored<T> {
  item: T;
  key: string;
  version: number;
  order: number;
}

/** Where the graph lives by default: `['mcp-graph', 'entities']` and `['mcp-graph', 'relations']`. */
export const DEFAULT_GRAPH_NAMESPACE: Namespace = ['mcp-graph'];

/** The remote store takes at most this many memories per batch and per page. */
const BATCH = 100;
const PAGE = 1000;
/** Names longer than this (in UTF-8 bytes) are stored under their hash: keys may hold 512. */
const MAX_READABLE_KEY = 256;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this pattern is for.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export class GraphLayout {
  readonly entities: Namespace;
  readonly relations: Namespace;

  constructor(readonly root: Namespace = DEFAULT_GRAPH_NAMESPACE) {
    this.entities = [...root, 'entities'];
    this.relations = [...root, 'relations'];
  }

  /** The write of `entity` at `order`: new (`ifVersion` 0) or replacing the version read. */
  async entityInput(entity: Entity, order: number, ifVersion: number): Promise<MemoryInput> {
    const value = { name: entity.name, entityType: entity.entityType, observations: [...entity.observations] };
    const text = [entity.name, entity.entityType, ...entity.observations].join('\n');
    return { namespace: this.entities, key: await entityKey(entity.name), value, text, metadata: { order }, ifVersion };
  }

  /** The write of a new relation at `order`. */
  async relationInput(relation: Relation, order: number): Promise<MemoryInput> {
    const value = { from: relation.from, to: relation.to, relationType: relation.relationType };
    const text = `${relation.from} ${relation.relationType} ${relation.to}`;
    return {
      namespace: this.relations,
      key: await relationKey(relation),
      value,
      text,
      metadata: { order },
      ifVersion: 0,
    };
  }

  /** The stored entity of `memory`, or null when the memory is not one (written there by something else). */
  entityOf(memory: Pick<Memory, 'key' | 'value' | 'metadata' | 'version'>): Stored<Entity> | null {
    const v = memory.value;
    if (
      !isObject(v) ||
      typeof v.name !== 'string' ||
      typeof v.entityType !== 'string' ||
      !isStringArray(v.observations)
    )
      return null;
    return { item: { name: v.name, entityType: v.entityType, observations: [...v.observations] }, ...placed(memory) };
  }

  relationOf(memory: Pick<Memory, 'key' | 'value' | 'metadata' | 'version'>): Stored<Relation> | null {
    const v = memory.value;
    if (!isObject(v) || typeof v.from !== 'string' || typeof v.to !== 'string' || typeof v.relationType !== 'string')
      return null;
    return { item: { from: v.from, to: v.to, relationType: v.relationType }, ...placed(memory) };
  }

  /** Every entity, in graph order. */
  async allEntities(store: MemoryStore): Promise<Stored<Entity>[]> {
    return inOrder((await listAll(store, this.entities)).map((m) => this.entityOf(m)));
  }

  /** Every relation, in graph order. */
  async allRelations(store: MemoryStore): Promise<Stored<Relation>[]> {
    return inOrder((await listAll(store, this.relations)).map((m) => this.relationOf(m)));
  }

  /** The entity named `name`, or null. */
  async entity(store: MemoryStore, name: string): Promise<Stored<Entity> | null> {
    const memory = await store.get(this.entities, await entityKey(name));
    const stored = memory ? this.entityOf(memory) : null;
    return stored && stored.item.name === name ? stored : null;
  }

  /** The entities named in `names` that exist (each once), by name. */
  async entitiesNamed(store: MemoryStore, names: Iterable<string>): Promise<Map<string, Stored<Entity>>> {
    const unique = [...new Set(names)];
    const found = await Promise.all(unique.map((name) => this.entity(store, name)));
    const out = new Map<string, Stored<Entity>>();
    for (const stored of found) if (stored) out.set(stored.item.name, stored);
    return out;
  }

  /** Whether the relation exists. */
  async hasRelation(store: MemoryStore, relation: Relation): Promise<boolean> {
    const memory = await store.get(this.relations, await relationKey(relation));
    const stored = memory ? this.relationOf(memory) : null;
    return stored !== null && sameRelation(stored.item, relation);
  }
}

export function sameRelation(a: Relation, b: Relation): boolean {
  return a.from === b.from && a.to === b.to && a.relationType === b.relationType;
}

/** The key of the entity named `name`. */
export function entityKey(name: string): Promise<string> {
  return keyFor(name);
}

/** The key of a relation: its (from, relationType, to) as JSON. */
export function relationKey(relation: Relation): Promise<string> {
  return keyFor(JSON.stringify([relation.from, relation.relationType, relation.to]));
}

async function keyFor(id: string): Promise<string> {
  if (readable(id)) return id;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(id));
  return `#${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function readable(id: string): boolean {
  return (
    id !== '' &&
    id !== '.' &&
    id !== '..' &&
    !id.startsWith('#') &&
    !CONTROL.test(id) &&
    new TextEncoder().encode(id).length <= MAX_READABLE_KEY
  );
}

/** Writes `inputs` in batches of at most 100 (each batch all or nothing). */
export async function putAll(store: MemoryStore, inputs: MemoryInput[]): Promise<void> {
  for (let i = 0; i < inputs.length; i += BATCH) await store.putBatch(inputs.slice(i, i + BATCH));
}

/** Deletes each key of `namespace`, a few at a time; keys already gone are fine. */
export async function deleteAll(store: MemoryStore, namespace: Namespace, keys: string[]): Promise<void> {
  const queue = [...new Set(keys)];
  const worker = async () => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
      try {
        await store.delete(namespace, key);
      } catch (e) {
        if ((e as { code?: unknown }).code !== 'NOT_FOUND') throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
}

/** Every memory directly in `namespace`, page by page. */
async function listAll(store: MemoryStore, namespace: Namespace): Promise<Memory[]> {
  const out: Memory[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await store.list({ prefix: namespace, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    for (const m of page.items) if (m.namespace.length === namespace.length) out.push(m);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

function placed(memory: Pick<Memory, 'key' | 'metadata' | 'version'>): { key: string; version: number; order: number } {
  const order = memory.metadata.order;
  return {
    key: memory.key,
    version: memory.version,
    order: typeof order === 'number' ? order : Number.MAX_SAFE_INTEGER,
  };
}

function inOrder<T>(items: (Stored<T> | null)[]): Stored<T>[] {
  return items.filter((s): s is Stored<T> => s !== null).sort(graphOrder);
}

/** Graph order: by `order`, then by key (two creations that raced for the same order). */
export function graphOrder(a: Stored<unknown>, b: Stored<unknown>): number {
  return a.order - b.order || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string');
}
