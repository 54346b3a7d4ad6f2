/**
 * A one-time import of `@modelcontextprotocol/server-memory`'s `memory.jsonl` (one JSON object a line: `{ type:
 * "entity", name, entityType, observations }` or `{ type: "relation", from, to, relationType }`) into the
 * knowledge graph of a store. Read as that server reads it (blank lines and lines of other types skipped); what
 * the graph already holds is kept (entities by name, relations by all three fields), as `create_entities` and
 * `create_relations` do, so importing twice adds nothing. File order is kept. A line that is not a JSON object, or
 * an entity or relation with fields of the wrong types, is INVALID_ARGUMENT naming its line, and nothing is imported.
 */

import { EdgememError } from '../api/errors.js';
import type { MemoryStore } from '../api/types.js';
import { KnowledgeGraph, type KnowledgeGraphOptions } from './graph.js';
import type { Entity, Relation } from './graph-layout.js';

/** Entities (and relations) created per round trip. */
const CHUNK = 100;

/** Imports the graph of `text` (a `memory.jsonl` file); returns how many entities and relations it created. */
export async function importMemoryJsonl(
  store: MemoryStore,
  text: string,
  options: KnowledgeGraphOptions = {},
): Promise<{ entities: number; relations: number }> {
  const { entities, relations } = parseMemoryJsonl(text);
  const graph = new KnowledgeGraph(store, options);
  const created = { entities: 0, relations: 0 };
  for (let i = 0; i < entities.length; i += CHUNK) {
    created.entities += (await graph.createEntities(entities.slice(i, i + CHUNK))).length;
  }
  for (let i = 0; i < relations.length; i += CHUNK) {
    created.relations += (await graph.createRelations(relations.slice(i, i + CHUNK))).length;
  }
  return created;
}

/** The entities and relations of a `memory.jsonl` text, in file order. */
export function parseMemoryJsonl(text: string): { entities: Entity[]; relations: Relation[] } {
  const entities: Entity[] = [];
  const relations: Relation[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const bad = (why: string) => new EdgememError('INVALID_ARGUMENT', `memory.jsonl line ${i + 1}: ${why}`);
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch (e) {
      throw bad(`not JSON (${(e as Error).message})`);
    }
    if (typeof item !== 'object' || item === null) throw bad('not a JSON object');
    const o = item as Record<string, unknown>;
    if (o.type === 'entity') {
      const { name, entityType, observations } = o;
      if (
        typeof name !== 'string' ||
        typeof entityType !== 'string' ||
        !Array.isArray(observations) ||
        !observations.every((x) => typeof x === 'string')
      ) {
        throw bad('an entity needs a string name and entityType and an array of string observations');
      }
      entities.push({ name, entityType, observations });
    } else if (o.type === 'relation') {
      const { from, to, relationType } = o;
      if (typeof from !== 'string' || typeof to !== 'string' || typeof relationType !== 'string')
        throw bad('a relation needs string from, to and relationType');
      relations.push({ from, to, relationType });
    }
  });
  return { entities, relations };
}
