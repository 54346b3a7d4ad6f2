/** The `coherence` section of bench/results/latest.md: the labelled set's figures, the curve, the latency ratios. */

import { table } from '../report/format.mjs';

const pct = (/** @type {number | null | undefined} */ v) => (v == null ? '–' : `${(v * 100).toFixed(1)} %`);
const x2 = (/** @type {number | null | undefined} */ v) => (v == null ? '–' : `${v.toFixed(2)}×`);
const ms = (/** @type {number | null | undefined} */ us) => (us == null ? '–' : `${(us / 1000).toFixed(3)} ms`);
/** @param {{ mean: number | null, sd: number | null } | undefined} s */
const pm = (s) => (s?.mean == null ? '–' : `${pct(s.mean)} ± ${pct(s.sd)}`);

/** The markdown of `c` (the results document's `coherence`). @param {any} c */
export function coherenceMarkdown(c) {
  const out = ['## Coherence (remember)', ''];
  const d = c.at_defaults;
  if (d) {
    out.push(
      `${c.cases} labelled cases (bench/coherence/cases.jsonl: ${c.labels.duplicate} duplicate, ${c.labels.supersede} supersede, ${c.labels.new} new), e5 weights ${c.embedder?.weights}, no model.`,
      '',
    );
    const cv = c.cv?.held_out;
    out.push(
      table(
        ['figure', 'at the defaults', 'cross-validated (held-out fold, mean ± sd)', 'goal'],
        [
          [
            'wrongly folded / superseded distinct facts',
            `${pct(d.wrong_fold)} (${d.wrong_fold_count}/${d.new_cases})`,
            pm(cv?.wrong_fold),
            '≤ 2 %',
          ],
          ['cases folding or closing the wrong memory (any label)', `${d.harmful} of ${d.n}`, '', ''],
          ['duplicate precision', pct(d.duplicate_precision), pm(cv?.duplicate_precision), ''],
          ['duplicate recall', pct(d.duplicate_recall), pm(cv?.duplicate_recall), 'as high as the rules reach'],
          ['supersede precision', pct(d.supersede_precision), pm(cv?.supersede_precision), ''],
          ['supersede recall', pct(d.supersede_recall), pm(cv?.supersede_recall), 'as high as the rules reach'],
          ['accuracy', pct(d.accuracy), pm(cv?.accuracy), ''],
        ],
      ),
      '',
      table(
        ['category', 'cases', 'right'],
        Object.entries(d.by_category).map(([k, v]) => [
          k,
          String(/** @type {any} */ (v).n),
          pct(/** @type {any} */ (v).accuracy),
        ]),
      ),
      '',
    );
  }
  const j = c.judge;
  if (j)
    out.push(
      j.measured
        ? `With a judge (${j.model}): duplicate recall ${pct(j.duplicate_recall)}, supersede precision ${pct(j.supersede_precision)} / recall ${pct(j.supersede_recall)}, wrong folds ${pct(j.wrong_fold)}; ${j.judged_decisions} decisions judged.`
        : `With a judge: not measured (${j.why}).`,
      '',
    );
  const b = c.baseline?.best_accuracy;
  if (b)
    out.push(
      `Embedding similarity alone (two e5 cosine thresholds tuned on the whole set): ${pct(b.accuracy)} right, ${pct(b.wrong_fold)} of distinct facts folded or superseded.`,
      '',
    );
  const l = c.latency;
  if (l)
    out.push(
      table(
        ['operation', 'p50 / p99', 'against', 'ratio p50 (block spread)', 'goal'],
        [
          [
            'remember',
            `${ms(l.remember.p50_us)} / ${ms(l.remember.p99_us)}`,
            `put ${ms(l.put.p50_us)} / ${ms(l.put.p99_us)}`,
            `${x2(l.remember_vs_put.ratio_p50)} (${x2(l.remember_vs_put.min)}–${x2(l.remember_vs_put.max)})`,
            '≤ 2×',
          ],
          [
            'search, validAt: now',
            `${ms(l.search.valid_at_now.p50_us)} / ${ms(l.search.valid_at_now.p99_us)}`,
            `validAt omitted ${ms(l.search.omitted.p50_us)}`,
            `${x2(l.search.now_vs_omitted.ratio_p50)} (${x2(l.search.now_vs_omitted.min)}–${x2(l.search.now_vs_omitted.max)})`,
            '≤ 1.1×',
          ],
          [
            'search, validAt: now',
            '',
            `validAt 'any' ${ms(l.search.valid_at_any.p50_us)}`,
            `${x2(l.search.now_vs_any.ratio_p50)} (${x2(l.search.now_vs_any.min)}–${x2(l.search.now_vs_any.max)})`,
            '≤ 1.1×',
          ],
        ],
      ),
      '',
      `${l.memories} memories in one namespace (a tenth closed in valid time); remember decisions: ${Object.entries(
        l.remember_decisions,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
      '',
    );
  return out.join('\n');
}
