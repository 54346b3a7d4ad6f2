#!/usr/bin/env node
/**
 * Writes bench/coherence/cases.jsonl from the hand-written cases (authored/*.mjs): adds each subject's
 * background facts, shuffles each namespace with a fixed seed, assigns ids and folds. Deterministic: the same
 * authored files give the same cases.jsonl. `--check` fails (exit 1) when cases.jsonl is not what they give.
 *
 *   node bench/coherence/make-cases.mjs [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { prng } from '../robustness/prng.mjs';
import exact from './authored/exact.mjs';
import negation from './authored/negation.mjs';
import otherEntity from './authored/other-entity.mjs';
import paraphrase from './authored/paraphrase.mjs';
import { BACKGROUND } from './authored/personas.mjs';
import sameTopic from './authored/same-topic.mjs';
import translation from './authored/translation.mjs';
import unrelated from './authored/unrelated.mjs';
import updateCue from './authored/update-cue.mjs';
import updateNocue from './authored/update-nocue.mjs';
import valueDistinct from './authored/value-distinct.mjs';
import valueUpdate from './authored/value-update.mjs';

/** The categories in file order; the key is the case's `category`. */
export const CATEGORIES = {
  exact,
  paraphrase,
  translation,
  value_update: valueUpdate,
  update_cue: updateCue,
  update_nocue: updateNocue,
  negation,
  value_distinct: valueDistinct,
  other_entity: otherEntity,
  same_topic: sameTopic,
  unrelated,
};

const FOLDS = 6;
const MAX_FACTS = 8;
const MIN_FACTS = 3;

/** Fisher–Yates with `rand`, in place. @template T @param {T[]} xs @param {() => number} rand */
function shuffle(xs, rand) {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

/**
 * Every case of the set, in category order.
 * @returns {import('./authored/types.mjs').Case[]}
 */
export function buildCases() {
  const rand = prng(38);
  /** @type {import('./authored/types.mjs').Case[]} */
  const out = [];
  let foldStart = 0;
  for (const [category, authored] of Object.entries(CATEGORIES)) {
    // Folds: round-robin within the category, label by label, so each fold gets its share of every label.
    const order = [...authored.keys()].sort((a, b) => authored[a][1].localeCompare(authored[b][1]) || a - b);
    const fold = new Map(order.map((i, k) => [i, ((foldStart + k) % FOLDS) + 1]));
    foldStart = (foldStart + authored.length) % FOLDS;
    authored.forEach(([subject, label, fact, facts, note], i) => {
      const where = `${category} #${i + 1}`;
      const bg = BACKGROUND[subject];
      if (!bg) throw new Error(`${where}: unknown subject ${subject}`);
      if (!['duplicate', 'supersede', 'new'].includes(label)) throw new Error(`${where}: bad label ${label}`);
      const pool = bg.filter((f) => !facts.includes(f));
      const lo = Math.max(0, MIN_FACTS - facts.length);
      const hi = Math.min(pool.length, MAX_FACTS - facts.length);
      const extra = lo + Math.floor(rand() * (hi - lo + 1));
      const namespace = shuffle([...facts, ...shuffle([...pool], rand).slice(0, extra)], rand);
      if (new Set(namespace).size !== namespace.length) throw new Error(`${where}: a fact twice in the namespace`);
      const anchor = category === 'unrelated' ? null : namespace.indexOf(facts[0]);
      out.push({
        id: `${category}-${String(i + 1).padStart(2, '0')}`,
        category,
        namespace_facts: namespace,
        fact,
        label,
        target: label === 'new' ? null : anchor,
        near: label === 'new' ? anchor : null,
        fold: /** @type {number} */ (fold.get(i)),
        subject,
        ...(note ? { note } : {}),
      });
    });
  }
  return out;
}

/** The cases as JSON lines. @param {import('./authored/types.mjs').Case[]} cases */
export const toJsonl = (cases) => `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = fileURLToPath(new URL('./cases.jsonl', import.meta.url));
  const text = toJsonl(buildCases());
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {}
    if (current !== text) {
      console.error('bench/coherence/cases.jsonl is stale: run node bench/coherence/make-cases.mjs');
      process.exit(1);
    }
  } else {
    writeFileSync(path, text);
    console.error(`wrote ${path}`);
  }
}
