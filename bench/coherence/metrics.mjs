/** Scores decisions against the labels: precision / recall, the wrong-fold rate, per-category accuracy. */

/**
 * What `remember` decided for one case: the decision and the index (into namespace_facts) of the memory it
 * folded into or replaced, or null.
 * @typedef {{ decision: 'duplicate' | 'supersede' | 'new', target: number | null, reason?: string,
 *   similarity?: number, judged?: boolean }} Prediction
 */

/** The share `a / b` rounded to 4 places, or null when `b` is 0. @param {number} a @param {number} b */
export const ratio = (a, b) => (b ? Math.round((a / b) * 10000) / 10000 : null);

/**
 * A prediction is right when its decision is the label's and, for duplicate and supersede, it names the labelled
 * target. @param {import('./authored/types.mjs').Case} c @param {Prediction} p
 */
export const isRight = (c, p) => p.decision === c.label && (c.label === 'new' || p.target === c.target);

/**
 * The figures of `preds` (one per case, same order):
 * - `duplicate` / `supersede`: precision (of the cases so decided, the share labelled so with the right target),
 *   recall (of the cases so labelled, the share decided so with the right target), and the same ignoring targets;
 * - `wrong_fold`: of the cases labelled new, the share decided duplicate or supersede (the safety figure);
 * - `wrong_target`: duplicate / supersede cases decided as labelled but against another stored fact;
 * - `harmful`: every case whose decision folds or closes a memory wrongly — a wrong fold, a wrong target, or the
 *   wrong one of duplicate / supersede (an update folded away as a duplicate loses the new value);
 * - `accuracy`, per-category accuracy, and the confusion matrix (label → decision → count).
 * @param {import('./authored/types.mjs').Case[]} cases
 * @param {Prediction[]} preds
 */
export function score(cases, preds) {
  if (cases.length !== preds.length) throw new Error(`${cases.length} cases but ${preds.length} predictions`);
  /** @type {Record<string, Record<string, number>>} */
  const confusion = {};
  /** @type {Record<string, { n: number, right: number }>} */
  const cats = {};
  let right = 0;
  let wrongTarget = 0;
  let harmful = 0;
  for (const [i, c] of cases.entries()) {
    const p = preds[i];
    confusion[c.label] ??= { duplicate: 0, supersede: 0, new: 0 };
    confusion[c.label][p.decision] = (confusion[c.label][p.decision] ?? 0) + 1;
    cats[c.category] ??= { n: 0, right: 0 };
    const cat = cats[c.category];
    cat.n++;
    if (isRight(c, p)) {
      right++;
      cat.right++;
    } else {
      if (c.label !== 'new' && p.decision === c.label) wrongTarget++;
      if (p.decision !== 'new') harmful++;
    }
  }
  /** @param {'duplicate' | 'supersede'} label */
  const pr = (label) => {
    const labelled = cases.filter((c) => c.label === label).length;
    const decided = preds.filter((p) => p.decision === label).length;
    const hits = cases.filter((c, i) => c.label === label && isRight(c, preds[i])).length;
    const hitsAnyTarget = cases.filter((c, i) => c.label === label && preds[i].decision === label).length;
    return {
      precision: ratio(hits, decided),
      recall: ratio(hits, labelled),
      precision_any_target: ratio(hitsAnyTarget, decided),
      recall_any_target: ratio(hitsAnyTarget, labelled),
      decided,
      labelled,
      right: hits,
    };
  };
  const news = cases.map((c, i) => [c, preds[i]]).filter(([c]) => c.label === 'new');
  const folded = news.filter(([, p]) => p.decision !== 'new');
  const dupSup = cases.filter((c) => c.label !== 'new').length;
  const dupSupRight = cases.filter((c, i) => c.label !== 'new' && isRight(c, preds[i])).length;
  return {
    n: cases.length,
    accuracy: ratio(right, cases.length),
    duplicate: pr('duplicate'),
    supersede: pr('supersede'),
    // Duplicate and supersede together: what cross-validation maximises.
    fold_recall: ratio(dupSupRight, dupSup),
    wrong_fold: ratio(folded.length, news.length),
    wrong_fold_count: folded.length,
    new_cases: news.length,
    wrong_target: wrongTarget,
    harmful,
    harmful_rate: ratio(harmful, cases.length),
    by_category: Object.fromEntries(
      Object.entries(cats).map(([k, v]) => [k, { n: v.n, right: v.right, accuracy: ratio(v.right, v.n) }]),
    ),
    confusion,
  };
}

/**
 * The cases a prediction got wrong, for reading: id, category, label, decision, the facts involved and the
 * engine's reason. @param {import('./authored/types.mjs').Case[]} cases @param {Prediction[]} preds
 */
export function mistakes(cases, preds) {
  return cases
    .map((c, i) => [c, preds[i]])
    .filter(([c, p]) => !isRight(/** @type {any} */ (c), /** @type {any} */ (p)))
    .map(([c, p]) => {
      const cc = /** @type {import('./authored/types.mjs').Case} */ (c);
      const pp = /** @type {Prediction} */ (p);
      return {
        id: cc.id,
        category: cc.category,
        label: cc.label,
        decision: pp.decision,
        fact: cc.fact,
        labelled_target: cc.target === null ? null : cc.namespace_facts[cc.target],
        decided_target: pp.target === null ? null : cc.namespace_facts[pp.target],
        reason: pp.reason ?? null,
        similarity: pp.similarity ?? null,
      };
    });
}
