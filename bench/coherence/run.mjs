#!/usr/bin/env node
/**
 * The `coherence` suite's quality job: every case of cases.jsonl through the npm package's `remember` with the
 * built-in e5 embedder — at the default settings (a fresh in-memory store per case), over a sweep of the
 * settings (the precision / recall curve), six-fold cross-validation of the settings, the embedding-only
 * baseline, and with a judge when one is given. Prints one JSON document (with --json) or a summary.
 *
 *   node bench/coherence/run.mjs [--json] [--quick | --grid quick|full] [--model E5_WEIGHTS] [--cases FILE] [--limit N]
 *     [--cross duplicateSimilarity,supersedeSimilarity,slotUpdates] [--no-sweep]
 *     [--judge FILE.mjs | --judge-url URL --judge-model MODEL]
 */
import * as edgemem from 'edgemem';
import { cosineBaseline } from './baseline.mjs';
import { loadCases } from './cases.mjs';
import { brief, crossValidate } from './crossval.mjs';
import { evaluatePoints, hasRemember } from './decide.mjs';
import { cachedE5 } from './embedder.mjs';
import { coherenceDefaults, gridPoints } from './grid.mjs';
import { judgeFromArgs } from './judge.mjs';
import { mistakes, score } from './metrics.mjs';

const args = process.argv.slice(2);
const flag = (/** @type {string} */ name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick') || flag('--grid') === 'quick';
const log = (/** @type {string} */ m) => console.error(`coherence: ${m}`);
const started = performance.now();

let cases = loadCases(flag('--cases'));
if (flag('--limit')) cases = cases.slice(0, Number(flag('--limit')));
const { embedder, model } = await cachedE5(flag('--model'));
const open = () => edgemem.openStore({ embedder });
if (!(await hasRemember(open))) {
  console.error('coherence: this build of edgemem has no store.remember (issue 38 not built into js/dist)');
  process.exit(1);
}
const defaults = coherenceDefaults(/** @type {any} */ (edgemem));
if (!defaults) throw new Error('no COHERENCE_DEFAULTS in the package or js/src/api/generated/engine.ts');
log(`${cases.length} cases, e5 weights ${model}`);

// 1. The defaults, by the plain protocol: a fresh store per case.
const [plain] = await evaluatePoints(cases, [{ name: 'defaults', settings: null }], { open });
const atDefaults = score(cases, plain.preds);
log(
  `defaults: accuracy ${atDefaults.accuracy}, wrong_fold ${atDefaults.wrong_fold} (${atDefaults.wrong_fold_count}/${atDefaults.new_cases})`,
);

// 2. The sweep (per case one store, `assess` at every point: the same decision without the write) and the
// cross-validation of the settings.
let sweep = null;
if (!args.includes('--no-sweep')) {
  const cross = (flag('--cross') ?? 'duplicateSimilarity,supersedeSimilarity,slotUpdates').split(',');
  const all = gridPoints(defaults, { cross, quick });
  // Points the store refuses (a setting out of its range) are left out, and listed.
  const probe = await open();
  await probe.put({ namespace: ['probe'], key: 'f0', value: 'x', text: 'Ana lives in Porto.' });
  const rejected = [];
  const points = [];
  for (const p of all) {
    try {
      await probe.assess({
        namespace: ['probe'],
        text: 'Ana moved to Lisbon.',
        ...(p.settings ? { settings: p.settings } : {}),
      });
      points.push(p);
    } catch (e) {
      rejected.push({ name: p.name, error: String(/** @type {Error} */ (e).message) });
    }
  }
  await probe.close();
  log(`sweep: ${points.length} points × ${cases.length} cases`);
  const every = Math.max(1, Math.floor(cases.length / 10));
  const evaluated = await evaluatePoints(cases, points, {
    open,
    via: 'assess',
    onCase: (n) => n % every === 0 && log(`sweep: ${n}/${cases.length} cases`),
  });
  // assess at the defaults must decide as remember did in the fresh stores.
  const mismatches = evaluated[0].preds.filter(
    (p, i) => p.decision !== plain.preds[i].decision || p.target !== plain.preds[i].target,
  ).length;
  sweep = {
    cross,
    points: evaluated.length,
    rejected_points: rejected,
    assess_mismatches: mismatches,
    curve: evaluated.map((p) => ({ name: p.name, settings: p.settings, ...brief(score(cases, p.preds)) })),
    cv: crossValidate(cases, evaluated),
  };
  log(`cv: held-out wrong_fold ${JSON.stringify(sweep.cv.held_out.wrong_fold)}`);
}

// 3. With a judge, at the defaults (the judge is asked only what the rules call uncertain).
const judged = await judgeFromArgs(flag);
let judge;
if (judged) {
  const [withJudge] = await evaluatePoints(cases, [{ name: 'defaults + judge', settings: null }], {
    open: () => edgemem.openStore(/** @type {any} */ ({ embedder, judge: judged.judge })),
  });
  judge = {
    measured: true,
    model: judged.name,
    ...brief(score(cases, withJudge.preds)),
    score: score(cases, withJudge.preds),
    judged_decisions: withJudge.preds.filter((p) => p.judged).length,
  };
} else {
  judge = { measured: false, why: 'no model given (--judge FILE.mjs, or --judge-url URL --judge-model MODEL)' };
}

const baseline = await cosineBaseline(cases, embedder);

const out = {
  cases: cases.length,
  labels: Object.fromEntries(
    ['duplicate', 'supersede', 'new'].map((l) => [l, cases.filter((c) => c.label === l).length]),
  ),
  embedder: { id: embedder.id, weights: model },
  defaults,
  at_defaults: { ...brief(atDefaults), score: atDefaults },
  wrong_folds: mistakes(cases, plain.preds).filter((m) => m.label === 'new'),
  mistakes: mistakes(cases, plain.preds),
  sweep,
  judge,
  baseline,
  seconds: Math.round((performance.now() - started) / 100) / 10,
};
embedder.close?.();
if (args.includes('--json')) console.log(JSON.stringify(out));
else {
  console.log(JSON.stringify({ at_defaults: out.at_defaults, cv: sweep?.cv.held_out, judge, baseline }, null, 2));
}
