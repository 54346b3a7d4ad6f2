/** The results document's `coherence` section (latest.json `coherence.*`) from the suite's two jobs' outputs. */

/**
 * `coherence` in latest.json: the labelled set's figures at the default settings (no model), the
 * cross-validated figures, the settings curve, the judge's figures (or why not measured), the embedding-only
 * baseline, the distinct facts wrongly folded, and the latency ratios — null parts for a job that failed.
 * @param {any} q the quality job's output (run.mjs --json), or undefined
 * @param {any} l the latency job's output (latency.mjs --json), or undefined
 */
export function coherence(q, l) {
  if (!q && !l) return null;
  const { score, ...atDefaults } = q?.at_defaults ?? {};
  return {
    cases: q?.cases ?? null,
    labels: q?.labels ?? null,
    embedder: q?.embedder ?? null,
    settings: q?.defaults ?? null,
    at_defaults: q
      ? {
          ...atDefaults,
          duplicate: score.duplicate,
          supersede: score.supersede,
          wrong_target: score.wrong_target,
          harmful: score.harmful,
          by_category: score.by_category,
          confusion: score.confusion,
        }
      : null,
    wrong_folds: q?.wrong_folds ?? null,
    cv: q?.sweep
      ? {
          ...q.sweep.cv,
          points: q.sweep.points,
          rejected_points: q.sweep.rejected_points,
          assess_mismatches: q.sweep.assess_mismatches,
        }
      : null,
    curve: q?.sweep?.curve ?? null,
    judge: q?.judge ?? null,
    baseline: q?.baseline ?? null,
    latency: l ?? null,
    goals: {
      wrong_fold_at_defaults: '≤ 0.02 with no model (hard requirement)',
      with_judge: 'duplicate recall ≥ 0.70, supersede precision ≥ 0.85 with recall ≥ 0.50, wrong_fold ≤ 0.02',
      remember_vs_put_p50: '≤ 2× with 10k memories in the namespace',
      search_valid_at_p50: '≤ 1.1×',
    },
  };
}
