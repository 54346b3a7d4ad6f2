/** Runs the labelled cases through real stores: put the namespace's facts, `remember` the new one, read the decision. */

/**
 * The prediction of one `remember` answer for case `c`: its decision and the index of its target among the
 * namespace facts (keys f0..fN); a target outside them is -1 (a wrong target, never right).
 * @param {any} r the first `Remembered`
 * @returns {import('./metrics.mjs').Prediction}
 */
export function toPrediction(r) {
  const key = r?.target?.key;
  const m = typeof key === 'string' ? /^f(\d+)$/.exec(key) : null;
  return {
    decision: r.decision,
    target: r.decision === 'new' ? null : m ? Number(m[1]) : -1,
    reason: r.reason,
    similarity: r.target?.similarity ?? r.similarity ?? undefined,
    judged: r.judged ?? false,
  };
}

/** The writes of a case's stored facts into `namespace`. @param {import('./authored/types.mjs').Case} c @param {string[]} namespace */
const factPuts = (c, namespace) => c.namespace_facts.map((text, i) => ({ namespace, key: `f${i}`, value: text, text }));

/**
 * Decisions for every case at every point. Per case one fresh in-memory store (`open()`) with the case's facts
 * put as f0..fN; then, at each point, `remember` (`via: 'remember'`: each point in a namespace of its own,
 * `['coherence', 'p<j>']`, since remember writes; with one point this is the plain protocol) or `assess` (the
 * same decision without the write: all points against the one namespace, the facts put once).
 * @param {import('./authored/types.mjs').Case[]} cases
 * @param {{ name: string, settings: object | null }[]} points
 * @param {{ open: () => Promise<any>, via?: 'remember' | 'assess', onCase?: (done: number) => void }} opts
 * @returns {Promise<{ name: string, settings: object | null, preds: import('./metrics.mjs').Prediction[] }[]>}
 */
export async function evaluatePoints(cases, points, { open, via = 'remember', onCase }) {
  const out = points.map((p) => ({ ...p, preds: /** @type {import('./metrics.mjs').Prediction[]} */ ([]) }));
  for (const [n, c] of cases.entries()) {
    const store = await open();
    try {
      const shared = ['coherence', c.subject];
      if (via === 'assess') await store.putBatch(factPuts(c, shared));
      for (const [j, p] of points.entries()) {
        const settings = p.settings ? { settings: p.settings } : {};
        let res;
        if (via === 'assess') res = await store.assess({ namespace: shared, text: c.fact, ...settings });
        else {
          const namespace = points.length === 1 ? shared : ['coherence', `p${j}`];
          await store.putBatch(factPuts(c, namespace));
          res = await store.remember({ namespace, text: c.fact, ...settings });
        }
        out[j].preds.push(toPrediction(Array.isArray(res) ? res[0] : res));
      }
    } finally {
      await store.close();
    }
    onCase?.(n + 1);
  }
  return out;
}

/** Whether the package's stores have `remember` (the engine side of issue 38 is built into js/dist). */
export async function hasRemember(/** @type {() => Promise<any>} */ open) {
  const store = await open();
  try {
    return typeof store.remember === 'function';
  } finally {
    await store.close();
  }
}
