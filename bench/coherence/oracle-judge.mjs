/**
 * A stand-in judge that answers from the labels (`--judge bench/coherence/oracle-judge.mjs`): not a model, the
 * ceiling any judge can reach through the store's `judge` hook — it is asked only what the rules call uncertain,
 * so its figures show how much of the set the rules leave to a judge at all.
 */
import { loadCases } from './cases.mjs';

export const name = 'oracle (answers from the labels; a ceiling, not a model)';

const cases = loadCases();

/**
 * The labelled answer for a new fact against one stored memory: the case's label when the memory is its target,
 * else `new`. @param {{ fact: string, memory: string }} q
 */
export default function oracle(q) {
  const c = cases.find((c) => c.fact === q.fact && c.namespace_facts.includes(q.memory));
  if (!c || c.label === 'new' || c.target === null) return 'new';
  return c.namespace_facts[c.target] === q.memory ? c.label : 'new';
}
