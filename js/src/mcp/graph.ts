/**
 * The knowledge graph of `@modelcontextprotocol/server-memory` (its `KnowledgeGraphManager`), call for call,
 * over edgemem memories (layout: graph-layout.ts):
 *
 * - creating an entity or a relation that exists (same name; same from, to and type) skips it, and the result
 *   lists what was created; relations may name entities that do not exist;
 * - adding observations to an entity that does not exist fails the whole call (nothing is written) with the
 *   reference's message; contents already present are skipped;
 * - deleting entities deletes every relation from or to them; deleting what does not exist is not an error;
 * - results list entities and relations in graph order (creation order), and `open_nodes` / `search_nodes`
 *   add every relation with at least one end among the entities returned.
 *
 * One difference: the reference adds both copies of a name (or relation) given twice in one create call and
 * then holds two entities of that name; here the first wins, as names are keys.
 *
 * Updates are compare-and-set on the version read (creations must not exist yet), retried a few times when a
 * concurrent writer got there first, so two clients on one remote agent do not lose each other's observations.
 */

import type { MemoryStore } from '../api/types.js';
import {
  DEFAULT_GRAPH_NAMESPACE,
  deleteAll,
  type Entity,
  entityKey,
  type Graph,
  GraphLayout,
  graphOrder,
  putAll,
  type Relation,
  relationKey,
  type Stored,
} from './graph-layout.js';
import { searchGraph } from './graph-search.js';

export interface ObservationAddition {
  entityName: string;
  contents: string[];
}

export interface ObservationDeletion {
  entityName: string;
  observations: string[];
}

export interface AddedObservations {
  entityName: string;
  addedObservations: string[];
}

export interface KnowledgeGraphOptions {
  /** Namespace the graph lives under (default `['mcp-graph']`). */
  namespace?: string[];
  /** How many entities `searchNodes` adds beyond the substring matches (default 10). */
  searchExtras?: number;
}

const ATTEMPTS = 3;

export class KnowledgeGraph {
  readonly layout: GraphLayout;
  private readonly searchExtras: number;

  constructor(
    private readonly store: MemoryStore,
    options: KnowledgeGraphOptions = {},
  ) {
    this.layout = new GraphLayout(options.namespace ?? DEFAULT_GRAPH_NAMESPACE);
    this.searchExtras = options.searchExtras ?? 10;
  }

  /** Creates the entities whose names are new; returns them. */
  createEntities(entities: Entity[]): Promise<Entity[]> {
    return retrying(async () => {
      const taken = new Set(
        (
          await this.layout.entitiesNamed(
            this.store,
            entities.map((e) => e.name),
          )
        ).keys(),
      );
      const created: Entity[] = [];
      for (const e of entities) {
        if (taken.has(e.name)) continue;
        taken.add(e.name);
        created.push({ name: e.name, entityType: e.entityType, observations: [...e.observations] });
      }
      const order = await this.nextOrder();
      await putAll(this.store, await Promise.all(created.map((e, i) => this.layout.entityInput(e, order + i, 0))));
      return created;
    });
  }

  /** Creates the relations that do not exist yet; returns them. */
  createRelations(relations: Relation[]): Promise<Relation[]> {
    return retrying(async () => {
      const keys = await Promise.all(relations.map(relationKey));
      const exists = await Promise.all(relations.map((r) => this.layout.hasRelation(this.store, r)));
      const taken = new Set(keys.filter((_, i) => exists[i]));
      const created: Relation[] = [];
      relations.forEach((r, i) => {
        const key = keys[i] as string;
        if (taken.has(key)) return;
        taken.add(key);
        created.push({ from: r.from, to: r.to, relationType: r.relationType });
      });
      const order = await this.nextOrder();
      await putAll(this.store, await Promise.all(created.map((r, i) => this.layout.relationInput(r, order + i))));
      return created;
    });
  }

  /** Adds the contents each entity does not hold yet; fails (writing nothing) if an entity does not exist. */
  addObservations(additions: ObservationAddition[]): Promise<AddedObservations[]> {
    return retrying(async () => {
      const targets = await this.layout.entitiesNamed(
        this.store,
        additions.map((a) => a.entityName),
      );
      const changed = new Set<Stored<Entity>>();
      const results = additions.map((a) => {
        const stored = targets.get(a.entityName);
        if (!stored) throw new Error(`Entity with name ${a.entityName} not found`);
        const added = a.contents.filter((c) => !stored.item.observations.includes(c));
        stored.item.observations.push(...added);
        if (added.length > 0) changed.add(stored);
        return { entityName: a.entityName, addedObservations: added };
      });
      await this.rewrite(changed);
      return results;
    });
  }

  /** Deletes the entities and every relation from or to them. */
  async deleteEntities(names: string[]): Promise<void> {
    const doomed = new Set(names);
    await deleteAll(this.store, this.layout.entities, await Promise.all([...doomed].map(entityKey)));
    const relations = await this.layout.allRelations(this.store);
    const touching = relations.filter((r) => doomed.has(r.item.from) || doomed.has(r.item.to));
    await deleteAll(
      this.store,
      this.layout.relations,
      touching.map((r) => r.key),
    );
  }

  /** Removes the observations from each entity that exists (entities that do not are skipped). */
  deleteObservations(deletions: ObservationDeletion[]): Promise<void> {
    return retrying(async () => {
      const targets = await this.layout.entitiesNamed(
        this.store,
        deletions.map((d) => d.entityName),
      );
      const changed = new Set<Stored<Entity>>();
      for (const d of deletions) {
        const stored = targets.get(d.entityName);
        if (!stored) continue;
        const kept = stored.item.observations.filter((o) => !d.observations.includes(o));
        if (kept.length === stored.item.observations.length) continue;
        stored.item.observations = kept;
        changed.add(stored);
      }
      await this.rewrite(changed);
    });
  }

  /** Deletes the relations (those that do not exist are skipped). */
  async deleteRelations(relations: Relation[]): Promise<void> {
    await deleteAll(this.store, this.layout.relations, await Promise.all(relations.map(relationKey)));
  }

  async readGraph(): Promise<Graph> {
    const [entities, relations] = await Promise.all([
      this.layout.allEntities(this.store),
      this.layout.allRelations(this.store),
    ]);
    return { entities: entities.map((s) => s.item), relations: relations.map((s) => s.item) };
  }

  /** The entities matching `query`, best first (graph-search.ts), and the relations touching them. */
  searchNodes(query: string): Promise<Graph> {
    return searchGraph(this.store, this.layout, query, this.searchExtras);
  }

  /** The named entities that exist, in graph order, and the relations touching them. */
  async openNodes(names: string[]): Promise<Graph> {
    const [found, relations] = await Promise.all([
      this.layout.entitiesNamed(this.store, names),
      this.layout.allRelations(this.store),
    ]);
    const entities = [...found.values()].sort(graphOrder).map((s) => s.item);
    const open = new Set(found.keys());
    return {
      entities,
      relations: relations.filter((r) => open.has(r.item.from) || open.has(r.item.to)).map((r) => r.item),
    };
  }

  /** Writes entities back over the versions read, keeping their place. */
  private async rewrite(changed: Set<Stored<Entity>>): Promise<void> {
    const inputs = await Promise.all([...changed].map((s) => this.layout.entityInput(s.item, s.order, s.version)));
    await putAll(this.store, inputs);
  }

  /** The order of the next creation: after everything written so far. */
  private async nextOrder(): Promise<number> {
    return (await this.store.seq()) + 1;
  }
}

/** Runs `attempt` again when a compare-and-set lost to a concurrent writer (CONFLICT), a few times at most. */
async function retrying<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'CONFLICT' || i >= ATTEMPTS) throw e;
    }
  }
}
