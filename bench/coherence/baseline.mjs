/** The embedding-only baseline: two cosine thresholds tuned on the set itself, no rules (for comparison). */

import { score } from './metrics.mjs';

/** Cosine of two vectors. @param {Float32Array} a @param {Float32Array} b */
function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * Per case the closest stored fact by cosine (passage vectors from `embedder`), then the pair of thresholds
 * (duplicate ≥ tDup > supersede ≥ tSup, else new) with the best accuracy on the whole set — an upper bound for
 * "similarity alone", as the issue describes it — and, separately, the best pair with wrong_fold ≤ 2 %.
 * @param {import('./authored/types.mjs').Case[]} cases
 * @param {import('edgemem').Embedder} embedder
 */
export async function cosineBaseline(cases, embedder) {
  const nearest = [];
  for (const c of cases) {
    const [f, ...stored] = await embedder.embed([c.fact, ...c.namespace_facts], 'passage');
    const sims = stored.map((v) => cosine(f, v));
    const best = sims.indexOf(Math.max(...sims));
    nearest.push({ best, cos: sims[best] });
  }
  /** @param {number} tDup @param {number} tSup */
  const at = (tDup, tSup) =>
    score(
      cases,
      nearest.map(({ best, cos }) => ({
        decision: cos >= tDup ? 'duplicate' : cos >= tSup ? 'supersede' : 'new',
        target: cos >= tSup ? best : null,
      })),
    );
  const ts = Array.from({ length: 41 }, (_, i) => Math.round((0.6 + i * 0.01) * 100) / 100);
  let bestAcc = null;
  let bestSafe = null;
  for (const tDup of ts) {
    for (const tSup of ts.filter((t) => t <= tDup)) {
      const s = at(tDup, tSup);
      const row = {
        t_duplicate: tDup,
        t_supersede: tSup,
        accuracy: s.accuracy,
        wrong_fold: s.wrong_fold,
        fold_recall: s.fold_recall,
        duplicate_recall: s.duplicate.recall,
        supersede_recall: s.supersede.recall,
      };
      if (!bestAcc || (s.accuracy ?? 0) > (bestAcc.accuracy ?? 0)) bestAcc = row;
      if ((s.wrong_fold ?? 1) <= 0.02 && (!bestSafe || (s.fold_recall ?? 0) > (bestSafe.fold_recall ?? 0)))
        bestSafe = row;
    }
  }
  return {
    what: 'closest stored fact by e5 cosine; two thresholds tuned on the whole set (no held-out folds)',
    best_accuracy: bestAcc,
    best_within_2pct: bestSafe,
  };
}
