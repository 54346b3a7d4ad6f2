// @ts-check
/** The coherence harness's own tests: the labelled set loads, and its scoring, sweep and folds add up (no engine). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadCases, parseCases } from './cases.mjs';
import { choose, crossValidate, spread } from './crossval.mjs';
import { evaluatePoints, toPrediction } from './decide.mjs';
import { coherenceDefaults, gridPoints, valuesAround } from './grid.mjs';
import { buildCases, toJsonl } from './make-cases.mjs';
import { isRight, mistakes, score } from './metrics.mjs';

/** @typedef {import('./authored/types.mjs').Case} Case */

/** A tiny case. @returns {Case} */
const mk = (/** @type {Partial<Case>} */ o) => ({
  id: 'x',
  category: 'c',
  namespace_facts: ['a', 'b', 'c'],
  fact: 'a',
  label: 'new',
  target: null,
  near: null,
  fold: 1,
  subject: 's',
  ...o,
});

describe('the labelled set', () => {
  it('is what the authored files give, with ≥ 320 cases, every fold and label', () => {
    const cases = loadCases();
    assert.equal(toJsonl(cases), toJsonl(buildCases()), 'cases.jsonl is stale: run make-cases.mjs');
    assert.ok(cases.length >= 320);
    for (const l of ['duplicate', 'supersede', 'new']) assert.ok(cases.filter((c) => c.label === l).length >= 90);
    for (const k of [1, 2, 3, 4, 5, 6]) assert.ok(cases.filter((c) => c.fold === k).length >= 50);
    for (const c of cases)
      if (c.label !== 'new') assert.notEqual(c.namespace_facts[/** @type {number} */ (c.target)], undefined);
  });

  it('rejects a malformed case with its line', () => {
    const line = (/** @type {object} */ o) => JSON.stringify(mk(o));
    assert.throws(() => parseCases(line({ namespace_facts: ['a', 'b'] })), /line 1.*3 to 8/);
    assert.throws(() => parseCases(line({ label: 'duplicate', target: null })), /target/);
    assert.throws(() => parseCases(line({ label: 'new', target: 0 })), /target/);
    assert.throws(() => parseCases(`${line({})}\n${line({})}`), /line 2.*repeated id/);
    assert.throws(() => parseCases(line({ fold: 7 })), /fold/);
  });
});

describe('scoring', () => {
  const cases = [
    mk({ id: '1', label: 'duplicate', target: 0, category: 'exact' }),
    mk({ id: '2', label: 'duplicate', target: 1, category: 'exact' }),
    mk({ id: '3', label: 'supersede', target: 2, category: 'upd' }),
    mk({ id: '4', label: 'new', category: 'distinct' }),
    mk({ id: '5', label: 'new', category: 'distinct' }),
  ];
  /** @type {import('./metrics.mjs').Prediction[]} */
  const preds = [
    { decision: 'duplicate', target: 0 }, // right
    { decision: 'duplicate', target: 2 }, // wrong target
    { decision: 'supersede', target: 2 }, // right
    { decision: 'supersede', target: 1 }, // a wrong fold
    { decision: 'new', target: null }, // right
  ];

  it('counts precision, recall, the wrong-fold rate and wrong targets', () => {
    const s = score(cases, preds);
    assert.equal(s.accuracy, 0.6);
    assert.deepEqual([s.duplicate.precision, s.duplicate.recall], [0.5, 0.5]);
    assert.deepEqual([s.duplicate.precision_any_target, s.duplicate.recall_any_target], [1, 1]);
    assert.deepEqual([s.supersede.precision, s.supersede.recall], [0.5, 1]);
    assert.equal(s.wrong_fold, 0.5);
    assert.equal(s.wrong_fold_count, 1);
    assert.equal(s.wrong_target, 1);
    assert.equal(s.harmful, 2, 'the wrong target and the wrong fold');
    assert.equal(s.fold_recall, 0.6667);
    assert.deepEqual(s.by_category.exact, { n: 2, right: 1, accuracy: 0.5 });
    assert.deepEqual(s.confusion.new, { duplicate: 0, supersede: 1, new: 1 });
  });

  it('a right decision needs the labelled target; new needs none', () => {
    assert.ok(isRight(cases[0], preds[0]));
    assert.ok(!isRight(cases[1], preds[1]));
    assert.ok(isRight(cases[4], { decision: 'new', target: null }));
    assert.deepEqual(
      mistakes(cases, preds).map((m) => m.id),
      ['2', '4'],
    );
  });

  it('a precision with nothing decided is null, not 0 or NaN', () => {
    const s = score([cases[3]], [{ decision: 'new', target: null }]);
    assert.equal(s.duplicate.precision, null);
    assert.equal(s.wrong_fold, 0);
  });
});

describe('the sweep and cross-validation', () => {
  it('reads the engine defaults from the generated types, and sweeps each setting and the crossed grid', () => {
    const ts = 'export const COHERENCE_DEFAULTS: CoherenceSettings = {"a":0.9,"b":0.8,"on":false,"k":8};';
    assert.equal(coherenceDefaults({ COHERENCE_DEFAULTS: { a: 1 } }).a, 1);
    const d = JSON.parse(/** @type {RegExpExecArray} */ (/=\s*(\{.*\})/.exec(ts))[1]);
    assert.deepEqual(valuesAround(false), [true]);
    assert.ok(valuesAround(0.9).every((v) => v >= 0 && v <= 1 && v !== 0.9));
    assert.deepEqual(valuesAround(8, true), [4, 16]);
    assert.deepEqual(valuesAround(1, true, true), [0.88, 0.94, 0.98], 'an overlap of 1.0 is a threshold');
    const pts = gridPoints(d, { cross: ['a', 'on'], quick: true });
    assert.equal(pts[0].settings, null);
    const keys = pts.map((p) => JSON.stringify(p.settings));
    assert.equal(new Set(keys).size, keys.length, 'points are unique');
    assert.ok(
      pts.some((p) => p.settings?.a === 0.84 && p.settings?.on === true),
      'the crossed grid',
    );
    assert.ok(pts.every((p) => !p.settings || Object.entries(p.settings).every(([k, v]) => d[k] !== v)));
  });

  it('chooses, per fold, the best recall within 2 % wrong folds on the other five, and scores the sixth', () => {
    // 6 folds × (1 duplicate + 10 new). Point A: every duplicate right, one wrong fold in fold 1 only (1/50 = 2 %
    // on training sets holding fold 1: allowed). Point B: every duplicate right but 2 wrong folds per fold (20 %).
    // Point C (defaults): nothing folded.
    const cases = [];
    for (let k = 1; k <= 6; k++) {
      cases.push(mk({ id: `d${k}`, fold: k, label: 'duplicate', target: 0 }));
      for (let j = 0; j < 10; j++) cases.push(mk({ id: `n${k}-${j}`, fold: k }));
    }
    /** @type {(f: (c: Case) => import('./metrics.mjs').Prediction) => import('./metrics.mjs').Prediction[]} */
    const all = (f) => cases.map(f);
    const none = () => ({ decision: /** @type {const} */ ('new'), target: null });
    const points = [
      { name: 'defaults', settings: null, preds: all(none) },
      {
        name: 'A',
        settings: { t: 1 },
        preds: all((c) => (c.label === 'duplicate' || c.id === 'n1-0' ? { decision: 'duplicate', target: 0 } : none())),
      },
      {
        name: 'B',
        settings: { t: 2 },
        preds: all((c) =>
          c.label === 'duplicate' || c.id.endsWith('-0') || c.id.endsWith('-1')
            ? { decision: 'duplicate', target: 0 }
            : none(),
        ),
      },
    ];
    assert.equal(choose(cases, points), 1);
    const cv = crossValidate(cases, points);
    assert.deepEqual(
      cv.folds.map((f) => f.chosen),
      ['A', 'A', 'A', 'A', 'A', 'A'],
    );
    assert.equal(cv.folds[0].held_out.wrong_fold, 0.1);
    assert.equal(cv.held_out.duplicate_recall.mean, 1);
    assert.equal(cv.pooled.wrong_fold_count, 1);
    assert.deepEqual(spread([1, null, 4]), { mean: 2.5, sd: 2.1213, min: 1, max: 4, n: 2 });
  });
});

describe('running cases through a store', () => {
  /** A stand-in store: remember folds the exact same text, else new; with settings `{ sup: true }` supersedes f0. */
  function fakeStore() {
    /** @type {Map<string, { key: string, text: string }[]>} */
    const ns = new Map();
    return {
      closed: false,
      async putBatch(/** @type {any[]} */ ms) {
        for (const m of ms) {
          const k = m.namespace.join('/');
          ns.set(k, [...(ns.get(k) ?? []), { key: m.key, text: m.text }]);
        }
      },
      async assess(/** @type {any} */ input) {
        const mine = ns.get(input.namespace.join('/')) ?? [];
        const same = mine.find((m) => m.text.toLowerCase() === input.text.toLowerCase());
        if (same) return { decision: 'duplicate', target: { key: same.key }, reason: 'same words' };
        if (input.settings?.sup) return { decision: 'supersede', target: { key: 'f0' }, reason: 'forced' };
        return { decision: 'new', target: null, reason: 'distinct' };
      },
      async remember(/** @type {any} */ input) {
        return [await this.assess(input)];
      },
      async close() {
        this.closed = true;
      },
    };
  }

  it('puts f0..fN, remembers the fact, maps the target key back to its index, one store per case', async () => {
    const cases = [
      mk({
        id: '1',
        namespace_facts: ['x', 'Ana lives in Porto.', 'y'],
        fact: 'ana lives in porto.',
        label: 'duplicate',
        target: 1,
      }),
      mk({ id: '2', namespace_facts: ['p', 'q', 'r'], fact: 's' }),
    ];
    const stores = [];
    const open = async () => {
      const s = fakeStore();
      stores.push(s);
      return s;
    };
    const [d, forced] = await evaluatePoints(
      cases,
      [
        { name: 'defaults', settings: null },
        { name: 'forced', settings: { sup: true } },
      ],
      { open },
    );
    assert.equal(stores.length, 2);
    assert.ok(stores.every((s) => s.closed));
    assert.deepEqual(
      d.preds.map((p) => [p.decision, p.target]),
      [
        ['duplicate', 1],
        ['new', null],
      ],
    );
    assert.deepEqual(
      forced.preds.map((p) => [p.decision, p.target]),
      [
        ['duplicate', 1],
        ['supersede', 0],
      ],
    );
    assert.equal(score(cases, d.preds).accuracy, 1);
    const viaAssess = await evaluatePoints(cases, [{ name: 'forced', settings: { sup: true } }], {
      open,
      via: 'assess',
    });
    assert.deepEqual(viaAssess[0].preds, forced.preds);
  });

  it('a target outside the case facts is a wrong target', () => {
    assert.equal(toPrediction({ decision: 'supersede', target: { key: 'm-00ff' } }).target, -1);
    assert.equal(toPrediction({ decision: 'new' }).target, null);
  });
});
