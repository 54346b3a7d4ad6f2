/** The engine's arguments for a search and the coherence calls: checked, as JSON text, with the vector apart. */

import { argument, invalid, options as opts } from '../api/errors.js';
import { checkFusion } from '../api/fusion.js';
import type { ConsolidateOptions, ContextOptions, RememberFact, SearchQuery } from '../api/types.js';
import * as conv from './conversions.js';

/** A query's JSON and vector (an empty vector stays in the JSON: the engine reports it). */
export function searchArgs(query: SearchQuery) {
  return argument('search', () => {
    if (typeof query !== 'object' || query === null) throw invalid('search takes a query object');
    let vector = conv.f32(query.vector, 'vector');
    const q: Record<string, unknown> = {
      ...query,
      vector: undefined,
      k: conv.optSafe(query.k, 'k'),
      namespace: query.namespace ?? [],
      filter: query.filter ?? [],
      valueFilter: query.valueFilter ?? [],
      offset: conv.optSafe(query.offset, 'offset'),
      asOf: conv.asOfArg(query.asOf),
      validAt: conv.validAtArg(query.validAt),
      fusion: checkFusion(query.fusion),
    };
    if (vector && vector.length === 0) {
      q.vector = [];
      vector = undefined;
    }
    return [JSON.stringify(q), vector] as const;
  });
}

/** A fact's JSON and vector for `remember` / `assess` (`what`). */
export function factArgs(fact: RememberFact, what: string) {
  return argument(what, () => {
    if (typeof fact !== 'object' || fact === null) throw invalid(`${what} takes { namespace, text }`);
    const emb = conv.f32(fact.embedding, 'embedding');
    const { decided, ...rest } = fact;
    const raw: Record<string, unknown> = { ...rest, embedding: emb && emb.length === 0 ? [] : undefined };
    if (decided !== undefined) {
      // The engine takes a decision as flat fields.
      if (typeof decided !== 'object' || decided === null) throw invalid('decided must be { decision, target }');
      raw.decided = decided.decision;
      raw.target = decided.target?.key;
      raw.targetVersion = decided.target?.version;
      raw.reason = decided.reason;
    }
    return [JSON.stringify(raw), emb && emb.length > 0 ? emb : undefined] as const;
  });
}

/** `consolidate`'s options as JSON. */
export function consolidateArgs(options: ConsolidateOptions): string {
  return argument('consolidate', () => {
    const o = opts(options, 'consolidate options');
    return JSON.stringify({ ...o, limit: conv.optSafe(o.limit, 'limit') });
  });
}

/** `context`'s options as JSON, and the query's vector. */
export function contextArgs(options: ContextOptions) {
  return argument('context', () => {
    const o = opts(options, 'context options');
    const vector = conv.f32(o.vector, 'vector');
    return [
      JSON.stringify({
        ...o,
        vector: undefined,
        budget: conv.optSafe(o.budget, 'budget'),
        recent: conv.optSafe(o.recent, 'recent'),
        validAt: conv.validAtArg(o.validAt),
      }),
      vector,
    ] as const;
  });
}
