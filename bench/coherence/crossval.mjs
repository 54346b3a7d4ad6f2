/** Cross-validation of the settings: pick on five folds, score the sixth, for each of the six folds. */

import { FOLDS } from './cases.mjs';
import { score } from './metrics.mjs';

/** The hard requirement on distinct facts wrongly folded or superseded, at the settings chosen. */
export const MAX_WRONG_FOLD = 0.02;

/**
 * The point chosen on `cases` (a training set) among `points`: the highest duplicate + supersede recall (right
 * target) with wrong_fold ≤ MAX_WRONG_FOLD; ties go to higher accuracy, then to the earlier point (the defaults
 * come first). With no point within the limit, the one with the fewest wrong folds.
 * @param {import('./authored/types.mjs').Case[]} cases
 * @param {{ preds: import('./metrics.mjs').Prediction[] }[]} points predictions for these cases at each point
 * @returns {number} the index of the chosen point
 */
export function choose(cases, points) {
  const scored = points.map((p, i) => ({ i, s: score(cases, p.preds) }));
  const ok = scored.filter(({ s }) => (s.wrong_fold ?? 0) <= MAX_WRONG_FOLD);
  const pool = ok.length ? ok : [...scored].sort((a, b) => (a.s.wrong_fold ?? 0) - (b.s.wrong_fold ?? 0)).slice(0, 1);
  pool.sort(
    (a, b) => (b.s.fold_recall ?? 0) - (a.s.fold_recall ?? 0) || (b.s.accuracy ?? 0) - (a.s.accuracy ?? 0) || a.i - b.i,
  );
  return pool[0].i;
}

/** Mean, standard deviation, min and max of numbers (nulls left out), rounded. @param {(number | null)[]} xs */
export function spread(xs) {
  const v = /** @type {number[]} */ (xs.filter((x) => x !== null && Number.isFinite(x)));
  if (!v.length) return { mean: null, sd: null, min: null, max: null, n: 0 };
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, v.length - 1));
  const r = (/** @type {number} */ x) => Math.round(x * 10000) / 10000;
  return { mean: r(mean), sd: r(sd), min: r(Math.min(...v)), max: r(Math.max(...v)), n: v.length };
}

/**
 * Six-fold cross-validation over `points` (each with its predictions for every case, in case order): per fold the
 * point chosen on the other five and its scores there and on the held-out fold; the held-out figures as mean ±
 * sd over the folds, and pooled (every case scored once, by the point chosen without it).
 * @param {import('./authored/types.mjs').Case[]} cases
 * @param {{ name: string, settings: object | null, preds: import('./metrics.mjs').Prediction[] }[]} points
 */
export function crossValidate(cases, points) {
  /** @type {import('./metrics.mjs').Prediction[]} */
  const pooled = new Array(cases.length);
  const folds = FOLDS.map((k) => {
    const train = cases.flatMap((c, i) => (c.fold === k ? [] : [i]));
    const test = cases.flatMap((c, i) => (c.fold === k ? [i] : []));
    const pick = (/** @type {number[]} */ idx) => idx.map((i) => cases[i]);
    const chosen = choose(
      pick(train),
      points.map((p) => ({ preds: train.map((i) => p.preds[i]) })),
    );
    for (const i of test) pooled[i] = points[chosen].preds[i];
    const trainScore = score(
      pick(train),
      train.map((i) => points[chosen].preds[i]),
    );
    const testScore = score(
      pick(test),
      test.map((i) => points[chosen].preds[i]),
    );
    return {
      fold: k,
      chosen: points[chosen].name,
      settings: points[chosen].settings,
      train: brief(trainScore),
      held_out: brief(testScore),
    };
  });
  /** @param {(s: ReturnType<typeof brief>) => number | null} f */
  const over = (f) => spread(folds.map((x) => f(x.held_out)));
  return {
    max_wrong_fold: MAX_WRONG_FOLD,
    rule: 'per fold: the point with the highest duplicate + supersede recall (right target) on the other five folds with wrong_fold ≤ 2 % there',
    folds,
    held_out: {
      duplicate_precision: over((s) => s.duplicate_precision),
      duplicate_recall: over((s) => s.duplicate_recall),
      supersede_precision: over((s) => s.supersede_precision),
      supersede_recall: over((s) => s.supersede_recall),
      wrong_fold: over((s) => s.wrong_fold),
      accuracy: over((s) => s.accuracy),
    },
    pooled: brief(score(cases, pooled)),
  };
}

/** The headline figures of a score. @param {ReturnType<typeof score>} s */
export function brief(s) {
  return {
    n: s.n,
    accuracy: s.accuracy,
    duplicate_precision: s.duplicate.precision,
    duplicate_recall: s.duplicate.recall,
    supersede_precision: s.supersede.precision,
    supersede_recall: s.supersede.recall,
    fold_recall: s.fold_recall,
    wrong_fold: s.wrong_fold,
    wrong_fold_count: s.wrong_fold_count,
    new_cases: s.new_cases,
    harmful: s.harmful,
  };
}
