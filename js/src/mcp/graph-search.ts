/**
 * `search_nodes` over the stored knowledge graph: every entity the reference server finds (its name, type or an
 * observation contains the query, case-insensitively), ranked by the store's relevance search over the entities'
 * text, then up to `extras` entities the search finds that hold no such substring (other word orders, a few of
 * the words) — so the first results are exactly the reference's, best first. The search is the store's default
 * for a text query: lexical (BM25) today; hybrid once the store embeds text itself.
 */

import type { MemoryStore } from '../api/types.js';
import type { Entity, Graph, GraphLayout, Stored } from './graph-layout.js';

/** How many hits the relevance search is asked for: the remote store's maximum `k`. */
const SEARCH_K = 100;

export async function searchGraph(
  store: MemoryStore,
  layout: GraphLayout,
  query: string,
  extras: number,
): Promise<Graph> {
  const [entities, relations, ranks] = await Promise.all([
    layout.allEntities(store),
    layout.allRelations(store),
    relevanceRanks(store, layout, query),
  ]);
  const q = query.toLowerCase();
  const contains = (e: Entity) =>
    e.name.toLowerCase().includes(q) ||
    e.entityType.toLowerCase().includes(q) ||
    e.observations.some((o) => o.toLowerCase().includes(q));
  const rankOf = (s: Stored<Entity>) => ranks.get(s.key) ?? Number.POSITIVE_INFINITY;

  // Stable sort: entities the search did not rank keep graph order after the ranked ones.
  const found = entities.filter((s) => contains(s.item)).sort((a, b) => rankOf(a) - rankOf(b));
  const more = entities
    .filter((s) => ranks.has(s.key) && !contains(s.item))
    .sort((a, b) => rankOf(a) - rankOf(b))
    .slice(0, extras);
  const result = [...found, ...more].map((s) => s.item);
  const names = new Set(result.map((e) => e.name));
  return {
    entities: result,
    relations: relations.filter((r) => names.has(r.item.from) || names.has(r.item.to)).map((r) => r.item),
  };
}

/** Entity key → rank (0 best) in the store's relevance search for `query`. */
async function relevanceRanks(store: MemoryStore, layout: GraphLayout, query: string): Promise<Map<string, number>> {
  const ranks = new Map<string, number>();
  if (query.trim() === '') return ranks;
  const hits = await store.search({ text: query, namespace: layout.entities, k: SEARCH_K });
  for (const hit of hits) {
    if (hit.namespace.length === layout.entities.length && !ranks.has(hit.key)) ranks.set(hit.key, ranks.size);
  }
  return ranks;
}
