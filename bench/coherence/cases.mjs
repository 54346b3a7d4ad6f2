/** Loads and checks the labelled set (cases.jsonl): every case well-formed before anything is measured. */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CASES_PATH = fileURLToPath(new URL('./cases.jsonl', import.meta.url));
export const LABELS = /** @type {const} */ (['duplicate', 'supersede', 'new']);
export const FOLDS = [1, 2, 3, 4, 5, 6];

/**
 * The cases of `text` (JSON lines), checked: 3–8 distinct facts, a known label, a target exactly when the label
 * is not `new`, a fold in 1..6, unique ids. Throws with the line number on the first problem.
 * @param {string} text
 * @returns {import('./authored/types.mjs').Case[]}
 */
export function parseCases(text) {
  const ids = new Set();
  return text
    .split('\n')
    .map((line, i) => [line, i + 1])
    .filter(([line]) => String(line).trim())
    .map(([line, n]) => {
      const c = JSON.parse(String(line));
      const bad = (/** @type {string} */ why) => new Error(`cases line ${n} (${c.id ?? '?'}): ${why}`);
      if (typeof c.id !== 'string' || ids.has(c.id)) throw bad('missing or repeated id');
      ids.add(c.id);
      if (typeof c.category !== 'string') throw bad('no category');
      if (typeof c.fact !== 'string' || !c.fact) throw bad('no fact');
      const facts = c.namespace_facts;
      if (!Array.isArray(facts) || facts.length < 3 || facts.length > 8) throw bad('namespace_facts: 3 to 8 facts');
      if (facts.some((f) => typeof f !== 'string' || !f) || new Set(facts).size !== facts.length) {
        throw bad('namespace_facts: non-empty distinct strings');
      }
      if (!LABELS.includes(c.label)) throw bad(`label ${c.label}`);
      const inRange = (/** @type {unknown} */ x) => Number.isInteger(x) && Number(x) >= 0 && Number(x) < facts.length;
      if (c.label === 'new' ? c.target !== null : !inRange(c.target))
        throw bad('target: an index for duplicate / supersede, null for new');
      if (c.near != null && !inRange(c.near)) throw bad('near out of range');
      if (!FOLDS.includes(c.fold)) throw bad('fold: 1..6');
      return c;
    });
}

/** The labelled set from `path` (default: cases.jsonl beside this file). @param {string} [path] */
export const loadCases = (path = CASES_PATH) => parseCases(readFileSync(path, 'utf8'));
